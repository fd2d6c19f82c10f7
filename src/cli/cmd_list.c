/*
 * cmd_list: `kiln list` (cli, L9): the events this machine offers, as
 * perf list prints them (source/live/evcat finds them), with perf's
 * category words and glob filters, or as JSON.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "output/export.h"
#include "source/live/evcat.h"

struct list_cli {
	bool json;
};

static const struct opt list_opts_table[] = {
	OPT_BOOL('j', "json", offsetof(struct list_cli, json),
		 "a JSON array of {EventName, EventType, Alias, BriefDescription}"),
	OPT_END(),
};

const struct opts_cmd list_cmd = {
	.name = "list",
	.summary = "List the events this machine can count or sample (perf list)",
	.synopsis = "[options] [hw|sw|tool|cache|pmu|tracepoint|GLOB...]",
	.description =
		"List the hardware events the kernel accepts here, the software events, the\n"
		"hardware cache events, the PMU events in sysfs (with their descriptions) and the\n"
		"tracepoints in tracefs, grouped and named as perf list does. Arguments keep a\n"
		"category (hw, sw, tool, cache, pmu, tracepoint) or the events matching a glob\n"
		"('sched:*'). Needs no privilege for what the user may read; when tracefs is not\n"
		"readable the tracepoints are left out and a note says so.\n",
	.opts = list_opts_table,
	.notes = "Exit status: 0; 2 usage.\n",
	.examples = "kiln list                  # everything\n"
		    "kiln list sw cache         # software and cache events\n"
		    "kiln list 'sched:*'        # the scheduler's tracepoints\n"
		    "kiln list --json tracepoint\n",
};

static const char *const kind_word[] = {
	[EVCAT_HW] = "Hardware event",  [EVCAT_SW] = "Software event", [EVCAT_TOOL] = "Tool event",
	[EVCAT_CACHE] = "Hardware cache event", [EVCAT_PMU] = "Kernel PMU event",
	[EVCAT_TRACEPOINT] = "Tracepoint event",
};

static int category(const char *w)
{
	static const struct {
		const char *word;
		enum evcat_kind kind;
	} words[] = {
		{ "hw", EVCAT_HW },	   { "hardware", EVCAT_HW },	 { "sw", EVCAT_SW },
		{ "software", EVCAT_SW },  { "cache", EVCAT_CACHE },	 { "hwcache", EVCAT_CACHE },
		{ "pmu", EVCAT_PMU },	   { "tracepoint", EVCAT_TRACEPOINT }, { "tool", EVCAT_TOOL },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(w, words[i].word))
			return (int)words[i].kind;
	return -1;
}

static bool wanted(const struct evcat_entry *e, char **args, int nargs)
{
	if (nargs == 0)
		return true;
	for (int i = 0; i < nargs; i++) {
		int k = category(args[i]);
		if (k >= 0 ? (int)e->kind == k
			   : !fnmatch(args[i], e->name, 0) || (e->alias && !fnmatch(args[i], e->alias, 0)))
			return true;
	}
	return false;
}

static void json_field(FILE *f, const char *key, const char *val)
{
	fprintf(f, ",\n\t\"%s\": \"", key);
	json_put_escaped(f, val, strlen(val));
	fputc('"', f);
}

int cmd_list(int argc, char **argv, const struct kiln_env *env)
{
	struct list_cli lc = { 0 };
	struct opts_parser p;
	int code;
	(void)env;
	int first = cli_parse(&p, &list_cmd, argc, argv, &lc, &code);
	if (first < 0)
		return code;
	char **args = argv + first;
	int nargs = argc - first;
	struct evcat_entry *v;
	size_t n;
	unsigned notes;
	evcat_list(&v, &n, &notes);
	FILE *f = stdout;
	size_t shown = 0;
	if (lc.json)
		fputs("[\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct evcat_entry *e = &v[i];
		if (!wanted(e, args, nargs))
			continue;
		if (lc.json) {
			fputs(shown ? ",\n{\n\t\"EventName\": \"" : "{\n\t\"EventName\": \"", f);
			json_put_escaped(f, e->name, strlen(e->name));
			fputc('"', f);
			json_field(f, "EventType", kind_word[e->kind]);
			if (e->alias)
				json_field(f, "Alias", e->alias);
			if (e->desc)
				json_field(f, "BriefDescription", e->desc);
			fputs("\n}", f);
		} else {
			char name[512];
			snprintf(name, sizeof(name), "%s%s%s", e->name, e->alias ? " OR " : "",
				 e->alias ? e->alias : "");
			fprintf(f, "  %-50s [%s]\n", name, kind_word[e->kind]);
			if (e->desc)
				fprintf(f, "       %s\n", e->desc);
		}
		shown++;
	}
	if (lc.json)
		fputs(shown ? "\n]\n" : "]\n", f);
	code = fflush(f) || ferror(f) ? KILN_EXIT_FAIL : KILN_EXIT_OK;
	if (code)
		cli_err("error: writing the list: %s\n", strerror(errno));
	bool want_tp = nargs == 0;
	for (int i = 0; i < nargs; i++)
		want_tp |= category(args[i]) == EVCAT_TRACEPOINT || category(args[i]) < 0;
	if ((notes & EVCAT_NO_TRACEFS) && want_tp)
		cli_err("note: tracepoints are not listed: tracefs (/sys/kernel/tracing) is not "
			"readable by this user (run as root, or mount tracefs and let the user "
			"read it)\n");
	evcat_list_free(v, n);
	return code;
}
