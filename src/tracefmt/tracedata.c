/*
 * tracedata: the TRACING_DATA blob and the event format files in it
 * (tracefmt, L1). A parser of file bytes: every read goes through a
 * cursor over the blob, every text scan stays inside its own bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/err.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "tracefmt/tracefmt_int.h"

#define MAGIC "\027\010\104tracing"
#define MAGIC_LEN 10
#define MAX_FORMAT_TEXT (1u << 20) /* one format file */
#define MAX_SYSTEMS 100000

uint64_t tf_read_num(const struct tracefmt *t, const uint8_t *p, uint32_t size)
{
	switch (size) {
	case 1:
		return p[0];
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return t->swap ? bswap_u16(v) : v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return t->swap ? bswap_u32(v) : v;
	}
	case 8: {
		uint64_t v;
		memcpy(&v, p, 8);
		return t->swap ? bswap_u64(v) : v;
	}
	default:
		return 0;
	}
}

/* ---- one format file ---- */

/* The line starting at *pos (without its newline); advances past it. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n)
{
	if (*pos >= len)
		return false;
	const char *s = text + *pos;
	const char *nl = memchr(s, '\n', len - *pos);
	*line = s;
	*n = nl ? (size_t)(nl - s) : len - *pos;
	*pos += *n + (nl ? 1 : 0);
	return true;
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && !memcmp(s, p, k);
}

/* "key:VALUE;" inside a field line: the value's text. */
static bool field_attr(const char *line, size_t n, const char *key, const char **v, size_t *vn)
{
	size_t k = strlen(key);
	for (size_t i = 0; i + k <= n; i++) {
		if ((i == 0 || line[i - 1] == '\t' || line[i - 1] == ' ' || line[i - 1] == ';') &&
		    !memcmp(line + i, key, k)) {
			const char *s = line + i + k;
			const char *e = memchr(s, ';', n - i - k);
			if (!e)
				return false;
			*v = s;
			*vn = (size_t)(e - s);
			return true;
		}
	}
	return false;
}

static bool parse_u32(const char *s, size_t n, uint32_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	while (i < n && s[i] == ' ')
		i++;
	if (i == n)
		return false;
	for (; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* Element size of a dynamic array's type, as libtraceevent's type_size. */
static uint32_t type_size(const char *type)
{
	static const struct {
		const char *name;
		uint32_t size;
	} tab[] = { { "u8", 1 },   { "__u8", 1 },  { "s8", 1 },	  { "__s8", 1 },  { "u16", 2 },
		    { "__u16", 2 }, { "s16", 2 },  { "__s16", 2 }, { "u32", 4 },  { "__u32", 4 },
		    { "s32", 4 },   { "__s32", 4 }, { "u64", 8 },   { "__u64", 8 }, { "s64", 8 },
		    { "__s64", 8 }, { "char", 1 } };
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(type, tab[i].name))
			return tab[i].size;
	return 0;
}

/*
 * "field:TYPE NAME[N];" -> type "TYPE[N]" and name, as libtraceevent
 * splits them; "__data_loc TYPE[] NAME" keeps its type whole.
 */
static bool split_decl(const char *d, size_t n, struct tf_field *f)
{
	while (n && (d[n - 1] == ' ' || d[n - 1] == '\t'))
		n--;
	while (n && (*d == ' ' || *d == '\t'))
		d++, n--;
	size_t end = n, bra = n;
	if (n && d[n - 1] == ']') {
		const char *b = memrchr(d, '[', n);
		if (!b)
			return false;
		bra = (size_t)(b - d);
		end = bra;
	}
	size_t ne = end;
	while (ne && (d[ne - 1] == ' ' || d[ne - 1] == '\t'))
		ne--;
	size_t ns = ne;
	while (ns && (isalnum((unsigned char)d[ns - 1]) || d[ns - 1] == '_'))
		ns--;
	if (ns == ne)
		return false;
	size_t ts = ns;
	while (ts && (d[ts - 1] == ' ' || d[ts - 1] == '\t'))
		ts--;
	if (ts == 0)
		return false; /* a name with no type */
	f->name = xstrndup(d + ns, ne - ns);
	if (bra < n) {
		/* type + the brackets */
		size_t tl = ts + (n - bra);
		char *type = xmalloc(tl + 1);
		memcpy(type, d, ts);
		memcpy(type + ts, d + bra, n - bra);
		type[tl] = '\0';
		f->type = type;
		f->flags |= TF_ARRAY;
		uint32_t al;
		if (parse_u32(d + bra + 1, n - bra - 2, &al))
			f->arraylen = al;
	} else {
		f->type = xstrndup(d, ts);
		if (ts && d[ts - 1] == ']')
			f->flags |= TF_ARRAY; /* "__data_loc char[] name" */
	}
	return true;
}

static void field_flags(const struct tracefmt *t, struct tf_field *f, bool is_signed)
{
	const char *ty = f->type;
	size_t tl = strlen(ty);
	if (is_signed)
		f->flags |= TF_SIGNED;
	if (!strncmp(ty, "__data_loc", 10))
		f->flags |= TF_DYNAMIC;
	if (!strncmp(ty, "__rel_loc", 9))
		f->flags |= TF_DYNAMIC | TF_RELATIVE;
	if (strstr(ty, "char[") || strstr(ty, "u8[") || strstr(ty, "s8["))
		f->flags |= TF_STRING;
	if (strstr(ty, "long"))
		f->flags |= TF_LONG;
	if (tl && ty[tl - 1] == '*')
		f->flags |= TF_POINTER;
	if (f->flags & TF_ARRAY) {
		if (f->arraylen)
			f->elementsize = f->size / f->arraylen;
		else if (f->flags & TF_DYNAMIC) {
			/* "__data_loc u8[]": the element type between the prefix and '[' */
			const char *s = strchr(ty, ' ');
			const char *b = strchr(ty, '[');
			if (s && b && b > s) {
				char tmp[64];
				size_t k = (size_t)(b - s - 1);
				if (k < sizeof(tmp)) {
					memcpy(tmp, s + 1, k);
					tmp[k] = '\0';
					f->elementsize = type_size(tmp);
				}
			}
		} else if (f->flags & TF_STRING)
			f->elementsize = 1;
		else if (f->flags & TF_LONG)
			f->elementsize = t->long_size;
	} else {
		f->elementsize = f->size;
	}
}

static bool parse_field_line(const struct tracefmt *t, const char *line, size_t n,
			     struct tf_field *f)
{
	const char *v;
	size_t vn;
	uint32_t sgn = 0;
	memset(f, 0, sizeof(*f));
	if (!field_attr(line, n, "field:", &v, &vn) || !split_decl(v, vn, f))
		return false;
	const char *o, *s;
	size_t on, sn;
	if (!field_attr(line, n, "offset:", &o, &on) || !parse_u32(o, on, &f->offset) ||
	    !field_attr(line, n, "size:", &s, &sn) || !parse_u32(s, sn, &f->size))
		return false;
	const char *g;
	size_t gn;
	if (field_attr(line, n, "signed:", &g, &gn) && !parse_u32(g, gn, &sgn))
		return false;
	if (f->offset > (1u << 20) || f->size > (1u << 20))
		return false;
	field_flags(t, f, sgn != 0);
	return true;
}

void tf_event_free(struct tracefmt_event *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nfields; i++) {
		free(e->fields[i].type);
		free(e->fields[i].name);
	}
	free(e->fields);
	for (size_t i = 0; i < e->npool; i++) {
		struct tf_arg *a = e->pool[i];
		free(a->text);
		for (size_t j = 0; j < a->nsyms; j++) {
			free(a->syms[j].value);
			free(a->syms[j].str);
		}
		free(a->syms);
		free(a);
	}
	free(e->pool);
	free(e->fmt);
	free(e->system);
	free(e->name);
	free(e);
}

const struct tf_field *tf_find_field(const struct tracefmt_event *e, const char *name)
{
	for (size_t i = 0; i < e->nfields; i++)
		if (!strcmp(e->fields[i].name, name))
			return &e->fields[i];
	return NULL;
}

/* The quoted format string at the start of the print fmt, adjacent strings joined. */
static bool parse_fmt_string(struct tracefmt_event *e, const char *s, size_t n, size_t *used)
{
	struct buf b;
	size_t i = 0;
	buf_init(&b, MAX_FORMAT_TEXT);
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i == n || s[i] != '"') {
		buf_release(&b);
		return false;
	}
	for (;;) {
		/* one quoted string: a backslash escapes the next char (kept as is) */
		i++;
		char last = 0;
		for (;;) {
			if (i >= n) {
				buf_release(&b);
				return false;
			}
			char c = s[i++];
			if (c == '"' && last != '\\')
				break;
			buf_addch(&b, c);
			last = (c == '\\' && last == '\\') ? 0 : c;
		}
		size_t j = i;
		while (j < n && isspace((unsigned char)s[j]))
			j++;
		if (j < n && s[j] == '"') {
			i = j;
			continue;
		}
		break;
	}
	e->fmt = buf_detach(&b, NULL);
	if (!e->fmt)
		e->fmt = xstrdup("");
	*used = i;
	return true;
}

struct tracefmt_event *tf_parse_event(const struct tracefmt *t, const char *system,
				      const char *text, size_t len)
{
	struct tracefmt_event *e = xcalloc(1, sizeof(*e));
	VEC(struct tf_field) fields = { 0 };
	size_t pos = 0, n;
	const char *line;
	bool have_id = false, in_format = false, common = true, have_print = false;
	e->system = xstrdup(system);
	while (next_line(text, len, &pos, &line, &n)) {
		if (!in_format && has_prefix(line, n, "name: ")) {
			free(e->name);
			e->name = xstrndup(line + 6, n - 6);
		} else if (!in_format && has_prefix(line, n, "ID: ")) {
			if (!parse_u32(line + 4, n - 4, &e->id))
				goto bad;
			have_id = true;
		} else if (has_prefix(line, n, "format:")) {
			in_format = true;
		} else if (in_format && has_prefix(line, n, "print fmt: ")) {
			size_t used = 0, start = (size_t)(line - text) + 11;
			e->nfields = fields.n;
			e->fields = fields.v;
			fields.v = NULL;
			fields.n = 0;
			if (!parse_fmt_string(e, text + start, len - start, &used) ||
			    !tf_parse_print_args(e, text + start + used, len - start - used))
				e->failed = true;
			have_print = true;
			break;
		} else if (in_format && n == 0) {
			common = false;
		} else if (in_format) {
			size_t k = 0;
			while (k < n && (line[k] == '\t' || line[k] == ' '))
				k++;
			if (!has_prefix(line + k, n - k, "field:"))
				continue;
			if (fields.n >= TF_MAX_FIELDS)
				goto bad;
			struct tf_field f;
			if (!parse_field_line(t, line + k, n - k, &f)) {
				free(f.name);
				free(f.type);
				goto bad;
			}
			VEC_PUSH(&fields, f);
			if (common)
				e->ncommon = fields.n;
		}
	}
	if (!e->name || !have_id || !in_format)
		goto bad;
	if (!have_print) {
		e->nfields = fields.n;
		e->fields = fields.v;
		fields.v = NULL;
		e->failed = true;
	}
	return e;
bad:
	for (size_t i = 0; i < fields.n; i++) {
		free(fields.v[i].name);
		free(fields.v[i].type);
	}
	VEC_FREE(&fields);
	tf_event_free(e);
	return NULL;
}

/* ---- the blob ---- */

static int cmp_event(const void *a, const void *b)
{
	const struct tracefmt_event *x = *(struct tracefmt_event *const *)a;
	const struct tracefmt_event *y = *(struct tracefmt_event *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_printk(const void *a, const void *b)
{
	const struct tf_printk *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int read_cstr(struct cursor *c, const char **s, size_t max)
{
	size_t left = cursor_left(c);
	if (left > max)
		left = max;
	const uint8_t *nul = memchr(c->p, 0, left);
	if (!nul)
		return -1;
	*s = (const char *)c->p;
	c->p = nul + 1;
	return 0;
}

typedef VEC(struct tracefmt_event *) event_vec;

/* One format file: u64 size, then its text. */
static int add_format(struct tracefmt *t, struct cursor *c, const char *system, event_vec *ev)
{
	uint64_t size;
	const uint8_t *text;
	uint64_t at = cursor_offset(c);
	if (cursor_u64(c, &size))
		return CORRUPT(c, "tracing data: %s format size truncated", system);
	if (size > cursor_left(c))
		return err_corrupt_at(at, "tracing data: %s format of %" PRIu64
					  " bytes runs past the end (%zu left)",
				      system, size, cursor_left(c));
	cursor_bytes(c, &text, (size_t)size);
	if (size > MAX_FORMAT_TEXT)
		return 0; /* not a format perf writes: left out */
	if (ev->n >= TRACEFMT_MAX_EVENTS)
		return err_corrupt_at(at, "tracing data: more than %u event formats",
				      TRACEFMT_MAX_EVENTS);
	struct tracefmt_event *e = tf_parse_event(t, system, (const char *)text, (size_t)size);
	if (e)
		VEC_PUSH(ev, e);
	return 0;
}

/* printk formats: lines "0xADDR : \"fmt\"". */
static void parse_printk(struct tracefmt *t, const char *s, size_t n)
{
	VEC(struct tf_printk) v = { 0 };
	size_t pos = 0, ln;
	const char *line;
	while (next_line(s, n, &pos, &line, &ln)) {
		const char *colon = memchr(line, ':', ln);
		if (!colon) {
			if (ln)
				break;
			continue;
		}
		char num[32];
		size_t k = (size_t)(colon - line);
		if (k >= sizeof(num))
			k = sizeof(num) - 1;
		memcpy(num, line, k);
		num[k] = '\0';
		struct tf_printk p = { .addr = strtoull(num, NULL, 16) };
		const char *f = colon + 1;
		size_t fl = ln - (size_t)(f - line);
		if (fl) /* the space after the colon */
			f++, fl--;
		if (fl && *f == '"')
			f++, fl--;
		char *fmt = xstrndup(f, fl);
		size_t L = strlen(fmt);
		if (L && fmt[L - 1] == '"')
			fmt[--L] = '\0';
		if (L >= 2 && !strcmp(fmt + L - 2, "\\n"))
			fmt[L - 2] = '\0';
		p.fmt = fmt;
		VEC_PUSH(&v, p);
	}
	if (v.n)
		qsort(v.v, v.n, sizeof(v.v[0]), cmp_printk);
	t->printks = v.v;
	t->nprintks = v.n;
}

const struct tf_printk *tf_find_printk(const struct tracefmt *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nprintks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->printks[mid].addr == addr)
			return &t->printks[mid];
		if (t->printks[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* header_page's "field: local_t commit; ... size:N;": N is the long size perf then uses. */
static void header_page_long(struct tracefmt *t, const char *text, size_t len)
{
	size_t pos = 0, n;
	const char *line;
	while (next_line(text, len, &pos, &line, &n)) {
		const char *v;
		size_t vn;
		struct tf_field f = { 0 };
		if (!field_attr(line, n, "field:", &v, &vn) || !split_decl(v, vn, &f))
			continue;
		bool commit = !strcmp(f.name, "commit");
		free(f.name);
		free(f.type);
		uint32_t size;
		if (commit && field_attr(line, n, "size:", &v, &vn) && parse_u32(v, vn, &size) &&
		    (size == 4 || size == 8))
			t->long_size = size;
	}
}

static int parse_blob(struct tracefmt *t, struct cursor *c, event_vec *ev)
{
	const uint8_t *magic;
	const char *version, *s;
	uint8_t be, ls;
	uint32_t u32;
	uint64_t u64;
	if (cursor_bytes(c, &magic, MAGIC_LEN) || memcmp(magic, MAGIC, MAGIC_LEN))
		return err_corrupt_at(c->base_off, "tracing data: bad magic");
	if (read_cstr(c, &version, 16))
		return CORRUPT(c, "tracing data: bad version string");
	if (cursor_u8(c, &be) || cursor_u8(c, &ls))
		return CORRUPT(c, "tracing data: header truncated");
	t->big_endian = be != 0;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	t->swap = !t->big_endian;
#else
	t->swap = t->big_endian;
#endif
	c->swap = t->swap;
	if (ls != 4 && ls != 8)
		return err_corrupt_at(cursor_offset(c) - 1, "tracing data: long size %u", ls);
	t->long_size = ls;
	if (cursor_u32(c, &t->page_size))
		return CORRUPT(c, "tracing data: page size truncated");
	/* header_page and header_event: named, sized; perf takes the long
	 * size from header_page's commit field (the kernel's long) */
	static const char *const hdrs[] = { "header_page", "header_event" };
	for (int i = 0; i < 2; i++) {
		const uint8_t *text;
		if (read_cstr(c, &s, 32) || strcmp(s, hdrs[i]))
			return CORRUPT(c, "tracing data: %s missing", hdrs[i]);
		if (cursor_u64(c, &u64) || u64 > cursor_left(c))
			return CORRUPT(c, "tracing data: %s size beyond the data", hdrs[i]);
		cursor_bytes(c, &text, (size_t)u64);
		if (i == 0)
			header_page_long(t, (const char *)text, (size_t)u64);
	}
	/* ftrace formats */
	if (cursor_u32(c, &u32))
		return CORRUPT(c, "tracing data: ftrace format count truncated");
	for (uint32_t i = 0; i < u32; i++) {
		int err = add_format(t, c, "ftrace", ev);
		if (err)
			return err;
	}
	/* event formats by system */
	uint32_t nsys;
	if (cursor_u32(c, &nsys))
		return CORRUPT(c, "tracing data: system count truncated");
	if (nsys > MAX_SYSTEMS)
		return CORRUPT(c, "tracing data: %u systems", nsys);
	for (uint32_t i = 0; i < nsys; i++) {
		const char *sys;
		uint32_t count;
		if (read_cstr(c, &sys, 4096))
			return CORRUPT(c, "tracing data: system name truncated");
		if (cursor_u32(c, &count))
			return CORRUPT(c, "tracing data: %s event count truncated", sys);
		for (uint32_t j = 0; j < count; j++) {
			int err = add_format(t, c, sys, ev);
			if (err)
				return err;
		}
	}
	/* kallsyms: perf 6.1 skips it (it resolves kernel addresses itself) */
	if (cursor_u32(c, &u32) || u32 > cursor_left(c))
		return CORRUPT(c, "tracing data: kallsyms size beyond the data");
	cursor_skip(c, u32);
	/* printk formats */
	const uint8_t *pk;
	if (cursor_u32(c, &u32) || cursor_bytes(c, &pk, u32))
		return CORRUPT(c, "tracing data: printk formats beyond the data");
	parse_printk(t, (const char *)pk, u32);
	/* version 0.6 and later: saved cmdlines (u64 size + text), not used */
	return 0;
}

int tracefmt_parse(struct tracefmt **out, const uint8_t *blob, size_t len, uint64_t off)
{
	struct tracefmt *t = xcalloc(1, sizeof(*t));
	event_vec ev = { 0 };
	struct cursor c;
	cursor_init(&c, blob, len, off, false);
	int err = parse_blob(t, &c, &ev);
	t->events = ev.v;
	t->nevents = ev.n;
	if (err) {
		tracefmt_free(t);
		*out = NULL;
		return err;
	}
	if (t->nevents)
		qsort(t->events, t->nevents, sizeof(t->events[0]), cmp_event);
	*out = t;
	return 0;
}

int tracefmt_parse_format(struct tracefmt **out, const char *system, const char *text, size_t len)
{
	struct tracefmt *t = xcalloc(1, sizeof(*t));
	t->long_size = sizeof(long);
	struct tracefmt_event *e = tf_parse_event(t, system, text, len);
	if (!e) {
		free(t);
		*out = NULL;
		return err_set(-EBADMSG, "event format of %s does not parse", system);
	}
	XALLOC_ARRAY(t->events, 1);
	t->events[0] = e;
	t->nevents = 1;
	*out = t;
	return 0;
}

void tracefmt_free(struct tracefmt *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nevents; i++)
		tf_event_free(t->events[i]);
	free(t->events);
	for (size_t i = 0; i < t->nprintks; i++)
		free(t->printks[i].fmt);
	free(t->printks);
	free(t);
}

const struct tracefmt_event *tracefmt_find(const struct tracefmt *t, uint64_t id)
{
	size_t lo = 0, hi = t ? t->nevents : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->events[mid]->id == id)
			return t->events[mid];
		if (t->events[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *tracefmt_event_system(const struct tracefmt_event *e)
{
	return e->system;
}

const char *tracefmt_event_name(const struct tracefmt_event *e)
{
	return e->name;
}

bool tracefmt_event_failed(const struct tracefmt_event *e)
{
	return e->failed;
}

size_t tracefmt_nevents(const struct tracefmt *t)
{
	return t->nevents;
}

const struct tracefmt_event *tracefmt_event_at(const struct tracefmt *t, size_t i)
{
	return i < t->nevents ? t->events[i] : NULL;
}

uint32_t tracefmt_event_id(const struct tracefmt_event *e)
{
	return e->id;
}

size_t tracefmt_event_nfields(const struct tracefmt_event *e)
{
	return e->nfields;
}

void tracefmt_event_field(const struct tracefmt_event *e, size_t i, const char **name,
			  const char **type, uint32_t *offset, uint32_t *size)
{
	const struct tf_field *f = &e->fields[i];
	*name = f->name;
	*type = f->type;
	*offset = f->offset;
	*size = f->size;
}
