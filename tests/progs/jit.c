/*
 * jit: a tiny "JIT" for the JIT symbol tests. It copies two small x86-64
 * loops into fresh RWX anonymous memory, describes them the way JIT
 * runtimes do (a /tmp/perf-PID.map line each, node/perf-map-agent style;
 * with --dump DIR also a jitdump file DIR/jit-PID.dump, mapped executable
 * as perf's jvmti agent maps it), then spins in them for SECONDS of its
 * own CPU time (so a busy machine does not starve the recording of samples).
 *   jit SECONDS [--no-map] [--dump DIR]
 * Prints its pid on stdout once the maps are written. x86-64 only.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* push rbp; mov rbp,rsp; mov rax,rdi; 1: dec rax; jnz 1b; pop rbp; ret */
static const uint8_t loop_code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0x48,
				     0xff, 0xc8, 0x75, 0xfb, 0x5d, 0xc3 };

#define HOT_NAME "LazyCompile:*hotLoop /srv/app/main.js:10"
#define WARM_NAME "Lcom/example/Warm;::spin"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n)
		exit(1);
}

static void dump_load(FILE *f, uint64_t addr, size_t size, const char *name, uint64_t idx)
{
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)syscall(SYS_gettid);
	uint32_t id = 0, total = (uint32_t)(56 + strlen(name) + 1 + size);
	uint64_t ts = now_ns();
	put(f, &id, 4);
	put(f, &total, 4);
	put(f, &ts, 8);
	put(f, &pid, 4);
	put(f, &tid, 4);
	put(f, &addr, 8); /* vma */
	put(f, &addr, 8); /* code_addr */
	uint64_t sz = size;
	put(f, &sz, 8);
	put(f, &idx, 8);
	put(f, name, strlen(name) + 1);
	put(f, (const void *)(uintptr_t)addr, size);
}

static void write_dump(const char *dir, uint8_t *hot, uint8_t *warm)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, (int)getpid());
	FILE *f = fopen(path, "w+");
	if (!f) {
		perror(path);
		exit(1);
	}
	uint32_t hdr[4] = { 0x4A695444, 1, 40, 62 }, pad = 0, pid = (uint32_t)getpid();
	uint64_t ts = now_ns(), flags = 0;
	put(f, hdr, sizeof(hdr));
	put(f, &pad, 4);
	put(f, &pid, 4);
	put(f, &ts, 8);
	put(f, &flags, 8);
	dump_load(f, (uintptr_t)hot, sizeof(loop_code), "jitdump:" HOT_NAME, 1);
	dump_load(f, (uintptr_t)warm, sizeof(loop_code), "jitdump:" WARM_NAME, 2);
	fflush(f);
	/* The marker: an executable mapping of the dump file, which perf records. */
	if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0) == MAP_FAILED) {
		perror("mmap dump");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	const char *dump = NULL;
	int map = 1;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--no-map"))
			map = 0;
		else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
			dump = argv[++i];
	}
	uint8_t *mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	uint8_t *hot = mem + 0x100, *warm = mem + 0x400;
	memcpy(hot, loop_code, sizeof(loop_code));
	memcpy(warm, loop_code, sizeof(loop_code));
	__builtin___clear_cache((char *)mem, (char *)mem + 8192);
	if (map) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		FILE *f = fopen(path, "w");
		if (!f) {
			perror(path);
			return 1;
		}
		/* node writes bare hex, other runtimes "0x"-prefixed: one of each. */
		fprintf(f, "%lx %zx %s\n", (unsigned long)(uintptr_t)hot, sizeof(loop_code),
			HOT_NAME);
		fprintf(f, "0x%lx 0x%zx %s\n", (unsigned long)(uintptr_t)warm, sizeof(loop_code),
			WARM_NAME);
		fclose(f);
	}
	if (dump)
		write_dump(dump, hot, warm);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	void (*hot_fn)(unsigned long) = (void (*)(unsigned long))(uintptr_t)hot;
	void (*warm_fn)(unsigned long) = (void (*)(unsigned long))(uintptr_t)warm;
	uint64_t end = cpu_ns() + (uint64_t)(secs * 1e9);
	while (cpu_ns() < end) {
		hot_fn(3000000); /* three parts hot to one part warm */
		warm_fn(1000000);
	}
	return 0;
}
