/*
 * browser: the terminal list of entries with their callchains (tui, L8),
 * shared by report, top and annotate's symbol list. The data comes from a
 * struct browser_model (model.h); the browser draws and takes keys.
 *
 * Screen (80x24 or anything down to one row and column; narrower rows
 * are cut, never wrapped):
 *
 *   line 0        the model's title
 *   line 1        the model's column header (if it has one), from column 2
 *   lines 2..     rows: an entry is "F PPPPPPP  PPPPPPP  text" where F is
 *                 '+' (folded callchain), '-' (expanded) or ' ', and each
 *                 of the row's n_pct shares takes 9 columns ("%6.2f%%"
 *                 and two spaces); a callchain row at depth d is indented
 *                 3*d columns, then F, its shares as "12.34% ", its text.
 *                 Shares of 5% and more are red, of 0.5% green, as perf's.
 *   last line     status: zoom (the model's), the filter, a message, the
 *                 selected row's position, "? help".
 *
 * Keys, as perf report's TUI: Up/Down (k/j), PgUp/PgDn (b/space), Home/End (g/G);
 * Enter or '+' expands or folds the selected row's callchain (Enter on a
 * row without one annotates it, as 'a', when the model annotates), 'e' all of
 * the selected entry's, 'E' expands every entry, 'C' folds every entry;
 * (the model's 'open' comes first when it has one: report's event menu);
 * '/' filters entries by their key (regex or substring; empty clears);
 * 's', 'd', 't' zoom to the selected row's symbol, DSO, thread (the model
 * decides); 'a' annotates the selected entry (a text page); 'h' or '?'
 * help; Esc or Left clears the filter, else zooms out, else (Esc) quits;
 * 'q' quits. The selection stays on its node across rebuilds when the
 * model keeps the node's value.
 */
#ifndef KILN_TUI_BROWSER_H
#define KILN_TUI_BROWSER_H

#include <stddef.h>

#include "tui/model.h"
#include "tui/term.h"

/* Rows are cut here (1M rows are 24 MB), so 'E' on a huge profile stays bounded. */
#define BROWSER_MAX_ROWS ((size_t)1 << 20)

struct browser_opts {
	int refresh_ms;  /* > 0: call m->refresh this often while waiting for a key */
	size_t max_rows; /* 0: BROWSER_MAX_ROWS */
};

/*
 * Show the model until the user quits. 't' stays open (the caller closes
 * it). Returns the key that quit: 'q' (or a model's open said
 * BROWSER_QUIT), or 27 (Esc with nothing to go back from).
 */
int browser_run(struct tui *t, const struct browser_model *m, const struct browser_opts *o);

/* The help page's text ('h'), with the model's extra lines; caller frees. */
char *browser_help_text(const struct browser_model *m, size_t *len);

#endif
