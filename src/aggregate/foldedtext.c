/*
 * foldedtext: folded stacks ("a;b;c 12") → stack trie, flamegraph.pl's
 * input rules (aggregate, L6). One pass over the lines; the count is
 * found from the end of the line, so a line costs its length once.
 */
#include "aggregate/foldedtext.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/hashmap.h"
#include "base/lines.h"
#include "base/vec.h"

static bool is_space(char c)
{
	/* Perl's \s (ASCII): space, \t, \n, \v, \f, \r */
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * If the n bytes at 's' end in "<ws>COUNT", set *count_at to the count's
 * first byte and return true; the stack is s[0 .. *count_at - 1).
 */
static bool split_count(const char *s, size_t n, size_t *count_at)
{
	size_t i = n;
	while (i > 0 && is_digit(s[i - 1]))
		i--;
	if (i > 0 && s[i - 1] == '.') {
		size_t dot = i - 1;
		i = dot;
		while (i > 0 && is_digit(s[i - 1]))
			i--;
		if (i == dot)
			return false; /* ".5": no digit before the point */
	} else if (i == n) {
		return false;
	}
	if (i == 0 || !is_space(s[i - 1]))
		return false;
	*count_at = i;
	return true;
}

static uint64_t pow10u(unsigned k)
{
	uint64_t p = 1;
	while (k--)
		p *= 10;
	return p;
}

/* The count at [s, s + n) times 10^digits, rounded; saturates (and says so). */
static uint64_t parse_count(const char *s, size_t n, unsigned digits, bool *sat)
{
	uint64_t v = 0;
	size_t i = 0;
	for (; i < n && is_digit(s[i]); i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			*sat = true;
			return UINT64_MAX;
		}
		v = v * 10 + d;
	}
	uint64_t scale = pow10u(digits);
	if (v > UINT64_MAX / scale) {
		*sat = true;
		return UINT64_MAX;
	}
	v *= scale;
	if (i < n && s[i] == '.')
		i++;
	uint64_t frac = 0;
	unsigned k = 0;
	for (; k < digits; k++) {
		frac *= 10;
		if (i < n)
			frac += (uint64_t)(s[i++] - '0');
	}
	if (i < n && s[i] >= '5')
		frac++; /* round half up on the first dropped digit */
	if (v > UINT64_MAX - frac) {
		*sat = true;
		return UINT64_MAX;
	}
	return v + frac;
}

static uint64_t sat_add(uint64_t a, uint64_t b, uint64_t *saturated)
{
	if (a > UINT64_MAX - b) {
		(*saturated)++;
		return UINT64_MAX;
	}
	return a + b;
}

/* The most fraction digits in one line's counts (both columns of a
 * differential line), at most FOLDEDTEXT_MAX_DIGITS. */
static unsigned line_frac_digits(const char *s, size_t n)
{
	unsigned best = 0;
	n = lines_drop_cr(s, n);
	for (int col = 0; col < 2 && n; col++) {
		size_t at;
		if (!split_count(s, n, &at))
			break;
		const char *dot = memchr(s + at, '.', n - at);
		if (dot) {
			size_t d = n - (size_t)(dot + 1 - s);
			if (d > best)
				best = d > FOLDEDTEXT_MAX_DIGITS ? FOLDEDTEXT_MAX_DIGITS : (unsigned)d;
		}
		n = at - 1;
	}
	return best;
}

unsigned foldedtext_frac_digits(const char *data, size_t len)
{
	unsigned best = 0;
	size_t pos = 0; /* always at the start of a line */
	/* Only a line with a '.' can have a fraction: lines are looked at from
	 * each '.' found, the others skipped a vector at a time. */
	while (best < FOLDEDTEXT_MAX_DIGITS && pos < len) {
		const char *dot = memchr(data + pos, '.', len - pos);
		if (!dot)
			break;
		size_t at = (size_t)(dot - data);
		const char *prev = at > pos ? memrchr(data + pos, '\n', at - pos) : NULL;
		size_t start = prev ? (size_t)(prev - data) + 1 : pos;
		const char *nl = memchr(dot, '\n', len - at);
		size_t end = nl ? (size_t)(nl - data) : len;
		unsigned d = line_frac_digits(data + start, end - start);
		if (d > best)
			best = d;
		pos = nl ? end + 1 : len;
	}
	return best;
}

bool foldedtext_detect(const char *data, size_t len)
{
	struct lines it;
	const char *s;
	size_t n;
	lines_init(&it, data, len);
	while (lines_next(&it, &s, &n)) {
		n = lines_drop_cr(s, n);
		if (!foldedtext_line_skipped(s, n))
			return foldedtext_line_ok(s, n);
	}
	return false;
}

bool foldedtext_line_skipped(const char *s, size_t n)
{
	if (n && s[0] == '#')
		return true;
	while (n && is_space(s[n - 1]))
		n--;
	return n == 0;
}

bool foldedtext_line_ok(const char *s, size_t n)
{
	size_t at;
	return n && !is_space(s[0]) && !memchr(s, '\0', n) && split_count(s, n, &at);
}

struct parse {
	const struct foldedtext_opts *o;
	struct strtab *strs;
	struct trie *t;
	struct foldedtext_stats *st;
	struct trie_chart chart;
	VEC(struct trie_frame) frames;
	VEC(uint64_t) first; /* node -> A count */
	/*
	 * The previous line's stack, to skip the frames it shares with this
	 * one (folded text is usually sorted, so neighbours share long
	 * prefixes): its bytes (they stay in the input), its frames
	 * (p->frames, before any reversal) and, outside charts, their nodes.
	 */
	const char *prev;
	const char *end; /* the end of the text (frames are read 8 bytes at a time up to it) */
	size_t prev_len;
	size_t prev_frames;
	VEC(uint32_t) path;
	VEC(size_t) ends; /* where each of the previous line's frames ends (a ';' or its end) */
	VEC(uint8_t) kinds; /* by name id: frame_kind_of_name + 1, 0 until worked out */
	/* A fresh trie: add_stack adds a line's weight to its leaf's self and
	 * the root's total only, and trie_fill_totals sums the rest at the end
	 * (instead of a walk of the shared prefix per line). */
	bool lazy_totals;
};

/* The kind a frame's name says (frame_kind_of_name), worked out once per name. */
static uint8_t name_kind(struct parse *p, uint32_t name, const char *s, size_t n)
{
	if (name >= p->kinds.n) {
		size_t had = p->kinds.n;
		VEC_RESERVE(&p->kinds, (size_t)name + 1);
		memset(p->kinds.v + had, 0, (size_t)name + 1 - had);
		p->kinds.n = (size_t)name + 1;
	}
	if (!p->kinds.v[name])
		p->kinds.v[name] = (uint8_t)(frame_kind_of_name(s, n) + 1);
	return (uint8_t)(p->kinds.v[name] - 1);
}

/* The length of the common prefix of a and b (n bytes at most): sixteen
 * bytes at a time where SSE2 is there, eight, then bytewise. */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t l = 0;
#ifdef __SSE2__
	for (; l + 16 <= n; l += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + l));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + l));
		unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y));
		if (eq != 0xffff)
			return l + (size_t)__builtin_ctz(~eq);
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; l + 8 <= n; l += 8) {
		uint64_t x, y;
		memcpy(&x, a + l, 8);
		memcpy(&y, b + l, 8);
		if (x != y)
			return l + (size_t)__builtin_ctzll(x ^ y) / 8;
	}
#endif
	while (l < n && a[l] == b[l])
		l++;
	return l;
}

/*
 * The frame at s: its length up to the first ';' or 'lim' bytes, whichever
 * comes first, and its hash_str (*hash), both found in one pass eight
 * bytes at a time; 'room' bytes are readable at s (room >= lim).
 */
static size_t scan_frame(const char *s, size_t lim, size_t room, uint64_t *hash)
{
	uint64_t h = HASH_STR_SEED;
	size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ULL;
	for (; i + 8 <= room; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		uint64_t x = w ^ (ones * ';');
		/* The lowest byte flagged is the first ';' (exact: a borrow
		 * only flags bytes above a zero one). */
		uint64_t z = (x - ones) & ~x & (ones << 7);
		size_t j = z ? (size_t)__builtin_ctzll(z) / 8 : 8;
		if (j > lim - i)
			j = lim - i;
		if (j < 8) {
			if (j)
				h = hash_str_word(h, w & ((UINT64_C(1) << (8 * j)) - 1));
			*hash = hash_str_end(h, i + j);
			return i + j;
		}
		h = hash_str_word(h, w);
	}
#endif
	/* The last bytes of the text (or a big-endian host): a byte at a time. */
	const char *semi = i < lim ? memchr(s + i, ';', lim - i) : NULL;
	size_t n = semi ? (size_t)(semi - s) : lim;
	*hash = hash_str(s, n);
	(void)h;
	return n;
}

/*
 * Split the stack into frames (p->frames); false if it had too many.
 * Frames this stack shares with the previous one, byte for byte and up to
 * a ';' in both, are kept from it instead of being interned again; their
 * number goes to *shared.
 */
static bool split_frames(struct parse *p, const char *s, size_t n, size_t *shared)
{
	bool cut = false;
	size_t start = 0, keep = 0;

	if (p->prev && !p->o->reverse) {
		size_t lim = n < p->prev_len ? n : p->prev_len;
		size_t l = common_prefix(s, p->prev, lim);
		/* A frame is shared when the ';' after it lies in the common
		 * prefix (this line has it there too). */
		while (keep < p->prev_frames && p->ends.v[keep] < l && p->ends.v[keep] < p->prev_len)
			keep++;
		start = keep ? p->ends.v[keep - 1] + 1 : 0;
	}
	*shared = keep;
	p->frames.n = keep;
	p->ends.n = keep;
	if (n == 0)
		return true;
	/* A frame ends at each ';' and at the end (an empty last frame after
	 * a trailing ';'); memchr finds them a vector at a time. */
	size_t room = (size_t)(p->end - s);
	while (start <= n) {
		if (p->frames.n == FOLDEDTEXT_MAX_FRAMES) {
			cut = true;
			break;
		}
		uint64_t h;
		size_t fl = scan_frame(s + start, n - start, room - start, &h);
		size_t i = start + fl;
		struct trie_frame f = { strtab_intern_hashed(p->strs, s + start, fl, h),
					FRAME_PROCESS };
		if (p->frames.n)
			f.kind = name_kind(p, f.name, s + start, fl);
		VEC_PUSH(&p->frames, f);
		VEC_PUSH(&p->ends, i);
		if (i == n)
			break;
		start = i + 1;
	}
	/* Perl's split drops empty trailing fields. */
	while (p->frames.n && strtab_len(p->strs, p->frames.v[p->frames.n - 1].name) == 0)
		p->frames.n--;
	p->ends.n = p->frames.n;
	if (*shared > p->frames.n)
		*shared = p->frames.n;
	p->prev = s;
	p->prev_len = n;
	p->prev_frames = p->frames.n;
	return !cut;
}

/* trie_add, reusing the nodes of the first 'shared' frames from the previous stack. */
static uint32_t add_stack(struct parse *p, size_t shared, uint64_t w)
{
	struct trie *t = p->t;
	uint32_t cur = 0;

	if (shared > p->path.n)
		shared = p->path.n;
	t->nodes.v[0].total += w;
	if (shared)
		cur = p->path.v[shared - 1];
	if (!p->lazy_totals)
		for (size_t i = 0; i < shared; i++)
			t->nodes.v[p->path.v[i]].total += w;
	p->path.n = shared;
	for (size_t i = shared; i < p->frames.n; i++) {
		cur = trie_child(t, cur, p->frames.v[i].name, p->frames.v[i].kind);
		if (!p->lazy_totals)
			t->nodes.v[cur].total += w;
		VEC_PUSH(&p->path, cur);
	}
	t->nodes.v[cur].self += w;
	return cur;
}

static void add_line(struct parse *p, const char *s, size_t n)
{
	size_t at, shared;
	if (!split_count(s, n, &at)) {
		p->st->ignored++;
		return;
	}
	bool sat = false;
	uint64_t b = parse_count(s + at, n - at, p->o->frac_digits, &sat), a = b;
	size_t stack_len = at - 1;
	size_t at2;
	if (split_count(s, stack_len, &at2)) {
		a = parse_count(s + at2, stack_len - at2, p->o->frac_digits, &sat);
		stack_len = at2 - 1;
		p->st->differential++;
	}
	if (sat)
		p->st->saturated++;
	if (!split_frames(p, s, stack_len, &shared))
		p->st->truncated++;
	/* Keep totals from wrapping: clamp the weight to what the root can take. */
	uint64_t room = UINT64_MAX - p->t->nodes.v[0].total;
	if (b > room) {
		p->st->saturated++;
		b = room;
	}
	uint32_t leaf;
	if (p->o->reverse) {
		struct trie_frame *f = p->frames.v;
		for (size_t i = 0, j = p->frames.n; i + 1 < j; i++, j--) {
			struct trie_frame x = f[i];
			f[i] = f[j - 1];
			f[j - 1] = x;
		}
		leaf = p->o->chart ? trie_chart_add(p->t, &p->chart, f, p->frames.n, b)
				   : trie_add(p->t, f, p->frames.n, b);
	} else if (p->o->chart) {
		leaf = trie_chart_add(p->t, &p->chart, p->frames.v, p->frames.n, b);
	} else {
		leaf = add_stack(p, shared, b);
	}
	p->st->stacks++;
	/*
	 * A counts are kept once a line has two columns: before that, every
	 * stack's A was its B, which 'self' holds (8 bytes a node saved for
	 * the common, one-column text).
	 */
	if (!p->st->differential)
		return;
	size_t had = p->first.n;
	if (had < p->t->nodes.n) {
		VEC_RESERVE(&p->first, p->t->nodes.n);
		for (size_t i = had; i < p->t->nodes.n; i++)
			p->first.v[i] = had || i == leaf ? 0 : p->t->nodes.v[i].self;
		p->first.n = p->t->nodes.n;
		if (!had) /* the first two-column line: its own B is not its A */
			p->first.v[leaf] = p->t->nodes.v[leaf].self - b;
	}
	p->first.v[leaf] = sat_add(p->first.v[leaf], a, &p->st->saturated);
}

/* Bytes of text between two estimates of the trie's final size. */
#define EXPECT_STEP ((size_t)64 << 10)

/* The trie's nodes at the end of the text, from the nodes so far: nodes
 * come at about the same rate through a text (trie_expect). */
static void expect_nodes(struct trie *t, size_t done, size_t len)
{
	double per_byte = (double)t->nodes.n / (double)done;
	trie_expect(t, (size_t)(per_byte * (double)len) + 1);
}

int foldedtext_parse(const char *data, size_t len, const struct foldedtext_opts *o,
		     struct strtab *strs, struct trie *t, uint64_t **first,
		     struct foldedtext_stats *st)
{
	struct foldedtext_opts dflt = { 0 };
	struct parse p = { .o = o ? o : &dflt, .strs = strs, .t = t, .st = st, .end = data + len };
	struct foldedtext_opts fixed = *p.o;
	if (fixed.frac_digits > FOLDEDTEXT_MAX_DIGITS)
		fixed.frac_digits = FOLDEDTEXT_MAX_DIGITS;
	p.o = &fixed;
	p.lazy_totals = !fixed.chart && !fixed.reverse && t->nodes.n == 1;
	memset(st, 0, sizeof(*st));
	/* A node per new frame; real profiles take a node per 60-80 bytes of
	 * text, stacks that share little one per 12: room for one per 16
	 * (address space, touched as nodes come). */
	trie_reserve(t, len / 16);
	struct lines it;
	const char *s;
	size_t n;
	/* One pass over the whole text for NULs; lines are searched only if it has any. */
	bool nuls = memchr(data, '\0', len) != NULL;
	lines_init(&it, data, len);
	size_t expect_at = EXPECT_STEP;
	while (lines_next(&it, &s, &n)) {
		st->lines++;
		if ((size_t)(s - data) >= expect_at) {
			expect_nodes(t, (size_t)(s - data), len);
			expect_at += EXPECT_STEP;
		}
		if (n > FOLDEDTEXT_MAX_LINE) {
			st->long_lines++;
			continue;
		}
		n = lines_drop_cr(s, n);
		if (nuls && memchr(s, '\0', n)) {
			st->ignored++;
			continue;
		}
		add_line(&p, s, n);
	}
	if (p.lazy_totals)
		trie_fill_totals(t);
	if (fixed.chart)
		trie_chart_finish(t, &p.chart);
	else
		trie_sort(t);
	VEC_FREE(&p.frames);
	VEC_FREE(&p.path);
	VEC_FREE(&p.ends);
	VEC_FREE(&p.kinds);
	if (first && st->differential) {
		/* Nodes created after the last line's leaf still need a slot. */
		VEC_RESERVE(&p.first, t->nodes.n + 1);
		if (p.first.n < t->nodes.n)
			memset(p.first.v + p.first.n, 0,
			       (t->nodes.n - p.first.n) * sizeof(uint64_t));
		*first = p.first.v;
	} else {
		if (first)
			*first = NULL;
		VEC_FREE(&p.first);
	}
	return 0;
}
