/*
 * annotate_view: one function's annotation as `kiln annotate` shows it
 * (cli, L9), shared by its --stdio text, its browser's pages and the
 * report browser's 'a'.
 *
 * A group of pipeline/symhist (the samples of one symbol of one dso in
 * one event) is built into an annotation (annotate/) and written by
 * output/annotate_text, or, when it cannot be built (a kernel symbol, a
 * missing binary, no code bytes), its header with the reason as a note.
 * annotate_view_page turns that text into a textview page, each line
 * coloured by the share it starts with.
 *
 * annotate_view_open/_close read a perf.data into a symhist of their own
 * (the report browser annotates from the file it shows), and
 * annotate_view_find looks a symbol up in it by the names report shows.
 */
#ifndef KILN_CLI_ANNOTATE_VIEW_H
#define KILN_CLI_ANNOTATE_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/buf.h"
#include "pipeline/symhist.h"
#include "tui/model.h"

struct annotate_view {
	struct session *s;
	const struct symhist *h;
	struct symhist_annotate_opts ao;
	bool print_line;    /* -l: the hot source lines first */
	bool sort_by_lines; /* per source line instead of the disassembly */
	bool full_paths;    /* -P: binaries by their full path */
	bool skip_missing;  /* --stdio: leave out groups that cannot be built */
};

/* A dso's path as annotate's header names it ("[kernel.kallsyms]" for the kernel). */
const char *annotate_view_dso_path(const struct dso *d);
/* The binary of 'g' as the header and the browser name it (basename unless full_paths). */
const char *annotate_view_dso(const struct annotate_view *v, const struct symhist_group *g);
/* 'g''s share of its event's period, in percent. */
double annotate_view_share(const struct annotate_view *v, const struct symhist_group *g);

/*
 * Write g's annotation to f as --stdio does. A group that cannot be
 * built gets its note, or (skip_missing and !always_note) nothing.
 * 0, or -EIO.
 */
int annotate_view_write(const struct annotate_view *v, const struct symhist_group *g,
			bool always_note, FILE *f);

/*
 * A text page (tui/textview) of g's annotation, titled "Annotate: SYM
 * PCT% DSO". 0, or < 0 with the reason appended to msg.
 */
int annotate_view_page(const struct annotate_view *v, const struct symhist_group *g,
		       struct textview_src *page, struct buf *msg);

/* A perf.data read for annotation: its session and symhist. */
struct annotate_source {
	struct session s;
	struct symhist h;
	struct annotate_view v;
	bool open;
};

/*
 * Open so->input (symhist_session_opts is applied to 'so') and read it.
 * 0, or a negative errno with err_last() saying why (nothing to close).
 */
int annotate_source_open(struct annotate_source *src, struct session_opts *so);
void annotate_source_close(struct annotate_source *src);

/*
 * The group of event 'attr' (its index in the file) named 'sym' (the
 * display name) in the dso report names 'dso' (its short name:
 * "libc.so.6", "[kernel.kallsyms]", "[module]"; NULL: any, the hottest),
 * or NULL.
 */
const struct symhist_group *annotate_source_find(const struct annotate_source *src,
						 uint32_t attr, const char *dso, const char *sym);

#endif
