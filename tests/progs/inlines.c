/*
 * inlines: a known chain of forced inlining, for the inline-frame and
 * source-line tests. Built -O2 -g: leaf_mix and middle are inlined into
 * outer (always_inline), outer is a real function called from main.
 * Usage: inlines [SECONDS]   (default 1)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define INLINE static inline __attribute__((always_inline))

static volatile uint64_t sink;

INLINE uint64_t leaf_mix(uint64_t x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

INLINE uint64_t middle(uint64_t x)
{
	x = leaf_mix(x ^ 3);
	return x + leaf_mix(x);
}

__attribute__((noinline)) static uint64_t outer(uint64_t x)
{
	return middle(x) ^ 7;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t x = 1;
	do {
		for (int i = 0; i < 1000; i++)
			x = outer(x);
		sink = x;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
