/*
 * profile_text: the text inputs of a session into a stack trie (pipeline,
 * L8): perf script text by stackcollapse-perf.pl's rules
 * (aggregate/scripttext.h), folded stacks by flamegraph.pl's
 * (aggregate/foldedtext.h); large perf script texts on several
 * threads (aggregate/textpar.h). The caller reports what the stats say.
 */
#include "pipeline/profile.h"

#include <string.h>
#include <unistd.h>

#include "aggregate/textpar.h"

/* Threads for perf script text: KILN_THREADS=1 one, =2 two, else by its
 * size and the CPUs online (aggregate/textpar.h). */
static unsigned text_threads(const struct profile_opts *o, size_t len)
{
	int want = o->env ? o->env->threads : 0;
	return textpar_threads(want > 0 ? (unsigned)want : 0, sysconf(_SC_NPROCESSORS_ONLN), len);
}

void profile_text_script(const struct session *s, const struct profile_opts *o,
			 const struct scripttext_opts *so, struct trie *t,
			 struct scripttext_stats *st)
{
	struct strtab *strs = t->names;
	textpar_script(s->text, s->text_len, so, strs, t, st, text_threads(o, s->text_len));
	trie_sort(t);
	if (o->reverse) {
		struct trie r;
		trie_init(&r, strs);
		trie_reverse(t, &r);
		trie_sort(&r);
		trie_release(t);
		*t = r;
	}
}

bool profile_text_unusable(const struct scripttext_stats *st)
{
	/* No sample header, or lines of something else outnumbering the
	 * text's own: not perf script output (a config file, a log). */
	return st->headers == 0 || st->unrecognized > st->headers + st->frame_lines;
}

void profile_text_folded(const struct session *s, const struct profile_opts *o, struct trie *t,
			 struct profile_folded *out, struct foldedtext_stats *st)
{
	struct foldedtext_opts fo = {
		.frac_digits = foldedtext_frac_digits(s->text, s->text_len),
		.reverse = o->reverse,
		.chart = o->chart,
	};
	memset(out, 0, sizeof(*out));
	foldedtext_parse(s->text, s->text_len, &fo, t->names, t, &out->first, st);
	out->divisor = 1;
	for (unsigned i = 0; i < fo.frac_digits; i++)
		out->divisor *= 10;
}
