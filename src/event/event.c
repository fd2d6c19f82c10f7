/*
 * event: attr sets and record decoding (event, L1). The sample layout
 * follows the kernel's output order, which is not bit order (see
 * docs/formats and the reference: IDENTIFIER first, AUX last).
 */
#include "event/event.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/err.h"
#include "base/xalloc.h"

void ev_attrs_init(struct ev_attrs *a)
{
	memset(a, 0, sizeof(*a));
	hashmap_init(&a->by_id);
	a->sample_id_pos = a->other_id_pos = -1;
}

void ev_attrs_release(struct ev_attrs *a)
{
	for (size_t i = 0; i < a->v.n; i++) {
		free(a->v.v[i].ids);
		free(a->v.v[i].name);
	}
	VEC_FREE(&a->v);
	hashmap_release(&a->by_id);
}

size_t ev_attrs_add(struct ev_attrs *a, const struct perf_event_attr *attr, uint32_t file_size,
		    const uint64_t *ids, size_t nids)
{
	struct ev_attr *e = VEC_PUSH_ZERO(&a->v);
	size_t idx = a->v.n - 1;
	uint32_t n = file_size ? file_size : PERF_ATTR_SIZE_VER0;
	if (n > sizeof(e->attr))
		n = sizeof(e->attr);
	memcpy(&e->attr, attr, n);
	e->attr.size = sizeof(e->attr);
	e->file_size = file_size ? file_size : PERF_ATTR_SIZE_VER0;
	for (size_t i = 0; i < nids; i++)
		ev_attrs_add_id(a, idx, ids[i]);
	return idx;
}

void ev_attrs_add_id(struct ev_attrs *a, size_t idx, uint64_t id)
{
	struct ev_attr *e = &a->v.v[idx];
	XREALLOC_ARRAY(e->ids, e->nids + 1);
	e->ids[e->nids++] = id;
	hashmap_put(&a->by_id, id, idx);
}

/* Position (in u64 words) of the id in a sample, or -1. */
static int sample_id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	int pos = 0;
	if (st & PERF_SAMPLE_IP)
		pos++;
	if (st & PERF_SAMPLE_TID)
		pos++;
	if (st & PERF_SAMPLE_TIME)
		pos++;
	if (st & PERF_SAMPLE_ADDR)
		pos++;
	return pos;
}

/* Position of the id counted from the end of a non-sample record (1 = last). */
static int other_id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	int pos = 1;
	if (st & PERF_SAMPLE_CPU)
		pos++;
	if (st & PERF_SAMPLE_STREAM_ID)
		pos++;
	return pos;
}

static size_t trailer_size(uint64_t st)
{
	size_t n = 0;
	if (st & PERF_SAMPLE_TID)
		n += 8;
	if (st & PERF_SAMPLE_TIME)
		n += 8;
	if (st & PERF_SAMPLE_ID)
		n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (st & PERF_SAMPLE_CPU)
		n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

const char *ev_default_name(const struct perf_event_attr *attr, char *tmp, size_t tmplen)
{
	if (attr->type == PERF_TYPE_HARDWARE && attr->config < sizeof(hw_names) / sizeof(hw_names[0]))
		return hw_names[attr->config];
	if (attr->type == PERF_TYPE_SOFTWARE && attr->config < sizeof(sw_names) / sizeof(sw_names[0]))
		return sw_names[attr->config];
	if (attr->type == PERF_TYPE_TRACEPOINT) {
		snprintf(tmp, tmplen, "tracepoint:%llu", (unsigned long long)attr->config);
		return tmp;
	}
	snprintf(tmp, tmplen, "raw 0x%llx", (unsigned long long)attr->config);
	return tmp;
}

int ev_attrs_finish(struct ev_attrs *a)
{
	if (a->v.n == 0)
		return err_set(-EBADMSG, "no event attributes");
	const struct perf_event_attr *first = &a->v.v[0].attr;
	a->sample_id_all = first->sample_id_all;
	a->sample_id_pos = sample_id_pos(first->sample_type);
	a->other_id_pos = other_id_pos(first->sample_type);
	a->trailer_size = a->sample_id_all ? trailer_size(first->sample_type) : 0;
	for (size_t i = 0; i < a->v.n; i++) {
		struct ev_attr *e = &a->v.v[i];
		uint64_t unknown = e->attr.sample_type & ~EV_SAMPLE_KNOWN_MASK;
		if (unknown)
			return err_set(-EBADMSG, "event %zu has unknown sample_type bit %d", i,
				       __builtin_ctzll(unknown));
		if (a->v.n > 1 && (sample_id_pos(e->attr.sample_type) != a->sample_id_pos ||
				   other_id_pos(e->attr.sample_type) != a->other_id_pos ||
				   (bool)e->attr.sample_id_all != a->sample_id_all))
			return err_set(-EBADMSG, "events disagree on the position of the sample id "
						 "(non matching sample_type)");
		if (a->v.n > 1 && a->sample_id_pos < 0)
			return err_set(-EBADMSG, "several events but samples carry no id");
		if (!e->name) {
			char tmp[64];
			e->name = xstrdup(ev_default_name(&e->attr, tmp, sizeof(tmp)));
		}
	}
	return 0;
}

const struct ev_attr *ev_attrs_lookup(const struct ev_attrs *a, uint64_t id)
{
	uint64_t idx;
	if (a->v.n == 1)
		return &a->v.v[0];
	if (hashmap_get(&a->by_id, id, &idx))
		return &a->v.v[idx];
	return NULL;
}

static const char *const type_names[EV_TYPE_MAX] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[EV_HEADER_ATTR] = "ATTR",
	[EV_HEADER_EVENT_TYPE] = "EVENT_TYPE",
	[EV_HEADER_TRACING_DATA] = "TRACING_DATA",
	[EV_HEADER_BUILD_ID] = "BUILD_ID",
	[EV_FINISHED_ROUND] = "FINISHED_ROUND",
	[EV_ID_INDEX] = "ID_INDEX",
	[EV_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[EV_AUXTRACE] = "AUXTRACE",
	[EV_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[EV_THREAD_MAP] = "THREAD_MAP",
	[EV_CPU_MAP] = "CPU_MAP",
	[EV_STAT_CONFIG] = "STAT_CONFIG",
	[EV_STAT] = "STAT",
	[EV_STAT_ROUND] = "STAT_ROUND",
	[EV_EVENT_UPDATE] = "EVENT_UPDATE",
	[EV_TIME_CONV] = "TIME_CONV",
	[EV_HEADER_FEATURE] = "FEATURE",
	[EV_COMPRESSED] = "COMPRESSED",
	[EV_FINISHED_INIT] = "FINISHED_INIT",
	[EV_COMPRESSED2] = "COMPRESSED2",
};

const char *ev_type_name(uint32_t type)
{
	if (type < EV_TYPE_MAX && type_names[type])
		return type_names[type];
	return "UNKNOWN";
}

#define BAD(cur, ev, what)                                                                        \
	err_corrupt_at(cursor_offset(cur), "%s in %s (%u) record", (what),                         \
		       ev_type_name((ev)->type), (ev)->type)

/* Read one u64 or fail with a message naming the field. */
#define GET64(cur, ev, dst, what)                                                                 \
	do {                                                                                      \
		if (cursor_u64((cur), (dst)))                                                     \
			return BAD((cur), (ev), "record too short for " what);                    \
	} while (0)

static int read_values_size(const struct perf_event_attr *attr, struct cursor *c,
			    struct event *ev)
{
	uint64_t rf = attr->read_format;
	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr;
		GET64(c, ev, &nr, "read group count");
		size_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & PERF_FORMAT_LOST) ? 8 : 0);
		size_t fixed = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
			       ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);
		if (nr > cursor_left(c) / per || cursor_skip(c, fixed + nr * per))
			return BAD(c, ev, "read group count beyond record");
		return 0;
	}
	size_t n = 8 + ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
		   ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0) + ((rf & PERF_FORMAT_ID) ? 8 : 0) +
		   ((rf & PERF_FORMAT_LOST) ? 8 : 0);
	if (cursor_skip(c, n))
		return BAD(c, ev, "record too short for read values");
	return 0;
}

static int decode_sample(struct event *ev, struct cursor *c, const struct ev_attrs *attrs)
{
	struct ev_sample *s = &ev->u.sample;
	const struct ev_attr *a = NULL;
	uint64_t v;

	if (attrs->v.n == 1) {
		a = &attrs->v.v[0];
	} else {
		/* The id position is the same for every attr (ev_attrs_finish);
		 * a set that failed it (a bad ATTR record) may have none. */
		if (attrs->sample_id_pos < 0)
			return BAD(c, ev, "several events but samples carry no id");
		if ((size_t)attrs->sample_id_pos * 8 + 8 > cursor_left(c))
			return BAD(c, ev, "record too short for sample id");
		uint64_t id = ev_u64(c->p, (size_t)attrs->sample_id_pos);
		a = ev_attrs_lookup(attrs, id);
		if (!a)
			return err_corrupt_at(ev->offset, "sample id %llu is not in any event",
					      (unsigned long long)id);
	}
	ev->attr = a;
	uint64_t st = a->attr.sample_type;

	if (st & PERF_SAMPLE_IDENTIFIER)
		GET64(c, ev, &ev->sid.id, "identifier");
	if (st & PERF_SAMPLE_IP)
		GET64(c, ev, &s->ip, "ip");
	if (st & PERF_SAMPLE_TID) {
		if (cursor_u32(c, &ev->sid.pid) || cursor_u32(c, &ev->sid.tid))
			return BAD(c, ev, "record too short for pid/tid");
	}
	if (st & PERF_SAMPLE_TIME) {
		GET64(c, ev, &ev->sid.time, "time");
		ev->sid.has_time = true;
	}
	if (st & PERF_SAMPLE_ADDR)
		GET64(c, ev, &s->addr, "addr");
	if (st & PERF_SAMPLE_ID)
		GET64(c, ev, &ev->sid.id, "id");
	if (st & PERF_SAMPLE_STREAM_ID)
		GET64(c, ev, &s->stream_id, "stream id");
	if (st & PERF_SAMPLE_CPU) {
		uint32_t res;
		if (cursor_u32(c, &ev->sid.cpu) || cursor_u32(c, &res))
			return BAD(c, ev, "record too short for cpu");
	}
	if (st & PERF_SAMPLE_PERIOD)
		GET64(c, ev, &s->period, "period");
	if (st & PERF_SAMPLE_READ) {
		int err = read_values_size(&a->attr, c, ev);
		if (err)
			return err;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		GET64(c, ev, &s->callchain_nr, "callchain count");
		if (s->callchain_nr > cursor_left(c) / 8)
			return BAD(c, ev, "callchain count beyond record");
		cursor_bytes(c, &s->callchain, s->callchain_nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		if (cursor_u32(c, &s->raw_size) || cursor_bytes(c, &s->raw, s->raw_size))
			return BAD(c, ev, "raw data beyond record");
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		GET64(c, ev, &s->branch_nr, "branch count");
		if (a->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			GET64(c, ev, &v, "branch hw_idx");
		if (s->branch_nr > cursor_left(c) / 24)
			return BAD(c, ev, "branch count beyond record");
		cursor_bytes(c, &s->branches, s->branch_nr * 24);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		GET64(c, ev, &s->user_abi, "user regs abi");
		if (s->user_abi) {
			s->user_regs_mask = a->attr.sample_regs_user;
			size_t n = (size_t)__builtin_popcountll(s->user_regs_mask) * 8;
			if (cursor_bytes(c, &s->user_regs, n))
				return BAD(c, ev, "user regs beyond record");
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		GET64(c, ev, &s->stack_size, "user stack size");
		if (s->stack_size) {
			if (s->stack_size > cursor_left(c) ||
			    cursor_bytes(c, &s->stack, s->stack_size))
				return BAD(c, ev, "user stack beyond record");
			GET64(c, ev, &s->stack_dyn_size, "user stack dyn_size");
			if (s->stack_dyn_size > s->stack_size)
				s->stack_dyn_size = s->stack_size;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		GET64(c, ev, &s->weight, "weight");
	if (st & PERF_SAMPLE_DATA_SRC)
		GET64(c, ev, &s->data_src, "data_src");
	if (st & PERF_SAMPLE_TRANSACTION)
		GET64(c, ev, &s->transaction, "transaction");
	if (st & PERF_SAMPLE_REGS_INTR) {
		GET64(c, ev, &v, "intr regs abi");
		if (v) {
			size_t n = (size_t)__builtin_popcountll(a->attr.sample_regs_intr) * 8;
			if (cursor_skip(c, n))
				return BAD(c, ev, "intr regs beyond record");
		}
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		GET64(c, ev, &s->phys_addr, "phys_addr");
	if (st & PERF_SAMPLE_CGROUP)
		GET64(c, ev, &s->cgroup, "cgroup");
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		GET64(c, ev, &s->data_page_size, "data_page_size");
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		GET64(c, ev, &s->code_page_size, "code_page_size");
	if (st & PERF_SAMPLE_AUX) {
		GET64(c, ev, &v, "aux size");
		if (cursor_skip(c, v))
			return BAD(c, ev, "aux data beyond record");
	}
	return 0;
}

/* Parse the sample_id_all trailer at the end of a non-sample record;
 * 'body_end' is set to where the body stops. */
static int decode_trailer(struct event *ev, struct cursor *c, const struct ev_attrs *attrs,
			  const uint8_t **body_end)
{
	*body_end = c->end;
	if (!attrs->sample_id_all || ev->type >= EV_HEADER_ATTR)
		return 0;
	if (attrs->trailer_size > cursor_left(c))
		return BAD(c, ev, "record too short for its sample_id trailer");
	const uint8_t *t = c->end - attrs->trailer_size;
	*body_end = t;
	if (attrs->v.n > 1 && attrs->other_id_pos > 0) {
		uint64_t id = ev_u64(c->end - 8 * (size_t)attrs->other_id_pos, 0);
		ev->attr = ev_attrs_lookup(attrs, id);
	} else {
		ev->attr = &attrs->v.v[0];
	}
	/* All attrs agree on sample_id_all and the id position, but may differ
	 * in other sample_type bits: perf uses the first attr's layout unless
	 * the id tells which, and so do we. */
	uint64_t st = (ev->attr ? ev->attr : &attrs->v.v[0])->attr.sample_type;
	if (trailer_size(st) != attrs->trailer_size)
		st = attrs->v.v[0].attr.sample_type;
	struct cursor tc;
	cursor_init(&tc, t, attrs->trailer_size, cursor_offset(c) + (size_t)(t - c->p), c->swap);
	uint32_t res;
	if (st & PERF_SAMPLE_TID) {
		cursor_u32(&tc, &ev->sid.pid);
		cursor_u32(&tc, &ev->sid.tid);
	}
	if (st & PERF_SAMPLE_TIME) {
		cursor_u64(&tc, &ev->sid.time);
		ev->sid.has_time = true;
	}
	if (st & PERF_SAMPLE_ID)
		cursor_u64(&tc, &ev->sid.id);
	if (st & PERF_SAMPLE_STREAM_ID)
		cursor_u64(&tc, &ev->sid.stream_id);
	if (st & PERF_SAMPLE_CPU) {
		cursor_u32(&tc, &ev->sid.cpu);
		cursor_u32(&tc, &res);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		cursor_u64(&tc, &ev->sid.id);
	return 0;
}

/* A NUL-terminated string that must end inside [p, end). */
static int get_string(struct event *ev, struct cursor *c, const uint8_t *end, const char **out)
{
	if (c->p > end)
		return BAD(c, ev, "record too short for its string");
	const uint8_t *nul = memchr(c->p, 0, (size_t)(end - c->p));
	if (!nul)
		return BAD(c, ev, "unterminated string");
	*out = (const char *)c->p;
	return 0;
}

int ev_decode(struct event *ev, const uint8_t *rec, size_t len, uint64_t offset,
	      const struct ev_attrs *attrs)
{
	struct cursor c;
	memset(ev, 0, sizeof(*ev));
	cursor_init(&c, rec, len, offset, false);
	ev->offset = offset;
	ev->bytes = rec;
	if (cursor_u32(&c, &ev->type) || cursor_u16(&c, &ev->misc) || cursor_u16(&c, &ev->size))
		return err_corrupt_at(offset, "record header truncated");
	if (ev->size < 8 || ev->size != len)
		return err_corrupt_at(offset, "bad record size %u in %s (%u) record", ev->size,
				      ev_type_name(ev->type), ev->type);
	if (ev->type == PERF_RECORD_SAMPLE)
		return decode_sample(ev, &c, attrs);
	if (ev->type >= EV_HEADER_ATTR || ev->type >= EV_TYPE_MAX)
		return 0;

	const uint8_t *end;
	int err = decode_trailer(ev, &c, attrs, &end);
	if (err)
		return err;
	struct cursor b; /* the body, without the trailer */
	cursor_init(&b, c.p, (size_t)(end - c.p), cursor_offset(&c), false);
	switch (ev->type) {
	case PERF_RECORD_MMAP: {
		struct ev_mmap *m = &ev->u.mmap;
		if (cursor_u32(&b, &m->pid) || cursor_u32(&b, &m->tid) || cursor_u64(&b, &m->start) ||
		    cursor_u64(&b, &m->len) || cursor_u64(&b, &m->pgoff))
			return BAD(&b, ev, "record too short");
		m->prot = 4; /* PROT_EXEC: kernel MMAP records are executable maps */
		return get_string(ev, &b, end, &m->filename);
	}
	case PERF_RECORD_MMAP2: {
		struct ev_mmap *m = &ev->u.mmap;
		if (cursor_u32(&b, &m->pid) || cursor_u32(&b, &m->tid) || cursor_u64(&b, &m->start) ||
		    cursor_u64(&b, &m->len) || cursor_u64(&b, &m->pgoff))
			return BAD(&b, ev, "record too short");
		if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t pad[3];
			if (cursor_u8(&b, &m->build_id_size) || cursor_copy(&b, pad, 3) ||
			    cursor_copy(&b, m->build_id, 20))
				return BAD(&b, ev, "record too short for build-id");
			if (m->build_id_size > 20)
				m->build_id_size = 20;
		} else {
			if (cursor_u32(&b, &m->maj) || cursor_u32(&b, &m->min) ||
			    cursor_u64(&b, &m->ino) || cursor_u64(&b, &m->ino_generation))
				return BAD(&b, ev, "record too short");
		}
		if (cursor_u32(&b, &m->prot) || cursor_u32(&b, &m->flags))
			return BAD(&b, ev, "record too short");
		return get_string(ev, &b, end, &m->filename);
	}
	case PERF_RECORD_COMM:
		if (cursor_u32(&b, &ev->u.comm.pid) || cursor_u32(&b, &ev->u.comm.tid))
			return BAD(&b, ev, "record too short");
		ev->u.comm.exec = (ev->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		return get_string(ev, &b, end, &ev->u.comm.comm);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct ev_task *t = &ev->u.task;
		if (cursor_u32(&b, &t->pid) || cursor_u32(&b, &t->ppid) || cursor_u32(&b, &t->tid) ||
		    cursor_u32(&b, &t->ptid) || cursor_u64(&b, &t->time))
			return BAD(&b, ev, "record too short");
		return 0;
	}
	case PERF_RECORD_LOST:
		if (cursor_u64(&b, &ev->u.lost.id) || cursor_u64(&b, &ev->u.lost.lost))
			return BAD(&b, ev, "record too short");
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (cursor_u64(&b, &ev->u.lost.lost))
			return BAD(&b, ev, "record too short");
		return 0;
	case PERF_RECORD_KSYMBOL: {
		struct ev_ksymbol *k = &ev->u.ksymbol;
		if (cursor_u64(&b, &k->addr) || cursor_u32(&b, &k->len) ||
		    cursor_u16(&b, &k->ksym_type) || cursor_u16(&b, &k->flags))
			return BAD(&b, ev, "record too short");
		return get_string(ev, &b, end, &k->name);
	}
	case PERF_RECORD_READ:
		if (cursor_u32(&b, &ev->u.read.pid) || cursor_u32(&b, &ev->u.read.tid) ||
		    cursor_u64(&b, &ev->u.read.value))
			return BAD(&b, ev, "record too short");
		return 0;
	default:
		return 0;
	}
}
