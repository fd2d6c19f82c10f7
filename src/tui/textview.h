/*
 * textview: a page of text scrolled in the terminal (tui, L8): the
 * annotation the browser opens on 'a', and its help page.
 *
 * Keys: Up/Down (j/k), PgUp/PgDn (b/space), Home/End (g/G), Right and
 * Left scroll sideways (Left at the first column goes back), '/' searches
 * (a regex or a substring, as the browser's filter; the line found is
 * selected and matching lines are marked), 'n'/'N' next/previous match,
 * q or Esc goes back. The page is redrawn on resize and, with
 * refresh_ms and src->refresh, every refresh_ms.
 */
#ifndef KILN_TUI_TEXTVIEW_H
#define KILN_TUI_TEXTVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/model.h"
#include "tui/rows.h"
#include "tui/term.h"

struct textview_opts {
	int refresh_ms; /* 0: never call src->refresh */
};

/* Show 'src' until the user goes back. Does not call src->release. */
void textview_run(struct tui *t, const struct textview_src *src, const struct textview_opts *o);

/*
 * A page over a copy of 'len' bytes of 'text', one line per '\n' (a last
 * line without one counts), titled 'title' (copied). src->release frees it.
 */
void textview_src_text(struct textview_src *src, const char *title, const char *text, size_t len);
/*
 * For a page made by textview_src_text: colour each line by the number it
 * starts with (after blanks) as a share in percent, as perf annotate
 * --stdio's lines start ("   42.50 :   1c:  mov ..."); lines that start
 * otherwise are not coloured.
 */
void textview_src_lead_pct(struct textview_src *src);

/*
 * The first line after 'from' (before it, when !forward) that 'f'
 * matches, wrapping around the page once; SIZE_MAX when none does.
 */
size_t textview_find(const struct textview_src *src, const struct tui_filter *f, size_t from,
		     bool forward);

#endif
