/*
 * maps: /proc/PID/maps text (source/live, L2).
 *
 * Each line reads "START-END PERMS PGOFF MAJ:MIN INODE [PATH]", numbers
 * in hex except the decimal inode, PATH after padding spaces (it may hold
 * spaces and end in " (deleted)"; it is kept as is). The parser works on
 * text in memory (pointer and length, no I/O, so it can be fuzzed); lines
 * that do not match, or longer than MAPS_MAX_LINE, are skipped and
 * counted, never fatal.
 */
#ifndef KILN_SOURCE_LIVE_MAPS_H
#define KILN_SOURCE_LIVE_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* A maps line: the kernel's longest is a 4095-byte path (PATH_MAX) plus
 * about 100 bytes of fields; longer lines are skipped and counted. */
#define MAPS_MAX_LINE 8192u

struct maps_entry {
	uint64_t start, end; /* [start, end), start <= end */
	uint64_t pgoff, ino;
	uint32_t maj, min;
	char perms[5]; /* "r-xp": four characters and a NUL */
	const char *name; /* inside the text, not NUL-terminated; "" for anonymous */
	size_t name_len;
};

struct maps_stats {
	uint64_t lines; /* lines read (the last may lack its newline) */
	uint64_t bad;   /* lines that did not parse, skipped */
	uint64_t long_lines; /* lines over MAPS_MAX_LINE, skipped */
};

/* Parse one line (without its newline). 0, or -EINVAL. */
int maps_parse_line(const char *p, size_t n, struct maps_entry *e);

/* Called for each good line; a non-zero return stops the parse and is returned. */
typedef int (*maps_fn)(void *arg, const struct maps_entry *e);

/* Every line of the 'len' bytes at 'text' (not NUL-terminated) through
 * 'fn'. Fills *st. 0, or what 'fn' returned to stop. */
int maps_parse(const char *text, size_t len, maps_fn fn, void *arg, struct maps_stats *st);

#endif
