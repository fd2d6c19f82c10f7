/*
 * burn: the bundled example workload. A toy "renderer" with a known call
 * graph, busy for a given number of seconds (default 2):
 *
 *   main ─┬─ render_frame ── shade_pixels   (about half the time)
 *         └─ parse_input ─── tokenize       (the other half)
 *
 * Built at -O0 with frame pointers (every function, leaves too, sets up
 * its frame; nothing is inlined), so `kiln record -g`
 * sees exactly these stacks. Usage: burn [SECONDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE uint64_t shade_pixels(uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 300000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

NOINLINE uint64_t tokenize(uint64_t seed)
{
	uint64_t x = seed | 1;
	for (int i = 0; i < 100000; i++)
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}

NOINLINE uint64_t render_frame(uint64_t seed)
{
	return shade_pixels(seed) + 1;
}

NOINLINE uint64_t parse_input(uint64_t seed)
{
	return tokenize(seed) + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	double end = now() + secs;
	uint64_t acc = 0;
	while (now() < end) {
		acc += parse_input(acc);
		acc += render_frame(acc);
	}
	sink = acc;
	return 0;
}
