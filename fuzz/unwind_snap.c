/*
 * unwind_snap: captures its own registers and stack at the bottom of a call
 * chain and writes them as fuzz_unwind's header (flags, valid, CFI length 0,
 * CFI address 0, registers) + a 3 KiB stack copy, for
 * fuzz/gen_unwind_seeds.sh, which puts the binary's own CFI in.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
static const char *out;
static int depth_max;
__attribute__((noinline)) static int leaf(int d, int x)
{
	uint64_t r[17] = { 0 };
	volatile char pad[64 + 8 * (d & 7)];
	pad[0] = (char)x;
	__asm__ volatile("lea 1f(%%rip), %0\n1:\n\tmov %%rsp, %1\n\tmov %%rbp, %2\n\tmov %%rbx, %3\n"
			 "\tmov %%r12, %4\n\tmov %%r13, %5\n\tmov %%r14, %6\n\tmov %%r15, %7\n"
			 : "=&r"(r[16]), "=m"(r[7]), "=m"(r[6]), "=m"(r[3]), "=m"(r[12]), "=m"(r[13]),
			   "=m"(r[14]), "=m"(r[15]));
	static uint8_t stack[3072];
	memcpy(stack, (void *)(uintptr_t)r[7], sizeof(stack));
	FILE *f = fopen(out, "wb");
	uint8_t flags = 0;
	uint32_t valid = (1u << 16) | (1u << 7) | (1u << 6) | (1u << 3) | (0xfu << 12), clen = 0;
	uint64_t cv = 0;
	fwrite(&flags, 1, 1, f);
	fwrite(&valid, 4, 1, f);
	fwrite(&clen, 4, 1, f);
	fwrite(&cv, 8, 1, f);
	fwrite(r, 8, 17, f);
	fwrite(stack, 1, sizeof(stack), f);
	fclose(f);
	return pad[0];
}
__attribute__((noinline)) static int rec(int d, int x)
{
	volatile int local[4] = { d, x, d + x, d * x };
	if (d == depth_max)
		return leaf(d, x);
	return rec(d + 1, x * 3 + local[2]) + local[1];
}
int main(int argc, char **argv)
{
	out = argv[1];
	depth_max = argc > 2 ? argv[2][0] - '0' : 5;
	return rec(0, argc) & 1;
}
