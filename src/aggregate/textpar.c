/*
 * textpar: perf script text parsed on several threads, parts merged
 * (aggregate, L6). Part 0 is parsed on the caller's thread into the caller's tables,
 * the others on threads of their own into tables of their own, merged
 * into part 0's in text order once all are done.
 */
#include "aggregate/textpar.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct part {
	const char *data;
	size_t len;
	struct strtab own_strs; /* parts after the first */
	struct trie own_trie;
	struct strtab *strs;    /* own_strs, or the caller's for part 0 */
	struct trie *t;
	const struct scripttext_opts *so;
	struct scripttext_stats st;
	pthread_t th;
	bool started;
};

unsigned textpar_threads(unsigned want, long cpus, size_t len)
{
	if (want)
		return want < TEXTPAR_MAX_THREADS ? want : TEXTPAR_MAX_THREADS;
	size_t n = len / TEXTPAR_PART_MIN;
	if (cpus > 0 && n > (size_t)cpus)
		n = (size_t)cpus;
	if (n > TEXTPAR_MAX_THREADS)
		n = TEXTPAR_MAX_THREADS;
	return n ? (unsigned)n : 1;
}

/*
 * Cut the text into at most 'n' parts of about equal size, each ending
 * with a blank line's two newlines or at the text's end; starts[0..parts]
 * are their bounds. Returns the parts.
 */
static unsigned cut_parts(const char *data, size_t len, unsigned n, size_t *starts)
{
	static const char sep[] = "\n\n";
	size_t seplen = sizeof(sep) - 1;
	unsigned parts = 0;
	starts[0] = 0;
	for (unsigned k = 1; k < n; k++) {
		size_t from = len / n * k;
		if (from < starts[parts])
			from = starts[parts];
		const char *at = memmem(data + from, len - from, sep, seplen);
		if (!at || (size_t)(at - data) + seplen >= len)
			break;
		size_t cut = (size_t)(at - data) + seplen;
		if (cut > starts[parts])
			starts[++parts] = cut;
	}
	starts[++parts] = len;
	return parts;
}

static void *part_run(void *arg)
{
	struct part *p = arg;
	scripttext_parse(p->data, p->len, p->so, p->strs, p->t, &p->st);
	return NULL;
}

/* Set up the parts over the caller's tables (part 0) and their own. */
static struct part *parts_new(const char *data, const size_t *starts, unsigned n,
			      struct strtab *strs, struct trie *t)
{
	struct part *ps;
	XALLOC_ARRAY(ps, n);
	for (unsigned i = 0; i < n; i++) {
		struct part *p = &ps[i];
		p->data = data + starts[i];
		p->len = starts[i + 1] - starts[i];
		if (i == 0) {
			p->strs = strs;
			p->t = t;
		} else {
			strtab_init(&p->own_strs);
			trie_init(&p->own_trie, &p->own_strs);
			p->strs = &p->own_strs;
			p->t = &p->own_trie;
		}
	}
	return ps;
}

/* Parse every part: the first here, the others on threads (or here, if
 * a thread cannot be had). */
static void parts_run(struct part *ps, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		ps[i].started = !pthread_create(&ps[i].th, NULL, part_run, &ps[i]);
	part_run(&ps[0]);
	for (unsigned i = 1; i < n; i++) {
		if (ps[i].started)
			pthread_join(ps[i].th, NULL);
		else
			part_run(&ps[i]);
	}
}

/* Merge parts 1.. into part 0's trie (in text order) and free them. */
static void parts_merge(struct part *ps, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		trie_merge(ps[0].t, &ps[i].own_trie);
		trie_release(&ps[i].own_trie);
		strtab_release(&ps[i].own_strs);
	}
	free(ps);
}

static void script_stats_add(struct scripttext_stats *to, const struct scripttext_stats *s)
{
	to->lines += s->lines;
	to->headers += s->headers;
	to->frame_lines += s->frame_lines;
	to->samples += s->samples;
	to->filtered += s->filtered;
	to->unrecognized += s->unrecognized;
	to->long_lines += s->long_lines;
	to->dropped_frames += s->dropped_frames;
	to->truncated += s->truncated;
	to->frameless += s->frameless;
	to->unterminated = s->unterminated; /* the last part's: only it can end inside a sample */
}

int textpar_script(const char *data, size_t len, const struct scripttext_opts *o,
		   struct strtab *strs, struct trie *t, struct scripttext_stats *st,
		   unsigned threads)
{
	size_t starts[TEXTPAR_MAX_THREADS + 1];
	if (threads > TEXTPAR_MAX_THREADS)
		threads = TEXTPAR_MAX_THREADS;
	unsigned n = threads > 1 ? cut_parts(data, len, threads, starts) : 1;
	if (n < 2)
		return scripttext_parse(data, len, o, strs, t, st);
	/* The event the whole text's parse would keep, named to every part. */
	struct scripttext_opts po = *o;
	char *first_event = NULL;
	const char *ev;
	size_t evn;
	bool defaulted = !(o->event_filter && o->event_filter[0]) &&
			 scripttext_first_event(data, len, &ev, &evn);
	if (defaulted)
		po.event_filter = first_event = xstrndup(ev, evn);
	struct part *ps = parts_new(data, starts, n, strs, t);
	for (unsigned i = 0; i < n; i++)
		ps[i].so = &po;
	parts_run(ps, n);
	*st = ps[0].st;
	for (unsigned i = 1; i < n; i++)
		script_stats_add(st, &ps[i].st);
	if (defaulted) {
		st->event = strtab_intern(strs, ev, evn);
		st->event_defaulted = true;
	}
	parts_merge(ps, n);
	free(first_event);
	return 0;
}
