/*
 * fuzz: what every fuzz target shares (fuzz/, outside the layers).
 *
 * Each fuzz_<parser>.c defines LLVMFuzzerTestOneInput(). It is linked either
 * with libFuzzer (make fuzz: clang, -fsanitize=fuzzer,address,undefined) or
 * with driver.c, a plain main() that replays the committed corpus under
 * CTest, as zstd and elfutils do. Targets run the parser on an exact-size
 * heap copy of the input, so ASan reports a read one byte past the end
 * (libFuzzer's own buffer may have slack behind it), and they check
 * properties beyond "no crash" with fuzz_check(), which aborts: libFuzzer
 * and the replay driver both report an abort as a failure.
 */
#ifndef KILN_FUZZ_FUZZ_H
#define KILN_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct event;
/* Read every byte a decoded event points at (its record, callchain, raw
 * data, branches, registers, stack, strings) and check that each lies
 * inside the record; returns a sum so the reads are not optimised away
 * (touch_event.c). */
uint64_t fuzz_touch_event(const struct event *ev);

/* An exact-size heap copy of the input (at least one byte is allocated, so
 * a zero-length input still gets a unique pointer). Free it with free(). */
static inline uint8_t *fuzz_copy(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size ? size : 1);
	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	return p;
}

static inline void fuzz_log_sink(enum log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

/* Drop the parsers' warnings: they would flood the fuzzer's output. */
static inline void fuzz_quiet(void)
{
	log_set_sink(fuzz_log_sink);
}

/* A property the parser must keep; abort (a finding) when it does not. */
#define fuzz_check(cond)                                                                          \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__, __LINE__,  \
				#cond);                                                           \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

/* Little-endian u64 at p[0..8), reading only what is there (zero-filled). */
static inline uint64_t fuzz_u64(const uint8_t *p, size_t avail)
{
	uint64_t v = 0;
	for (size_t i = 0; i < 8 && i < avail; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
