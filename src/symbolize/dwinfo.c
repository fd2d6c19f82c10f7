/*
 * dwinfo: DWARF 2-5 DIEs from the section bytes (symbolize, L5). See
 * dwinfo.h for the rules.
 */
#include "symbolize/dwinfo.h"

#include <dwarf.h>
#include <string.h>

#include "base/search.h"
#include "base/xalloc.h"
#include "symbolize/dwbytes.h"

#define MAX_UNITS 10000000
#define MAX_ABBREVS 1000000   /* entries in one table */
#define MAX_ABBREV_ATTRS 4096 /* attributes of one entry */
#define MAX_INDIRECT 8        /* DW_FORM_indirect chained */
#define DENSE_LIMIT 100000    /* codes kept in an array up to this */

/* ---- unit headers ---- */

void dwinfo_open(struct dwinfo *di, const struct dwinfo_secs *s)
{
	memset(di, 0, sizeof(*di));
	di->s = *s;
	hashmap_init(&di->table_at);
	const uint8_t *base = s->info.p, *secend = base ? base + s->info.n : NULL;
	uint64_t off = 0;
	while (base && off < s->info.n && di->units.n < MAX_UNITS) {
		const uint8_t *p = base + off;
		if (secend - p < 4)
			break;
		uint64_t len = dw_le(&p, secend, 4);
		unsigned offsz = 4;
		if (len == 0xffffffff) {
			if (secend - p < 8)
				break;
			len = dw_le(&p, secend, 8);
			offsz = 8;
		} else if (len >= 0xfffffff0) {
			break;
		}
		if (len > (uint64_t)(secend - p) || len < 2)
			break;
		const uint8_t *end = p + len;
		struct dwunit u = { 0 };
		u.off = off;
		u.end = (uint64_t)(end - base);
		u.offsz = offsz;
		u.table = UINT32_MAX;
		u.version = (unsigned)dw_le(&p, end, 2);
		if (u.version < 2 || u.version > 5)
			break;
		if (u.version >= 5) {
			if (end - p < 2 + (long)offsz)
				break;
			u.type = (unsigned)dw_le(&p, end, 1);
			u.asize = (unsigned)dw_le(&p, end, 1);
			u.abbrev_off = dw_le(&p, end, offsz);
			unsigned extra = 0;
			if (u.type == DW_UT_type || u.type == DW_UT_split_type)
				extra = 8 + offsz;
			else if (u.type == DW_UT_skeleton || u.type == DW_UT_split_compile)
				extra = 8;
			if ((unsigned long)(end - p) < extra)
				break;
			p += extra;
		} else {
			if (end - p < (long)offsz + 1)
				break;
			u.type = DW_UT_compile;
			u.abbrev_off = dw_le(&p, end, offsz);
			u.asize = (unsigned)dw_le(&p, end, 1);
		}
		if (!u.asize || u.asize > 8)
			break;
		u.die = (uint64_t)(p - base);
		VEC_PUSH(&di->units, u);
		off = u.end;
	}
}

void dwinfo_close(struct dwinfo *di)
{
	for (size_t i = 0; i < di->tables.n; i++) {
		VEC_FREE(&di->tables.v[i].v);
		VEC_FREE(&di->tables.v[i].attrs);
		hashmap_release(&di->tables.v[i].codes);
	}
	VEC_FREE(&di->tables);
	VEC_FREE(&di->units);
	hashmap_release(&di->table_at);
}

uint32_t dwinfo_unit_at(const struct dwinfo *di, uint64_t off)
{
	size_t lo = UPPER_BOUND(di->units.v, di->units.n, struct dwunit, off, off);
	if (!lo || off >= di->units.v[lo - 1].end)
		return UINT32_MAX;
	return (uint32_t)(lo - 1);
}

/* ---- forms ---- */

/* A form's size in a unit of this version, address and offset size when
 * fixed, -1 when it varies, -2 when unknown. */
static int fixed_size(unsigned version, unsigned asize, unsigned offsz, unsigned form)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_ref_sup4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
		return 4;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return (int)asize;
	case DW_FORM_ref_addr:
		return version == 2 ? (int)asize : (int)offsz;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_strp_alt:
	case DW_FORM_GNU_ref_alt:
		return (int)offsz;
	case DW_FORM_udata:
	case DW_FORM_sdata:
	case DW_FORM_ref_udata:
	case DW_FORM_strx:
	case DW_FORM_addrx:
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
	case DW_FORM_string:
	case DW_FORM_block:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_exprloc:
	case DW_FORM_indirect:
		return -1;
	default:
		return -2;
	}
}

/* Skips one value of 'form' at *p (not past end); false if malformed. */
static bool skip_value(const struct dwunit *u, unsigned form, const uint8_t **p, const uint8_t *end)
{
	int fs = fixed_size(u->version, u->asize, u->offsz, form);
	if (fs >= 0) {
		if (end - *p < fs)
			return false;
		*p += fs;
		return true;
	}
	uint64_t n;
	switch (form) {
	case DW_FORM_string: {
		const uint8_t *z = memchr(*p, '\0', (size_t)(end - *p));
		if (!z)
			return false;
		*p = z + 1;
		return true;
	}
	case DW_FORM_block:
	case DW_FORM_exprloc:
		n = dw_uleb(p, end);
		break;
	case DW_FORM_block1:
		if (end - *p < 1)
			return false;
		n = dw_le(p, end, 1);
		break;
	case DW_FORM_block2:
		if (end - *p < 2)
			return false;
		n = dw_le(p, end, 2);
		break;
	case DW_FORM_block4:
		if (end - *p < 4)
			return false;
		n = dw_le(p, end, 4);
		break;
	case DW_FORM_indirect:
		return false; /* handled by the caller */
	default:
		if (fs == -2 || *p >= end)
			return false;
		dw_uleb(p, end); /* a LEB128 value */
		return *p <= end && (*p)[-1] < 0x80;
	}
	if (n > (uint64_t)(end - *p))
		return false;
	*p += n;
	return true;
}

/* ---- abbreviations ---- */

static uint64_t table_key(const struct dwunit *u)
{
	return u->abbrev_off << 8 | (uint64_t)u->version << 5 | (uint64_t)(u->offsz == 8) << 4 | u->asize;
}

/*
 * The attribute list at *p passed over while its pairs (and implicit
 * constants) are one byte each (the pairs of most entries), counting
 * them in *nattr: true at its terminating pair (*p past it), false where
 * read_entry's full loop must go on (*p and *nattr at that pair).
 */
static bool skim_attrs(const uint8_t **pp, const uint8_t *end, uint32_t *nattr)
{
	const uint8_t *p = *pp;
	uint32_t n = *nattr;
	bool done = false;
	while (end - p >= 2 && n <= MAX_ABBREV_ATTRS) {
		unsigned at = p[0], form = p[1];
		if ((at | form) >= 0x80)
			break;
		if (form == DW_FORM_implicit_const) { /* its value: one byte, or the full loop */
			if (end - p < 3 || p[2] >= 0x80)
				break;
			p++;
		}
		p += 2;
		if (!(at | form)) {
			done = true;
			break;
		}
		n++;
	}
	*pp = p;
	*nattr = n;
	return done;
}

/*
 * Reads the entry at *pp (code, tag, children, attribute list) into *ab;
 * with a table, its attributes are appended to t->attrs and ab->fixed
 * worked out, else ab->fixed is -1 and *list (if given) is set to the
 * attribute list's first byte. false at the table's end or on a fault.
 */
static bool read_entry(const uint8_t **pp, const uint8_t *end, struct dwabbrev_table *t,
		       struct dwabbrev *ab, const uint8_t **list)
{
	const uint8_t *p = *pp;
	uint64_t code = dw_uleb(&p, end);
	if (!code || p >= end)
		return false;
	*ab = (struct dwabbrev){ code, (uint32_t)dw_uleb(&p, end), false, t ? (uint32_t)t->attrs.n : 0, 0, -1 };
	if (p >= end)
		return false;
	ab->children = *p++ != 0;
	if (list)
		*list = p;
	int64_t fixed = 0;
	if (!t && skim_attrs(&p, end, &ab->nattr)) {
		*pp = p;
		return true;
	}
	for (;;) {
		if (p >= end || ab->nattr > MAX_ABBREV_ATTRS)
			return false;
		uint64_t at, form;
		if (end - p >= 2 && (p[0] | p[1]) < 0x80) { /* both one byte: most pairs */
			at = p[0];
			form = p[1];
			p += 2;
		} else {
			at = dw_uleb(&p, end);
			if (p >= end)
				return false;
			form = dw_uleb(&p, end);
		}
		if (!at && !form)
			break;
		struct dwabbrev_attr a = { (uint32_t)at, (uint32_t)form, -1 };
		if (form == DW_FORM_implicit_const) {
			if (p >= end)
				return false;
			a.aux = dw_sleb(&p, end);
		}
		if (t) {
			int fs = fixed_size(t->version, t->asize, t->offsz, (unsigned)form);
			fixed = fixed >= 0 && fs >= 0 ? fixed + fs : -1;
			if (form != DW_FORM_implicit_const)
				a.aux = fs >= 0 ? fs : -1;
			VEC_PUSH(&t->attrs, a);
		}
		ab->nattr++;
	}
	if (t)
		ab->fixed = fixed >= 0 && fixed < INT32_MAX ? (int32_t)fixed : -1;
	*pp = p;
	return true;
}

/* Parses the next entry of t; false at its end or on a fault (t->done). */
static bool parse_next(const struct dwinfo *di, struct dwabbrev_table *t)
{
	const uint8_t *base = di->s.abbrev.p;
	if (t->done || !base || t->pos >= di->s.abbrev.n || t->v.n >= MAX_ABBREVS) {
		t->done = true;
		return false;
	}
	const uint8_t *p = base + t->pos;
	struct dwabbrev ab;
	t->done = true; /* unless the entry parses */
	if (!read_entry(&p, base + di->s.abbrev.n, t, &ab, NULL))
		return false;
	uint64_t code = ab.code;
	if (t->dense && (code != t->v.n + 1 || code > DENSE_LIMIT)) {
		t->dense = false; /* from now on by the map */
		for (size_t i = 0; i < t->v.n; i++)
			hashmap_put(&t->codes, t->v.v[i].code, i);
	}
	if (!t->dense) {
		bool added;
		hashmap_slot(&t->codes, code, t->v.n, &added); /* the first one counts */
	}
	VEC_PUSH(&t->v, ab);
	t->pos = (uint64_t)(p - base);
	t->done = false;
	return true;
}

/*
 * The first entry for 'code' in the table at .debug_abbrev offset 'pos',
 * found as parse_next would find it (same bounds and faults) but without
 * building the table; *list: its attribute list.
 */
static bool skim_abbrev(const struct dwinfo *di, uint64_t pos, uint64_t code, struct dwabbrev *ab,
			uint64_t *list)
{
	const uint8_t *base = di->s.abbrev.p;
	for (size_t n = 0; base && pos < di->s.abbrev.n && n < MAX_ABBREVS; n++) {
		const uint8_t *p = base + pos, *at;
		if (!read_entry(&p, base + di->s.abbrev.n, NULL, ab, &at))
			return false;
		if (ab->code == code) {
			*list = (uint64_t)(at - base);
			return true;
		}
		pos = (uint64_t)(p - base);
	}
	return false;
}

static struct dwabbrev_table *unit_table(struct dwinfo *di, struct dwunit *u)
{
	if (u->table == UINT32_MAX) {
		uint64_t key = table_key(u), idx;
		if (!hashmap_get(&di->table_at, key, &idx)) {
			idx = di->tables.n;
			struct dwabbrev_table *t = VEC_PUSH_ZERO(&di->tables);
			hashmap_init(&t->codes);
			t->dense = true;
			t->pos = u->abbrev_off;
			t->version = u->version;
			t->asize = u->asize;
			t->offsz = u->offsz;
			hashmap_put(&di->table_at, key, idx);
		}
		u->table = (uint32_t)idx;
	}
	return &di->tables.v[u->table];
}

/* The entry for 'code', parsing the table as far as needed. */
static const struct dwabbrev *find_abbrev(const struct dwinfo *di, struct dwabbrev_table *t,
					  uint64_t code)
{
	for (;;) {
		uint64_t i;
		if (t->dense ? code - 1 < t->v.n : hashmap_get(&t->codes, code, &i))
			return &t->v.v[t->dense ? code - 1 : i];
		if (!parse_next(di, t))
			return NULL;
	}
}

/* ---- DIEs ---- */

/* The next attribute of an entry's list at *p (read by skim_abbrev before). */
static void spec_attr(const uint8_t **p, const uint8_t *end, struct dwabbrev_attr *a)
{
	a->at = (uint32_t)dw_uleb(p, end);
	a->form = (uint32_t)dw_uleb(p, end);
	a->aux = a->form == DW_FORM_implicit_const ? dw_sleb(p, end) : -1;
}

/* The DIE's code read and *d filled but for its abbreviation; false: unreadable. */
static bool die_head(struct dwinfo *di, uint32_t unit, uint64_t off, struct dwdie *d, uint64_t *code)
{
	if (unit >= di->units.n)
		return false;
	const struct dwunit *u = &di->units.v[unit];
	if (off < u->die || off >= u->end)
		return false;
	const uint8_t *base = di->s.info.p, *p = base + off, *end = base + u->end;
	*code = dw_uleb(&p, end);
	if (p > end || (p == end && p[-1] >= 0x80))
		return false;
	d->off = off;
	d->unit = unit;
	d->attrs = (uint64_t)(p - base);
	d->null = !*code;
	d->raw = false;
	return true;
}

bool dwinfo_die(struct dwinfo *di, uint32_t unit, uint64_t off, struct dwdie *d)
{
	uint64_t code;
	if (!die_head(di, unit, off, d, &code))
		return false;
	if (!code)
		return true;
	struct dwabbrev_table *t = unit_table(di, &di->units.v[unit]);
	const struct dwabbrev *ab = find_abbrev(di, t, code);
	if (!ab)
		return false;
	d->ab = *ab; /* a copy: the table may grow (and move) as it is read further */
	return true;
}

bool dwinfo_unit_die(struct dwinfo *di, uint32_t unit, struct dwdie *d)
{
	if (unit >= di->units.n)
		return false;
	const struct dwunit *u = &di->units.v[unit];
	uint64_t code, idx;
	if (u->table != UINT32_MAX || hashmap_get(&di->table_at, table_key(u), &idx))
		return dwinfo_die(di, unit, u->die, d); /* the table is there: use it */
	if (!die_head(di, unit, u->die, d, &code))
		return false;
	if (!code)
		return true;
	if (!skim_abbrev(di, u->abbrev_off, code, &d->ab, &d->rawattrs))
		return false;
	d->raw = true;
	return true;
}

bool dwinfo_attrs(struct dwinfo *di, const struct dwdie *d, dwattr_fn fn, void *arg, uint64_t *next)
{
	const struct dwunit *u = &di->units.v[d->unit];
	const uint8_t *base = di->s.info.p, *p = base + d->attrs, *end = base + u->end;
	if (d->null) {
		if (next)
			*next = d->attrs;
		return true;
	}
	uint32_t table = u->table;
	const uint8_t *spec = d->raw ? di->s.abbrev.p + d->rawattrs : NULL;
	const uint8_t *spec_end = di->s.abbrev.p + di->s.abbrev.n;
	for (uint32_t i = 0; i < d->ab.nattr; i++) {
		/* Looked up each time: a callback may read on in the table (or add tables). */
		struct dwabbrev_attr at;
		if (spec) /* checked by skim_abbrev */
			spec_attr(&spec, spec_end, &at);
		else
			at = di->tables.v[table].attrs.v[d->ab.attr + i];
		unsigned form = at.form;
		bool implicit = form == DW_FORM_implicit_const;
		for (unsigned k = 0; form == DW_FORM_indirect; k++) {
			if (k >= MAX_INDIRECT || p >= end)
				return false;
			form = (unsigned)dw_uleb(&p, end);
		}
		struct dwattr a = { at.at, form, (uint64_t)(p - base), implicit ? at.aux : 0 };
		if (!implicit && at.aux >= 0 && form == at.form) { /* a fixed size, known */
			if (end - p < at.aux)
				return false;
			p += at.aux;
		} else if (!skip_value(u, form, &p, end)) {
			return false;
		}
		if (!fn(arg, &a))
			return false;
	}
	if (next)
		*next = (uint64_t)(p - base);
	return true;
}

static bool keep_going(void *arg, const struct dwattr *a)
{
	(void)arg;
	(void)a;
	return true;
}

bool dwinfo_skip(struct dwinfo *di, const struct dwdie *d, uint64_t *next)
{
	if (!d->null && d->ab.fixed >= 0) {
		const struct dwunit *u = &di->units.v[d->unit];
		if ((uint64_t)d->ab.fixed > u->end - d->attrs)
			return false;
		*next = d->attrs + (uint64_t)d->ab.fixed;
		return true;
	}
	return dwinfo_attrs(di, d, keep_going, NULL, next);
}

/* ---- values ---- */

/* The attribute's value bytes, bounded by its unit. */
static const uint8_t *value_at(const struct dwinfo *di, const struct dwdie *d, const struct dwattr *a,
			       const uint8_t **end)
{
	*end = di->s.info.p + di->units.v[d->unit].end;
	return di->s.info.p + a->off;
}

bool dwinfo_udata(const struct dwinfo *di, const struct dwdie *d, const struct dwattr *a, uint64_t *v)
{
	const uint8_t *end, *p = value_at(di, d, a, &end);
	const struct dwunit *u = &di->units.v[d->unit];
	switch (a->form) {
	case DW_FORM_data1:
		*v = dw_le(&p, end, 1);
		return true;
	case DW_FORM_data2:
		*v = dw_le(&p, end, 2);
		return true;
	case DW_FORM_data4:
		*v = dw_le(&p, end, 4);
		return true;
	case DW_FORM_data8:
		*v = dw_le(&p, end, 8);
		return true;
	case DW_FORM_sec_offset:
		*v = dw_le(&p, end, u->offsz);
		return true;
	case DW_FORM_udata:
		*v = dw_uleb(&p, end);
		return true;
	case DW_FORM_sdata:
		*v = (uint64_t)dw_sleb(&p, end);
		return true;
	case DW_FORM_implicit_const:
		*v = (uint64_t)a->implicit;
		return true;
	default:
		return false;
	}
}

static const char *sec_str(const struct dwinfo_sec *s, uint64_t off)
{
	if (!s->p || off >= s->n || !memchr(s->p + off, '\0', s->n - off))
		return NULL;
	return (const char *)s->p + off;
}

static void read_bases(struct dwinfo *di, uint32_t unit);

const char *dwinfo_str(struct dwinfo *di, const struct dwdie *d, const struct dwattr *a)
{
	const uint8_t *end, *p = value_at(di, d, a, &end);
	const struct dwunit *u = &di->units.v[d->unit];
	uint64_t idx;
	switch (a->form) {
	case DW_FORM_string:
		return memchr(p, '\0', (size_t)(end - p)) ? (const char *)p : NULL;
	case DW_FORM_strp:
		return sec_str(&di->s.str, dw_le(&p, end, u->offsz));
	case DW_FORM_line_strp:
		return sec_str(&di->s.line_str, dw_le(&p, end, u->offsz));
	case DW_FORM_strx:
		idx = dw_uleb(&p, end);
		break;
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
		idx = dw_le(&p, end, a->form - DW_FORM_strx1 + 1);
		break;
	default:
		return NULL;
	}
	read_bases(di, d->unit);
	u = &di->units.v[d->unit];
	const struct dwinfo_sec *so = &di->s.str_offsets;
	uint64_t at = u->str_offsets_base + idx * u->offsz;
	if (!so->p || idx > so->n / u->offsz || at >= so->n || so->n - at < u->offsz)
		return NULL;
	const uint8_t *q = so->p + at;
	return sec_str(&di->s.str, dw_le(&q, so->p + so->n, u->offsz));
}

bool dwinfo_ref(const struct dwinfo *di, const struct dwdie *d, const struct dwattr *a, uint64_t *off)
{
	const uint8_t *end, *p = value_at(di, d, a, &end);
	const struct dwunit *u = &di->units.v[d->unit];
	uint64_t v;
	switch (a->form) {
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8: {
		unsigned n = a->form == DW_FORM_ref1 ? 1 : a->form == DW_FORM_ref2 ? 2 : a->form == DW_FORM_ref4 ? 4 : 8;
		v = dw_le(&p, end, n);
		break;
	}
	case DW_FORM_ref_udata:
		v = dw_uleb(&p, end);
		break;
	case DW_FORM_ref_addr:
		v = dw_le(&p, end, u->version == 2 ? u->asize : u->offsz);
		if (v >= di->s.info.n)
			return false;
		*off = v;
		return true;
	default:
		return false;
	}
	if (v >= u->end - u->off)
		return false;
	*off = u->off + v;
	return true;
}

static bool addr_index(struct dwinfo *di, uint32_t unit, uint64_t idx, uint64_t *v)
{
	read_bases(di, unit);
	const struct dwunit *u = &di->units.v[unit];
	const struct dwinfo_sec *s = &di->s.addr;
	uint64_t at = u->addr_base + idx * u->asize;
	if (!s->p || idx > s->n / u->asize || at >= s->n || s->n - at < u->asize)
		return false;
	const uint8_t *q = s->p + at;
	*v = dw_le(&q, s->p + s->n, u->asize);
	return true;
}

bool dwinfo_addr(struct dwinfo *di, const struct dwdie *d, const struct dwattr *a, uint64_t *v)
{
	const uint8_t *end, *p = value_at(di, d, a, &end);
	const struct dwunit *u = &di->units.v[d->unit];
	switch (a->form) {
	case DW_FORM_addr:
		*v = dw_le(&p, end, u->asize);
		return true;
	case DW_FORM_addrx:
	case DW_FORM_GNU_addr_index:
		return addr_index(di, d->unit, dw_uleb(&p, end), v);
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
		return addr_index(di, d->unit, dw_le(&p, end, a->form - DW_FORM_addrx1 + 1), v);
	default:
		return false;
	}
}

/* ---- the unit DIE's bases and PC attributes ---- */

struct bases {
	struct dwinfo *di;
	const struct dwdie *d;
	struct dwpc pc;
	bool has_str, has_addr, has_rng;
	uint64_t str, addr, rng;
};

static bool base_attr(void *arg, const struct dwattr *a)
{
	struct bases *b = arg;
	uint64_t v;
	dwpc_note(&b->pc, a);
	switch (a->at) {
	case DW_AT_str_offsets_base:
		if (dwinfo_udata(b->di, b->d, a, &v))
			b->has_str = true, b->str = v;
		break;
	case DW_AT_addr_base:
	case DW_AT_GNU_addr_base:
		if (dwinfo_udata(b->di, b->d, a, &v))
			b->has_addr = true, b->addr = v;
		break;
	case DW_AT_rnglists_base:
		if (dwinfo_udata(b->di, b->d, a, &v))
			b->has_rng = true, b->rng = v;
		break;
	default:
		break;
	}
	return true;
}

static void read_bases(struct dwinfo *di, uint32_t unit)
{
	struct dwunit *u = &di->units.v[unit];
	if (u->bases_read)
		return;
	u->bases_read = true;
	u->str_offsets_base = u->addr_base = u->offsz == 8 ? 16 : 8;
	u->rnglists_base = u->offsz == 8 ? 20 : 12;
	struct dwdie d;
	if (!dwinfo_unit_die(di, unit, &d) || d.null)
		return;
	struct bases b = { .di = di, .d = &d };
	dwinfo_attrs(di, &d, base_attr, &b, NULL);
	u = &di->units.v[unit];
	if (b.has_str)
		u->str_offsets_base = b.str;
	if (b.has_addr)
		u->addr_base = b.addr;
	if (b.has_rng)
		u->rnglists_base = b.rng;
	uint64_t base = 0;
	if (!(b.pc.has_low && dwinfo_addr(di, &d, &b.pc.low, &base)) &&
	    !(b.pc.has_entry && dwinfo_addr(di, &d, &b.pc.entry, &base)))
		base = 0;
	di->units.v[unit].base_addr = base;
}

void dwpc_note(struct dwpc *pc, const struct dwattr *a)
{
	switch (a->at) {
	case DW_AT_low_pc:
		pc->has_low = true;
		pc->low = *a;
		break;
	case DW_AT_high_pc:
		pc->has_high = true;
		pc->high = *a;
		break;
	case DW_AT_ranges:
		pc->has_ranges = true;
		pc->ranges = *a;
		break;
	case DW_AT_entry_pc:
		pc->has_entry = true;
		pc->entry = *a;
		break;
	default:
		break;
	}
}

static bool is_addr_form(unsigned form)
{
	return form == DW_FORM_addr || form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index ||
	       (form >= DW_FORM_addrx1 && form <= DW_FORM_addrx4);
}

/* DW_AT_low_pc .. DW_AT_high_pc (an address or an offset from low). */
static bool pc_pair(struct dwinfo *di, const struct dwdie *d, const struct dwpc *pc, uint64_t *lo,
		    uint64_t *hi)
{
	if (!pc->has_low || !pc->has_high || !dwinfo_addr(di, d, &pc->low, lo))
		return false;
	if (is_addr_form(pc->high.form))
		return dwinfo_addr(di, d, &pc->high, hi);
	uint64_t n;
	if (!dwinfo_udata(di, d, &pc->high, &n))
		return false;
	*hi = *lo + n;
	return true;
}

/* The .debug_ranges list at 'off' (before DWARF 5). */
static long ranges_v4(struct dwinfo *di, const struct dwunit *u, uint64_t off, uint64_t base,
		      size_t max, dwrange_fn fn, void *arg)
{
	const struct dwinfo_sec *s = &di->s.ranges;
	uint64_t escape = u->asize == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * u->asize)) - 1;
	long n = 0;
	while ((size_t)n < max) {
		if (!s->p || off > s->n || s->n - off < 2 * (uint64_t)u->asize)
			return -1;
		const uint8_t *p = s->p + off, *end = s->p + s->n;
		uint64_t b = dw_le(&p, end, u->asize), e = dw_le(&p, end, u->asize);
		off += 2 * (uint64_t)u->asize;
		if (b == escape) {
			base = e;
			continue;
		}
		if (!b && !e)
			return n;
		fn(arg, b + base, e + base);
		n++;
	}
	return n;
}

/* The .debug_rnglists list at 'off' (DWARF 5). */
static long ranges_v5(struct dwinfo *di, uint32_t unit, uint64_t off, uint64_t base, size_t max,
		      dwrange_fn fn, void *arg)
{
	const struct dwinfo_sec *s = &di->s.rnglists;
	unsigned asize = di->units.v[unit].asize;
	if (!s->p || off >= s->n)
		return -1;
	const uint8_t *p = s->p + off, *end = s->p + s->n;
	long n = 0;
	while ((size_t)n < max) {
		if (p >= end)
			return -1;
		unsigned kind = *p++;
		uint64_t b, e, x, y;
		switch (kind) {
		case DW_RLE_end_of_list:
			return n;
		case DW_RLE_base_addressx:
			x = dw_uleb(&p, end);
			if (p > end || !addr_index(di, unit, x, &base))
				return -1;
			continue;
		case DW_RLE_startx_endx:
			x = dw_uleb(&p, end);
			y = dw_uleb(&p, end);
			if (!addr_index(di, unit, x, &b) || !addr_index(di, unit, y, &e))
				return -1;
			break;
		case DW_RLE_startx_length:
			x = dw_uleb(&p, end);
			y = dw_uleb(&p, end);
			if (!addr_index(di, unit, x, &b))
				return -1;
			e = b + y;
			break;
		case DW_RLE_offset_pair:
			x = dw_uleb(&p, end);
			y = dw_uleb(&p, end);
			b = base + x;
			e = base + y;
			break;
		case DW_RLE_base_address:
			if ((unsigned long)(end - p) < asize)
				return -1;
			base = dw_le(&p, end, asize);
			continue;
		case DW_RLE_start_end:
			if ((unsigned long)(end - p) < 2 * asize)
				return -1;
			b = dw_le(&p, end, asize);
			e = dw_le(&p, end, asize);
			break;
		case DW_RLE_start_length:
			if ((unsigned long)(end - p) < asize)
				return -1;
			b = dw_le(&p, end, asize);
			e = b + dw_uleb(&p, end);
			break;
		default:
			return -1;
		}
		if (p > end)
			return -1;
		fn(arg, b, e);
		n++;
	}
	return n;
}

long dwinfo_ranges(struct dwinfo *di, const struct dwdie *d, const struct dwpc *pc, size_t max,
		   dwrange_fn fn, void *arg)
{
	uint64_t lo, hi;
	if (pc_pair(di, d, pc, &lo, &hi)) {
		if (!max)
			return 0;
		fn(arg, lo, hi);
		return 1;
	}
	if (!pc->has_ranges)
		return 0;
	read_bases(di, d->unit);
	const struct dwunit *u = &di->units.v[d->unit];
	uint64_t base = u->base_addr, off;
	if (pc->ranges.form == DW_FORM_rnglistx) {
		const uint8_t *end, *p = value_at(di, d, &pc->ranges, &end);
		uint64_t idx = dw_uleb(&p, end);
		const struct dwinfo_sec *s = &di->s.rnglists;
		uint64_t at = u->rnglists_base + idx * u->offsz;
		if (!s->p || idx > s->n / u->offsz || at >= s->n || s->n - at < u->offsz)
			return -1;
		const uint8_t *q = s->p + at;
		off = u->rnglists_base + dw_le(&q, s->p + s->n, u->offsz);
	} else if (!dwinfo_udata(di, d, &pc->ranges, &off)) {
		return -1;
	}
	if (u->version >= 5)
		return ranges_v5(di, d->unit, off, base, max, fn, arg);
	return ranges_v4(di, u, off, base, max, fn, arg);
}
