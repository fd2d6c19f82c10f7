/*
 * graph_cli: flamegraph.pl's options and the SVG writing shared by
 * `kiln flame` and `kiln diff` (cli, L9).
 */
#ifndef KILN_CLI_GRAPH_CLI_H
#define KILN_CLI_GRAPH_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "aggregate/trie.h"
#include "cli/opts.h"
#include "output/svg.h"

struct graph_cli {
	struct svg_opts svg;
	double total;           /* --total, in input counts (0: none) */
	bool cp;                /* --cp: palette.map in the current directory */
	const char *cp_file;    /* --cp-file FILE (implies --cp) */
	bool reverse, chart;    /* --reverse, --flamechart (applied when loading) */
};

/*
 * flamegraph.pl's options (--title ... --factor) as an option table
 * (cli/opts.h) over a struct graph_cli, for OPT_INCLUDE; it opens a
 * titled group of the help.
 */
extern const struct opt graph_cli_opts[];

void graph_cli_init(struct graph_cli *g);
/*
 * Write the SVG of 't' to 'path' atomically ('-': stdout), with --cp's
 * palette read before and written after. 'divisor' is the input's
 * count scale (graph_input), 'delta' per node or NULL. Returns an exit code.
 */
int graph_cli_write(struct graph_cli *g, const struct trie *t, uint64_t divisor,
		    const int64_t *delta, const char *path, const char *what);

#endif
