/*
 * folded: stacks as folded text (output, L7).
 *
 * One line per distinct stack: frames root first, joined by ';', a space,
 * then the weight: "myprog;main;work 42". Lines are sorted by the bytes of
 * the stack (the part before the count), as stackcollapse-perf.pl sorts
 * them, so output is deterministic.
 */
#ifndef KILN_OUTPUT_FOLDED_H
#define KILN_OUTPUT_FOLDED_H

#include <stdio.h>

#include "aggregate/trie.h"

/* Returns 0, or -EIO if writing failed. */
int folded_write(FILE *f, const struct trie *t);

#endif
