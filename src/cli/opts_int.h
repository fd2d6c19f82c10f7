/*
 * opts_int: what opts.c shares with opts_gen.c (cli, L9): a command's
 * table flattened (OPT_INCLUDE expanded, offsets added up, -h/--help
 * placed) and the pieces of the help text the man page reuses.
 */
#ifndef KILN_CLI_OPTS_INT_H
#define KILN_CLI_OPTS_INT_H

#include "cli/opts.h"

#define OPTS_MAX_ROWS 128

struct opts_row {
	const struct opt *o;
	size_t off;            /* from the base passed to opts_parse */
	const char *long_name; /* NULL when an earlier row took the name */
	char short_name;       /* 0 when an earlier row took the letter */
};

struct opts_flat {
	struct opts_row v[OPTS_MAX_ROWS];
	size_t n;
};

void opts_flatten(struct opts_flat *fl, const struct opts_cmd *cmd);
bool opts_takes_value(const struct opt *o);
bool opts_negatable(const struct opt *o);
/* "  -o, --output FILE" (the help's left column). */
void opts_left_column(const struct opts_row *r, char *buf, size_t n);

#endif
