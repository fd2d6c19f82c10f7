/*
 * annotate-check: the annotate modules driven from the command line, for
 * the end-to-end test that compares them with perf annotate (until a
 * kiln command drives them from a perf.data).
 *
 *   annotate-check BINARY START SIZE EVENT [--lines] < SAMPLES
 *
 * SAMPLES: one "OFFSET SAMPLES PERIOD" per line, OFFSET (hex) into the symbol at
 * link-time address START (hex) of SIZE bytes (hex) in BINARY. Prints
 * perf annotate --stdio's text (with --lines, --print-line's summary
 * first). Exit 0, 1 when the annotation cannot be built, 2 on bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/annotate.h"
#include "base/err.h"
#include "output/annotate_text.h"

int main(int argc, char **argv)
{
	if (argc < 5 || argc > 6 || (argc == 6 && strcmp(argv[5], "--lines"))) {
		fprintf(stderr, "usage: annotate-check BINARY START SIZE EVENT [--lines] < SAMPLES\n");
		return 2;
	}
	const char *path = argv[1];
	uint64_t start = strtoull(argv[2], NULL, 16), size = strtoull(argv[3], NULL, 16);
	VEC(struct annotate_sample) samples = { 0 };
	char line[256];
	while (fgets(line, sizeof(line), stdin)) {
		char *end, *end2;
		uint64_t off = strtoull(line, &end, 16);
		uint64_t n = strtoull(end, &end2, 10);
		struct annotate_sample s = { start + off, n, strtoull(end2, NULL, 10) };
		if (end != line)
			VEC_PUSH(&samples, s);
	}

	struct dso_set ds;
	struct strtab strs;
	struct srclines sl;
	dso_set_init(&ds);
	strtab_init(&strs);
	srclines_init(&sl, &ds, &strs);
	struct annotate_req r = {
		.dsos = &ds, .dso = dso_set_intern(&ds, path), .lines = &sl, .strs = &strs,
		.start = start, .size = size, .samples = samples.v, .nsamples = samples.n,
	};
	struct annotation a;
	int rc = 0;
	if (annotation_build(&a, &r)) {
		fprintf(stderr, "error: %s: %s\n", path, err_last()->msg);
		rc = 1;
	} else {
		const char *base = strrchr(path, '/');
		struct annotate_text_opts o = { .dso_name = base ? base + 1 : path,
						.event = argv[4] };
		if (argc == 6)
			annotate_text_write_lines(stdout, &a, &strs, path, true);
		if (annotate_text_write(stdout, &a, &strs, &o))
			rc = 1;
	}
	annotation_release(&a);
	srclines_release(&sl);
	strtab_release(&strs);
	dso_set_release(&ds);
	VEC_FREE(&samples);
	return rc;
}
