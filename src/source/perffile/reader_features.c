/*
 * reader_features: the perf.data header's feature sections (source/perffile,
 * L2): build ids, event descriptions, PMU mappings, groups, caps, BTF and
 * tracing data, from a file-mode header's section table or a pipe-mode
 * FEATURE record, into perf_header_info. Each is read through a cursor
 * over its own section, so a bad one is skipped alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "source/perffile/reader_int.h"

void reader_header_info_init(struct perf_header_info *h)
{
	memset(h, 0, sizeof(*h));
}

static void event_desc_free(struct perf_header_info *h)
{
	for (size_t i = 0; i < h->nevent_desc; i++) {
		free(h->event_desc[i].name);
		free(h->event_desc[i].ids);
	}
	free(h->event_desc);
	h->event_desc = NULL;
	h->nevent_desc = 0;
}

static void pmu_caps_release(struct perf_pmu_caps *p)
{
	free(p->pmu_name);
	for (size_t i = 0; i < p->ncaps; i++)
		free(p->caps[i]);
	free(p->caps);
	memset(p, 0, sizeof(*p));
}

void perf_header_info_release(struct perf_header_info *h)
{
	free(h->tracing_data);
	free(h->hostname);
	free(h->osrelease);
	free(h->version);
	free(h->arch);
	free(h->cpudesc);
	free(h->cpuid);
	for (size_t i = 0; i < h->cmdline_n; i++)
		free(h->cmdline[i]);
	free(h->cmdline);
	for (size_t i = 0; i < h->nbuild_ids; i++)
		free(h->build_ids[i].filename);
	free(h->build_ids);
	event_desc_free(h);
	for (size_t i = 0; i < h->npmu_maps; i++)
		free(h->pmu_maps[i].name);
	free(h->pmu_maps);
	for (size_t i = 0; i < h->ngroups; i++)
		free(h->groups[i].name);
	free(h->groups);
	pmu_caps_release(&h->cpu_pmu_caps);
	for (size_t i = 0; i < h->npmu_caps; i++)
		pmu_caps_release(&h->pmu_caps[i]);
	free(h->pmu_caps);
	free(h->btf_ids);
	reader_header_info_init(h);
}

/* ---- feature sections ---- */

/* A feature string: u32 len, then len bytes holding a NUL-terminated string. */
static int feat_string(struct cursor *c, char **out)
{
	uint32_t len;
	const uint8_t *p;
	if (cursor_u32(c, &len))
		return CORRUPT(c, "feature string length truncated");
	if (len > cursor_left(c))
		return CORRUPT(c, "feature string length %u beyond its section", len);
	cursor_bytes(c, &p, len);
	*out = xstrndup((const char *)p, len);
	return 0;
}

static int feat_build_ids(struct perf_reader *r, struct cursor *c)
{
	while (cursor_left(c) >= 8) {
		uint64_t off = cursor_offset(c);
		uint32_t type;
		uint16_t misc, size;
		cursor_u32(c, &type);
		cursor_u16(c, &misc);
		cursor_u16(c, &size);
		if (size < 36 || (size_t)size - 8 > cursor_left(c))
			return err_corrupt_at(off, "bad build-id record size %u", size);
		struct perf_build_id b = { 0 };
		uint32_t pid;
		uint8_t idsize, pad[3];
		const uint8_t *name;
		cursor_u32(c, &pid);
		cursor_copy(c, b.id, 20);
		cursor_u8(c, &idsize);
		cursor_copy(c, pad, 3);
		cursor_bytes(c, &name, (size_t)size - 36);
		b.pid = (int32_t)pid;
		b.cpumode = misc & 7;
		if (misc & (1u << 15)) {
			b.size = idsize > 20 ? 20 : idsize;
		} else { /* old files: 20 bytes, trailing zeros trimmed */
			b.size = 20;
			while (b.size && !b.id[b.size - 1])
				b.size--;
		}
		b.filename = xstrndup((const char *)name, (size_t)size - 36);
		XREALLOC_ARRAY(r->info.build_ids, r->info.nbuild_ids + 1);
		r->info.build_ids[r->info.nbuild_ids++] = b;
	}
	return 0;
}

/*
 * EVENT_DESC: {u32 nr, attr_size; nr x {attr; u32 nids; string name; u64 ids[nids]}}.
 * Names also go to the attrs by position; the entries are kept whole for
 * the header listing (the last such section wins, as in perf).
 */
static int feat_event_desc(struct perf_reader *r, struct cursor *c)
{
	struct perf_header_info *h = &r->info;
	uint32_t nr, attr_size;
	if (cursor_u32(c, &nr) || cursor_u32(c, &attr_size))
		return CORRUPT(c, "event_desc header truncated");
	if (attr_size < PERF_ATTR_SIZE_VER0 || nr > cursor_left(c) / attr_size)
		return CORRUPT(c, "event_desc counts beyond its section");
	event_desc_free(h);
	struct perf_ev_desc *v;
	XALLOC_ARRAY(v, nr ? nr : 1);
	int err = 0;
	uint32_t i;
	for (i = 0; i < nr; i++) {
		struct perf_ev_desc *d = &v[i];
		const uint8_t *attr;
		uint32_t nids;
		if (cursor_bytes(c, &attr, attr_size) || cursor_u32(c, &nids)) {
			err = CORRUPT(c, "event_desc entry %u truncated", i);
			break;
		}
		memcpy(&d->attr, attr, attr_size < sizeof(d->attr) ? attr_size : sizeof(d->attr));
		err = feat_string(c, &d->name);
		if (err)
			break;
		if (nids > cursor_left(c) / 8) {
			err = CORRUPT(c, "event_desc id count %u beyond its section", nids);
			break;
		}
		/* Names attach to attrs by position (perf writes them in attr order). */
		if (i < r->attrs.v.n && !r->attrs.v.v[i].name)
			r->attrs.v.v[i].name = xstrdup(d->name);
		XALLOC_ARRAY(d->ids, nids ? nids : 1);
		cursor_copy(c, d->ids, (size_t)nids * 8);
		d->nids = nids;
	}
	if (err) {
		for (uint32_t j = 0; j <= i && j < nr; j++) {
			free(v[j].name);
			free(v[j].ids);
		}
		free(v);
		return err;
	}
	h->event_desc = v;
	h->nevent_desc = nr;
	return 0;
}

/* PMU_MAPPINGS: {u32 nr; nr x {u32 type; string name}}. */
static int feat_pmu_mappings(struct perf_header_info *h, struct cursor *c)
{
	uint32_t nr;
	if (h->pmu_maps || cursor_u32(c, &nr))
		return h->pmu_maps ? 0 : CORRUPT(c, "pmu_mappings truncated");
	if (nr > cursor_left(c) / 8)
		return CORRUPT(c, "pmu_mappings count %u beyond its section", nr);
	XALLOC_ARRAY(h->pmu_maps, nr ? nr : 1);
	for (uint32_t i = 0; i < nr; i++) {
		struct perf_pmu_map *m = &h->pmu_maps[i];
		if (cursor_u32(c, &m->type))
			return CORRUPT(c, "pmu_mappings entry %u truncated", i);
		int err = feat_string(c, &m->name);
		if (err)
			return err;
		h->npmu_maps++;
	}
	return 0;
}

/* GROUP_DESC: {u32 nr; nr x {string name; u32 leader_idx, nr_members}}. */
static int feat_group_desc(struct perf_header_info *h, struct cursor *c)
{
	uint32_t nr;
	if (h->groups || cursor_u32(c, &nr))
		return h->groups ? 0 : CORRUPT(c, "group_desc truncated");
	if (nr > cursor_left(c) / 12)
		return CORRUPT(c, "group_desc count %u beyond its section", nr);
	XALLOC_ARRAY(h->groups, nr ? nr : 1);
	for (uint32_t i = 0; i < nr; i++) {
		struct perf_group_desc *g = &h->groups[i];
		int err = feat_string(c, &g->name);
		if (err)
			return err;
		h->ngroups++;
		if (cursor_u32(c, &g->leader_idx) || cursor_u32(c, &g->nr_members))
			return CORRUPT(c, "group_desc entry %u truncated", i);
	}
	return 0;
}

/* One PMU's capabilities: {u32 nr; nr x {string name; string value}}. */
static int feat_caps(struct perf_pmu_caps *p, struct cursor *c)
{
	uint32_t nr;
	if (cursor_u32(c, &nr))
		return CORRUPT(c, "pmu caps truncated");
	if (nr > cursor_left(c) / 8)
		return CORRUPT(c, "pmu caps count %u beyond its section", nr);
	XALLOC_ARRAY(p->caps, nr ? nr : 1);
	for (uint32_t i = 0; i < nr; i++) {
		char *name, *value;
		int err = feat_string(c, &name);
		if (err)
			return err;
		err = feat_string(c, &value);
		if (err) {
			free(name);
			return err;
		}
		p->caps[p->ncaps++] = xasprintf("%s=%s", name, value);
		free(name);
		free(value);
	}
	return 0;
}

/* PMU_CAPS: {u32 nr; nr x {caps; string pmu_name}}. */
static int feat_pmu_caps(struct perf_header_info *h, struct cursor *c)
{
	uint32_t nr;
	if (h->pmu_caps || cursor_u32(c, &nr))
		return h->pmu_caps ? 0 : CORRUPT(c, "pmu_caps truncated");
	if (nr > cursor_left(c) / 8)
		return CORRUPT(c, "pmu_caps count %u beyond its section", nr);
	XALLOC_ARRAY(h->pmu_caps, nr ? nr : 1);
	for (uint32_t i = 0; i < nr; i++) {
		struct perf_pmu_caps *p = &h->pmu_caps[i];
		h->npmu_caps++;
		int err = feat_caps(p, c);
		if (!err)
			err = feat_string(c, &p->pmu_name);
		if (err)
			return err;
	}
	return 0;
}

/* BPF_BTF: {u32 nr; nr x {u32 id, size; size bytes}}; only the ids are kept. */
static int feat_bpf_btf(struct perf_header_info *h, struct cursor *c)
{
	uint32_t nr;
	if (h->btf_ids || cursor_u32(c, &nr))
		return h->btf_ids ? 0 : CORRUPT(c, "bpf_btf truncated");
	if (nr > cursor_left(c) / 8)
		return CORRUPT(c, "bpf_btf count %u beyond its section", nr);
	XALLOC_ARRAY(h->btf_ids, nr ? nr : 1);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t size;
		if (cursor_u32(c, &h->btf_ids[i]) || cursor_u32(c, &size) || cursor_skip(c, size))
			return CORRUPT(c, "bpf_btf entry %u truncated", i);
		h->nbtf_ids++;
	}
	return 0;
}

/* Keep a copy of the tracing data blob (the first one). */
int reader_keep_tracing_data(struct perf_header_info *h, const uint8_t *p, size_t n,
			     uint64_t off)
{
	if (h->tracing_data)
		return 0;
	if (n > PERF_TRACING_DATA_MAX)
		return err_corrupt_at(off, "tracing data of %zu bytes is over the %u MiB kiln keeps", n,
				      PERF_TRACING_DATA_MAX >> 20);
	h->tracing_data = xmalloc(n ? n : 1);
	memcpy(h->tracing_data, p, n);
	h->tracing_data_len = n;
	h->tracing_data_off = off;
	return 0;
}

int reader_parse_feature(struct perf_reader *r, unsigned feat, struct cursor *c)
{
	struct perf_header_info *h = &r->info;
	switch (feat) {
	case PERF_FEAT_HOSTNAME:
		return h->hostname ? 0 : feat_string(c, &h->hostname);
	case PERF_FEAT_OSRELEASE:
		return h->osrelease ? 0 : feat_string(c, &h->osrelease);
	case PERF_FEAT_VERSION:
		return h->version ? 0 : feat_string(c, &h->version);
	case PERF_FEAT_ARCH:
		return h->arch ? 0 : feat_string(c, &h->arch);
	case PERF_FEAT_CPUDESC:
		return h->cpudesc ? 0 : feat_string(c, &h->cpudesc);
	case PERF_FEAT_CPUID:
		return h->cpuid ? 0 : feat_string(c, &h->cpuid);
	case PERF_FEAT_NRCPUS:
		if (cursor_u32(c, &h->nr_cpus_avail) || cursor_u32(c, &h->nr_cpus_online))
			return CORRUPT(c, "nrcpus truncated");
		return 0;
	case PERF_FEAT_TOTAL_MEM:
		if (cursor_u64(c, &h->total_mem_kb))
			return CORRUPT(c, "total_mem truncated");
		return 0;
	case PERF_FEAT_CMDLINE: {
		uint32_t n;
		if (h->cmdline || cursor_u32(c, &n))
			return h->cmdline ? 0 : CORRUPT(c, "cmdline truncated");
		if (n > cursor_left(c) / 4)
			return CORRUPT(c, "cmdline count %u beyond its section", n);
		XALLOC_ARRAY(h->cmdline, n ? n : 1);
		for (uint32_t i = 0; i < n; i++) {
			int err = feat_string(c, &h->cmdline[i]);
			if (err)
				return err;
			h->cmdline_n++;
		}
		return 0;
	}
	case PERF_FEAT_BUILD_ID:
		return feat_build_ids(r, c);
	case PERF_FEAT_EVENT_DESC:
		return feat_event_desc(r, c);
	case PERF_FEAT_PMU_MAPPINGS:
		return feat_pmu_mappings(h, c);
	case PERF_FEAT_GROUP_DESC:
		return feat_group_desc(h, c);
	case PERF_FEAT_SAMPLE_TIME:
		if (cursor_u64(c, &h->first_sample_time) || cursor_u64(c, &h->last_sample_time))
			return CORRUPT(c, "sample_time truncated");
		return 0;
	case PERF_FEAT_CLOCKID:
		if (cursor_u64(c, &h->clockid_res_ns))
			return CORRUPT(c, "clockid truncated");
		return 0;
	case PERF_FEAT_CLOCK_DATA: {
		uint32_t version;
		if (cursor_u32(c, &version) || cursor_u32(c, &h->clock_clockid) ||
		    cursor_u64(c, &h->clock_tod_ns) || cursor_u64(c, &h->clock_clockid_ns))
			return CORRUPT(c, "clock_data truncated");
		return version == 1 ? 0 : CORRUPT(c, "clock_data version %u", version);
	}
	case PERF_FEAT_COMPRESSED:
		if (cursor_u32(c, &h->comp_ver) || cursor_u32(c, &h->comp_type) ||
		    cursor_u32(c, &h->comp_level) || cursor_u32(c, &h->comp_ratio) ||
		    cursor_u32(c, &h->comp_mmap_len))
			return CORRUPT(c, "compressed truncated");
		return 0;
	case PERF_FEAT_CPU_PMU_CAPS:
		if (h->cpu_pmu_caps.caps)
			return 0;
		return feat_caps(&h->cpu_pmu_caps, c);
	case PERF_FEAT_PMU_CAPS:
		return feat_pmu_caps(h, c);
	case PERF_FEAT_BPF_PROG_INFO:
		if (cursor_u32(c, &h->nbpf_progs))
			return CORRUPT(c, "bpf_prog_info truncated");
		return 0;
	case PERF_FEAT_BPF_BTF:
		return feat_bpf_btf(h, c);
	case PERF_FEAT_TRACING_DATA:
		return reader_keep_tracing_data(h, c->p, cursor_left(c), cursor_offset(c));
	default:
		return 0;
	}
}

void reader_parse_features(struct perf_reader *r)
{
	struct perf_header_info *h = &r->info;
	uint64_t idx = h->data_offset + h->data_size;
	for (unsigned feat = 1; feat < PERF_FEAT_MAX; feat++) {
		if (!(h->features[feat / 64] & (1ULL << (feat % 64))))
			continue;
		uint64_t off, size;
		if (idx > r->len || r->len - idx < 16) {
			log_warn("%s: feature index truncated at offset 0x%llx", r->name,
				 (unsigned long long)idx);
			return;
		}
		memcpy(&off, r->data + idx, 8);
		memcpy(&size, r->data + idx + 8, 8);
		idx += 16;
		if (off > r->len || size > r->len - off) {
			log_warn("%s: feature %u section at 0x%llx (+%llu) lies past the end; skipped",
				 r->name, feat, (unsigned long long)off, (unsigned long long)size);
			continue;
		}
		struct cursor c;
		cursor_init(&c, r->data + off, size, off, false);
		if (reader_parse_feature(r, feat, &c) < 0)
			log_warn("%s: feature %u skipped: %s at offset 0x%llx", r->name, feat,
				 err_last()->msg, (unsigned long long)err_last()->offset);
		else
			h->parsed[feat / 64] |= 1ULL << (feat % 64);
	}
}

/* ---- header ---- */
