/*
 * report_tui: `kiln report` in the terminal browser (cli, L9).
 *
 * One event's hist (pipeline/report's report_load) as a list
 * (tui/browser.h), in the order --stdio prints it: per entry its shares
 * (Children and Self, or Overhead) and its sort keys laid out as --stdio's
 * columns. An entry with a callchain expands (Enter, '+') into its tree,
 * the nodes in the order --stdio's graph prints them, each with its share
 * of all samples; nodes below the graph threshold are left out, as
 * --stdio does. 'a' says to use kiln annotate.
 *
 * Standard error is kept aside while the terminal is in curses mode and
 * written after (cli/annotate_tui's stderr_aside).
 */
#ifndef KILN_CLI_REPORT_TUI_H
#define KILN_CLI_REPORT_TUI_H

#include <stdbool.h>

#include "aggregate/hist.h"
#include "output/report_text.h"

struct report_tui {
	const struct hist *h;
	const char *event;                /* its name */
	const struct report_text_opts *text; /* threshold, percent limit, elided columns */
	const char *term;                 /* $TERM (kiln_env), NULL: unset */
};

/*
 * Show the browser until the user quits: 0. Or, with nothing drawn or
 * printed, -ENOTTY (standard input or output is not a terminal), -EINVAL
 * (the terminal type cannot be used), -EBUSY: the caller prints the text.
 */
int report_tui_run(const struct report_tui *r);

#endif
