/*
 * annotate_tui: `kiln annotate` in the terminal browser (cli, L9).
 *
 * The annotated functions as a list (tui/browser.h), hottest first, one
 * row per function: its share of its event's samples, its binary and
 * its name. Enter or 'a' opens the function's annotation as a text page
 * (tui/textview.h): the text --stdio prints for it, each line coloured
 * by the share it starts with; 'q' goes back, 'q' on the list quits.
 * With 'straight' the browser opens on the page of the one function and
 * 'q' there quits.
 *
 * What is written to standard error while the terminal is in curses mode
 * (warnings of binaries loaded for a page) would garble the screen: it
 * is kept aside and written after the terminal is back.
 */
#ifndef KILN_CLI_ANNOTATE_TUI_H
#define KILN_CLI_ANNOTATE_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/annotate_view.h"

struct annotate_tui {
	const struct annotate_view *v;             /* the session, its symhist, the text options */
	const struct symhist_group *const *groups; /* the functions, in list order */
	size_t n;
	const char *term; /* $TERM (kiln_env), NULL: unset */
	bool straight;    /* n == 1: open on its page */
};

/*
 * Show the browser until the user quits: 0. Or, with nothing drawn or
 * printed, -ENOTTY (standard input or output is not a terminal), -EINVAL
 * (the terminal type cannot be used), -EBUSY: the caller prints the text.
 */
int annotate_tui_run(const struct annotate_tui *a);

/*
 * Standard error, kept aside while the screen is the browser's: fd 2
 * goes to a memory file; stderr_back puts it back and copies what was
 * written. 'saved' is -1 when nothing was redirected.
 */
struct stderr_aside {
	int saved, mem;
};
void stderr_aside(struct stderr_aside *sa);
void stderr_back(struct stderr_aside *sa);

#endif
