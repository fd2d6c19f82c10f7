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

#include <stdint.h>
#include <stdio.h>

#include "aggregate/trie.h"

/* Returns 0, or -EIO if writing failed. */
int folded_write(FILE *f, const struct trie *t);
/*
 * The same, with counts divided by 'divisor' (a power of ten, printed
 * with that many decimals; 1 for integers), and, if 'first' is not NULL,
 * difffolded.pl's form: "STACK FIRST SECOND" where FIRST is first[node]
 * and SECOND the trie's count; a stack with either count non-zero is
 * printed.
 */
int folded_write_ex(FILE *f, const struct trie *t, const uint64_t *first, uint64_t divisor);

#endif
