/*
 * kallsyms: parse /proc/kallsyms text into an address-sorted table of
 * kernel text symbols (dso, L2). Every line is parsed (so data symbols
 * still mark where the text symbol before them ends), then only text
 * symbols and module symbols are kept. Aliases at one address stay in the
 * table so kallsyms_find() sees them all; lookups return the preferred
 * one, which sorts first. Names are copied into one pool that grows with
 * the kept names, so memory is bounded by the text's length. Files are
 * read and parsed in 64 KiB pieces, never held whole; a table entry is
 * 32 bytes and there is no name index (kallsyms_find scans: it is asked
 * once or twice per run). The text is 120k lines read at startup, so the
 * line parser reads eight bytes at a time where it can, and the sort
 * only orders alias groups when the text comes sorted (sort_syms).
 * Binary records of the same lines (kallsyms_parse_records) go through
 * the same per-line tail (add_sym) into the same table.
 */
#include "dso/kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digits.h"
#include "base/err.h"
#include "base/ifile.h"
#include "base/lines.h"
#include "base/vec.h"
#include "base/xalloc.h"

/* A symbol never extends more than this past its start: this bounds the
 * last symbol, and the last core symbol before a gap (e.g. module space). */
#define KALLSYMS_MAX_SPAN (1u << 20)
/* kallsyms_load refuses files larger than this. */
#define KALLSYMS_MAX_FILE ((size_t)256 << 20)
/* KSYM_NAME_LEN is 512 today; allow some slack. */
#define KALLSYMS_MAX_NAME 1024

#define NO_MODULE UINT32_MAX
/* Read size of kallsyms_load: a line longer than this is malformed. */
#define KALLSYMS_CHUNK ((size_t)64 << 10)

struct ksym {
	uint64_t addr, end;
	uint32_t name, mod; /* offsets into the pool; mod is NO_MODULE for the core */
	uint32_t seq;	    /* line order: the last tie-break */
	uint8_t rank;	    /* alias preference, lower is better */
	bool keep;
};

struct kallsyms {
	char *pool;
	size_t pool_len;
	VEC(struct ksym) syms; /* kept symbols, sorted by (addr, rank, seq) */
	size_t bad;
	bool restricted;
};

struct parser {
	struct kallsyms *ks;
	bool perf; /* perf's table: see kallsyms_parse_perf() */
	VEC(struct ksym) all;
	size_t pool_cap;
	uint32_t last_mod; /* module of the previous line, reused when equal */
	size_t last_mod_len;
	bool any_nonzero;
	bool skipping; /* text read in pieces: inside an overlong line, dropped to its '\n' */
	/* Records: the bytes parsed before this piece, and the previous
	 * record's value and name (kept across pieces in prev_buf). */
	size_t offset;
	uint64_t prev_value;
	const char *prev_name;
	size_t prev_len;
	char prev_buf[KALLSYMS_REC_NAME];
};

/*
 * Eight bytes at a time (SWAR; /proc/kallsyms is 120k lines, so the
 * parser is on the startup path). A word holds text bytes in memory
 * order, the first in the low byte; every test is exact per byte (no
 * carry crosses a byte: bytes with the high bit set are tested apart).
 */
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

static inline uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* The high bit of each byte of 'x' that is >= c, for bytes below 0x80. */
static inline uint64_t bytes_ge(uint64_t x, unsigned c)
{
	return (x + ONES * (0x80 - c)) & HIGHS;
}

/* The high bit of each blank byte (lines_blank, '\n' aside: a line has none). */
static inline uint64_t blank_bytes(uint64_t x)
{
	uint64_t y = x & ~HIGHS, z = (x ^ ONES * ' ') & ~HIGHS;
	uint64_t space = ~((z + ONES * 0x7f) | (x ^ ONES * ' ')) & HIGHS;
	uint64_t ctl = bytes_ge(y, '\t') & ~bytes_ge(y, '\r' + 1) & ~x;

	return space | ctl;
}

/* Eight hex digits, the first the most significant: false if any byte is
 * not one. */
static inline bool hex8(uint64_t x, uint64_t *out)
{
	if (x & HIGHS)
		return false;
	uint64_t lower = x | ONES * 0x20;
	uint64_t digit = bytes_ge(x, '0') & ~bytes_ge(x, '9' + 1);
	uint64_t letter = bytes_ge(lower, 'a') & ~bytes_ge(lower, 'f' + 1);
	if ((digit | letter) != HIGHS)
		return false;
	uint64_t v = (x & ONES * 0x0f) + (letter >> 7) * 9; /* one nibble a byte */
	v = ((v << 4) | (v >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
	v = ((v << 8) | (v >> 16)) & UINT64_C(0x0000ffff0000ffff);
	*out = ((v << 16) | (v >> 32)) & UINT64_C(0xffffffff);
	return true;
}

/* The first blank in [p, e), or e; the line starts at 'line' (the last
 * word is read overlapping the one before, when the line is long enough). */
static inline const char *find_blank(const char *line, const char *p, const char *e)
{
	for (; e - p >= 8; p += 8) {
		uint64_t m = blank_bytes(load8(p));
		if (m)
			return p + __builtin_ctzll(m) / 8;
	}
	if (p < e && e - line >= 8) { /* bytes before p shifted out */
		uint64_t m = blank_bytes(load8(e - 8)) >> (8 * (8 - (e - p)));
		return m ? p + __builtin_ctzll(m) / 8 : e;
	}
	while (p < e && !lines_blank(*p))
		p++;
	return p;
}

/*
 * Alias preference, as perf's choose_best_symbol orders it: non-weak over
 * weak, then global (upper case) over local; text over anything else.
 */
static uint8_t type_rank(char t)
{
	switch (t) {
	case 'T':
		return 0;
	case 't':
		return 1;
	case 'W':
		return 2;
	case 'w':
		return 3;
	default:
		return t >= 'A' && t <= 'Z' ? 4 : 5;
	}
}

static bool is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* perf's symbol_type__filter: text, weak, data and bss, either case. */
static bool perf_keeps(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W' || t == 'd' || t == 'D' || t == 'b' ||
	       t == 'B';
}

/* Copy a string into the pool, growing it. The pool never exceeds the
 * text (KALLSYMS_MAX_FILE for files), so offsets fit 32 bits. */
static uint32_t pool_add(struct parser *ps, const char *s, size_t n)
{
	struct kallsyms *ks = ps->ks;
	size_t off = ks->pool_len;

	if (n + 1 > ps->pool_cap - ks->pool_len) {
		size_t cap = ps->pool_cap ? ps->pool_cap : 4096;
		while (n + 1 > cap - ks->pool_len)
			cap *= 2;
		ks->pool = xrealloc(ks->pool, cap);
		ps->pool_cap = cap;
	}
	if (ks->pool_len + n + 1 > UINT32_MAX)
		BUG("kallsyms pool beyond 4 GiB");
	memcpy(ks->pool + off, s, n);
	ks->pool[off + n] = '\0';
	ks->pool_len += n + 1;
	return (uint32_t)off;
}

/* One symbol, in the order of the text: kept or only its address noted
 * (inlined into both parsers: it is their per-line tail). */
static inline __attribute__((always_inline)) void
add_sym(struct parser *ps, uint64_t addr, char type, const char *name, size_t name_len,
	const char *mod, size_t mod_len)
{
	if (addr)
		ps->any_nonzero = true;
	if (ps->perf && (!perf_keeps(type) || name[0] == '$'))
		return; /* perf never sees it, not even as the end of another */
	struct ksym *s = VEC_PUSH_ZERO(&ps->all);
	s->addr = addr;
	/* perf keeps the last alias at an address: sort later lines first
	 * (after the type rank, in the plain table). */
	s->seq = UINT32_MAX - (uint32_t)ps->all.n;
	s->rank = ps->perf ? 0 : type_rank(type);
	s->keep = ps->perf || is_text(type) || mod;
	s->mod = NO_MODULE;
	if (!s->keep)
		return;
	s->name = pool_add(ps, name, name_len);
	if (mod) {
		if (ps->last_mod != NO_MODULE && ps->last_mod_len == mod_len &&
		    memcmp(ps->ks->pool + ps->last_mod, mod, mod_len) == 0) {
			s->mod = ps->last_mod;
		} else {
			s->mod = pool_add(ps, mod, mod_len);
			ps->last_mod = s->mod;
			ps->last_mod_len = mod_len;
		}
	}
}

/*
 * One line, without its '\n': "<hex> <type> <name>[\t[module]]". Returns
 * false if it is malformed. The name and module (each shorter than the
 * line) are copied into the pool only for symbols that are kept. 'nul'
 * says the text around the line holds a NUL byte, which makes a line bad.
 */
static bool parse_line(struct parser *ps, const char *p, const char *e, bool nul)
{
	const char *digits = p, *name, *mod = NULL;
	const char *hex_end = e - p > 16 ? p + 16 : e;
	size_t name_len, mod_len = 0;
	uint64_t addr = 0;
	int v;
	char type;

	if (nul && memchr(p, '\0', (size_t)(e - p)))
		return false;
	uint64_t hi, lo;
	if (e - p > 19 && p[16] == ' ' && p[18] == ' ' && !lines_blank(p[17]) && !lines_blank(p[19]) &&
	    hex8(load8(p), &hi) && hex8(load8(p + 8), &lo)) {
		/* The usual line: 16 digits, one space, the type, one space;
		 * what the general path below makes of it too. */
		addr = hi << 32 | lo;
		type = p[17];
		p = name = p + 19;
		goto name;
	}
	/* at most 16 digits: a 17th is not blank, so the line is bad */
	for (; p < hex_end && (v = digits_hexval(*p)) >= 0; p++)
		addr = addr << 4 | (uint64_t)v;
	if (p == digits || p == e || !lines_blank(*p))
		return false;
	while (++p < e && lines_blank(*p))
		;
	if (p == e)
		return false;
	type = *p++;
	if (p == e || !lines_blank(*p))
		return false;
	while (++p < e && lines_blank(*p))
		;
	name = p;
name:
	p = find_blank(digits, p, e);
	name_len = (size_t)(p - name);
	if (name_len == 0 || name_len > KALLSYMS_MAX_NAME)
		return false;
	if (p < e) {
		while (++p < e && lines_blank(*p))
			;
		if (p < e) {
			if (*p != '[')
				return false;
			mod = ++p;
			while (p < e && *p != ']' && !lines_blank(*p))
				p++;
			mod_len = (size_t)(p - mod);
			if (p == e || *p != ']' || mod_len == 0)
				return false;
			while (++p < e && lines_blank(*p))
				;
			if (p != e)
				return false;
		}
	}

	add_sym(ps, addr, type, name, name_len, mod, mod_len);
	return true;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static inline bool ksym_less(const struct ksym *x, const struct ksym *y)
{
	if (x->addr != y->addr)
		return x->addr < y->addr;
	if (x->rank != y->rank)
		return x->rank < y->rank;
	return x->seq < y->seq;
}

/* Groups of aliases up to this size are insertion-sorted. */
#define KALLSYMS_SMALL_GROUP 16

/*
 * One group of aliases (equal addresses) into (rank, seq) order. In file
 * order a group of perf's table is exactly reversed (seq falls line by
 * line, rank is 0), so that case is a reversal whatever its size.
 */
static void sort_group(struct ksym *v, size_t n)
{
	size_t i = 1;

	while (i < n && ksym_less(&v[i], &v[i - 1]))
		i++;
	if (i == n) {
		for (size_t l = 0, r = n - 1; l < r; l++, r--) {
			struct ksym t = v[l];
			v[l] = v[r];
			v[r] = t;
		}
		return;
	}
	if (n > KALLSYMS_SMALL_GROUP) {
		qsort(v, n, sizeof(*v), ksym_cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		struct ksym t = v[i];
		size_t j = i;
		for (; j > 0 && ksym_less(&t, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

/* A run whose addresses never fall: only its alias groups need sorting. */
static void sort_run(struct ksym *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].addr == v[i].addr)
			j++;
		if (j - i > 1)
			sort_group(v + i, j - i);
		i = j;
	}
}

/* Merge the sorted [a, a + na) and [b, b + nb) into 'out'. */
static void merge(struct ksym *out, const struct ksym *a, size_t na, const struct ksym *b,
		  size_t nb)
{
	size_t i = 0, j = 0, k = 0;

	while (i < na && j < nb)
		out[k++] = ksym_less(&b[j], &a[i]) ? b[j++] : a[i++];
	memcpy(out + k, a + i, (na - i) * sizeof(*a));
	memcpy(out + k + na - i, b + j, (nb - j) * sizeof(*b));
}

/*
 * Sort into (addr, rank, seq) order, a total order (seq is unique), so
 * the result is the one any sort gives. /proc/kallsyms comes sorted by
 * address, except module symbols, which may come in blocks out of
 * order: the table is cut into runs of non-falling addresses, each run
 * has its alias groups sorted, and the runs are merged pairwise (a
 * natural merge sort): one pass and a few tiny sorts for sorted text,
 * O(n log runs) otherwise.
 */
static void sort_syms(struct ksym *v, size_t n)
{
	VEC(size_t) runs = { 0 }; /* run starts, then n */
	struct ksym *tmp, *src = v, *dst;

	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].addr >= v[j - 1].addr)
			j++;
		sort_run(v + i, j - i);
		VEC_PUSH(&runs, i);
		i = j;
	}
	if (runs.n <= 1) {
		VEC_FREE(&runs);
		return;
	}
	VEC_PUSH(&runs, n);
	XALLOC_ARRAY(tmp, n);
	dst = tmp;
	while (runs.n > 2) { /* runs.n - 1 runs: merge them in pairs */
		size_t k = 0, r = 0;
		for (; r + 2 < runs.n; r += 2) {
			size_t a = runs.v[r], b = runs.v[r + 1], c = runs.v[r + 2];
			merge(dst + a, src + a, b - a, src + b, c - b);
			runs.v[k++] = a;
		}
		if (r + 1 < runs.n) { /* an odd run out: carried over */
			size_t a = runs.v[r];
			memcpy(dst + a, src + a, (n - a) * sizeof(*v));
			runs.v[k++] = a;
		}
		runs.v[k++] = n;
		runs.n = k;
		struct ksym *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	VEC_FREE(&runs);
}

/*
 * Ends are computed over every parsed line, kept or not: a text symbol
 * ends where the next different address starts (a data symbol after the
 * last core text symbol ends it), and never more than KALLSYMS_MAX_SPAN
 * past its start.
 */
static void finish(struct parser *ps)
{
	struct ksym *v = ps->all.v;
	size_t n = ps->all.n, k = 0;
	uint64_t next = 0;
	bool have_next = false;

	sort_syms(v, n);
	for (size_t i = n; i-- > 0;) {
		if (i + 1 < n && v[i + 1].addr != v[i].addr) {
			next = v[i + 1].addr;
			have_next = true;
		}
		uint64_t cap = v[i].addr > UINT64_MAX - KALLSYMS_MAX_SPAN ?
				       UINT64_MAX :
				       v[i].addr + KALLSYMS_MAX_SPAN;
		v[i].end = have_next && next < cap ? next : cap;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].keep)
			v[k++] = v[i];
	ps->ks->syms.v = v;
	ps->ks->syms.n = k;
	ps->ks->syms.cap = ps->all.cap;
	ps->all.v = NULL;
	ps->all.n = ps->all.cap = 0;
	if (k < n) { /* give back the space of the dropped lines */
		XREALLOC_ARRAY(ps->ks->syms.v, k ? k : 1);
		ps->ks->syms.cap = k ? k : 1;
	}
}

/*
 * perf's symbols__fixup_end over the kept symbols: a symbol ends where the
 * next address starts, however far; between the core kernel and a module
 * it ends at the page after its start; the last one ends one page past
 * its page. Aliases then reduce to the last one (kallsyms_lookup returns
 * the first of the sorted group, which is the last line).
 */
static void finish_perf(struct parser *ps)
{
	struct ksym *v = ps->all.v;
	size_t n = ps->all.n;

	sort_syms(v, n);
	for (size_t i = 0, j = 0; i < n; i++) {
		if (j <= i) /* the first symbol past i's group of aliases */
			for (j = i + 1; j < n && v[j].addr == v[i].addr;)
				j++;
		uint64_t a = v[i].addr, end;
		if (a > UINT64_MAX - 3 * 4096)
			end = UINT64_MAX;
		else if (j == n) /* roundup(a, 4096) + 4096 */
			end = ((a + 4095) & ~(uint64_t)4095) + 4096;
		else if ((v[i].mod == NO_MODULE) != (v[j].mod == NO_MODULE))
			end = (a + 4096 + 4095) & ~(uint64_t)4095; /* roundup(a + 4096, 4096) */
		else
			end = v[j].addr;
		v[i].end = end;
	}
	ps->ks->syms.v = v;
	ps->ks->syms.n = n;
	ps->ks->syms.cap = ps->all.cap;
	ps->all.v = NULL;
	ps->all.n = ps->all.cap = 0;
}

static void parser_init(struct parser *ps, bool perf)
{
	memset(ps, 0, sizeof(*ps));
	ps->perf = perf;
	ps->ks = xcalloc(1, sizeof(*ps->ks));
	ps->last_mod = NO_MODULE;
}

/* A line of blanks only is skipped; any other line must parse. */
static void parse_one(struct parser *ps, const char *p, const char *le, bool nul)
{
	if (p == le)
		return;
	if (digits_hexval(*p) < 0) {
		const char *q = p;
		while (q < le && lines_blank(*q))
			q++;
		if (q == le)
			return;
		ps->ks->bad++;
		return;
	}
	if (!parse_line(ps, p, le, nul))
		ps->ks->bad++;
}

/* Parse the complete lines in [text, text + len); returns the bytes used
 * (all of them if 'last', else up to the last '\n'). */
static size_t parse_text(struct parser *ps, const char *text, size_t len, bool last)
{
	const char *p = text, *end = text + len;
	bool nul = memchr(text, '\0', len) != NULL; /* else no line needs the check */

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl && !last)
			break;
		const char *le = nl ? nl : end;
		parse_one(ps, p, le, nul);
		p = nl ? nl + 1 : end;
	}
	return (size_t)(p - text);
}

static struct kallsyms *parser_finish(struct parser *ps)
{
	/* Restricted: lines were there, but every address read as zero. */
	ps->ks->restricted = ps->all.n > 0 && !ps->any_nonzero;
	if (ps->perf)
		finish_perf(ps);
	else
		finish(ps);
	ps->ks->pool = xrealloc(ps->ks->pool, ps->ks->pool_len ? ps->ks->pool_len : 1);
	return ps->ks;
}

static struct kallsyms *parse(const char *text, size_t len, bool perf)
{
	struct parser ps;

	parser_init(&ps, perf);
	parse_text(&ps, text, len, true);
	return parser_finish(&ps);
}

struct kallsyms *kallsyms_parse(const char *text, size_t len)
{
	return parse(text, len, false);
}

struct kallsyms *kallsyms_parse_perf(const char *text, size_t len)
{
	return parse(text, len, true);
}

/* Text read in pieces: the complete lines of 'buf' (all if 'last'); a
 * line that fills the buffer is bad, and dropped up to its '\n'. */
static size_t text_piece(struct parser *ps, const char *buf, size_t n, bool last)
{
	size_t start = 0;
	if (ps->skipping) {
		const char *nl = memchr(buf, '\n', n);
		start = nl ? (size_t)(nl - buf) + 1 : n;
		ps->skipping = !nl && !last;
	}
	size_t used = start + parse_text(ps, buf + start, n - start, last);
	if (used == 0 && n == KALLSYMS_CHUNK) { /* one line fills the buffer */
		ps->ks->bad++;
		ps->skipping = true;
		used = n;
	}
	return used;
}

static ssize_t records_piece(struct parser *ps, const char *buf, size_t n, bool last,
			     const char *what);

/*
 * Read 'fd' to its end in KALLSYMS_CHUNK pieces, each parsed as text or
 * as records ('records') as it comes, never held whole. 0 or -errno
 * (err_set names 'what').
 */
static int read_fd(struct parser *ps, int fd, const char *what, bool records)
{
	size_t n = 0, total = 0;
	char *buf = xmalloc(KALLSYMS_CHUNK);
	int err = 0;

	/* st_size is 0 for proc files: read until EOF, with a ceiling. */
	for (;;) {
		ssize_t r = read(fd, buf + n, KALLSYMS_CHUNK - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = err_set(-errno, "cannot read %s: %s", what, strerror(errno));
			break;
		}
		total += (size_t)r;
		if (total > KALLSYMS_MAX_FILE) {
			err = err_set(-EFBIG, "%s is larger than %zu MiB", what,
				      KALLSYMS_MAX_FILE >> 20);
			break;
		}
		n += (size_t)r;
		ssize_t used = records ? records_piece(ps, buf, n, r == 0, what) :
					 (ssize_t)text_piece(ps, buf, n, r == 0);
		if (used < 0) {
			err = (int)used;
			break;
		}
		memmove(buf, buf + used, n - (size_t)used);
		n -= (size_t)used;
		if (r == 0)
			break;
	}
	free(buf);
	return err;
}

/* The table of a finished read, or NULL (and 'err' returned) after a failed one. */
static int read_end(struct parser *ps, int err, struct kallsyms **out)
{
	struct kallsyms *ks = parser_finish(ps);
	if (err)
		kallsyms_free(ks);
	else
		*out = ks;
	return err;
}

static int load(struct kallsyms **out, const char *path, bool perf)
{
	struct stat st;
	struct parser ps;
	char what[PATH_MAX + 2];

	*out = NULL;
	int fd = ifile_open(path, &st);
	if (fd < 0)
		return fd;
	snprintf(what, sizeof(what), "'%s'", path);
	parser_init(&ps, perf);
	int err = read_fd(&ps, fd, what, false);
	close(fd);
	return read_end(&ps, err, out);
}

/*
 * Binary records (kallsyms.h: KALLSYMS_REC_*), one per line the text
 * would hold, in its order.
 */

/* Whether any byte of 'x' is below 0x21 (exact: no false alarm). */
static inline bool any_below_0x21(uint64_t x)
{
	return ((x - ONES * 0x21) & ~x & HIGHS) != 0;
}

/* True if [p, e) holds a byte that would end or break a name in the text
 * (a blank, '\n' or NUL; all below 0x21, which words are tested for
 * first). The 8 bytes before p are readable. */
static bool has_separator(const char *p, const char *e)
{
	bool low = false;
	const char *q = p;
	for (; e - q >= 8 && !low; q += 8)
		low = any_below_0x21(load8(q));
	if (!low && q < e) { /* the tail's bytes shifted down, 0xff above them */
		unsigned shift = 8 * (unsigned)(8 - (e - q));
		low = any_below_0x21(load8(e - 8) >> shift | ~UINT64_C(0) << (64 - shift));
	}
	if (!low)
		return false;
	for (q = p; q < e; q++)
		if (*q == '\0' || *q == '\n' || lines_blank(*q))
			return true;
	return false;
}

/* A module name the text's "[module]" would hold. */
static bool module_ok(const char *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i] == ']' || m[i] == '\0' || lines_blank(m[i]) || m[i] == '\n')
			return false;
	return true;
}

static bool name_is(const char *s, size_t n, const char *lit)
{
	return n == strlen(lit) && !memcmp(s, lit, n);
}

/*
 * Records the reader leaves out: the iterator program's own symbol
 * ("bpf_prog_<tag>_kiln_ksym" in [bpf]; /proc/kallsyms read at any other
 * time lacks it), and the record its last run writes after the end (the
 * kernel runs the program once more with the iterator's state as the
 * last failed step left it: the previous symbol's value and name under
 * the module name of the kprobes, the step tried last).
 */
static bool rec_left_out(const struct parser *ps, uint64_t value, const char *name, size_t nl,
			 const char *mod, size_t ml)
{
	static const char own[] = "_" KALLSYMS_REC_PROG;
	if (name_is(mod, ml, "bpf") && nl > sizeof(own) - 1 && !memcmp(name, "bpf_prog_", 9) &&
	    !memcmp(name + nl - (sizeof(own) - 1), own, sizeof(own) - 1))
		return true;
	return name_is(mod, ml, "__builtin__kprobes") && ps->prev_name && value == ps->prev_value &&
	       nl == ps->prev_len && !memcmp(name, ps->prev_name, nl);
}

/* One record's symbol, checked as parse_line checks its line. */
static void rec_one(struct parser *ps, uint64_t value, char type, const char *name, size_t nl,
		    const char *mod, size_t ml)
{
	if (!(ml && rec_left_out(ps, value, name, nl, mod, ml))) {
		if (type == '\0' || lines_blank(type) || type == '\n' || has_separator(name, name + nl) ||
		    !module_ok(mod, ml))
			ps->ks->bad++;
		else
			add_sym(ps, value, type, name, nl, ml ? mod : NULL, ml);
	}
	ps->prev_value = value;
	ps->prev_name = name;
	ps->prev_len = nl;
}

/*
 * The complete records of [buf, buf + n) (all of them if 'last', else a
 * record cut by the piece's end waits for the next). Returns the bytes
 * used, or -EBADMSG (err_set names 'what' and the byte) for a record whose
 * lengths no iterator writes, or one cut short by the end.
 */
static ssize_t records_piece(struct parser *ps, const char *buf, size_t n, bool last,
			     const char *what)
{
	size_t p = 0;

	while (n - p >= KALLSYMS_REC_HEADER) {
		const char *r = buf + p;
		uint64_t value;
		uint16_t nl;
		memcpy(&value, r, sizeof(value));
		memcpy(&nl, r + 8, sizeof(nl));
		size_t ml = (unsigned char)r[10];
		if (nl == 0 || nl >= KALLSYMS_REC_NAME || ml >= KALLSYMS_REC_MODULE)
			return err_set(-EBADMSG, "%s: bad symbol record at byte %zu", what,
				       ps->offset + p);
		size_t len = KALLSYMS_REC_HEADER + nl + ml;
		if (n - p < len)
			break;
		const char *name = r + KALLSYMS_REC_HEADER;
		rec_one(ps, value, r[11], name, nl, name + nl, ml);
		p += len;
	}
	if (last && p < n)
		return err_set(-EBADMSG, "%s: symbol record cut short at byte %zu", what,
			       ps->offset + p);
	if (ps->prev_name && ps->prev_name != ps->prev_buf) { /* the piece's bytes move */
		memcpy(ps->prev_buf, ps->prev_name, ps->prev_len);
		ps->prev_name = ps->prev_buf;
	}
	ps->offset += p;
	return (ssize_t)p;
}

int kallsyms_parse_records(struct kallsyms **out, const void *buf, size_t len, bool perf)
{
	struct parser ps;

	*out = NULL;
	parser_init(&ps, perf);
	ssize_t r = records_piece(&ps, buf, len, true, "kernel symbol records");
	return read_end(&ps, r < 0 ? (int)r : 0, out);
}

int kallsyms_load_records(struct kallsyms **out, int fd, bool perf, const char *what)
{
	struct parser ps;

	*out = NULL;
	parser_init(&ps, perf);
	return read_end(&ps, read_fd(&ps, fd, what, true), out);
}

int kallsyms_load(struct kallsyms **out, const char *path)
{
	return load(out, path, false);
}

int kallsyms_load_perf(struct kallsyms **out, const char *path)
{
	return load(out, path, true);
}

void kallsyms_free(struct kallsyms *ks)
{
	if (!ks)
		return;
	VEC_FREE(&ks->syms);
	free(ks->pool);
	free(ks);
}

const char *kallsyms_lookup(const struct kallsyms *ks, uint64_t addr, uint64_t *start,
			    const char **module)
{
	const struct ksym *v = ks->syms.v;
	size_t lo = 0, hi = ks->syms.n;

	if (ks->restricted)
		return NULL;
	/* The last symbol starting at or below addr... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	uint64_t a = v[lo - 1].addr;
	/* ...and then the first (preferred) alias at its address. */
	hi = lo - 1;
	lo = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct ksym *s = &v[lo];
	if (addr >= s->end)
		return NULL;
	if (start)
		*start = s->addr;
	if (module)
		*module = s->mod == NO_MODULE ? NULL : ks->pool + s->mod;
	return ks->pool + s->name;
}

bool kallsyms_find(const struct kallsyms *ks, const char *name, uint64_t *addr)
{
	if (ks->restricted)
		return false;
	/* Sorted by address: the first match is the lowest address. */
	for (size_t i = 0; i < ks->syms.n; i++)
		if (!strcmp(ks->pool + ks->syms.v[i].name, name)) {
			*addr = ks->syms.v[i].addr;
			return true;
		}
	return false;
}

bool kallsyms_core_span(const struct kallsyms *ks, uint64_t *start, uint64_t *end)
{
	bool any = false;

	if (ks->restricted)
		return false;
	for (size_t i = 0; i < ks->syms.n; i++) {
		const struct ksym *s = &ks->syms.v[i];
		if (s->mod != NO_MODULE)
			continue;
		if (!any || s->addr < *start)
			*start = s->addr;
		if (!any || s->end > *end)
			*end = s->end;
		any = true;
	}
	return any;
}

bool kallsyms_restricted(const struct kallsyms *ks)
{
	return ks->restricted;
}

size_t kallsyms_count(const struct kallsyms *ks)
{
	return ks->syms.n;
}

size_t kallsyms_bad_lines(const struct kallsyms *ks)
{
	return ks->bad;
}
