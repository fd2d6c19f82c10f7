/*
 * pingpong: two threads passing one byte back and forth over two pipes,
 * each blocking in read until the other writes: about two context
 * switches per round trip and thread. Prints the rounds per second and
 * the switches per second (voluntary switches of the process's threads).
 * Usage: pingpong [ROUNDS] (default 200000).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds;

static void *pong(void *arg)
{
	char c;
	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			exit(2);
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = argc > 1 ? atol(argv[1]) : 200000;
	if (pipe(ab) || pipe(ba))
		return 2;
	pthread_t t;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_create(&t, NULL, pong, NULL);
	char c = 'x';
	for (long i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 2;
	pthread_join(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%.4f s %.0f rounds/s %.0f switches/s\n", s, (double)rounds / s,
	       (double)(ru.ru_nvcsw + ru.ru_nivcsw) / s);
	return 0;
}
