/* profile_cli: shared perf.data → trie options and loading (cli, L9). */
#include "cli/profile_cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "cli/cli.h"

enum { OPT_PID = 2000, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_SYMFS };

const struct option profile_cli_frame_options[] = {
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ NULL, 0, NULL, 0 },
};

void profile_cli_init(struct profile_cli *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->po.input = "perf.data";
}

int profile_cli_frame_option(struct profile_cli *pc, int c, const char *arg)
{
	struct frame_opts *f = &pc->po.frames;
	switch (c) {
	case OPT_PID:
		f->with_pid = true;
		return 0;
	case OPT_TID:
		f->with_tid = true;
		return 0;
	case OPT_KERNEL:
		f->annotate_kernel = true;
		return 0;
	case OPT_JIT:
		f->annotate_jit = true;
		return 0;
	case OPT_ALL:
		f->annotate_kernel = f->annotate_jit = true;
		return 0;
	case OPT_SYMFS:
		pc->po.symfs = arg;
		return 0;
	default:
		return -1;
	}
}

int profile_cli_parse(int argc, char **argv, struct profile_cli *pc, const char **output,
		      const char *usage_text)
{
	struct option longopts[16];
	size_t n = 0;
	for (; profile_cli_frame_options[n].name; n++)
		longopts[n] = profile_cli_frame_options[n];
	longopts[n++] = (struct option){ "output", required_argument, NULL, 'o' };
	longopts[n++] = (struct option){ "input", required_argument, NULL, 'i' };
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:i:h", longopts, NULL)) != -1) {
		if (c == 'o') {
			*output = optarg;
		} else if (c == 'i') {
			pc->po.input = optarg;
		} else if (c == 'h') {
			return cli_usage(stdout, usage_text, KILN_EXIT_OK);
		} else if (profile_cli_frame_option(pc, c, optarg)) {
			fprintf(stderr, "See '%s --help'.\n", argv[0]);
			return KILN_EXIT_USAGE;
		}
	}
	if (optind < argc)
		pc->po.input = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n", argv[optind]);
		return KILN_EXIT_USAGE;
	}
	return -1;
}

int profile_cli_load(struct profile_cli *pc, struct strtab *strs, struct trie *t)
{
	strtab_init(strs);
	trie_init(t, strs);
	struct profile_stats st;
	err_clear();
	int err = profile_load(&pc->po, strs, t, &st);
	if (err) {
		cli_error_last(pc->po.input);
		return err == -EBADMSG || err == -EINVAL ? KILN_EXIT_BADINPUT : KILN_EXIT_FAIL;
	}
	if (st.lost)
		fprintf(stderr, "warning: %s: lost %llu samples while recording\n", pc->po.input,
			(unsigned long long)st.lost);
	if (st.unknown_records)
		fprintf(stderr, "warning: %s: skipped %llu records of unknown type\n",
			pc->po.input, (unsigned long long)st.unknown_records);
	trie_sort(t);
	if (st.partial)
		return cli_report_partial(pc->po.input);
	if (st.samples == 0) {
		fprintf(stderr, "error: %s: no samples\n", pc->po.input);
		return KILN_EXIT_BADINPUT;
	}
	return KILN_EXIT_OK;
}
