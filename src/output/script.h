/*
 * script: perf script's text, one sample at a time (output, L7).
 *
 * Formats a resolved sample exactly as `perf script` (perf 6.1) prints
 * it, for perf's default field set and for -F field lists (including the
 * "+field" / "-field" forms), so tools built on perf script's text keep
 * working on kiln's. The pipeline resolves everything; this module only
 * formats.
 */
#ifndef KILN_OUTPUT_SCRIPT_H
#define KILN_OUTPUT_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum script_field {
	SF_COMM = 1 << 0,
	SF_PID = 1 << 1,
	SF_TID = 1 << 2,
	SF_CPU = 1 << 3,
	SF_TIME = 1 << 4,
	SF_EVENT = 1 << 5,
	SF_PERIOD = 1 << 6,
	SF_IP = 1 << 7,
	SF_SYM = 1 << 8,
	SF_SYMOFF = 1 << 9,
	SF_DSO = 1 << 10,
	SF_ADDR = 1 << 11,
	SF_TRACE = 1 << 12,
	SF_SRCLINE = 1 << 13,
};

/* One frame of a sample's stack (leaf first), resolved. */
struct script_frame {
	uint64_t ip;     /* the address as recorded */
	uint64_t rel;    /* dso-relative address (link-time vaddr), or ip if no dso */
	const char *sym; /* NULL: no symbol */
	uint64_t symoff;
	const char *dso; /* full path as perf names it ("[kernel.kallsyms]"), NULL: unknown */
	bool kernel;
};

struct script_sample {
	const char *comm;
	uint32_t pid, tid, cpu;
	uint64_t time; /* ns */
	uint64_t period;
	uint64_t addr;
	const char *event;    /* the event's name */
	uint64_t sample_type; /* the attr's PERF_SAMPLE_* bits: what the record has */
	bool has_callchain;   /* print the stack (as perf does with a callchain) */
	const struct script_frame *frames;
	size_t nframes;
};

struct script_opts {
	uint64_t fields;     /* SF_* bits to print */
	bool fields_explicit; /* -F was given */
};

/*
 * Apply a -F spec to *fields: "comm,tid,time" replaces, "+srcline" adds,
 * "-period" removes (perf's forms). 0, or -EINVAL with err_last() naming
 * the unknown field.
 */
int script_fields_parse(const char *spec, uint64_t *fields);
/* perf's default fields for a sample of this sample_type. */
uint64_t script_default_fields(uint64_t sample_type, bool is_tracepoint);
/* Print one sample (its header line and, for callchains, its stack). */
int script_write_sample(FILE *f, const struct script_opts *o, const struct script_sample *s);

#endif
