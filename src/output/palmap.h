/*
 * palmap: flamegraph.pl's consistent palette file (--cp, "palette.map")
 * (output, L7).
 *
 * One line per function, "NAME->rgb(R,G,B)", sorted by name. A graph drawn
 * with a map takes each known function's colour from it and adds the
 * colours it picks for new ones, so the next graph drawn with the same
 * map colours the same functions the same way. The parser takes bytes in
 * memory (bounded, fuzzable): a line is split at its last "->" (a C++
 * "operator->" stays in the name); lines whose value is not rgb(R,G,B)
 * with R, G, B in 0..255, or that are longer than PALMAP_MAX_LINE, are
 * skipped and counted, so nothing from the file reaches the SVG but three
 * numbers.
 */
#ifndef KILN_OUTPUT_PALMAP_H
#define KILN_OUTPUT_PALMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PALMAP_MAX_LINE (64u << 10)

struct palmap;

struct palmap *palmap_new(void);
void palmap_free(struct palmap *m);
/* Add the lines of the text at 'data'; returns the number of lines skipped. */
uint64_t palmap_parse(struct palmap *m, const char *data, size_t len);
/* The colour of 'name' (n bytes), if the map has it. */
bool palmap_get(const struct palmap *m, const char *name, size_t n, uint8_t rgb[3]);
/* Set the colour of 'name' (n bytes). Names holding '\n' are not kept. */
void palmap_put(struct palmap *m, const char *name, size_t n, const uint8_t rgb[3]);
size_t palmap_count(const struct palmap *m);
/* Write every entry, sorted by name bytes. 0, or -EIO. */
int palmap_write(const struct palmap *m, FILE *f);

#endif
