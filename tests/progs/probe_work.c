/* A program for the probe tests: work() is called COUNT times (argv[1]). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pt {
	int x;
	long y;
	const char *name;
};

static inline __attribute__((always_inline)) int twice(int v)
{
	return v * 2;
}

__attribute__((noinline)) unsigned long work(unsigned long n, struct pt *p, const char *msg)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n % 7; i++)
		s += i * (unsigned long)p->x;
	s += strlen(msg);
	return s;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 5;
	struct pt p = { 3, 4, "pt" };
	unsigned long t = 0;
	char buf[32];
	for (int i = 0; i < count; i++) {
		p.x = twice(i) / 2;
		snprintf(buf, sizeof buf, "call-%d", i);
		t += work(1000000 + (unsigned long)i, &p, buf);
	}
	printf("%lu\n", t);
	return 0;
}
