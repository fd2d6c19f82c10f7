/*
 * hist_cols: a hist's entries as the browsers show them (cli, L9), one
 * place for report's and top's lists.
 *
 * The key columns are those --stdio prints (the keys not elided), each as
 * wide as its header and the widest value of the entries shown, at most
 * HIST_COLS_MAX (the last column is not padded). A row is an entry (its
 * key columns and its shares: Children and Self, or Overhead) or a
 * callchain node (its frame's symbol, else its address, and its share);
 * shares are of all samples (h->total), as --stdio prints them.
 */
#ifndef KILN_CLI_HIST_COLS_H
#define KILN_CLI_HIST_COLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate/hist.h"
#include "base/buf.h"
#include "base/vec.h"
#include "tui/model.h"

#define HIST_COLS_MAX 30

struct hist_cols {
	int keys[HIST_MAX_KEYS];
	size_t nkeys;
	size_t width[HIST_MAX_KEYS];
	VEC(uint32_t) kids; /* hist_cols_kids' answer */
};

/* h's keys but those elide marks (elide may be NULL), as wide as their headers. */
void hist_cols_init(struct hist_cols *c, const struct hist *h, const bool *elide);
/* Widens the columns but the last to e's values (at most HIST_COLS_MAX). */
void hist_cols_widen(struct hist_cols *c, const struct hist *h, const struct hist_entry *e);
/* The header of the list: the share columns' names, then the keys'. */
void hist_cols_header(const struct hist_cols *c, const struct hist *h, struct buf *out);
/* v's share of h's samples, in percent. */
double hist_cols_share(const struct hist *h, uint64_t v);
/* An entry's row: its key columns into text (reset first), its shares and,
 * when h is sorted by symbol, its symbol as the row's key. */
void hist_cols_entry_row(const struct hist_cols *c, const struct hist *h,
			 const struct hist_entry *e, struct buf *text, struct browser_row *out);
/* Into c->kids: callchain node tree's children whose share is at least
 * threshold percent (none for HIST_NONE or a hist without callchains). */
void hist_cols_kids(struct hist_cols *c, const struct hist *h, uint32_t tree, double threshold);
/* Callchain node n's row: its frame's name into text (reset first), its share. */
void hist_cols_node_row(const struct hist *h, uint32_t n, struct buf *text,
			struct browser_row *out);

#endif
