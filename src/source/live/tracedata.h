/*
 * tracedata: the TRACING_DATA blob for a recording's tracepoints
 * (source/live, L2).
 *
 * Built from tracefs (/sys/kernel/tracing, else /sys/kernel/debug/tracing)
 * the way perf record builds it, so perf and kiln can print the events'
 * payloads later: magic "\x17\x08\x44tracing", version "0.6", host
 * endianness, long size and page size, header_page and header_event, no
 * ftrace formats, the format file of every recorded tracepoint grouped by
 * system, an empty kallsyms, the printk formats, no saved cmdlines.
 */
#ifndef KILN_SOURCE_LIVE_TRACEDATA_H
#define KILN_SOURCE_LIVE_TRACEDATA_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The blob for the tracepoint attrs among attrs[0..n) (attr.type
 * PERF_TYPE_TRACEPOINT, attr.config its id). *out is NULL when there are
 * none. 0, or -errno with err_last() naming the tracefs file that failed.
 */
int live_tracing_data(const struct perf_event_attr *attrs, size_t n, uint8_t **out, size_t *len);

/* The names in a directory but "." and "..", sorted (deterministic order);
 * NULL (and *n 0) when it cannot be read. Free with live_list_free. */
char **live_list_dir(const char *path, size_t *n);
void live_list_free(char **v, size_t n);

#endif
