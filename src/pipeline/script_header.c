/*
 * script_header: the perf.data header listing of `kiln script --header`
 * (pipeline, L8), as perf 6.1 prints it: perf_header__fprintf_info, the
 * print_* function of each feature and perf_event_attr__fprintf for the
 * event lines, byte for byte. The formats follow perf's output on real
 * files; where perf prints a value it never read (a section it failed to
 * parse), we print what perf would: "(null)", zeros, or its "not
 * available" line.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "pipeline/script_int.h"

/* perf 6.1's HEADER_LAST_FEATURE: features past it are neither listed nor missing. */
#define LAST_FEATURE 32

static const char *const feat_names[LAST_FEATURE] = {
	[1] = "TRACING_DATA",	 [2] = "BUILD_ID",	   [3] = "HOSTNAME",
	[4] = "OSRELEASE",	 [5] = "VERSION",	   [6] = "ARCH",
	[7] = "NRCPUS",		 [8] = "CPUDESC",	   [9] = "CPUID",
	[10] = "TOTAL_MEM",	 [11] = "CMDLINE",	   [12] = "EVENT_DESC",
	[13] = "CPU_TOPOLOGY",	 [14] = "NUMA_TOPOLOGY",   [15] = "BRANCH_STACK",
	[16] = "PMU_MAPPINGS",	 [17] = "GROUP_DESC",	   [18] = "AUXTRACE",
	[19] = "STAT",		 [20] = "CACHE",	   [21] = "SAMPLE_TIME",
	[22] = "MEM_TOPOLOGY",	 [23] = "CLOCKID",	   [24] = "DIR_FORMAT",
	[25] = "BPF_PROG_INFO",	 [26] = "BPF_BTF",	   [27] = "COMPRESSED",
	[28] = "CPU_PMU_CAPS",	 [29] = "CLOCK_DATA",	   [30] = "HYBRID_TOPOLOGY",
	[31] = "PMU_CAPS",
};

static bool bit(const uint64_t *set, unsigned feat)
{
	return (set[feat / 64] >> (feat % 64)) & 1;
}

/* glibc prints a NULL string as "(null)"; perf passes its unset strings on. */
static const char *str(const char *s)
{
	return s ? s : "(null)";
}

/* ---- event lines: perf_event_attr__fprintf ---- */

struct bit_name {
	uint64_t bit;
	const char *name;
};

/*
 * The bit names perf 6.1 knows, in its printing order (not bit order;
 * TRANSACTION, bit 17, has no name there); unknown bits print nothing.
 */
static const struct bit_name sample_type_names[] = {
	{ 1ULL << 0, "IP" },
	{ 1ULL << 1, "TID" },
	{ 1ULL << 2, "TIME" },
	{ 1ULL << 3, "ADDR" },
	{ 1ULL << 4, "READ" },
	{ 1ULL << 5, "CALLCHAIN" },
	{ 1ULL << 6, "ID" },
	{ 1ULL << 7, "CPU" },
	{ 1ULL << 8, "PERIOD" },
	{ 1ULL << 9, "STREAM_ID" },
	{ 1ULL << 10, "RAW" },
	{ 1ULL << 11, "BRANCH_STACK" },
	{ 1ULL << 12, "REGS_USER" },
	{ 1ULL << 13, "STACK_USER" },
	{ 1ULL << 16, "IDENTIFIER" },
	{ 1ULL << 18, "REGS_INTR" },
	{ 1ULL << 15, "DATA_SRC" },
	{ 1ULL << 14, "WEIGHT" },
	{ 1ULL << 19, "PHYS_ADDR" },
	{ 1ULL << 20, "AUX" },
	{ 1ULL << 21, "CGROUP" },
	{ 1ULL << 22, "DATA_PAGE_SIZE" },
	{ 1ULL << 23, "CODE_PAGE_SIZE" },
	{ 1ULL << 24, "WEIGHT_STRUCT" },
	{ 0, NULL },
};

static const struct bit_name branch_names[] = {
	{ 1ULL << 0, "USER" },	   { 1ULL << 1, "KERNEL" },	  { 1ULL << 2, "HV" },
	{ 1ULL << 3, "ANY" },	   { 1ULL << 4, "ANY_CALL" },	  { 1ULL << 5, "ANY_RETURN" },
	{ 1ULL << 6, "IND_CALL" }, { 1ULL << 7, "ABORT_TX" },	  { 1ULL << 8, "IN_TX" },
	{ 1ULL << 9, "NO_TX" },	   { 1ULL << 10, "COND" },	  { 1ULL << 11, "CALL_STACK" },
	{ 1ULL << 12, "IND_JUMP" }, { 1ULL << 13, "CALL" },	  { 1ULL << 14, "NO_FLAGS" },
	{ 1ULL << 15, "NO_CYCLES" }, { 1ULL << 16, "TYPE_SAVE" }, { 1ULL << 17, "HW_INDEX" },
	{ 1ULL << 18, "PRIV_SAVE" }, { 0, NULL },
};

static const struct bit_name read_format_names[] = {
	{ 1ULL << 0, "TOTAL_TIME_ENABLED" },
	{ 1ULL << 1, "TOTAL_TIME_RUNNING" },
	{ 1ULL << 2, "ID" },
	{ 1ULL << 3, "GROUP" },
	{ 1ULL << 4, "LOST" },
	{ 0, NULL },
};

/* perf 6.1's limits (PERF_SAMPLE_MAX, PERF_FORMAT_MAX, PERF_SAMPLE_BRANCH_MAX). */
#define SAMPLE_MAX (1ULL << 25)
#define FORMAT_MAX (1ULL << 5)
#define BRANCH_MAX (1ULL << 19)

/*
 * The one-bit and small fields of the flags word (the u64 at offset 40),
 * in bit order, which is also perf's printing order. Read from the word
 * itself so that no header version decides which exist.
 */
static const struct {
	const char *name;
	unsigned shift, width;
} flag_fields[] = {
	{ "disabled", 0, 1 },
	{ "inherit", 1, 1 },
	{ "pinned", 2, 1 },
	{ "exclusive", 3, 1 },
	{ "exclude_user", 4, 1 },
	{ "exclude_kernel", 5, 1 },
	{ "exclude_hv", 6, 1 },
	{ "exclude_idle", 7, 1 },
	{ "mmap", 8, 1 },
	{ "comm", 9, 1 },
	{ "freq", 10, 1 },
	{ "inherit_stat", 11, 1 },
	{ "enable_on_exec", 12, 1 },
	{ "task", 13, 1 },
	{ "watermark", 14, 1 },
	{ "precise_ip", 15, 2 },
	{ "mmap_data", 17, 1 },
	{ "sample_id_all", 18, 1 },
	{ "exclude_host", 19, 1 },
	{ "exclude_guest", 20, 1 },
	{ "exclude_callchain_kernel", 21, 1 },
	{ "exclude_callchain_user", 22, 1 },
	{ "mmap2", 23, 1 },
	{ "comm_exec", 24, 1 },
	{ "use_clockid", 25, 1 },
	{ "context_switch", 26, 1 },
	{ "write_backward", 27, 1 },
	{ "namespaces", 28, 1 },
	{ "ksymbol", 29, 1 },
	{ "bpf_event", 30, 1 },
	{ "aux_output", 31, 1 },
	{ "cgroup", 32, 1 },
	{ "text_poke", 33, 1 },
	{ "build_id", 34, 1 },
	{ "inherit_thread", 35, 1 },
	{ "remove_on_exec", 36, 1 },
	{ "sigtrap", 37, 1 },
};
#define FLAGS_KNOWN ((1ULL << 38) - 1)

/* Bytes of the attr as the file had them (zero past our struct). */
static uint64_t attr_bytes(const struct perf_event_attr *a, size_t off, size_t n)
{
	uint64_t v = 0;
	if (off + n <= sizeof(*a))
		memcpy(&v, (const uint8_t *)a + off, n);
	return v;
}

/*
 * perf formats each value into one buffer, reused field after field; a
 * bit set none of whose bits has a name writes nothing there, so the
 * previous field's text is printed again ("sample_type = 4000"). Kept so.
 */
struct attr_out {
	FILE *f;
	char buf[1024];
};

static void print_val(struct attr_out *o, const char *name)
{
	fprintf(o->f, ", %s = %s", name, o->buf);
}

static void print_bits(struct attr_out *o, const char *name, uint64_t v, const struct bit_name *t)
{
	if (!v)
		return;
	size_t len = 0;
	for (; t->name; t++) {
		if ((v & t->bit) && len < sizeof(o->buf)) {
			int n = snprintf(o->buf + len, sizeof(o->buf) - len, "%s%s", len ? "|" : "",
					 t->name);
			len += n > 0 ? (size_t)n : 0;
		}
	}
	print_val(o, name);
}

static void print_u(struct attr_out *o, const char *name, uint64_t v)
{
	if (!v)
		return;
	snprintf(o->buf, sizeof(o->buf), "%" PRIu64, v);
	print_val(o, name);
}

static void print_x(struct attr_out *o, const char *name, uint64_t v)
{
	if (!v)
		return;
	snprintf(o->buf, sizeof(o->buf), "%#" PRIx64, v);
	print_val(o, name);
}

/* perf_event_attr__fprintf with print_event_desc's ", name = value" printer. */
static void print_attr(FILE *f, const struct perf_event_attr *a)
{
	struct attr_out o = { .f = f };
	print_u(&o, "type", a->type);
	print_u(&o, "size", a->size);
	print_x(&o, "config", a->config);
	print_u(&o, "{ sample_period, sample_freq }", a->sample_period);
	print_bits(&o, "sample_type", a->sample_type, sample_type_names);
	print_bits(&o, "read_format", a->read_format, read_format_names);
	uint64_t flags = attr_bytes(a, 40, 8);
	for (size_t i = 0; i < sizeof(flag_fields) / sizeof(flag_fields[0]); i++)
		print_u(&o, flag_fields[i].name,
			(flags >> flag_fields[i].shift) & ((1ULL << flag_fields[i].width) - 1));
	print_u(&o, "{ wakeup_events, wakeup_watermark }", attr_bytes(a, 48, 4));
	print_u(&o, "bp_type", attr_bytes(a, 52, 4));
	print_x(&o, "{ bp_addr, config1 }", attr_bytes(a, 56, 8));
	print_x(&o, "{ bp_len, config2 }", attr_bytes(a, 64, 8));
	print_bits(&o, "branch_sample_type", attr_bytes(a, 72, 8), branch_names);
	print_x(&o, "sample_regs_user", attr_bytes(a, 80, 8));
	print_u(&o, "sample_stack_user", attr_bytes(a, 88, 4));
	int32_t clockid = (int32_t)attr_bytes(a, 92, 4);
	if (clockid) {
		snprintf(o.buf, sizeof(o.buf), "%" PRId32, clockid);
		print_val(&o, "clockid");
	}
	print_x(&o, "sample_regs_intr", attr_bytes(a, 96, 8));
	print_u(&o, "aux_watermark", attr_bytes(a, 104, 4));
	print_u(&o, "sample_max_stack", attr_bytes(a, 108, 2));
	print_u(&o, "aux_sample_size", attr_bytes(a, 112, 4));
	print_u(&o, "sig_data", attr_bytes(a, 120, 8));
}

/* perf_attr_check: perf 6.1 refuses the whole section over one unknown bit. */
static bool attr_known(const struct perf_event_attr *a)
{
	if ((attr_bytes(a, 40, 8) & ~FLAGS_KNOWN) || attr_bytes(a, 110, 2) ||
	    attr_bytes(a, 116, 4))
		return false;
	if (a->sample_type & ~(SAMPLE_MAX - 1) || a->read_format & ~(FORMAT_MAX - 1))
		return false;
	if ((a->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
	    (attr_bytes(a, 72, 8) & ~(BRANCH_MAX - 1)))
		return false;
	return true;
}

static void print_event_desc(FILE *f, const struct perf_header_info *h)
{
	bool ok = h->event_desc != NULL;
	for (size_t i = 0; ok && i < h->nevent_desc; i++)
		ok = attr_known(&h->event_desc[i].attr);
	if (!ok) {
		fprintf(f, "# event desc: not available or unable to read\n");
		return;
	}
	/* perf's list ends at the first attr of size 0. */
	for (size_t i = 0; i < h->nevent_desc && h->event_desc[i].attr.size; i++) {
		const struct perf_ev_desc *d = &h->event_desc[i];
		fprintf(f, "# event : name = %s, ", d->name);
		if (d->nids) {
			fprintf(f, ", id = {");
			for (size_t j = 0; j < d->nids; j++)
				fprintf(f, "%s %" PRIu64, j ? "," : "", d->ids[j]);
			fprintf(f, " }");
		}
		print_attr(f, &d->attr);
		fputc('\n', f);
	}
}

/* ---- the other features ---- */

static void print_cmdline(FILE *f, const struct perf_header_info *h)
{
	fprintf(f, "# cmdline : ");
	for (size_t i = 0; i < h->cmdline_n; i++) {
		for (const char *p = h->cmdline[i]; *p; p++) {
			if (*p == '\'')
				fputs("\\'", f);
			else
				fputc(*p, f);
		}
		fputc(' ', f);
	}
	fputc('\n', f);
}

static void print_pmu_mappings(FILE *f, const struct perf_header_info *h)
{
	if (!h->npmu_maps) {
		fprintf(f, "# pmu mappings: not available\n");
		return;
	}
	for (size_t i = 0; i < h->npmu_maps; i++)
		fprintf(f, "%s%s = %" PRIu32, i ? ", " : "# pmu mappings: ", h->pmu_maps[i].name,
			h->pmu_maps[i].type);
	fputc('\n', f);
}

/*
 * perf's process_group_desc marks leaders over the session's events (and
 * stops at the first inconsistency, keeping what it marked); then
 * print_group_desc walks the events: a leader of more than one event
 * opens "{", the members follow, the last one closes it.
 */
static void print_group_desc(FILE *f, const struct perf_header_info *h,
			     const struct script_header_events *ev)
{
	if (!bit(h->parsed, PERF_FEAT_GROUP_DESC) || !ev->n)
		return;
	uint32_t *members;
	bool *member_of_other;
	const char **gname;
	XALLOC_ARRAY(members, ev->n);
	XALLOC_ARRAY(member_of_other, ev->n);
	XALLOC_ARRAY(gname, ev->n);
	size_t g = 0;
	uint32_t nr = 0;
	for (size_t i = 0; i < ev->n; i++) {
		if (g < h->ngroups && i == h->groups[g].leader_idx) {
			const struct perf_group_desc *d = &h->groups[g];
			if (strcmp(d->name, "{anon_group}"))
				gname[i] = d->name;
			members[i] = d->nr_members;
			if (nr > 0)
				break; /* perf: "invalid group desc" */
			nr = d->nr_members - 1;
			g++;
		} else if (nr) {
			member_of_other[i] = true;
			nr--;
		}
	}
	nr = 0;
	for (size_t i = 0; i < ev->n; i++) {
		if (!member_of_other[i] && members[i] > 1) {
			fprintf(f, "# group: %s{%s", gname[i] ? gname[i] : "", ev->names[i]);
			nr = members[i] - 1;
		} else if (nr) {
			fprintf(f, ",%s", ev->names[i]);
			if (--nr == 0)
				fprintf(f, "}\n");
		}
	}
	free(members);
	free(member_of_other);
	free(gname);
}

static void print_sample_time(FILE *f, const struct perf_header_info *h)
{
	uint64_t t[2] = { h->first_sample_time, h->last_sample_time };
	const char *what[2] = { "first", "last" };
	for (int i = 0; i < 2; i++)
		fprintf(f, "# time of %s sample : %" PRIu64 ".%06" PRIu64 "\n", what[i],
			t[i] / 1000000000, t[i] % 1000000000 / 1000);
	fprintf(f, "# sample duration : %10.3f ms\n",
		(double)(h->last_sample_time - h->first_sample_time) / 1000000);
}

static const char *clockid_name(uint32_t id)
{
	switch (id) {
	case 0:
		return "realtime";
	case 1:
		return "monotonic";
	case 4:
		return "monotonic_raw";
	case 7:
		return "boottime";
	case 11:
		return "tai";
	default:
		return "(not found)";
	}
}

static void print_clock_data(FILE *f, const struct perf_header_info *h)
{
	if (!bit(h->parsed, PERF_FEAT_CLOCK_DATA)) {
		fprintf(f, "# reference time disabled\n");
		return;
	}
	time_t tod_sec = (time_t)(h->clock_tod_ns / 1000000000);
	int tod_usec = (int)(h->clock_tod_ns % 1000000000 / 1000);
	long clk_sec = (long)(h->clock_clockid_ns / 1000000000);
	long clk_nsec = (long)(h->clock_clockid_ns % 1000000000);
	char date[64], tstr[96];
	struct tm tm;
	if (!localtime_r(&tod_sec, &tm)) {
		snprintf(tstr, sizeof(tstr), "<error>");
	} else {
		strftime(date, sizeof(date), "%F %T", &tm);
		snprintf(tstr, sizeof(tstr), "%s.%06d", date, tod_usec);
	}
	fprintf(f, "# clockid: %s (%u)\n", clockid_name(h->clock_clockid), h->clock_clockid);
	fprintf(f, "# reference time: %s = %ld.%06d (TOD) = %ld.%09ld (%s)\n", tstr, (long)tod_sec,
		tod_usec, clk_sec, clk_nsec, clockid_name(h->clock_clockid));
}

static void print_caps(FILE *f, const struct perf_pmu_caps *p, const char *pmu)
{
	if (!p->ncaps) {
		fprintf(f, "# %s pmu capabilities: not available\n", pmu);
		return;
	}
	fprintf(f, "# %s pmu capabilities: ", pmu);
	for (size_t i = 0; i < p->ncaps; i++)
		fprintf(f, "%s%s", i ? ", " : "", p->caps[i]);
	fputc('\n', f);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* perf keeps BTF ids in a tree: ascending, each once. */
static void print_btf(FILE *f, const struct perf_header_info *h)
{
	if (!h->nbtf_ids)
		return;
	uint32_t *ids;
	XALLOC_ARRAY(ids, h->nbtf_ids);
	memcpy(ids, h->btf_ids, h->nbtf_ids * sizeof(*ids));
	qsort(ids, h->nbtf_ids, sizeof(*ids), cmp_u32);
	for (size_t i = 0; i < h->nbtf_ids; i++)
		if (!i || ids[i] != ids[i - 1])
			fprintf(f, "# btf info of id %u\n", ids[i]);
	free(ids);
}

void script_header_feature(FILE *f, const struct perf_header_info *h, unsigned feat, bool pipe,
			   const struct script_header_events *ev)
{
	switch (feat) {
	case PERF_FEAT_HOSTNAME:
		fprintf(f, "# hostname : %s\n", str(h->hostname));
		break;
	case PERF_FEAT_OSRELEASE:
		fprintf(f, "# os release : %s\n", str(h->osrelease));
		break;
	case PERF_FEAT_VERSION:
		fprintf(f, "# perf version : %s\n", str(h->version));
		break;
	case PERF_FEAT_ARCH:
		fprintf(f, "# arch : %s\n", str(h->arch));
		break;
	case PERF_FEAT_NRCPUS:
		fprintf(f, "# nrcpus online : %u\n", h->nr_cpus_online);
		fprintf(f, "# nrcpus avail : %u\n", h->nr_cpus_avail);
		break;
	case PERF_FEAT_CPUDESC:
		fprintf(f, "# cpudesc : %s\n", str(h->cpudesc));
		break;
	case PERF_FEAT_CPUID:
		fprintf(f, "# cpuid : %s\n", str(h->cpuid));
		break;
	case PERF_FEAT_TOTAL_MEM:
		fprintf(f, "# total memory : %" PRIu64 " kB\n", h->total_mem_kb);
		break;
	case PERF_FEAT_CMDLINE:
		print_cmdline(f, h);
		break;
	case PERF_FEAT_EVENT_DESC:
		print_event_desc(f, h);
		break;
	case PERF_FEAT_CPU_TOPOLOGY:
	case PERF_FEAT_NUMA_TOPOLOGY:
	case PERF_FEAT_CACHE:
	case PERF_FEAT_MEM_TOPOLOGY:
	case PERF_FEAT_HYBRID_TOPOLOGY:
		/* perf shows these with -I only. */
		fprintf(f, "# %s info available, use -I to display\n", feat_names[feat]);
		break;
	/* A pipe's copies of these three are not processed, so not printed. */
	case PERF_FEAT_BRANCH_STACK:
		if (!pipe)
			fprintf(f, "# contains samples with branch stack\n");
		break;
	case PERF_FEAT_AUXTRACE:
		if (!pipe)
			fprintf(f, "# contains AUX area data (e.g. instruction trace)\n");
		break;
	case PERF_FEAT_STAT:
		if (!pipe)
			fprintf(f, "# contains stat data\n");
		break;
	case PERF_FEAT_PMU_MAPPINGS:
		print_pmu_mappings(f, h);
		break;
	case PERF_FEAT_GROUP_DESC:
		print_group_desc(f, h, ev);
		break;
	case PERF_FEAT_SAMPLE_TIME:
		print_sample_time(f, h);
		break;
	case PERF_FEAT_CLOCKID:
		fprintf(f, "# clockid frequency: %" PRIu64 " MHz\n", h->clockid_res_ns * 1000);
		break;
	case PERF_FEAT_DIR_FORMAT:
		/* Only directories have a version; a single file (what kiln reads) has 0. */
		if (!pipe)
			fprintf(f, "# directory data version : 0\n");
		break;
	case PERF_FEAT_BPF_BTF:
		print_btf(f, h);
		break;
	case PERF_FEAT_COMPRESSED:
		fprintf(f, "# compressed : %s, level = %d, ratio = %d\n",
			h->comp_type == 1 ? "Zstd" : "Unknown", (int)h->comp_level,
			(int)h->comp_ratio);
		break;
	case PERF_FEAT_CPU_PMU_CAPS:
		print_caps(f, &h->cpu_pmu_caps, "cpu");
		break;
	case PERF_FEAT_CLOCK_DATA:
		print_clock_data(f, h);
		break;
	case PERF_FEAT_PMU_CAPS:
		if (bit(h->parsed, PERF_FEAT_PMU_CAPS))
			for (size_t i = 0; i < h->npmu_caps; i++)
				print_caps(f, &h->pmu_caps[i], h->pmu_caps[i].pmu_name);
		break;
	default:
		/* TRACING_DATA and BUILD_ID print nothing; BPF_PROG_INFO would list
		 * the programs, which kiln does not decode. */
		break;
	}
}

void script_header_print(FILE *f, const struct perf_header_info *h, time_t mtime,
			 const struct script_header_events *ev)
{
	char when[64] = "(null)\n";
	struct tm tm;
	if (localtime_r(&mtime, &tm))
		strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y\n", &tm);
	uint64_t feat_offset = h->pipe_mode ? 0 : h->data_offset + h->data_size;
	fprintf(f, "# ========\n");
	fprintf(f, "# captured on    : %s", when);
	fprintf(f, "# header version : 1\n");
	fprintf(f, "# data offset    : %" PRIu64 "\n", h->data_offset);
	fprintf(f, "# data size      : %" PRIu64 "\n", h->data_size);
	fprintf(f, "# feat offset    : %" PRIu64 "\n", feat_offset);
	if (!h->pipe_mode) {
		for (unsigned feat = 1; feat < LAST_FEATURE; feat++)
			if (bit(h->features, feat))
				script_header_feature(f, h, feat, false, ev);
		fprintf(f, "# missing features: ");
		for (unsigned feat = 1; feat < LAST_FEATURE; feat++)
			if (!bit(h->features, feat))
				fprintf(f, "%s ", feat_names[feat]);
		fputc('\n', f);
	}
	fprintf(f, "# ========\n#\n");
}
