/*
 * main: the kiln command table and dispatch (cli, L9). Like git's
 * builtins: one row per command, each a cmd_NAME() in cli/cmd_NAME.c
 * with its description (struct opts_cmd NAME_cmd) beside it. The hidden
 * top-level options --man and --completion print what the build installs.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/log.h"
#include "cli/cli.h"
#include "cli/opts.h"

#ifndef KILN_VERSION
#error "KILN_VERSION comes from CMake's project(VERSION)"
#endif

struct command {
	const struct opts_cmd *desc;
	int (*fn)(int argc, char **argv, const struct kiln_env *env);
};

static const struct command commands[] = {
	{ &record_cmd, cmd_record },   { &collapse_cmd, cmd_collapse }, { &script_cmd, cmd_script },
	{ &flame_cmd, cmd_flame },     { &diff_cmd, cmd_diff },         { &export_cmd, cmd_export },
	{ &annotate_cmd, cmd_annotate },
	{ &stat_cmd, cmd_stat },       { &list_cmd, cmd_list },
	{ &trace_cmd, cmd_trace },
	{ &report_cmd, cmd_report },
	{ &probe_cmd, cmd_probe },
	{ &top_cmd, cmd_top },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

struct top_args {
	bool version;
	const char *man;        /* --man NAME: "kiln" or a command */
	const char *completion; /* --completion bash|zsh */
	const char *options;    /* --list-options NAME */
	bool commands;          /* --list-commands */
};

static const struct opt top_opts[] = {
	OPT_BOOL(0, "version", offsetof(struct top_args, version), "print kiln's version"),
	{ .kind = OPT_KIND_STRING, .long_name = "man", .offset = offsetof(struct top_args, man),
	  .metavar = "NAME", .help = "print the man page of kiln or a command (troff)",
	  .flags = OPT_HIDDEN },
	{ .kind = OPT_KIND_STRING, .long_name = "completion",
	  .offset = offsetof(struct top_args, completion), .metavar = "SHELL",
	  .help = "print the completion script for bash or zsh", .flags = OPT_HIDDEN },
	{ .kind = OPT_KIND_STRING, .long_name = "list-options",
	  .offset = offsetof(struct top_args, options), .metavar = "NAME",
	  .help = "list a command's option spellings, one a line", .flags = OPT_HIDDEN },
	{ .kind = OPT_KIND_BOOL, .long_name = "list-commands",
	  .offset = offsetof(struct top_args, commands), .help = "list the commands, one a line",
	  .flags = OPT_HIDDEN },
	OPT_END(),
};

static const struct opts_cmd kiln_cmd = {
	.name = "kiln",
	.summary = "a sampling profiler: perf.data, folded stacks and flame graphs",
	.synopsis = "[--version] [--help] <command> [<args>]",
	.description =
		"kiln is a sampling profiler: record with perf_event_open into a standard\n"
		"perf.data, then read it back into folded stacks and flame graphs.\n",
	.opts = top_opts,
	.notes = "exit codes:\n"
		 "   0  success (warnings may be printed)\n"
		 "   1  operational failure (permission, perf_event_open, I/O)\n"
		 "   2  usage error\n"
		 "   3  input unusable (not perf.data, bad header, no samples)\n"
		 "   4  partial: the input broke part-way; results come from the valid prefix\n"
		 "   record -- CMD: the command's own exit status (128+N if killed by signal N);\n"
		 "   126/127 if it cannot be executed / is not found\n"
		 "\n"
		 "'kiln --man NAME' prints the man page of kiln or of a command (troff), and\n"
		 "'kiln --completion bash' (or zsh) the shell completion script: what\n"
		 "'make install' installs, generated from the same option tables as --help.\n",
	.examples = "kiln record -g -o perf.data -- ./myprog args\n"
		    "kiln flame -i perf.data -o flame.svg\n"
		    "kiln flame -o flame.svg -- ./myprog args\n"
		    "kiln collapse perf.data > out.folded\n"
		    "kiln diff before.data after.data -o diff.svg\n"
		    "kiln export --format pprof -i perf.data -o profile.pb.gz\n",
	.flags = OPTS_STOP_AT_ARG,
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].desc->name))
			return &commands[i];
	return NULL;
}

static void top_help(FILE *f)
{
	const struct opts_cmd *descs[NCOMMANDS];
	for (size_t i = 0; i < NCOMMANDS; i++)
		descs[i] = commands[i].desc;
	opts_help_top(f, &kiln_cmd, descs, NCOMMANDS);
}

static int not_a_command(const char *name)
{
	cli_err("error: '%s' is not a kiln command. See 'kiln --help'.\n", name);
	return KILN_EXIT_USAGE;
}

/* --man, --completion, --list-options, --list-commands: what the build
 * installs (cmake/GenDocs.cmake) and the tests check. */
static int generate(const struct top_args *a)
{
	const struct opts_cmd *descs[NCOMMANDS];
	for (size_t i = 0; i < NCOMMANDS; i++)
		descs[i] = commands[i].desc;
	const char *name = a->man ? a->man : a->options;
	const struct command *c = name ? find_command(name) : NULL;
	if (name && !c && strcmp(name, "kiln"))
		return not_a_command(name);
	if (a->commands)
		for (size_t i = 0; i < NCOMMANDS; i++)
			printf("%s\n", descs[i]->name);
	else if (a->man && c)
		opts_man(stdout, c->desc, KILN_VERSION);
	else if (a->man)
		opts_man_index(stdout, &kiln_cmd, descs, NCOMMANDS, KILN_VERSION);
	else if (a->options)
		opts_list(stdout, c ? c->desc : &kiln_cmd);
	else if (!strcmp(a->completion, "bash"))
		opts_completion_bash(stdout, &kiln_cmd, descs, NCOMMANDS);
	else if (!strcmp(a->completion, "zsh"))
		opts_completion_zsh(stdout, &kiln_cmd, descs, NCOMMANDS);
	else {
		cli_err("error: --completion takes bash or zsh, not '%s'\n", a->completion);
		return KILN_EXIT_USAGE;
	}
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("error: cannot write to standard output\n");
		return KILN_EXIT_FAIL;
	}
	return KILN_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct kiln_env env;
	kiln_env_read(&env);
	log_set_sink(cli_log_sink);
	struct top_args a = { 0 };
	struct opts_parser p;
	int first = opts_parse(&p, &kiln_cmd, argc, argv, &a);
	if (first == OPTS_HELP) {
		top_help(stdout);
		return KILN_EXIT_OK;
	}
	if (first < 0)
		return cli_usage_error(&p);
	if (a.version) {
		printf("kiln %s\n", KILN_VERSION);
		return KILN_EXIT_OK;
	}
	if (a.man || a.completion || a.options || a.commands)
		return generate(&a);
	if (first >= argc) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (m) {
			top_help(m);
			fclose(m);
			cli_err("%s", text ? text : "");
			free(text);
		}
		return KILN_EXIT_USAGE;
	}
	const char *cmd = argv[first];
	if (!strcmp(cmd, "help")) {
		/* As git: 'kiln help CMD' is CMD's help. */
		if (first + 1 >= argc) {
			top_help(stdout);
			return KILN_EXIT_OK;
		}
		const struct command *c = find_command(argv[first + 1]);
		if (!c)
			return not_a_command(argv[first + 1]);
		opts_help(stdout, c->desc);
		return KILN_EXIT_OK;
	}
	if (!strcmp(cmd, "version")) {
		printf("kiln %s\n", KILN_VERSION);
		return KILN_EXIT_OK;
	}
	const struct command *c = find_command(cmd);
	if (!c)
		return not_a_command(cmd);
	int code = c->fn(argc - first, argv + first, &env);
	log_repeat_flush();
	return code;
}
