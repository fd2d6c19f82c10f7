/*
 * driver: replay fuzz inputs without libFuzzer (fuzz/), like elfutils'
 * fuzz-main.c and zstd's regression driver. Each argument is a file or a
 * directory (its regular files, in name order, not recursive); every file
 * goes once through LLVMFuzzerTestOneInput. A crash or a failed property
 * aborts, which fails the CTest test fuzz_replay_<target>. An argument that
 * cannot be read, or no input at all, is an error too, so a mistyped
 * corpus path cannot pass by replaying nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"

/* Inputs larger than this are refused (libFuzzer's -max_len is far below). */
#define REPLAY_MAX ((size_t)64 << 20)

static int replay_file(const char *path, size_t *count)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st) < 0) {
		fprintf(stderr, "driver: cannot open '%s': %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if ((uint64_t)st.st_size > REPLAY_MAX) {
		fprintf(stderr, "driver: '%s' is larger than %zu MiB\n", path, REPLAY_MAX >> 20);
		fclose(f);
		return -1;
	}
	size_t n = (size_t)st.st_size;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != n) {
		fprintf(stderr, "driver: cannot read '%s'\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* The target makes its own exact-size copy. */
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	(*count)++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "driver: cannot open directory '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		names[n] = malloc(len);
		if (!names[n])
			abort();
		snprintf(names[n++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	int err = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) && replay_file(names[i], count))
			err = -1;
		free(names[i]);
	}
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "driver: cannot open '%s': %s\n", argv[i], strerror(errno));
			err = -1;
		} else if (S_ISDIR(st.st_mode)) {
			err |= replay_dir(argv[i], &count);
		} else {
			err |= replay_file(argv[i], &count);
		}
	}
	printf("%s: replayed %zu inputs\n", argv[0], count);
	if (!count) {
		fprintf(stderr, "driver: no inputs\n");
		return 1;
	}
	return err ? 1 : 0;
}
