/*
 * script: perf script's text, one sample at a time (output, L7).
 *
 * Formats a resolved sample exactly as `perf script` (perf 6.1) prints
 * it, for perf's default field set and for -F field lists (including the
 * "+field" / "-field" forms and the "hw:" style type prefixes), so tools
 * built on perf script's text keep working on kiln's. The pipeline
 * resolves everything (threads, maps, symbols, callchains); this module
 * only decides which fields show and how they are laid out.
 *
 * Fields are kept per output type, as perf keeps them: an event's
 * attr.type picks its type (hardware, software, tracepoint, ...), -F
 * without a prefix edits every type, and the first event of each type
 * decides which defaulted fields its samples cannot fill
 * (script_fields_check). Invariants of struct script_fields:
 *  1. fields[t] is what samples of type t print; user_set_fields[t] is the
 *     subset named explicitly on the command line (a missing one is an
 *     error, a missing default is silently dropped).
 *  2. user_unset_fields[t] holds fields removed with "-field", which
 *     callchain handling must not add back.
 */
#ifndef KILN_OUTPUT_SCRIPT_H
#define KILN_OUTPUT_SCRIPT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum script_field {
	SF_COMM = 1 << 0,
	SF_TID = 1 << 1,
	SF_PID = 1 << 2,
	SF_TIME = 1 << 3,
	SF_CPU = 1 << 4,
	SF_EVENT = 1 << 5,
	SF_TRACE = 1 << 6, /* a tracepoint's payload as its print fmt formats it */
	SF_IP = 1 << 7,
	SF_SYM = 1 << 8,
	SF_DSO = 1 << 9,
	SF_ADDR = 1 << 10,
	SF_SYMOFF = 1 << 11,
	SF_SRCLINE = 1 << 12, /* "\n  file:line" after each frame (perf's srcline) */
	SF_PERIOD = 1 << 13,
	SF_BPF_OUTPUT = 1 << 19, /* only so the per-type tables match perf's */
};

/* perf's output types; script_out_type() maps an attr.type to one. */
enum script_out_type {
	SCRIPT_T_HW,
	SCRIPT_T_SW,
	SCRIPT_T_TRACEPOINT,
	SCRIPT_T_HW_CACHE,
	SCRIPT_T_RAW,
	SCRIPT_T_BREAKPOINT,
	SCRIPT_T_SYNTH,
	SCRIPT_T_OTHER, /* dynamic PMUs (attr.type >= PERF_TYPE_MAX) */
	SCRIPT_T_MAX
};

struct script_fields {
	uint64_t fields[SCRIPT_T_MAX];
	uint64_t user_set_fields[SCRIPT_T_MAX];
	uint64_t user_unset_fields[SCRIPT_T_MAX];
	bool user_set[SCRIPT_T_MAX];
	bool wildcard_set[SCRIPT_T_MAX]; /* set by a spec that may name types with no events */
};

/* perf's defaults for every type. */
void script_fields_init(struct script_fields *f);
/*
 * Apply one -F spec, as perf does: "comm,tid,time" replaces every type's
 * fields, "+addr" / "-period" edit them, "sw:comm,ip" applies to one type.
 * 0, or -EINVAL with err_last() holding perf's message ("Invalid field
 * requested.", "Cannot mix +-field with overridden fields", ...).
 */
int script_fields_parse(struct script_fields *f, const char *spec);
/* The output type of an event, and its name in messages ("hardware", ...). */
enum script_out_type script_out_type(uint32_t attr_type);
const char *script_type_name(enum script_out_type t);
/* Add fields to a type unless "-field" removed them (perf: callchains in pipe mode). */
void script_fields_add_default(struct script_fields *f, enum script_out_type t, uint64_t bits);
/* Tracepoints with callchains print ip, sym, symoff and dso unless -F set their fields. */
void script_fields_tracepoint_callchain(struct script_fields *f);
/*
 * perf's check of the first event of a type against its sample_type:
 * defaulted fields the samples cannot fill are dropped; an explicitly
 * requested one is an error. 0, or -ENOTSUP / -EINVAL with perf's message
 * in err_last() ("Samples for 'cycles' event do not have ADDR attribute
 * set. Cannot print 'addr' field.").
 */
int script_fields_check(struct script_fields *f, const struct perf_event_attr *attr,
			const char *evname);

/*
 * perf's name for an event that has no recorded name: the base name from
 * type and config, then modifiers from the exclude bits and precise_ip
 * ("cycles:ppH", "cpu-clock:u", "raw 0x1c2", "L1-dcache-load-misses").
 * Writes at most len bytes (NUL included) to buf and returns buf.
 */
const char *script_event_name(const struct perf_event_attr *attr, char *buf, size_t len);

/* One resolved address: the sample ip, addr, or one callchain entry. */
struct script_frame {
	uint64_t addr;   /* the value a callchain line prints (dso-relative or raw) */
	const char *sym; /* NULL: "[unknown]" */
	uint64_t symoff;
	const char *dso; /* perf's dso name; NULL: "[unknown]" */
	const char *srcline; /* printed on its own line with SF_SRCLINE; NULL: none */
	bool inlined;        /* an inline frame: no dso, " (inlined)" last */
};

struct script_sample {
	const char *comm;
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t time; /* ns */
	uint64_t period;
	uint64_t ip, addr;
	const char *event;
	const char *trace;       /* SF_TRACE: the payload's text (NULL: none) */
	bool has_callchain;      /* the event records callchains */
	struct script_frame at;  /* the sample ip, resolved */
	bool addr_resolved;      /* 'addr' is a code address (page faults): print its symbol */
	struct script_frame addr_at;
	const struct script_frame *frames; /* the callchain, leaf first */
	size_t nframes;
	/* A bpf-output event (offcpu-time) without a payload: with SF_BPF_OUTPUT,
	 * perf 6.1 prints its empty BPF output, a "\n", before the sample's end. */
	bool bpf_output;
};

struct script_opts {
	uint64_t fields;    /* of this sample's type */
	int name_width;     /* event names are right-aligned to this */
	bool use_callchain; /* print callchains (perf: some event records them) */
};

/* Print one sample: its line and, with a callchain, its stack. 0 or -EIO. */
int script_write_sample(FILE *f, const struct script_opts *o, const struct script_sample *s);

#endif
