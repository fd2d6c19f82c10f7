/*
 * main: the kiln command table and dispatch (cli, L9). Like git's
 * builtins: one row per command, each a cmd_NAME() in cli/cmd_NAME.c.
 */
#include <stdio.h>
#include <string.h>

#include "base/env.h"
#include "base/log.h"
#include "cli/cli.h"

#define KILN_VERSION "0.1.0"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, const struct kiln_env *env);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", cmd_record, "Run a command (or watch processes, or the machine) and record a perf.data" },
	{ "collapse", cmd_collapse, "Fold the stacks of a perf.data into lines for flame graph tools" },
	{ "script", cmd_script, "Print every sample as perf script does (or --stats: record counts)" },
	{ "flame", cmd_flame, "Render an interactive SVG flame graph (perf.data, folded or perf script text, or record first)" },
	{ "diff", cmd_diff, "Differential flame graph of two profiles (red grew, blue shrank)" },
	{ "export", cmd_export, "Convert a profile to speedscope JSON, pprof or folded stacks" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kiln [--version] [--help] <command> [<args>]\n\n"
		   "kiln is a sampling profiler: record with perf_event_open into a standard\n"
		   "perf.data, then read it back into folded stacks and flame graphs.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'kiln <command> --help' shows a command's options and examples.\n\n"
		   "exit codes:\n"
		   "   0  success (warnings may be printed)\n"
		   "   1  operational failure (permission, perf_event_open, I/O)\n"
		   "   2  usage error\n"
		   "   3  input unusable (not perf.data, bad header, no samples)\n"
		   "   4  partial: the input broke part-way; results come from the valid prefix\n"
		   "   record -- CMD: the command's own exit status (128+N if killed by signal N);\n"
		   "   126/127 if it cannot be executed / is not found\n\n"
		   "examples:\n"
		   "   kiln record -g -o perf.data -- ./myprog args\n"
		   "   kiln flame -i perf.data -o flame.svg\n"
		   "   kiln flame -o flame.svg -- ./myprog args\n"
		   "   kiln collapse perf.data > out.folded\n"
		   "   kiln diff before.data after.data -o diff.svg\n"
		   "   kiln export --format pprof -i perf.data -o profile.pb.gz\n");
}

int main(int argc, char **argv)
{
	struct kiln_env env;
	kiln_env_read(&env);
	cli_sanitize_stderr();
	if (argc < 2) {
		usage(stderr);
		return KILN_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return KILN_EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("kiln %s\n", KILN_VERSION);
		return KILN_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name)) {
			int code = commands[i].fn(argc - 1, argv + 1, &env);
			log_repeat_flush();
			return code;
		}
	fprintf(stderr, "error: '%s' is not a kiln command. See 'kiln --help'.\n", cmd);
	return KILN_EXIT_USAGE;
}
