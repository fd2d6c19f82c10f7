/*
 * report_tui: `kiln report` in the terminal browser (cli, L9).
 *
 * With one event, its list; with more, perf's event menu first ("Available
 * samples": one row per event with its sample count), Enter opening that
 * event's list and Esc coming back to the menu ('q' quits from either).
 *
 * An event's list is its hist (pipeline/report's report_load) in the order
 * --stdio prints it: per entry its shares (Children and Self, or Overhead)
 * and its sort keys laid out as --stdio's columns. An entry with a
 * callchain expands (Enter, '+') into its tree, the nodes in the order
 * --stdio's graph prints them, each with its share of all samples; nodes
 * below the graph threshold are left out, as --stdio does.
 *
 * 'a' annotates the selected row's symbol (an entry's, or a callchain
 * node's) of that dso in that event: kiln annotate's page
 * (cli/annotate_view), from a symhist of the same file read on the first
 * 'a'. A symbol without samples of its own, a kernel symbol or a missing
 * binary says so (on the status line, or as annotate's note on the page).
 *
 * 'd', 't', 's' zoom into the selected row's DSO, thread, symbol: the
 * event is read again with that filter added, as `--stdio --dsos X`,
 * `--tid T`, `--symbols S` read it (so the rows and their shares, of all
 * samples, are those), and that column left out as perf does. The same
 * key again zooms out of it; Esc or Left out of the last one. The title
 * says what is zoomed, as perf's ("..., Thread: prog(1234), DSO: libc.so.6").
 *
 * Standard error is kept aside while the terminal is in curses mode and
 * written after (cli/annotate_tui's stderr_aside).
 */
#ifndef KILN_CLI_REPORT_TUI_H
#define KILN_CLI_REPORT_TUI_H

#include <stdbool.h>

#include "aggregate/hist.h"
#include "base/env.h"
#include "output/report_text.h"
#include "pipeline/report.h"

struct report_tui {
	const struct report_run_opts *o;     /* the command's options (a zoom reads again with them) */
	const struct report_data *d;         /* o->load read, the columns elided */
	const struct report_text_opts *text; /* threshold, percent limit, elided columns */
	const struct kiln_env *env;          /* term, and the annotation's session */
};

/*
 * Show the browser until the user quits: 0. Or, with nothing drawn or
 * printed, -ENOTTY (standard input or output is not a terminal), -EINVAL
 * (the terminal type cannot be used), -EBUSY: the caller prints the text.
 */
int report_tui_run(const struct report_tui *r);

#endif
