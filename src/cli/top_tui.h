/*
 * top_tui: `kiln top` in the terminal browser (cli, L9).
 *
 * The live entries of pipeline/top as the browser's model (tui/model.h):
 * the title is perf top's header line, each row an entry's shares and
 * sort keys as --stdio lays them out; with -g an entry expands (Enter,
 * '+') into its callchain, nodes under the threshold left out; 'd' and
 * 't' zoom to the selected entry's DSO, thread or command. The model
 * drains the sampler's queue at every tick (TOP_TUI_TICK_MS) and shows a
 * new period every -d seconds; entries keep their expanded state across
 * refreshes (they are known by their keys), callchain nodes through the
 * refresh's remap. The browser closes when sampling ends (a signal, the
 * targets gone) or at 'q'.
 */
#ifndef KILN_CLI_TOP_TUI_H
#define KILN_CLI_TOP_TUI_H

#include <stdbool.h>

#include "base/buf.h"
#include "pipeline/top.h"

#define TOP_TUI_TICK_MS 100

struct top_tui {
	struct top *t;
	int delay_ms;      /* -d */
	double threshold;  /* callchain nodes below this share (percent) are left out */
	double percent_limit;
	const char *term;  /* $TERM, or NULL */
	/* perf top's header line for a period's stats, appended to 'out' */
	void (*header)(void *arg, const struct top_stats *st, struct buf *out);
	/* called once per refresh with its stats (NULL: not) */
	void (*refreshed)(void *arg, const struct top_stats *st);
	void *arg;
};

/* Show the browser until q or the end of sampling: 0; or, with nothing
 * drawn, -ENOTTY, -EINVAL, -EBUSY (as report_tui_run). */
int top_tui_run(const struct top_tui *o);

#endif
