/*
 * shapes: stack shapes that frame-pointer unwinding gets wrong, for the
 * DWARF unwinding tests. Built -O2 -fomit-frame-pointer. Each mode burns
 * CPU for about SECONDS (default 1) in one shape:
 *   recurse   deep recursion (200 frames)
 *   plt       calls into libc through the PLT, and back through a callback (qsort)
 *   signal    work inside a SIGPROF handler (a signal frame on the stack)
 *   threads   four worker threads
 *   tail      tail calls (frames that vanish by design)
 *   noreturn  work in a function that ends in a noreturn call
 * Usage: shapes MODE [SECONDS]
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
static double deadline;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE static uint64_t spin(uint64_t x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

/* recurse */
NOINLINE static uint64_t recurse(int depth, uint64_t x)
{
	if (depth == 0)
		return spin(x, 20000);
	uint64_t r = recurse(depth - 1, x + 1);
	sink = r;
	return r ^ (uint64_t)depth;
}

/* plt: qsort (libc) calls back into cmp */
NOINLINE static int cmp(const void *a, const void *b)
{
	uint64_t x = spin(*(const uint64_t *)a, 50), y = spin(*(const uint64_t *)b, 50);
	return x < y ? -1 : x > y;
}

NOINLINE static void sort_round(void)
{
	uint64_t v[256];
	for (int i = 0; i < 256; i++)
		v[i] = (uint64_t)rand();
	qsort(v, 256, sizeof(v[0]), cmp);
	sink = v[0];
}

/* signal */
static volatile sig_atomic_t in_handler;

NOINLINE static void handler_work(void)
{
	sink = spin(sink, 5000000); /* several ms: a good share of the samples */
}

static void on_prof(int sig)
{
	(void)sig;
	in_handler = 1;
	handler_work();
	in_handler = 0;
}

NOINLINE static void wait_for_signals(void)
{
	while (now() < deadline)
		sink = spin(sink, 1000);
}

/* threads */
NOINLINE static void *worker(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg;
	while (now() < deadline)
		x = spin(x, 100000);
	sink = x;
	return NULL;
}

/* tail: g() ends in a sibling call to spin_tail, so g's frame is gone */
NOINLINE uint64_t spin_tail(uint64_t x);
NOINLINE uint64_t spin_tail(uint64_t x)
{
	return spin(x, 100000) + 1;
}

NOINLINE uint64_t tail_caller(uint64_t x);
NOINLINE uint64_t tail_caller(uint64_t x)
{
	return spin_tail(x * 3);
}

/* noreturn: the work happens in a function whose last act never returns */
static jmp_buf env;

NOINLINE __attribute__((noreturn)) static void bail(void)
{
	longjmp(env, 1);
}

NOINLINE static void work_then_bail(void)
{
	sink = spin(sink, 100000);
	bail();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "recurse";
	double secs = argc > 2 ? atof(argv[2]) : 1.0;
	deadline = now() + secs;
	if (!strcmp(mode, "recurse")) {
		while (now() < deadline)
			sink = recurse(200, sink);
	} else if (!strcmp(mode, "plt")) {
		while (now() < deadline)
			sort_round();
	} else if (!strcmp(mode, "signal")) {
		signal(SIGPROF, on_prof);
		struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
		setitimer(ITIMER_PROF, &it, NULL);
		wait_for_signals();
	} else if (!strcmp(mode, "threads")) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(mode, "tail")) {
		while (now() < deadline)
			sink = tail_caller(sink);
	} else if (!strcmp(mode, "noreturn")) {
		while (now() < deadline)
			if (!setjmp(env))
				work_then_bail();
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
