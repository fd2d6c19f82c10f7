/*
 * err: error codes and the corrupt-input report (base, L0).
 *
 * Functions return 0 or a negative errno (libbpf style). Bad input is
 * reported through CORRUPT(), which records where it was found (file
 * offset) and what was wrong in a per-thread slot, then evaluates to
 * -EBADMSG. The CLI reads the slot with err_last() to print one line:
 *   error: perf.data: bad record size 0 at offset 0x1a2b40 (SAMPLE (9))
 */
#ifndef KILN_BASE_ERR_H
#define KILN_BASE_ERR_H

#include <errno.h>
#include <stdint.h>

/* A "short input" error: the bytes end before the structure does. */
#define KILN_ETRUNC (-ENODATA)

struct err_report {
	uint64_t offset; /* file offset where the problem was found, if known */
	int has_offset;
	char msg[512];
};

/* Record a problem at 'offset' and return -EBADMSG. */
int err_corrupt_at(uint64_t offset, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record a problem with no offset; returns 'code' (a negative errno). */
int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The most recent report on this thread (empty msg if none). */
const struct err_report *err_last(void);
void err_clear(void);
/* Make a saved report the current one again (after other errors overwrote it). */
void err_restore(const struct err_report *rep);

#define CORRUPT(cur, ...) err_corrupt_at(cursor_offset(cur), __VA_ARGS__)

/* Bugs, not input problems: print and abort. */
#define BUG(msg) kiln_bug(__FILE__, __LINE__, (msg))
_Noreturn void kiln_bug(const char *file, int line, const char *msg);

#endif
