/*
 * scripttext: `perf script` text → stack trie with stackcollapse-perf.pl's
 * rules (aggregate, L6).
 *
 * Design note. stackcollapse-perf.pl is a loop over lines with three Perl
 * regexes; kiln must agree with it on every input, including the odd ones,
 * so each regex is matched here by a hand-written scanner whose result is
 * the one Perl's backtracking picks (reasoned out beside each scanner).
 * The state between lines is the Perl script's:
 *
 *   1. 'has_pname' is set by a sample header and cleared only by a blank
 *      line; frames are kept only while it is set.
 *   2. A header of a filtered-out event changes nothing (not even the
 *      process frame of an unfinished sample before it).
 *   3. A header does not clear the frames: two headers with no blank line
 *      between make one sample, named by the second.
 *   4. The blank line adds the sample (process frame alone if it had no
 *      frames); end of text adds nothing.
 *
 * Frames arrive leaf first; 'frames' holds them in arrival order (each
 * line's "a->b" inline group reversed), with their kinds, so the
 * root-first path is that vector read backwards.
 */
#include "aggregate/scripttext.h"

#include <string.h>

#include "aggregate/foldedtext.h"
#include "base/buf.h"
#include "aggregate/linecache.h"
#include "base/lines.h"
#include "base/vec.h"

struct span {
	const char *p;
	size_t n;
};

/*
 * Frame lines repeat (the same address in many samples), so a frame
 * line's result, the frames on_frame pushes, is kept by the line's bytes
 * (aggregate/linecache.h): a repeated line costs one hash and one compare
 * instead of a newline search, matching, tidying and interning again. The
 * result depends on the line and on whether the process name starts with
 * "java" (the cache's flag); on nothing else that varies.
 */

/*
 * Sample headers mostly repeat all but their time ("g++  8270
 * 33678.752113:    1000000 cpu-clock:ppp: "), so the last header's tail
 * and process are remembered: a header ending in the same bytes from the
 * ':' before its period has the same event and period (match_event), and
 * one whose comm, PID and TID are the same bytes at the same places has
 * the same process frames.
 */
#define MEMO_BYTES 128u
struct header_memo {
	char tail[MEMO_BYTES]; /* from the ':' to the line's end */
	size_t tail_n;         /* 0: none */
	size_t ev_back, ev_n;  /* the event: ev_back bytes before the line's end */
	uint64_t period;
	char head[MEMO_BYTES]; /* from the line's start to the TID's end */
	size_t head_n;         /* 0: none */
	size_t head_at[3];     /* where the comm ends, the PID starts and the TID starts */
};

/* A frame as the line cache keeps it: its trie_frame's words. */
#define FRAME_WORDS (sizeof(struct trie_frame) / sizeof(uint32_t))
_Static_assert(sizeof(struct trie_frame) % sizeof(uint32_t) == 0, "trie_frame is whole words");

struct parser {
	const struct scripttext_opts *o;
	struct strtab *strs;
	struct trie *t;
	struct scripttext_stats *st;
	struct span filter;    /* event to keep; n == 0: not chosen yet */
	struct buf pname;      /* process frame of the sample being read */
	VEC(struct trie_frame) proc; /* pname split into frames; n == 0: not yet */
	struct header_memo memo;
	bool has_pname;
	bool java;             /* pname starts with "java" (set with it) */
	bool truncated;        /* this sample lost frames */
	uint64_t period;
	VEC(struct trie_frame) frames; /* leaf first */
	VEC(struct trie_frame) group;  /* one line's frames, in line order */
	VEC(struct trie_frame) path;
	struct buf name;       /* scratch: one frame's name */
	struct buf raw;        /* scratch: "[dso <addr>]" before tidying */
	struct linecache cache; /* frame lines seen before → their frames */
	uint32_t line_id;       /* the cache's id of the line just read, 0 if none */
	uint32_t prev_id;       /* ... and of the line before it */
};

/* Perl's \s, \d and \w on bytes (no locale, no Unicode). */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool span_eq(struct span a, const char *s)
{
	size_t n = strlen(s);
	return a.n == n && !memcmp(a.p, s, n);
}

/* The first "ab" in n bytes at p, or NULL (memchr: cheaper than memmem
 * for two bytes, once per frame). */
static const char *find2(const char *p, size_t n, char a, char b)
{
	for (const char *end = p + n; n >= 2 && (p = memchr(p, a, (size_t)(end - p - 1))); p++)
		if (p[1] == b)
			return p;
	return NULL;
}

static bool span_has(struct span a, const char *s)
{
	return memmem(a.p, a.n, s, strlen(s)) != NULL;
}

/*
 * Sample header, /^(\S.+?)\s+(\d+)\/ *(\d+)*\s+/ (without the space after
 * the slash: a C comment cannot hold that pair). The lazy comm grows until
 * the rest matches; the rest can only start at whitespace, and every start
 * inside one whitespace run ends up at the same digits, so only the first
 * usable start of each run is tried. Digits and slashes cannot trade
 * places with the whitespace around them, so no other backtracking helps.
 */
struct header {
	struct span comm, pid, tid; /* tid.n == 0: absent */
};

static bool match_header(const char *s, size_t n, struct header *h)
{
	if (n < 2 || is_space(s[0]))
		return false;
	size_t e = 2;
	while (e < n) {
		if (!is_space(s[e])) {
			e++;
			continue;
		}
		size_t f = e;
		while (f < n && is_space(s[f]))
			f++;
		size_t g = f;
		while (g < n && is_digit(s[g]))
			g++;
		if (g > f) {
			size_t sl = g;
			while (sl < n && s[sl] == '/')
				sl++;
			size_t i = sl;
			while (i < n && is_digit(s[i]))
				i++;
			if (i < n && is_space(s[i])) {
				h->comm = (struct span){ s, e };
				h->pid = (struct span){ s + f, g - f };
				h->tid = (struct span){ s + sl, i - sl };
				return true;
			}
		}
		e = f;
	}
	return false;
}

/*
 * Period and event, /:\s*(\d+)*\s+(\S+):\s*$/. Anchored at the end: the
 * line, less trailing whitespace, ends in ':'; the event is the whole
 * non-space token before it (it must follow whitespace); before that comes
 * whitespace, optional digits (the period), optional whitespace and a ':'.
 * Only one ':' can start such a tail, so the leftmost match is that one;
 * *colon is its offset. The result depends on the bytes from there on
 * alone: a line ending in the same bytes matches the same way.
 */
static bool match_event(const char *s, size_t n, struct span *event, struct span *period,
			size_t *colon)
{
	size_t end = n;
	while (end > 0 && is_space(s[end - 1]))
		end--;
	if (end == 0 || s[end - 1] != ':')
		return false;
	size_t ev_end = end - 1, ev = ev_end;
	while (ev > 0 && !is_space(s[ev - 1]))
		ev--;
	if (ev == ev_end || ev == 0)
		return false;
	size_t j = ev;
	while (j > 0 && is_space(s[j - 1]))
		j--;
	size_t k = j;
	while (k > 0 && is_digit(s[k - 1]))
		k--;
	size_t c = k;
	while (c > 0 && is_space(s[c - 1]))
		c--;
	if (c == 0 || s[c - 1] != ':')
		return false;
	*event = (struct span){ s + ev, ev_end - ev };
	*period = (struct span){ s + k, j - k };
	*colon = c - 1;
	return true;
}

/*
 * Frame line, /^\s*(\w+)\s*(.+) \((.*)\)/, not anchored at the end. The
 * greedy (.+) ends at the last " (" that has a ')' after it, and (.*) runs
 * to the last ')'. The symbol starts after the address and its whitespace,
 * or, when that leaves no room before the " (", as late as it can: Perl
 * backtracks the whitespace and then the address one byte at a time.
 */
struct frame_line {
	struct span pc, sym, dso;
};

static bool match_frame(const char *s, size_t n, struct frame_line *fl)
{
	size_t p0 = 0;
	while (p0 < n && is_space(s[p0]))
		p0++;
	size_t a = p0;
	while (a < n && is_word(s[a]))
		a++;
	if (a == p0)
		return false;
	size_t bmax = a;
	while (bmax < n && is_space(s[bmax]))
		bmax++;
	const char *rp = memrchr(s, ')', n);
	if (!rp)
		return false;
	size_t r = (size_t)(rp - s);
	size_t q = r;
	for (;;) { /* the last " (" ending before r: its '(' at 1..r-1 */
		const char *op = q >= 2 ? memrchr(s + 1, '(', q - 1) : NULL;
		if (!op)
			return false;
		q = (size_t)(op - s);
		if (s[q - 1] == ' ')
			break;
	}
	q--; /* q: the space of " (" */
	if (q < p0 + 2)
		return false;
	size_t b = bmax < q - 1 ? bmax : q - 1;
	fl->pc = (struct span){ s + p0, (b < a ? b : a) - p0 };
	fl->sym = (struct span){ s + b, q - b };
	fl->dso = (struct span){ s + q + 2, r - (q + 2) };
	return true;
}

/* "+0x1f" at the end of a symbol (lowercase hex, as perf prints it). */
static struct span strip_offset(struct span f)
{
	size_t i = f.n;
	while (i > 0 && (is_digit(f.p[i - 1]) || (f.p[i - 1] >= 'a' && f.p[i - 1] <= 'f')))
		i--;
	if (i < f.n && i >= 3 && !memcmp(f.p + i - 3, "+0x", 3))
		f.n = i - 3;
	return f;
}

/* Go method names ("net/http.(*Client).Do") keep their parentheses: /\.\(.*\)\./ */
static bool looks_like_go(struct span f)
{
	const char *open = find2(f.p, f.n, '.', '(');
	if (!open)
		return false;
	for (size_t j = f.n; j-- > 1;)
		if (f.p[j - 1] == ')' && f.p[j] == '.')
			return j - 1 >= (size_t)(open - f.p) + 2;
	return false;
}

/* Where /\((?!anonymous namespace\)).*$/ cuts the name, or f.n. */
static size_t paren_cut(struct span f)
{
	static const char anon[] = "anonymous namespace)";
	const char *end = f.p + f.n;
	for (const char *q = f.p; (q = memchr(q, '(', (size_t)(end - q))); q++) {
		size_t i = (size_t)(q - f.p);
		if (f.n - i - 1 >= sizeof(anon) - 1 && !memcmp(q + 1, anon, sizeof(anon) - 1))
			continue;
		return i;
	}
	return f.n;
}

/* m:/tmp/perf-\d+\.map: */
static bool is_jit_dso(struct span d)
{
	static const char pre[] = "/tmp/perf-";
	const char *p = d.p, *end = d.p + d.n;
	while ((p = memmem(p, (size_t)(end - p), pre, sizeof(pre) - 1))) {
		const char *q = p + sizeof(pre) - 1, *digits = q;
		while (q < end && is_digit(*q))
			q++;
		if (q > digits && end - q >= 4 && !memcmp(q, ".map", 4))
			return true;
		p++;
	}
	return false;
}

/* m/(^\[|vmlinux$)/ and not /unknown/ */
static bool is_kernel_dso(struct span d)
{
	bool k = (d.n && d.p[0] == '[') || (d.n >= 7 && !memcmp(d.p + d.n - 7, "vmlinux", 7));
	return k && !span_has(d, "unknown");
}

static bool is_java(const struct parser *ps)
{
	return ps->java;
}

static bool has_suffix(const struct buf *b, const char *s)
{
	return memmem(buf_str(b), b->len, s, strlen(s)) != NULL;
}

/* Name one frame of a frame line: 'f' is one "->"-separated piece of the
 * symbol. The frame's kind depends on its name alone. */
static struct trie_frame frame_name(struct parser *ps, struct span f, const struct frame_line *fl,
			   bool inlined)
{
	const struct scripttext_opts *o = ps->o;
	if (span_eq(f, "[unknown]")) {
		struct span base = { "unknown", 7 };
		if (!span_eq(fl->dso, "[unknown]")) {
			const char *slash = memrchr(fl->dso.p, '/', fl->dso.n);
			base = fl->dso;
			if (slash) {
				base.n -= (size_t)(slash + 1 - base.p);
				base.p = slash + 1;
			}
		}
		buf_reset(&ps->raw);
		buf_addch(&ps->raw, '[');
		buf_add(&ps->raw, base.p, base.n);
		if (o->addrs) {
			buf_addstr(&ps->raw, " <");
			buf_add(&ps->raw, fl->pc.p, fl->pc.n);
			buf_addch(&ps->raw, '>');
		}
		buf_addch(&ps->raw, ']');
		f = (struct span){ ps->raw.p, ps->raw.len };
	}
	/* Generic tidying: ';' → ':', cut at the first '(', drop quotes. */
	size_t cut = looks_like_go(f) ? f.n : paren_cut(f);
	buf_reset(&ps->name);
	size_t run = 0; /* bytes copied in runs, not one by one */
	bool plain = !memchr(f.p, '"', cut) && !memchr(f.p, '\'', cut) && !memchr(f.p, ';', cut);
	for (size_t i = plain ? cut : 0; i < cut; i++) {
		char c = f.p[i];
		if (c != '"' && c != '\'' && c != ';')
			continue;
		buf_add(&ps->name, f.p + run, i - run);
		if (c == ';')
			buf_addch(&ps->name, ':');
		run = i + 1;
	}
	buf_add(&ps->name, f.p + run, cut - run);
	/* Java: "Ljava/lang/Thread:::run" → "java/lang/Thread:::run". */
	size_t skip = 0;
	if (is_java(ps) && ps->name.len &&
	    ps->name.p[0] == 'L' && memchr(ps->name.p, '/', ps->name.len))
		skip = 1;
	if (inlined) {
		if (!has_suffix(&ps->name, "_[i]"))
			buf_addstr(&ps->name, "_[i]");
	} else if (o->annotate_kernel && is_kernel_dso(fl->dso)) {
		buf_addstr(&ps->name, "_[k]");
	} else if (o->annotate_jit && is_jit_dso(fl->dso)) {
		if (!has_suffix(&ps->name, "_[j]"))
			buf_addstr(&ps->name, "_[j]");
	}
	const char *name = buf_str(&ps->name) + skip;
	size_t n = ps->name.len - skip;
	return (struct trie_frame){ strtab_intern(ps->strs, name, n), frame_kind_of_name(name, n) };
}

static void push_frame(struct parser *ps, struct trie_frame f)
{
	if (ps->frames.n >= SCRIPTTEXT_MAX_FRAMES) {
		ps->st->dropped_frames++;
		ps->truncated = true;
		return;
	}
	VEC_PUSH(&ps->frames, f);
}

static void on_frame(struct parser *ps, const struct frame_line *fl)
{
	struct span sym = strip_offset(fl->sym);
	ps->group.n = 0;
	if (sym.n && sym.p[0] == '(')
		return; /* a process name, not a frame */
	/* split /->/: empty pieces count, except trailing ones. */
	size_t keep = sym.n;
	while (keep >= 2 && !memcmp(sym.p + keep - 2, "->", 2))
		keep -= 2;
	if (!keep)
		return;
	ps->group.n = 0;
	size_t start = 0;
	for (;;) {
		const char *arrow = find2(sym.p + start, keep - start, '-', '>');
		size_t end = arrow ? (size_t)(arrow - sym.p) : keep;
		struct span piece = { sym.p + start, end - start };
		struct trie_frame f = frame_name(ps, piece, fl, ps->group.n > 0);
		VEC_PUSH(&ps->group, f);
		if (!arrow)
			break;
		start = end + 2;
	}
	for (size_t i = ps->group.n; i-- > 0;)
		push_frame(ps, ps->group.v[i]);
}

/*
 * A frame line seen before at the start of the 'avail' bytes at s: push
 * its frames and return its length; LINECACHE_MISS if there is none.
 */
static size_t cached_frame(struct parser *ps, const char *s, size_t avail)
{
	struct linecache_line l;
	if (!(ps->line_id && linecache_follows(&ps->cache, ps->line_id, s, avail, is_java(ps), &l)) &&
	    !linecache_search(&ps->cache, ps->line_id, s, avail, is_java(ps), &l))
		return LINECACHE_MISS;
	ps->line_id = l.id;
	/* Mostly one frame a line, with room for it. */
	if (l.count == FRAME_WORDS && ps->frames.n < ps->frames.cap &&
	    ps->frames.n < SCRIPTTEXT_MAX_FRAMES) {
		memcpy(&ps->frames.v[ps->frames.n++], l.vals, sizeof(struct trie_frame));
		return l.len;
	}
	for (uint32_t k = 0; k < l.count; k += FRAME_WORDS) {
		struct trie_frame f;
		memcpy(&f, l.vals + k, sizeof(f));
		push_frame(ps, f);
	}
	return l.len;
}

/* The run of cached frame lines from 'pos' pushed and counted; returns
 * the offset after it (past 'len' if the text ended in it). */
static size_t cached_lines(struct parser *ps, const char *data, size_t len, size_t pos)
{
	uint64_t lines = 0;
	/* A blank line (the sample's end) is never kept: not looked up. */
	for (size_t n; pos < len && data[pos] != '\n'; pos += n + 1, lines++)
		if ((n = cached_frame(ps, data + pos, len - pos)) == LINECACHE_MISS)
			break;
	ps->st->lines += lines;
	ps->st->frame_lines += lines;
	return pos;
}

/* Keep a frame line's frames (on_frame's group, pushed leaf first:
 * reversed), FRAME_WORDS values each. */
static void cache_frame(struct parser *ps, const char *s, size_t n)
{
	for (size_t i = 0, j = ps->group.n; i + 1 < j; i++, j--) {
		struct trie_frame x = ps->group.v[i];
		ps->group.v[i] = ps->group.v[j - 1];
		ps->group.v[j - 1] = x;
	}
	ps->line_id = linecache_put(&ps->cache, ps->prev_id, s, n, is_java(ps),
				    (const uint32_t *)(const void *)ps->group.v,
				    ps->group.n * FRAME_WORDS);
}

static uint64_t parse_period(struct span p)
{
	/* Perl: an absent or "0" period counts 1. Saturates at 2^64-1. */
	if (!p.n || span_eq(p, "0"))
		return 1;
	uint64_t v = 0;
	for (size_t i = 0; i < p.n; i++) {
		uint64_t d = (uint64_t)(p.p[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return UINT64_MAX;
		v = v * 10 + d;
	}
	return v;
}

/* match_event and parse_period, remembered for the last tail matched. */
static bool header_event(struct parser *ps, const char *s, size_t n, struct span *event,
			 uint64_t *period)
{
	struct header_memo *m = &ps->memo;
	if (m->tail_n && n >= m->tail_n && !memcmp(s + n - m->tail_n, m->tail, m->tail_n)) {
		*event = (struct span){ s + n - m->ev_back, m->ev_n };
		*period = m->period;
		return true;
	}
	struct span per;
	size_t colon;
	if (!match_event(s, n, event, &per, &colon))
		return false;
	*period = parse_period(per);
	m->tail_n = n - colon <= MEMO_BYTES ? n - colon : 0;
	memcpy(m->tail, s + colon, m->tail_n);
	m->ev_back = (size_t)(s + n - event->p);
	m->ev_n = event->n;
	m->period = *period;
	return true;
}

/* Whether the header's comm, PID and TID are the last header's; remembers them. */
static bool same_process(struct header_memo *m, const char *s, const struct header *h)
{
	size_t n = (size_t)(h->tid.p + h->tid.n - s);
	size_t at[3] = { h->comm.n, (size_t)(h->pid.p - s), (size_t)(h->tid.p - s) };
	if (m->head_n && n == m->head_n && !memcmp(at, m->head_at, sizeof(at)) &&
	    !memcmp(s, m->head, n))
		return true;
	m->head_n = n <= MEMO_BYTES ? n : 0;
	memcpy(m->head, s, m->head_n);
	memcpy(m->head_at, at, sizeof(at));
	return false;
}

static void on_header(struct parser *ps, const char *s, size_t n, const struct header *h)
{
	struct span event;
	uint64_t period = 1; /* parse_period of no period */
	if (header_event(ps, s, n, &event, &period)) {
		if (!ps->filter.n) {
			ps->st->event = strtab_intern(ps->strs, event.p, event.n);
			ps->st->event_defaulted = true;
			ps->filter.p = strtab_get(ps->strs, ps->st->event);
			ps->filter.n = event.n;
		} else if (event.n != ps->filter.n || memcmp(event.p, ps->filter.p, event.n)) {
			ps->st->filtered++;
			return;
		}
	}
	ps->period = period;
	ps->has_pname = true;
	if (same_process(&ps->memo, s, h) && ps->pname.len)
		return;
	/* Perl: a missing TID, or one of "0", means the number given is the TID. */
	struct span pid = h->pid, tid = h->tid;
	if (!tid.n || span_eq(tid, "0")) {
		tid = pid;
		pid = (struct span){ "?", 1 };
	}
	struct buf *b = &ps->pname;
	buf_reset(b);
	buf_add(b, h->comm.p, h->comm.n);
	if (ps->o->with_pid || ps->o->with_tid) {
		buf_addch(b, '-');
		buf_add(b, pid.p, pid.n);
	}
	if (ps->o->with_tid) {
		buf_addch(b, '/');
		buf_add(b, tid.p, tid.n);
	}
	for (size_t i = 0; i < b->len; i++)
		if (b->p[i] == ' ')
			b->p[i] = '_';
	ps->java = b->len >= 4 && !memcmp(b->p, "java", 4);
	ps->proc.n = 0;
}

static void push_proc(struct parser *ps, const char *name, size_t n, bool root)
{
	uint32_t id = strtab_intern(ps->strs, name, n);
	struct trie_frame f = { id, root ? FRAME_PROCESS : frame_kind_of_name(name, n) };
	VEC_PUSH(&ps->proc, f);
}

/*
 * The process frame's frames, ps->proc. Perl joins the stack with ';'
 * and merges equal strings, so a comm holding ';' must become several
 * frames to merge the same way. The kind of a frame depends only on its
 * name and depth, so equal lines are always one trie path.
 */
static void split_pname(struct parser *ps)
{
	const char *p = ps->pname.p, *end = p + ps->pname.len;
	for (size_t splits = 0;; splits++) {
		const char *semi = splits < SCRIPTTEXT_MAX_FRAMES ? memchr(p, ';', (size_t)(end - p))
								  : NULL;
		const char *stop = semi ? semi : end;
		push_proc(ps, p, (size_t)(stop - p), ps->proc.n == 0);
		if (!semi)
			break;
		p = semi + 1;
	}
}

static void end_sample(struct parser *ps)
{
	if (!ps->proc.n)
		split_pname(ps);
	ps->path.n = 0;
	VEC_RESERVE(&ps->path, ps->proc.n + ps->frames.n);
	memcpy(ps->path.v, ps->proc.v, ps->proc.n * sizeof(ps->proc.v[0]));
	ps->path.n = ps->proc.n;
	for (size_t i = ps->frames.n; i-- > 0;)
		ps->path.v[ps->path.n++] = ps->frames.v[i];
	trie_add(ps->t, ps->path.v, ps->path.n, ps->period);
	ps->st->samples++;
	if (ps->truncated)
		ps->st->truncated++;
	ps->frames.n = 0;
	ps->truncated = false;
	ps->has_pname = false;
}

static void on_line(struct parser *ps, const char *s, size_t n)
{
	if (n && s[0] == '#')
		return;
	if (!n) {
		if (ps->has_pname)
			end_sample(ps);
		return;
	}
	struct header h;
	struct frame_line fl;
	if (match_header(s, n, &h)) {
		ps->st->headers++;
		on_header(ps, s, n, &h);
		return;
	}
	if (match_frame(s, n, &fl)) {
		ps->st->frame_lines++;
		if (ps->has_pname) {
			on_frame(ps, &fl);
			cache_frame(ps, s, n);
		}
	} else {
		ps->st->unrecognized++;
	}
}

int scripttext_parse(const char *data, size_t len, const struct scripttext_opts *o,
		     struct strtab *strs, struct trie *t, struct scripttext_stats *st)
{
	struct parser ps;
	memset(&ps, 0, sizeof(ps));
	memset(st, 0, sizeof(*st));
	st->event = TRIE_NO_NAME;
	ps.o = o;
	ps.strs = strs;
	ps.t = t;
	ps.st = st;
	linecache_init(&ps.cache);
	if (o->event_filter && o->event_filter[0]) {
		st->event = strtab_intern_str(strs, o->event_filter);
		ps.filter.p = strtab_get(strs, st->event);
		ps.filter.n = strtab_len(strs, st->event);
	}
	/* Names come from one line plus a few bytes: these ceilings never bind. */
	buf_init(&ps.pname, SCRIPTTEXT_MAX_LINE + 64);
	buf_init(&ps.name, SCRIPTTEXT_MAX_LINE + 64);
	buf_init(&ps.raw, SCRIPTTEXT_MAX_LINE + 64);
	for (size_t pos = 0, n; pos < len; pos += n + 1) {
		/* The cache first, before the line's end is known: only lines
		 * that failed match_header and passed match_frame are in it, so
		 * a header is never found there, nor a comment or a blank line. */
		if (ps.has_pname && (pos = cached_lines(&ps, data, len, pos)) >= len)
			break;
		const char *s = data + pos;
		st->lines++;
		ps.prev_id = ps.line_id;
		ps.line_id = 0;
		const char *nl = memchr(s, '\n', len - pos);
		n = nl ? (size_t)(nl - s) : len - pos;
		if (n > SCRIPTTEXT_MAX_LINE)
			st->long_lines++;
		else if (memchr(s, '\0', n)) /* only lines not found in the cache: */
			st->unrecognized++;  /* a cached line holds no NUL */
		else
			on_line(&ps, s, n);
	}
	st->unterminated = ps.has_pname;
	VEC_FREE(&ps.frames);
	VEC_FREE(&ps.group);
	VEC_FREE(&ps.path);
	VEC_FREE(&ps.proc);
	linecache_release(&ps.cache);
	buf_release(&ps.pname);
	buf_release(&ps.name);
	buf_release(&ps.raw);
	return 0;
}

bool scripttext_first_event(const char *data, size_t len, const char **ev, size_t *n)
{
	struct lines it;
	const char *s;
	size_t ln;
	lines_init(&it, data, len);
	/* The lines on_line would see (a cached line is never a header). */
	while (lines_next(&it, &s, &ln)) {
		struct header h;
		struct span event, period;
		size_t colon;
		if (ln > SCRIPTTEXT_MAX_LINE || !ln || s[0] == '#' || memchr(s, '\0', ln) ||
		    !match_header(s, ln, &h) || !match_event(s, ln, &event, &period, &colon))
			continue;
		*ev = event.p;
		*n = event.n;
		return true;
	}
	return false;
}

/* ---- samples as they are ---- */

static uint64_t parse_u64(struct span p, int base, bool *ok)
{
	uint64_t v = 0;
	*ok = p.n > 0 && p.n <= (base == 16 ? 16u : 19u);
	for (size_t i = 0; *ok && i < p.n; i++) {
		char c = p.p[i];
		int d = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
		if (d < 0 || d >= base)
			*ok = false;
		else
			v = v * (uint64_t)base + (uint64_t)d;
	}
	return *ok ? v : 0;
}

struct walker {
	scripttext_sample_fn fn;
	void *ctx;
	struct scripttext_stats *st;
	struct scripttext_sample smp;
	bool in_sample, trunc;
	VEC(struct scripttext_frame) frames;
};

static void walk_header(struct walker *w, const char *s, size_t n, const struct header *h)
{
	struct scripttext_sample *m = &w->smp;
	memset(m, 0, sizeof(*m));
	m->comm = (struct scripttext_span){ h->comm.p, h->comm.n };
	bool ok;
	if (h->tid.n && !span_eq(h->tid, "0")) {
		m->pid = (uint32_t)parse_u64(h->pid, 10, &ok);
		m->tid = (uint32_t)parse_u64(h->tid, 10, &ok);
	} else {
		m->tid = (uint32_t)parse_u64(h->pid, 10, &ok);
	}
	m->cpu = UINT32_MAX;
	const char *after = (h->tid.n ? h->tid.p + h->tid.n : h->pid.p + h->pid.n);
	size_t i = (size_t)(after - s);
	while (i < n && is_space(s[i]))
		i++;
	if (i < n && s[i] == '[') { /* "[001]" */
		size_t j = i + 1;
		while (j < n && is_digit(s[j]))
			j++;
		if (j < n && s[j] == ']' && j > i + 1)
			m->cpu = (uint32_t)parse_u64((struct span){ s + i + 1, j - i - 1 }, 10, &ok);
	}
	struct span event, period = { NULL, 0 };
	size_t colon;
	m->period = 1;
	if (match_event(s, n, &event, &period, &colon)) {
		m->event = (struct scripttext_span){ event.p, event.n };
		m->period = parse_period(period);
	}
	w->frames.n = 0;
	w->in_sample = true;
	w->trunc = false;
}

static void walk_frame(struct walker *w, const struct frame_line *fl)
{
	if (w->frames.n >= SCRIPTTEXT_MAX_FRAMES) {
		w->st->dropped_frames++;
		w->trunc = true;
		return;
	}
	struct scripttext_frame *f = VEC_PUSH_ZERO(&w->frames);
	bool ok;
	f->addr = parse_u64((struct span){ fl->pc.p, fl->pc.n }, 16, &ok);
	struct span sym = strip_offset(fl->sym);
	f->has_off = sym.n < fl->sym.n;
	if (f->has_off)
		f->off = parse_u64((struct span){ sym.p + sym.n + 3, fl->sym.n - sym.n - 3 }, 16, &ok);
	f->sym = (struct scripttext_span){ sym.p, sym.n };
	f->dso = (struct scripttext_span){ fl->dso.p, fl->dso.n };
}

static int walk_end(struct walker *w)
{
	w->in_sample = false;
	if (!w->frames.n)
		w->st->frameless++;
	if (w->trunc)
		w->st->truncated++;
	w->smp.frames = w->frames.n ? w->frames.v : NULL;
	w->smp.n = w->frames.n;
	w->st->samples++;
	return w->fn(w->ctx, &w->smp);
}

int scripttext_samples(const char *data, size_t len, scripttext_sample_fn fn, void *ctx,
		       struct scripttext_stats *st)
{
	struct walker w;
	memset(&w, 0, sizeof(w));
	memset(st, 0, sizeof(*st));
	st->event = TRIE_NO_NAME;
	w.fn = fn;
	w.ctx = ctx;
	w.st = st;
	struct lines it;
	const char *s;
	size_t n;
	int rc = 0;
	lines_init(&it, data, len);
	while (!rc && lines_next(&it, &s, &n)) {
		st->lines++;
		struct header h;
		struct frame_line fl;
		if (n > SCRIPTTEXT_MAX_LINE) {
			st->long_lines++;
		} else if (memchr(s, '\0', n)) {
			st->unrecognized++;
		} else if (n && s[0] == '#') {
			continue;
		} else if (!n) {
			if (w.in_sample)
				rc = walk_end(&w);
		} else if (match_header(s, n, &h)) {
			st->headers++;
			walk_header(&w, s, n, &h);
		} else if (match_frame(s, n, &fl)) {
			st->frame_lines++;
			if (w.in_sample)
				walk_frame(&w, &fl);
		} else {
			st->unrecognized++;
		}
	}
	if (!rc && w.in_sample && w.frames.n) { /* unlike stackcollapse: the last sample counts */
		rc = walk_end(&w);
	}
	VEC_FREE(&w.frames);
	return rc;
}

int scripttext_sniff(const char *data, size_t len, bool folded)
{
	if (memchr(data, '\0', len))
		return -1;
	struct lines it;
	const char *s;
	size_t n;
	unsigned seen = 0;
	lines_init(&it, data, len);
	while (seen < SCRIPTTEXT_SNIFF_LINES && lines_next(&it, &s, &n)) {
		if (s + n == data + len)
			break; /* no '\n' yet: the line may go on */
		n = lines_drop_cr(s, n);
		if (foldedtext_line_skipped(s, n))
			continue;
		struct header h;
		struct frame_line fl;
		if (match_header(s, n, &h) || match_frame(s, n, &fl) ||
		    (folded && foldedtext_line_ok(s, n)))
			return 1;
		seen++;
	}
	if (seen == SCRIPTTEXT_SNIFF_LINES)
		return -1;
	return len >= SCRIPTTEXT_SNIFF_BYTES && !memchr(data, '\n', len) ? -1 : 0;
}
