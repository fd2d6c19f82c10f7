/*
 * perffile: the perf.data format, read and written (source/perffile, L2).
 *
 * Reader: opens a perf.data file (file mode, or a pipe-mode stream stored
 * in a file) or a buffer in memory (perf_reader_open_mem: the fuzzable
 * entry point), parses the header, attrs and feature sections, and hands
 * out records in time order through perf_reader_next(), using perf's
 * FINISHED_ROUND rule: at the end of round n+1, everything up to the
 * newest time seen by the end of round n is sorted and delivered; records
 * without a time are delivered at once; the rest waits for EOF. The queue
 * is bounded (a reorder window); past it the oldest records are delivered
 * early and counted as "reorder overflows".
 *
 * Writer: writes a standard file-mode perf.data that perf itself reads:
 * header, id arrays, attrs, the data records, then the feature sections.
 * It writes to a temporary file in the target directory (mode 0600,
 * O_EXCL) and renames it over the target only when finished, so an
 * interrupted run never leaves a broken file under the real name.
 */
#ifndef KILN_SOURCE_PERFFILE_PERFFILE_H
#define KILN_SOURCE_PERFFILE_PERFFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "event/event.h"

/* Feature ids (HEADER_*) of the sections kiln reads or writes. */
enum perf_feature {
	PERF_FEAT_TRACING_DATA = 1,
	PERF_FEAT_BUILD_ID = 2,
	PERF_FEAT_HOSTNAME = 3,
	PERF_FEAT_OSRELEASE = 4,
	PERF_FEAT_VERSION = 5,
	PERF_FEAT_ARCH = 6,
	PERF_FEAT_NRCPUS = 7,
	PERF_FEAT_CPUDESC = 8,
	PERF_FEAT_CPUID = 9,
	PERF_FEAT_TOTAL_MEM = 10,
	PERF_FEAT_CMDLINE = 11,
	PERF_FEAT_EVENT_DESC = 12,
	PERF_FEAT_CPU_TOPOLOGY = 13,
	PERF_FEAT_NUMA_TOPOLOGY = 14,
	PERF_FEAT_BRANCH_STACK = 15,
	PERF_FEAT_PMU_MAPPINGS = 16,
	PERF_FEAT_GROUP_DESC = 17,
	PERF_FEAT_AUXTRACE = 18,
	PERF_FEAT_STAT = 19,
	PERF_FEAT_CACHE = 20,
	PERF_FEAT_SAMPLE_TIME = 21,
	PERF_FEAT_MEM_TOPOLOGY = 22,
	PERF_FEAT_CLOCKID = 23,
	PERF_FEAT_DIR_FORMAT = 24,
	PERF_FEAT_BPF_PROG_INFO = 25,
	PERF_FEAT_BPF_BTF = 26,
	PERF_FEAT_COMPRESSED = 27,
	PERF_FEAT_CPU_PMU_CAPS = 28,
	PERF_FEAT_CLOCK_DATA = 29,
	PERF_FEAT_HYBRID_TOPOLOGY = 30,
	PERF_FEAT_PMU_CAPS = 31,
	PERF_FEAT_MAX = 256
};

struct perf_build_id {
	int32_t pid;
	uint16_t cpumode;
	uint8_t size;
	uint8_t id[20];
	char *filename;
};

/* One event of the EVENT_DESC feature, as perf describes it. */
struct perf_ev_desc {
	struct perf_event_attr attr; /* the section's bytes, cut or zero-extended to ours */
	char *name;
	uint64_t *ids;
	size_t nids;
};

struct perf_pmu_map { /* PMU_MAPPINGS: a PMU's attr.type */
	uint32_t type;
	char *name;
};

struct perf_group_desc { /* GROUP_DESC: events leader_idx .. + nr_members - 1 */
	char *name;
	uint32_t leader_idx, nr_members;
};

struct perf_pmu_caps { /* CPU_PMU_CAPS (pmu_name NULL) and PMU_CAPS */
	char *pmu_name;
	char **caps; /* "name=value" */
	size_t ncaps;
};

/* What the header and feature sections say. Strings are NULL if absent. */
struct perf_header_info {
	bool pipe_mode;
	uint64_t features[4]; /* the feature bitmap */
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	char **cmdline; /* cmdline_n strings */
	size_t cmdline_n;
	struct perf_build_id *build_ids;
	size_t nbuild_ids;
	uint64_t data_offset, data_size;
	/* The rest of what perf's header listing shows (kiln script --header): */
	uint64_t parsed[4]; /* features whose section was read without error */
	struct perf_ev_desc *event_desc;
	size_t nevent_desc;
	struct perf_pmu_map *pmu_maps;
	size_t npmu_maps;
	struct perf_group_desc *groups;
	size_t ngroups;
	uint64_t first_sample_time, last_sample_time; /* SAMPLE_TIME */
	uint64_t clockid_res_ns;                      /* CLOCKID */
	uint32_t clock_clockid;                       /* CLOCK_DATA */
	uint64_t clock_tod_ns, clock_clockid_ns;
	uint32_t comp_ver, comp_type, comp_level, comp_ratio, comp_mmap_len; /* COMPRESSED */
	struct perf_pmu_caps cpu_pmu_caps;
	struct perf_pmu_caps *pmu_caps;
	size_t npmu_caps;
	uint32_t nbpf_progs; /* BPF_PROG_INFO: only counted */
	uint32_t *btf_ids;   /* BPF_BTF: ids in file order */
	size_t nbtf_ids;
	/* TRACING_DATA: the feature section (file) or the HEADER_TRACING_DATA
	 * record's payload (pipe), copied; the first one read wins. */
	uint8_t *tracing_data;
	size_t tracing_data_len;
	uint64_t tracing_data_off; /* its offset in the file or stream */
};

/* Counters the reader keeps while it reads. */
struct perf_reader_stats {
	uint64_t records[EV_TYPE_MAX]; /* by type (types >= EV_TYPE_MAX count as unknown) */
	uint64_t unknown_records;
	uint64_t out_of_order;      /* records older than what was already delivered */
	uint64_t reorder_overflows; /* records delivered early: the window was full */
	uint64_t bytes;             /* record bytes read */
};

struct perf_reader;

/* Cap on a TRACING_DATA blob kiln keeps (perf's are a few KiB to tens of MiB). */
#define PERF_TRACING_DATA_MAX (512u << 20)

struct perf_reader_opts {
	size_t reorder_window; /* bytes of records the time-order queue may hold; 0: default 256 MiB */
	/* Pipe mode: called when a HEADER_FEATURE record has been read into
	 * perf_reader_info() (ok: its data parsed), as the record is read,
	 * ahead of records still queued for time order. */
	void (*on_feature)(void *arg, unsigned feat, bool ok);
	void *on_feature_arg;
};

/* Open 'path' ("-" is not yet supported). 0 or -errno; on -EBADMSG,
 * err_last() says what and where. */
int perf_reader_open(struct perf_reader **out, const char *path, const struct perf_reader_opts *o);
/* Read from memory (borrowed; must outlive the reader). 'name' is used in messages. */
int perf_reader_open_mem(struct perf_reader **out, const void *data, size_t len, const char *name,
			 const struct perf_reader_opts *o);
void perf_reader_free(struct perf_reader *r);

const struct ev_attrs *perf_reader_attrs(const struct perf_reader *r);
const struct perf_header_info *perf_reader_info(const struct perf_reader *r);
const struct perf_reader_stats *perf_reader_stats(const struct perf_reader *r);

/*
 * The next record in time order, with its decoded fields. Returns 1 and
 * fills *ev; 0 at the end; or a negative errno when the rest of the data
 * cannot be read (truncated or corrupt: err_last() names the offset and
 * record type). After an error, the records queued before it are still
 * delivered by further calls, which then return the same error again.
 * FINISHED_ROUND and other bookkeeping records are consumed internally.
 * *ev is valid until the next call.
 */
int perf_reader_next(struct perf_reader *r, struct event *ev);
/* True once the data ended early (error or truncation): results are partial. */
bool perf_reader_partial(const struct perf_reader *r);
/* Why the data ended early: the report saved when it happened (empty msg if not partial). */
const struct err_report *perf_reader_error(const struct perf_reader *r);

/* ---- writer ---- */

struct perf_writer;

/* Create the temporary file beside 'path'. 0 or -errno (err_last() says why). */
int perf_writer_open(struct perf_writer **out, const char *path);
/* Declare an event (before the first record): its attr, name and ids. */
void perf_writer_add_attr(struct perf_writer *w, const struct perf_event_attr *attr,
			  const char *name, const uint64_t *ids, size_t nids);
/* Append one record (its header's size must equal len). 0 or -errno. */
int perf_writer_write(struct perf_writer *w, const void *rec, size_t len);
/* Write the id arrays, attrs and features (from 'info': hostname,
 * osrelease, version, arch, nrcpus, cmdline, build-ids, plus event_desc
 * from the attrs), rewrite the header, fsync, and rename over the target
 * (a non-empty regular file there is first kept as TARGET.old).
 * Frees w. 0 or -errno. When the data itself could not all be written,
 * the whole records that were are kept as by perf_writer_salvage and
 * *kept says how many bytes (UINT64_MAX: nothing kept, the temporary file
 * was removed). */
int perf_writer_finish(struct perf_writer *w, const struct perf_header_info *info, uint64_t *kept);
/* After a write error (disk full, file size limit): keep what was fully
 * written. Rewrites the header to cover the whole records that reached
 * the file (no feature sections), cuts the file there and renames it
 * into place; *kept gets the data bytes kept. Frees w. 0, or -errno when
 * nothing could be kept (the temporary file is then removed). */
int perf_writer_salvage(struct perf_writer *w, uint64_t *kept);
/* Give up: remove the temporary file and free w. */
void perf_writer_abort(struct perf_writer *w);

void perf_header_info_release(struct perf_header_info *h);

#endif
