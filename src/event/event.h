/*
 * event: the typed vocabulary of profiling records (event, L1).
 *
 * Both sources (a perf.data file, a live ring buffer) deliver raw
 * perf_event records; this module turns their bytes into typed structs
 * given the attrs that describe them. Decoding never reads outside the
 * record's own bytes and never assumes alignment: variable-length parts
 * (callchain, regs, stack, raw) are pointers into the record, read with
 * the ev_u64() helper.
 *
 * An attr set (struct ev_attrs) holds every event's perf_event_attr
 * (zero-extended to this build's struct), its ids and name, and maps an
 * id to its attr. All attrs of one file must agree on where the id sits
 * (perf's rule), which ev_attrs_finish() checks.
 *
 * Ownership: a decoded struct event borrows the record bytes it came
 * from; it is valid as long as those bytes are.
 */
#ifndef KILN_EVENT_EVENT_H
#define KILN_EVENT_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/vec.h"

/* perf's own record types (>= 64), as written in perf.data files. */
enum {
	EV_HEADER_ATTR = 64,
	EV_HEADER_EVENT_TYPE = 65,
	EV_HEADER_TRACING_DATA = 66,
	EV_HEADER_BUILD_ID = 67,
	EV_FINISHED_ROUND = 68,
	EV_ID_INDEX = 69,
	EV_AUXTRACE_INFO = 70,
	EV_AUXTRACE = 71,
	EV_AUXTRACE_ERROR = 72,
	EV_THREAD_MAP = 73,
	EV_CPU_MAP = 74,
	EV_STAT_CONFIG = 75,
	EV_STAT = 76,
	EV_STAT_ROUND = 77,
	EV_EVENT_UPDATE = 78,
	EV_TIME_CONV = 79,
	EV_HEADER_FEATURE = 80,
	EV_COMPRESSED = 81,
	EV_FINISHED_INIT = 82,
	EV_COMPRESSED2 = 83,
	EV_TYPE_MAX = 96 /* array size for per-type counters */
};

/* The PERF_SAMPLE_* bits this decoder understands; others make the
 * record layout unknowable. */
#define EV_SAMPLE_KNOWN_MASK ((1ULL << 25) - 1)

struct ev_attr {
	struct perf_event_attr attr; /* zero-extended */
	uint32_t file_size;          /* attr.size as found in the file */
	uint64_t *ids;
	size_t nids;
	char *name; /* event name ("cpu-clock"); never NULL after ev_attrs_finish */
};

struct ev_attrs {
	VEC(struct ev_attr) v;
	struct hashmap by_id; /* kernel id -> index in v */
	/* Derived by ev_attrs_finish(): */
	bool sample_id_all;
	int sample_id_pos; /* u64 index of the id in a sample, -1 if none */
	int other_id_pos;  /* u64 index from the END of a non-sample record, -1 */
	size_t trailer_size;
};

void ev_attrs_init(struct ev_attrs *a);
void ev_attrs_release(struct ev_attrs *a);
/* Add an attr copied from 'size' bytes of file data (size 0 means 64);
 * ids are copied too. Returns the new index. */
size_t ev_attrs_add(struct ev_attrs *a, const struct perf_event_attr *attr, uint32_t file_size,
		    const uint64_t *ids, size_t nids);
/* Map one more id to attr 'idx'. */
void ev_attrs_add_id(struct ev_attrs *a, size_t idx, uint64_t id);
/* Check the attrs agree on the id position; fill derived fields and
 * default names. 0, or -EBADMSG (err_last() says why). */
int ev_attrs_finish(struct ev_attrs *a);
/* The attr an id belongs to; with one attr, that attr whatever the id. */
const struct ev_attr *ev_attrs_lookup(const struct ev_attrs *a, uint64_t id);
/* perf's name for an event's type/config ("cycles", "cpu-clock", ...). */
const char *ev_default_name(const struct perf_event_attr *attr, char *tmp, size_t tmplen);

/* The sample_id_all trailer (or the same fields of a sample). */
struct ev_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
	bool has_time; /* false if the attr does not record time */
};

struct ev_sample {
	uint64_t ip, addr, period, stream_id;
	uint64_t callchain_nr;
	const uint8_t *callchain; /* callchain_nr u64 values, unaligned */
	uint32_t raw_size;
	const uint8_t *raw;
	uint64_t branch_nr;
	const uint8_t *branches; /* branch_nr x {from, to, flags} */
	uint64_t user_abi;
	uint64_t user_regs_mask; /* attr.sample_regs_user when user_abi != 0 */
	const uint8_t *user_regs; /* popcount(mask) u64 values, unaligned */
	uint64_t stack_size, stack_dyn_size;
	const uint8_t *stack;
	uint64_t weight, data_src, transaction, phys_addr, cgroup;
	uint64_t data_page_size, code_page_size;
};

struct ev_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	uint8_t build_id[20];
	uint8_t build_id_size; /* 0 unless the MMAP2 carries a build-id */
	const char *filename;  /* NUL-terminated within the record */
};

struct ev_comm {
	uint32_t pid, tid;
	const char *comm; /* NUL-terminated within the record */
	bool exec;
};

struct ev_task { /* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct ev_lost {
	uint64_t id, lost;
};

struct ev_read { /* a thread's counter at its exit (perf record -s) */
	uint32_t pid, tid;
	uint64_t value; /* the read_format's first value, as perf reads it */
};

struct ev_ksymbol { /* a kernel symbol of its own: a BPF program, out-of-line code */
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type; /* PERF_RECORD_KSYMBOL_TYPE_* */
	uint16_t flags;     /* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER: it is gone */
	const char *name;   /* NUL-terminated within the record */
};

struct event {
	uint32_t type; /* PERF_RECORD_* or EV_* */
	uint16_t misc;
	uint16_t size;
	uint64_t offset; /* file offset of the record (for messages) */
	const uint8_t *bytes; /* the whole record, header included */
	const struct ev_attr *attr; /* NULL for records with no known attr */
	struct ev_sample_id sid;
	union {
		struct ev_sample sample;
		struct ev_mmap mmap;
		struct ev_comm comm;
		struct ev_task task;
		struct ev_lost lost;
		struct ev_read read;
		struct ev_ksymbol ksymbol;
	} u;
};

/* Decode the record of 'len' bytes at 'rec' (header included; len must
 * equal the header's size). Kernel record types are decoded fully; other
 * types only get the header fields. 0, or -EBADMSG with err_last() naming
 * the offset and record type. */
int ev_decode(struct event *ev, const uint8_t *rec, size_t len, uint64_t offset,
	      const struct ev_attrs *attrs);

/* Read the i-th unaligned u64 of an array. */
static inline uint64_t ev_u64(const uint8_t *p, size_t i)
{
	uint64_t v;
	__builtin_memcpy(&v, p + i * 8, 8);
	return v;
}

/* A record type's name ("SAMPLE", "MMAP2", "FINISHED_ROUND", ...; "UNKNOWN"). */
const char *ev_type_name(uint32_t type);

/* Callchain context markers (PERF_CONTEXT_*). */
static inline bool ev_is_context(uint64_t ip)
{
	return ip >= (uint64_t)-4095;
}

#endif
