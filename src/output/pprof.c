/*
 * pprof: trie or locprof → profile.proto, gzip-compressed (output, L7).
 *
 * A small protobuf writer: every message is built in a byte vector and
 * appended to its parent as a length-delimited field, so sizes are known
 * when written. Field numbers are profile.proto's:
 *
 *   Profile  1 sample_type 2 sample 3 mapping 4 location 5 function
 *            6 string_table 11 period_type 12 period 14 default_sample_type
 *   ValueType 1 type 2 unit
 *   Sample   1 location_id 2 value (packed) 3 label (1 key 2 str 3 num)
 *   Mapping  1 id 2 memory_start 3 memory_limit 4 file_offset 5 filename
 *            6 build_id 7 has_functions 8 has_filenames 9 has_line_numbers
 *            10 has_inline_frames
 *   Location 1 id 2 mapping_id 3 address 4 line
 *   Line     1 function_id 2 line
 *   Function 1 id 2 name 3 system_name 4 filename 5 start_line
 *
 * From a trie (names only), ids are numbered in first-use order of a
 * pre-order walk of the sorted trie; from a locprof (addresses), in the
 * locprof's order. The gzip header has no time or name, so the bytes
 * depend only on the input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "output/export.h"

typedef VEC(uint8_t) bytes;

static void put_varint(bytes *b, uint64_t v)
{
	while (v >= 0x80) {
		VEC_PUSH(b, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	VEC_PUSH(b, (uint8_t)v);
}

static void put_tag(bytes *b, unsigned field, unsigned wire)
{
	put_varint(b, ((uint64_t)field << 3) | wire);
}

static void put_uint(bytes *b, unsigned field, uint64_t v)
{
	if (!v)
		return; /* proto3: zero is the default and is not written */
	put_tag(b, field, 0);
	put_varint(b, v);
}

static void put_bytes(bytes *b, unsigned field, const void *p, size_t n)
{
	put_tag(b, field, 2);
	put_varint(b, n);
	VEC_RESERVE(b, b->n + n);
	memcpy(b->v + b->n, p, n);
	b->n += n;
}

static void put_msg(bytes *b, unsigned field, bytes *m)
{
	put_bytes(b, field, m->v ? (const void *)m->v : "", m->n);
	m->n = 0;
}

struct pp {
	const struct trie *t;
	const struct strtab *names; /* the strings of every name id */
	const struct export_opts *o;
	bytes out;       /* the Profile message */
	bytes m, m2;     /* scratch messages */
	struct hashmap str_of;   /* strtab id + 1 (0: "") -> string index */
	uint64_t nstr;
	struct hashmap func_of;  /* strtab name id -> function id */
	uint64_t nfunc;
	struct hashmap loc_of;   /* hash of a location's function ids -> location id */
	VEC(uint64_t) loc_funcs; /* all locations' function ids, concatenated */
	VEC(size_t) loc_start;   /* location id - 1 -> [start, next start) in loc_funcs */
};

static uint64_t string_index(struct pp *p, const char *s, size_t n, uint64_t key)
{
	uint64_t v;
	if (hashmap_get(&p->str_of, key, &v))
		return v;
	put_bytes(&p->out, 6, s, n);
	hashmap_put(&p->str_of, key, p->nstr);
	return p->nstr++;
}

/* A literal string (not a trie name): keys above every strtab id. */
static uint64_t lit_index(struct pp *p, const char *s, unsigned which)
{
	return string_index(p, s, strlen(s), (1ULL << 40) + which);
}

/* A valid UTF-8 copy of a name: protobuf strings must be UTF-8. */
static uint64_t name_index(struct pp *p, uint32_t name)
{
	uint64_t v;
	if (hashmap_get(&p->str_of, (uint64_t)name + 1, &v))
		return v;
	const char *s = strtab_get(p->names, name);
	size_t n = strtab_len(p->names, name);
	bytes clean = { 0 };
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t l = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
			   c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		bool ok = l && i + l <= n;
		for (size_t k = 1; ok && k < l; k++)
			ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
		if (ok && l == 3) {
			unsigned char c1 = (unsigned char)s[i + 1];
			ok = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);
		} else if (ok && l == 4) {
			unsigned char c1 = (unsigned char)s[i + 1];
			ok = !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
		}
		if (!ok) {
			VEC_PUSH(&clean, 0xef);
			VEC_PUSH(&clean, 0xbf);
			VEC_PUSH(&clean, 0xbd);
			i++;
			continue;
		}
		for (size_t k = 0; k < l; k++)
			VEC_PUSH(&clean, (uint8_t)s[i + k]);
		i += l;
	}
	v = string_index(p, clean.v ? (const char *)clean.v : "", clean.n, (uint64_t)name + 1);
	VEC_FREE(&clean);
	return v;
}

static uint64_t function_id(struct pp *p, uint32_t name)
{
	uint64_t v;
	if (hashmap_get(&p->func_of, name, &v))
		return v;
	uint64_t s = name_index(p, name);
	v = ++p->nfunc;
	put_uint(&p->m, 1, v);
	put_uint(&p->m, 2, s);
	put_uint(&p->m, 3, s);
	put_msg(&p->out, 5, &p->m);
	hashmap_put(&p->func_of, name, v);
	return v;
}

/* The location of a caller and the frames inlined into it (callee first). */
static uint64_t location_id(struct pp *p, const uint64_t *funcs, size_t n, uint64_t mapping)
{
	uint64_t h = 0x6b696c6e, v;
	for (size_t i = 0; i < n; i++)
		h = hash_mix2(h, funcs[i]);
	/* Probe from h: a slot holds one location; a mismatch moves on. */
	for (uint64_t k = h;; k++) {
		if (!hashmap_get(&p->loc_of, k, &v))
			break;
		size_t st = p->loc_start.v[v - 1];
		size_t en = v < p->loc_start.n ? p->loc_start.v[v] : p->loc_funcs.n;
		if (en - st == n && !memcmp(p->loc_funcs.v + st, funcs, n * sizeof(*funcs)))
			return v;
		h = k + 1;
	}
	v = p->loc_start.n + 1;
	VEC_PUSH(&p->loc_start, p->loc_funcs.n);
	for (size_t i = 0; i < n; i++)
		VEC_PUSH(&p->loc_funcs, funcs[i]);
	hashmap_put(&p->loc_of, h, v);
	put_uint(&p->m, 1, v);
	put_uint(&p->m, 2, mapping);
	for (size_t i = 0; i < n; i++) {
		put_uint(&p->m2, 1, funcs[i]);
		put_msg(&p->m, 4, &p->m2);
	}
	put_msg(&p->out, 4, &p->m);
	return v;
}

static uint64_t shown(const struct pp *p, uint64_t v)
{
	uint64_t d = p->o->divisor ? p->o->divisor : 1;
	return (v + d / 2) / d;
}

/* One sample per node with a count: its locations leaf first. */
static void samples(struct pp *p)
{
	VEC(uint64_t) funcs = { 0 };
	VEC(uint64_t) locs = { 0 };
	VEC(uint32_t) path = { 0 };
	struct trie_walk w;
	trie_walk_init(&w, p->t, 0);
	for (uint32_t id; (id = trie_walk_next(&w)) != TRIE_NONE;) {
		const struct trie_node *n = trie_node(p->t, id);
		if (n->self && id != 0) {
			path.n = 0;
			for (uint32_t c = id; c != 0; c = trie_node(p->t, c)->parent)
				VEC_PUSH(&path, c);
			/* path is leaf first; group each frame with the inlined frames above it */
			locs.n = 0;
			funcs.n = 0;
			for (size_t i = 0; i < path.n; i++) {
				const struct trie_node *f = trie_node(p->t, path.v[i]);
				VEC_PUSH(&funcs, function_id(p, f->name));
				if (f->kind != FRAME_INLINE || i + 1 == path.n) {
					uint64_t map = f->name < p->o->nname_mapping && p->o->name_mapping
							       ? p->o->name_mapping[f->name]
							       : 0;
					if (map > p->o->nmappings)
						map = 0;
					VEC_PUSH(&locs, location_id(p, funcs.v, funcs.n, map));
					funcs.n = 0;
				}
			}
			bytes packed = { 0 };
			for (size_t i = 0; i < locs.n; i++)
				put_varint(&packed, locs.v[i]);
			put_bytes(&p->m, 1, packed.v, packed.n);
			packed.n = 0;
			put_varint(&packed, shown(p, n->self));
			if (p->o->values2)
				put_varint(&packed, id < p->o->nvalues2 ? p->o->values2[id] : 0);
			put_bytes(&p->m, 2, packed.v, packed.n);
			VEC_FREE(&packed);
			put_msg(&p->out, 2, &p->m);
		}
	}
	trie_walk_release(&w);
	VEC_FREE(&funcs);
	VEC_FREE(&locs);
	VEC_FREE(&path);
}

static int gzip_write(FILE *f, const uint8_t *data, size_t n)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip wrapper with a zero time and no name. */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	uint8_t buf[65536];
	int zr;
	z.next_in = (Bytef *)data;
	z.avail_in = 0;
	size_t left = n;
	do {
		if (z.avail_in == 0 && left) {
			z.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
			left -= z.avail_in;
		}
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = deflate(&z, left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			deflateEnd(&z);
			return -EINVAL;
		}
		fwrite(buf, 1, sizeof(buf) - z.avail_out, f);
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return ferror(f) ? -EIO : 0;
}

/* The string table's "", the sample types and the period; returns the
 * default sample type's string index. */
static uint64_t write_types(struct pp *p)
{
	const struct export_opts *o = p->o;
	/* string_table[0] must be "" */
	put_bytes(&p->out, 6, "", 0);
	p->nstr = 1;
	hashmap_put(&p->str_of, 0, 0);
	uint64_t type = lit_index(p, o->sample_type ? o->sample_type : "samples", 0);
	uint64_t unit = lit_index(p, o->sample_unit ? o->sample_unit : "count", 1);
	put_uint(&p->m, 1, type);
	put_uint(&p->m, 2, unit);
	bytes vt = p->m;
	p->m = (bytes){ 0 };
	put_bytes(&p->out, 1, vt.v, vt.n);
	uint64_t deflt = type;
	if (o->values2 || o->type2) {
		/* The events' own measure is the default view (as pprof shows perf's). */
		uint64_t t2 = lit_index(p, o->type2 ? o->type2 : "events", 2);
		uint64_t u2 = lit_index(p, o->unit2 ? o->unit2 : "count", 3);
		put_uint(&p->m, 1, t2);
		put_uint(&p->m, 2, u2);
		put_msg(&p->out, 1, &p->m);
		deflt = t2;
	}
	put_bytes(&p->out, 11, vt.v, vt.n);
	VEC_FREE(&vt);
	put_uint(&p->out, 12, 1);
	return deflt;
}

static void pp_release(struct pp *p)
{
	VEC_FREE(&p->out);
	VEC_FREE(&p->m);
	VEC_FREE(&p->m2);
	VEC_FREE(&p->loc_funcs);
	VEC_FREE(&p->loc_start);
	hashmap_release(&p->str_of);
	hashmap_release(&p->func_of);
	hashmap_release(&p->loc_of);
}

int pprof_write(FILE *f, const struct trie *t, const struct export_opts *o)
{
	struct pp p = { .t = t, .names = t->names, .o = o };
	hashmap_init(&p.str_of);
	hashmap_init(&p.func_of);
	hashmap_init(&p.loc_of);
	uint64_t deflt = write_types(&p);
	for (size_t i = 0; i < o->nmappings; i++) {
		/* Mapping: 1 id, 5 filename, 6 build_id, 7 has_functions */
		const struct export_mapping *em = &o->mappings[i];
		put_uint(&p.m, 1, i + 1);
		put_uint(&p.m, 5, lit_index(&p, em->file ? em->file : "", 16 + 2 * (unsigned)i));
		if (em->build_id && em->build_id[0])
			put_uint(&p.m, 6, lit_index(&p, em->build_id, 17 + 2 * (unsigned)i));
		put_uint(&p.m, 7, 1);
		put_msg(&p.out, 3, &p.m);
	}
	samples(&p);
	put_uint(&p.out, 14, deflt);
	int err = gzip_write(f, p.out.v, p.out.n);
	pp_release(&p);
	return err;
}

/* ---- from a profile by address (aggregate/locprof.h) ---- */

/* A string by strtab id, or "" for LOCPROF_NONE. */
static uint64_t id_index(struct pp *p, uint32_t id)
{
	return id == LOCPROF_NONE ? 0 : name_index(p, id);
}

struct fkey {
	uint32_t name, raw, file, start_line;
};

struct lpw {
	struct pp p;
	const struct locprof *lp;
	VEC(struct fkey) funcs; /* function id - 1 -> its fields */
	struct hashmap func_of; /* hash of the fields -> function id (probed) */
	uint32_t *map_id;       /* mapping index -> id in the output (files first) */
};

static uint64_t lp_function(struct lpw *w, const struct lp_line *l)
{
	struct fkey k = { l->name, l->raw, l->file, l->start_line };
	uint64_t h = hash_mix2(hash_mix2(k.name, k.raw), hash_mix2(k.file, k.start_line)), v;
	for (;; h++) {
		if (!hashmap_get(&w->func_of, h, &v))
			break;
		const struct fkey *e = &w->funcs.v[v - 1];
		if (e->name == k.name && e->raw == k.raw && e->file == k.file &&
		    e->start_line == k.start_line)
			return v;
	}
	VEC_PUSH(&w->funcs, k);
	v = w->funcs.n;
	hashmap_put(&w->func_of, h, v);
	/* Function: 1 id, 2 name, 3 system_name, 4 filename, 5 start_line */
	struct pp *p = &w->p;
	put_uint(&p->m2, 1, v);
	put_uint(&p->m2, 2, id_index(p, k.name));
	put_uint(&p->m2, 3, id_index(p, k.raw));
	put_uint(&p->m2, 4, id_index(p, k.file));
	put_uint(&p->m2, 5, k.start_line);
	put_msg(&p->out, 5, &p->m2);
	return v;
}

struct mapord {
	uint32_t idx, dso;
	uint64_t start;
	uint64_t main; /* samples of a thread named after this binary that pass through it */
	bool file;
};

static int mapord_cmp(const void *a, const void *b)
{
	const struct mapord *x = a, *y = b;
	if (x->main != y->main)
		return x->main > y->main ? -1 : 1;
	if (x->file != y->file)
		return x->file ? -1 : 1;
	if (x->dso != y->dso)
		return x->dso < y->dso ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Whether a binary's path names the thread: its basename is the comm (which
 * the kernel cuts to 15 bytes). */
static bool names_thread(const struct strtab *names, uint32_t file, uint32_t comm)
{
	if (file == LOCPROF_NONE || comm == LOCPROF_NONE)
		return false;
	const char *f = strtab_get(names, file), *c = strtab_get(names, comm);
	const char *b = strrchr(f, '/');
	b = b ? b + 1 : f;
	size_t cn = strlen(c);
	return cn && (!strcmp(b, c) || (cn == 15 && !strncmp(b, c, 15)));
}

/* Each mapping's 'main' score: the samples that pass through it in a thread
 * named after its binary. */
static void main_scores(const struct locprof *lp, struct mapord *ord)
{
	for (size_t i = 0; i < lp->samples.n; i++) {
		const struct lp_sample *s = &lp->samples.v[i];
		uint32_t last = 0;
		for (uint32_t k = 0; k < s->n; k++) {
			uint32_t loc = lp->stacks.v[s->at + k];
			uint32_t m = loc && loc <= lp->locs.n ? lp->locs.v[loc - 1].mapping : 0;
			if (!m || m > lp->maps.n || m == last)
				continue;
			last = m;
			if (names_thread(lp->strs, lp->maps.v[m - 1].file, s->comm))
				ord[m - 1].main += s->count;
		}
	}
}

/*
 * Mappings numbered from the main binary (pprof takes the first mapping
 * as the main binary): the one most samples pass through in threads named
 * after it; then files first, by dso id (the executable is mapped before
 * its libraries), then by address. Each says what its locations have
 * (functions, file names, line numbers, inline frames).
 */
static void lp_mappings(struct lpw *w)
{
	const struct locprof *lp = w->lp;
	struct pp *p = &w->p;
	size_t nm = lp->maps.n;
	struct mapord *ord = xcalloc(nm ? nm : 1, sizeof(*ord));
	w->map_id = xcalloc(nm + 1, sizeof(*w->map_id));
	uint8_t *has = xcalloc(nm + 1, 1); /* bits: 1 functions, 2 files, 4 lines, 8 inline */
	for (size_t i = 0; i < lp->locs.n; i++) {
		const struct lp_location *l = &lp->locs.v[i];
		if (!l->mapping || l->mapping > nm)
			continue;
		uint8_t *b = &has[l->mapping - 1];
		if (l->nlines)
			*b |= 1;
		if (l->nlines > 1)
			*b |= 8;
		for (uint32_t k = 0; k < l->nlines; k++) {
			const struct lp_line *ln = &lp->lines.v[l->line0 + k];
			if (ln->file != LOCPROF_NONE)
				*b |= 2;
			if (ln->line)
				*b |= 4;
		}
	}
	for (size_t i = 0; i < nm; i++)
		ord[i] = (struct mapord){ (uint32_t)i, lp->maps.v[i].dso, lp->maps.v[i].start, 0,
					  lp->maps.v[i].is_file };
	main_scores(lp, ord);
	/* Only the best one moves ahead: the rest keep file, dso, address order. */
	size_t best = 0;
	for (size_t i = 1; i < nm; i++)
		if (ord[i].main > ord[best].main)
			best = i;
	for (size_t i = 0; i < nm; i++)
		ord[i].main = i == best && ord[i].main ? 1 : 0;
	qsort(ord, nm, sizeof(*ord), mapord_cmp);
	for (size_t r = 0; r < nm; r++) {
		const struct lp_mapping *mp = &lp->maps.v[ord[r].idx];
		w->map_id[ord[r].idx] = (uint32_t)r + 1;
		/* Mapping: 1 id, 2 memory_start, 3 memory_limit, 4 file_offset, 5 filename,
		 * 6 build_id, 7 has_functions, 8 has_filenames, 9 has_line_numbers,
		 * 10 has_inline_frames */
		uint8_t b = has[ord[r].idx];
		put_uint(&p->m, 1, r + 1);
		put_uint(&p->m, 2, mp->start);
		put_uint(&p->m, 3, mp->limit);
		put_uint(&p->m, 4, mp->offset);
		put_uint(&p->m, 5, id_index(p, mp->file));
		put_uint(&p->m, 6, id_index(p, mp->build_id));
		put_uint(&p->m, 7, b & 1);
		put_uint(&p->m, 8, (b >> 1) & 1);
		put_uint(&p->m, 9, (b >> 2) & 1);
		put_uint(&p->m, 10, (b >> 3) & 1);
		put_msg(&p->out, 3, &p->m);
	}
	free(ord);
	free(has);
}

static void lp_locations(struct lpw *w)
{
	const struct locprof *lp = w->lp;
	struct pp *p = &w->p;
	for (size_t i = 0; i < lp->locs.n; i++) {
		const struct lp_location *l = &lp->locs.v[i];
		bytes lines = { 0 };
		/* Functions first: each is its own top-level message. */
		for (uint32_t k = 0; k < l->nlines; k++) {
			const struct lp_line *ln = &lp->lines.v[l->line0 + k];
			uint64_t fid = lp_function(w, ln);
			/* Line: 1 function_id, 2 line */
			put_uint(&p->m2, 1, fid);
			put_uint(&p->m2, 2, ln->line);
			put_msg(&lines, 4, &p->m2);
		}
		/* Location: 1 id, 2 mapping_id, 3 address, 4 line (innermost first) */
		put_uint(&p->m, 1, i + 1);
		if (l->mapping && l->mapping <= lp->maps.n)
			put_uint(&p->m, 2, w->map_id[l->mapping - 1]);
		put_uint(&p->m, 3, l->address);
		VEC_RESERVE(&p->m, p->m.n + lines.n);
		if (lines.n)
			memcpy(p->m.v + p->m.n, lines.v, lines.n);
		p->m.n += lines.n;
		VEC_FREE(&lines);
		put_msg(&p->out, 4, &p->m);
	}
}

static void put_label(struct pp *p, uint64_t key, uint64_t str, uint64_t num)
{
	/* Label: 1 key, 2 str, 3 num */
	put_uint(&p->m2, 1, key);
	put_uint(&p->m2, 2, str);
	if (!str) {
		put_tag(&p->m2, 3, 0);
		put_varint(&p->m2, num); /* written even when 0: pid 0 is the idle task */
	}
	put_msg(&p->m, 3, &p->m2);
}

static void lp_samples(struct lpw *w)
{
	const struct locprof *lp = w->lp;
	struct pp *p = &w->p;
	uint64_t kcomm = lit_index(p, "comm", 4), kpid = lit_index(p, "pid", 5),
		 ktid = lit_index(p, "tid", 6);
	bytes packed = { 0 };
	for (size_t i = 0; i < lp->samples.n; i++) {
		const struct lp_sample *s = &lp->samples.v[i];
		packed.n = 0;
		for (uint32_t k = 0; k < s->n; k++)
			put_varint(&packed, lp->stacks.v[s->at + k]);
		/* Sample: 1 location_id (leaf first), 2 value, 3 label */
		put_bytes(&p->m, 1, packed.v ? (const void *)packed.v : "", packed.n);
		packed.n = 0;
		put_varint(&packed, s->count);
		if (p->o->type2)
			put_varint(&packed, s->period);
		put_bytes(&p->m, 2, packed.v, packed.n);
		put_label(p, kcomm, id_index(p, s->comm), 0);
		put_label(p, kpid, 0, s->pid);
		put_label(p, ktid, 0, s->tid);
		put_msg(&p->out, 2, &p->m);
	}
	VEC_FREE(&packed);
}

int pprof_write_locprof(FILE *f, const struct locprof *lp, const struct export_opts *o)
{
	struct lpw w = { .p = { .names = lp->strs, .o = o }, .lp = lp };
	struct pp *p = &w.p;
	hashmap_init(&p->str_of);
	hashmap_init(&p->func_of);
	hashmap_init(&p->loc_of);
	hashmap_init(&w.func_of);
	uint64_t deflt = write_types(p);
	lp_mappings(&w);
	lp_locations(&w);
	lp_samples(&w);
	put_uint(&p->out, 14, deflt);
	int err = gzip_write(f, p->out.v, p->out.n);
	pp_release(p);
	VEC_FREE(&w.funcs);
	hashmap_release(&w.func_of);
	free(w.map_id);
	return err;
}
