/*
 * tracefmt: tracepoint formats and their text (tracefmt, L1).
 *
 * perf.data files with tracepoint events carry the kernel's event
 * formats in the TRACING_DATA blob (a file's feature section, or a pipe's
 * HEADER_TRACING_DATA record payload): the "\x17\x08\x44tracing" magic,
 * a version string, endianness, long size and page size, header_page and
 * header_event, the ftrace formats, one format file per event (grouped by
 * system: "name:", "ID:", "format:" with one "field:" line per field,
 * "print fmt:"), a copy of /proc/kallsyms and the printk formats.
 *
 * tracefmt_parse() reads the blob (a parser of file bytes: every length
 * is checked against the bytes present, errors name the file offset);
 * tracefmt_print() formats one PERF_SAMPLE_RAW payload as perf 6.1's
 * `perf script` does it through its copy of libtraceevent: the print
 * fmt's format string evaluated against the payload (REC->field, casts,
 * arithmetic, ternaries, __get_str, __print_flags, __print_symbolic,
 * __print_hex, __print_array, __get_bitmask, %ps through a kernel symbol
 * resolver the caller gives...). An
 * event whose print fmt cannot be parsed (an unknown helper function,
 * say) prints "[FAILED TO PARSE]" and then " name=value" for every field,
 * as perf does.
 *
 * Everything is bounded: at most TRACEFMT_MAX_EVENTS events, expressions
 * nest at most 64 deep, and printing reads only inside the payload.
 */
#ifndef KILN_TRACEFMT_TRACEFMT_H
#define KILN_TRACEFMT_TRACEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define TRACEFMT_MAX_EVENTS 100000

struct tracefmt;
struct tracefmt_event;

/*
 * Parse a TRACING_DATA blob of 'len' bytes at file offset 'off' (for
 * messages). 0, or -EBADMSG with err_last() naming the offset and what
 * was wrong. Event formats that do not parse are left out (their events
 * then print no trace text); print fmts that do not parse mark the event
 * failed, as perf does.
 */
int tracefmt_parse(struct tracefmt **out, const uint8_t *blob, size_t len, uint64_t off);
void tracefmt_free(struct tracefmt *t);

/*
 * Kernel symbols for %ps / %pS: perf resolves them through its own
 * kernel map (the blob's kallsyms copy is not used). fn returns the name
 * of the symbol covering addr and sets *start, or NULL.
 */
typedef const char *(*tracefmt_resolve_fn)(void *arg, uint64_t addr, uint64_t *start);
void tracefmt_set_resolver(struct tracefmt *t, tracefmt_resolve_fn fn, void *arg);

/* The event with this id (a tracepoint attr's config), or NULL. */
const struct tracefmt_event *tracefmt_find(const struct tracefmt *t, uint64_t id);
/* Its system and name ("sched", "sched_switch"). */
const char *tracefmt_event_system(const struct tracefmt_event *e);
const char *tracefmt_event_name(const struct tracefmt_event *e);
/* True when its print fmt did not parse (it prints "[FAILED TO PARSE]" and fields). */
bool tracefmt_event_failed(const struct tracefmt_event *e);
/* Number of events parsed, and the i-th (in id order). */
size_t tracefmt_nevents(const struct tracefmt *t);
const struct tracefmt_event *tracefmt_event_at(const struct tracefmt *t, size_t i);
/* Its id. */
uint32_t tracefmt_event_id(const struct tracefmt_event *e);
size_t tracefmt_event_nfields(const struct tracefmt_event *e);
/* Field i (< nfields; common fields first): its name, type text as the
 * format spells it ("const char *"), offset and size in the payload. */
void tracefmt_event_field(const struct tracefmt_event *e, size_t i, const char **name,
			  const char **type, uint32_t *offset, uint32_t *size);

/*
 * Append the text of one raw payload of event e to 'out', as perf script
 * prints it after the event name. A payload shorter than a field leaves
 * that field's value 0, as libtraceevent does. Returns 0, or -E2BIG when
 * 'out' reached its ceiling (the text is then cut).
 */
int tracefmt_print(const struct tracefmt *t, const struct tracefmt_event *e, const uint8_t *raw,
		   size_t len, struct buf *out);

/*
 * Parse one event format file's text (as in /sys/kernel/tracing/events/
 * S/E/format) into a standalone set holding that event, with the given
 * system, the host's endianness and long size, and no kallsyms. For tests
 * and tools. 0, or -EBADMSG (err_last() says why).
 */
int tracefmt_parse_format(struct tracefmt **out, const char *system, const char *text, size_t len);

#endif
