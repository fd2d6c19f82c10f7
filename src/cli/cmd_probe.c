/*
 * cmd_probe: `kiln probe` (cli, L9): dynamic probe events as perf probe
 * makes them. The definitions come from probe/ (DWARF for -x BINARY, BTF
 * for kernel functions) and are written to tracefs; the events are then
 * tracepoints like any other for record, stat and perf itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "probe/probe.h"

struct probe_cli {
	const char *exec;   /* -x */
	const char *module; /* -m */
	char **dels;        /* -d, repeatable */
	size_t ndels;
	bool list;
	const char *list_filter;
	const char *vars;   /* -V */
	const char *line;   /* -L */
	bool funcs;
	const char *funcs_filter;
	const char *filter; /* --filter for -F */
	bool dry_run, force, quiet;
	char **adds;        /* -a, repeatable */
	size_t nadds;
};

#define PC_OFF(f) offsetof(struct probe_cli, f)

static int opt_del(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct probe_cli *c = field;
	(void)p, (void)o;
	XREALLOC_ARRAY(c->dels, c->ndels + 1);
	c->dels[c->ndels++] = (char *)arg;
	return 0;
}

static int opt_add(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct probe_cli *c = field;
	(void)p, (void)o;
	XREALLOC_ARRAY(c->adds, c->nadds + 1);
	c->adds[c->nadds++] = (char *)arg;
	return 0;
}

static int opt_list(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct probe_cli *c = field;
	(void)p, (void)o;
	c->list = true;
	c->list_filter = arg;
	return 0;
}

static int opt_funcs(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	struct probe_cli *c = field;
	(void)p, (void)o;
	c->funcs = true;
	c->funcs_filter = arg;
	return 0;
}

static const struct opt probe_opts[] = {
	OPT_FILENAME('x', "exec", PC_OFF(exec), "BINARY",
		     "probe a user-space binary (an executable or shared library): uprobes, "
		     "arguments and lines from its DWARF"),
	OPT_STRING('m', "module", PC_OFF(module), "MODULE",
		   "probe a function of a kernel module (its BTF in /sys/kernel/btf/MODULE)"),
	OPT_CALLBACK('a', "add", 0, "PROBE",
		     "add a probe (as the arguments do): [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFF]"
		     "[%return] [ARG ...] or SRC:ALN [ARG ...]",
		     opt_add),
	OPT_CALLBACK('d', "del", 0, "[GROUP:]EVENT",
		     "delete the probe events matching the glob (any group when none is given), "
		     "from tracefs",
		     opt_del),
	{ .kind = OPT_KIND_CALLBACK, .short_name = 'l', .long_name = "list",
	  .metavar = "[GROUP:]EVENT", .flags = OPT_OPTARG, .cb = opt_list,
	  .help = "list the probe events (uprobes and kprobes), optionally those matching a glob" },
	OPT_STRING('V', "vars", PC_OFF(vars), "FUNC",
		   "show the variables that can be read at a probe point (FUNC, FUNC:RLN, SRC:ALN)"),
	OPT_STRING('L', "line", PC_OFF(line), "FUNC",
		   "show FUNC's source lines, numbered (from its first line) where a probe can go"),
	{ .kind = OPT_KIND_CALLBACK, .short_name = 'F', .long_name = "funcs", .metavar = "GLOB",
	  .flags = OPT_OPTARG, .cb = opt_funcs,
	  .help = "list the functions of the binary (-x; its symbols) or of the kernel (BTF), "
		  "those matching GLOB, else all but those starting with '_'" },
	OPT_STRING(0, "filter", PC_OFF(filter), "GLOB", "the functions -F lists"),
	OPT_BOOL('n', "dry-run", PC_OFF(dry_run),
		 "resolve the probes and print the probe_events lines without adding them"),
	OPT_BOOL('f', "force", PC_OFF(force),
		 "add a probe whose event exists already, under EVENT_1, EVENT_2, ..."),
	OPT_BOOL('q', "quiet", PC_OFF(quiet), "no messages on success"),
	OPT_END(),
};

const struct opts_cmd probe_cmd = {
	.name = "probe",
	.summary = "Define dynamic probe events: uprobes from DWARF, kprobes from BTF (perf probe)",
	.synopsis = "[-x BINARY | -m MODULE] 'PROBE [ARG...]'\n"
		    "[-x BINARY] -l [GROUP:EVENT] | -d GROUP:EVENT | -V FUNC | -L FUNC | -F [GLOB]",
	.description =
		"Create probe events through tracefs (uprobe_events, kprobe_events), named as\n"
		"perf probe names them: probe_BIN:FUNC for a binary (BIN cut at its first\n"
		"character that is not a letter or digit), probe:FUNC in the kernel; FUNC__return\n"
		"for FUNC%return, FUNC_L<N> for FUNC:N. The events are then tracepoints: kiln\n"
		"record -e, kiln stat -e and perf use them; kiln script and perf script print\n"
		"their arguments.\n"
		"\n"
		"PROBE is [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFF][%return] or SRC:ALN, where RLN is\n"
		"a line counted from the function's first line (see -L) and ALN a line of the\n"
		"file. Each ARG is [NAME=]VAR[->FIELD|.FIELD...][:TYPE]: a parameter or local\n"
		"variable by name (its location at the probe address from DWARF for -x, from BTF\n"
		"and the calling convention for kernel functions), $retval (with %return),\n"
		"$params (all parameters), or a fetch arg in the kernel's syntax (%di,\n"
		"+8(%sp), +0($retval):string). TYPE is string, or u8..u64, s8..s64, x8..x64;\n"
		"without it DWARF's type decides (sN for signed, xN otherwise). A char pointer\n"
		"needs :string to be read as text.\n"
		"\n"
		"A binary without debug information can still be probed at a function (no\n"
		"arguments by name, no lines). Kernel probes need kprobe_events\n"
		"(CONFIG_KPROBE_EVENTS); arguments by name need BTF (/sys/kernel/btf/vmlinux)\n"
		"and are known at a function's entry only.\n",
	.opts = probe_opts,
	.notes = "Probes stay until -d removes them. Needs root (tracefs).\n"
		 "Exit status: 0; 1 tracefs refused or is missing (no permission, no kprobe events\n"
		 "in this kernel); 2 usage: a bad probe, a function, line or variable that is not\n"
		 "there or cannot be read, no debug information for what was asked.\n",
	.examples = "kiln probe -x ./app 'parse len buf:string'      # a uprobe with arguments\n"
		    "kiln probe -x ./app 'parse%return $retval'      # its return value\n"
		    "kiln record -e probe_app:parse -- ./app          # record every call\n"
		    "kiln probe -x ./app -V parse                     # what can be read there\n"
		    "kiln probe 'do_sys_openat2 filename:string'      # a kernel probe (BTF)\n"
		    "kiln probe -l                                    # the probe events\n"
		    "kiln probe -d 'probe_app:*'                      # remove them\n",
};

static void print_lines(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%s\n", v[i]);
}

/* Exit code for a probe module error: usage for what the user asked wrongly. */
static int fail_code(int err)
{
	switch (err) {
	case -EINVAL:
	case -ENOENT:
	case -EOPNOTSUPP:
	case -ENODATA:
	case -E2BIG:
		return KILN_EXIT_USAGE;
	default:
		return KILN_EXIT_FAIL;
	}
}

static int report_fail(int err)
{
	cli_error_last(NULL);
	return fail_code(err);
}

static const char *need_tracefs(void)
{
	const char *t = probe_tracefs();
	if (!t)
		cli_err("error: tracefs is not mounted or not readable (mount -t tracefs nodev "
			"/sys/kernel/tracing; probes need root)\n");
	return t;
}

static int do_list(const struct probe_cli *c)
{
	const char *t = need_tracefs();
	if (!t)
		return KILN_EXIT_FAIL;
	struct probe_entry *v;
	size_t n;
	int err = probe_list(t, &v, &n);
	if (err)
		return report_fail(err);
	for (size_t i = 0; i < n; i++) {
		const struct probe_entry *e = &v[i];
		if (c->list_filter && !probe_glob_match(c->list_filter, e->group, e->event))
			continue;
		char name[512];
		snprintf(name, sizeof(name), "%s:%s", e->group, e->event);
		char *where = NULL;
		const char *bin = NULL;
		if (!e->kernel) {
			/* target: PATH:0xOFFSET */
			char *colon = strrchr(e->target, ':');
			if (colon) {
				*colon = '\0';
				bin = e->target;
				where = probe_user_where(bin, strtoull(colon + 1, NULL, 16), e->ret);
				if (!where) {
					where = xstrdup(colon + 1);
				}
			}
		} else {
			/* target: [MOD:]SYM[+OFF]; the kernel shows SYM+0 for SYM */
			char *sym = e->target, *colon = strchr(sym, ':');
			if (colon) {
				*colon = '\0';
				bin = sym;
				sym = colon + 1;
			}
			size_t len = strlen(sym);
			if (len > 2 && !strcmp(sym + len - 2, "+0"))
				len -= 2;
			where = xasprintf("%.*s%s", (int)len, sym, e->ret ? "%return" : "");
		}
		printf("  %-20s (on %s%s%s%s%s)\n", name, where ? where : e->target,
		       bin ? " in " : "", bin ? bin : "", e->argnames[0] ? " with " : "",
		       e->argnames);
		free(where);
	}
	probe_entries_free(v, n);
	return KILN_EXIT_OK;
}

static int do_del(const struct probe_cli *c)
{
	const char *t = need_tracefs();
	if (!t)
		return KILN_EXIT_FAIL;
	struct probe_entry *v;
	size_t n;
	int err = probe_list(t, &v, &n), code = KILN_EXIT_OK;
	if (err)
		return report_fail(err);
	for (size_t d = 0; d < c->ndels; d++) {
		size_t hits = 0;
		for (size_t i = 0; i < n; i++) {
			if (!v[i].group || !probe_glob_match(c->dels[d], v[i].group, v[i].event))
				continue;
			hits++;
			err = probe_del(t, v[i].kernel, v[i].group, v[i].event);
			if (err) {
				cli_error_last(NULL);
				code = KILN_EXIT_FAIL;
			} else if (!c->quiet) {
				cli_err("Removed event: %s:%s\n", v[i].group, v[i].event);
			}
			/* the other addresses of the same event went with it */
			char *g = v[i].group, *e = v[i].event;
			for (size_t k = i + 1; k < n; k++)
				if (v[k].group && !strcmp(v[k].group, g) && !strcmp(v[k].event, e)) {
					free(v[k].group);
					v[k].group = NULL;
				}
		}
		if (!hits) {
			cli_err("error: no probe event matches '%s' (kiln probe -l lists them)\n", c->dels[d]);
			code = KILN_EXIT_FAIL;
		}
	}
	probe_entries_free(v, n);
	return code;
}

/* The argument names of a definition, as -l and the add message show them. */
static void arg_names(const struct probe_def *d, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < d->nargs && used + 2 < len; i++) {
		size_t k = strcspn(d->args[i], "=");
		if (used + k + 2 >= len)
			break;
		if (used)
			out[used++] = ' ';
		memcpy(out + used, d->args[i], k);
		used += k;
		out[used] = '\0';
	}
}

static int add_one(const struct probe_cli *c, const char *text, const char *tracefs,
		   bool *printed_head, size_t nprobes)
{
	struct probe_spec s;
	int err = probe_spec_parse(text, &s);
	if (err) {
		cli_error_last(NULL);
		return KILN_EXIT_USAGE;
	}
	struct probe_def *defs = NULL;
	size_t n = 0;
	unsigned notes = 0;
	if (c->exec) {
		err = probe_resolve_user(c->exec, &s, &defs, &n, &notes);
	} else {
		defs = xcalloc(1, sizeof(*defs));
		err = probe_resolve_kernel(c->module, NULL, &s, defs);
		n = err ? 0 : 1;
		if (err) {
			free(defs);
			defs = NULL;
		}
	}
	if (err) {
		int code = report_fail(err);
		probe_spec_free(&s);
		return code;
	}
	if (!c->quiet && (notes & PROBE_NOTE_PROLOGUE))
		cli_err("note: %s is not optimized: its prologue is skipped (probe %s+0 for its "
			"very first instruction)\n",
			s.func, s.func);
	if (c->dry_run) {
		for (size_t i = 0; i < n; i++) {
			char *l = probe_def_line(&defs[i]);
			printf("%s\n", l);
			free(l);
		}
		probe_defs_free(defs, n);
		probe_spec_free(&s);
		return KILN_EXIT_OK;
	}
	int code = KILN_EXIT_OK;
	if (!probe_tracefs_has(tracefs, c->exec == NULL)) {
		if (c->exec)
			cli_err("error: this kernel has no uprobe events (CONFIG_UPROBE_EVENTS: no "
				"%s/uprobe_events)\n",
				tracefs);
		else
			cli_err("error: this kernel has no kprobe events (CONFIG_KPROBE_EVENTS): "
				"user-space probes with -x work\n");
		code = KILN_EXIT_FAIL;
	}
	/* one event name for all its addresses; taken names are refused or, with -f, suffixed */
	if (code == KILN_EXIT_OK && probe_event_exists(tracefs, defs[0].group, defs[0].event)) {
		if (!c->force) {
			cli_err("error: event %s:%s exists already (kiln probe -d %s:%s removes it, -f "
				"adds this one as %s_1)\n",
				defs[0].group, defs[0].event, defs[0].group, defs[0].event, defs[0].event);
			code = KILN_EXIT_FAIL;
		} else {
			char name[300];
			for (int k = 1; k < 1000; k++) {
				snprintf(name, sizeof(name), "%s_%d", defs[0].event, k);
				if (!probe_event_exists(tracefs, defs[0].group, name))
					break;
			}
			for (size_t i = 0; i < n; i++) {
				free(defs[i].event);
				defs[i].event = xstrdup(name);
			}
		}
	}
	size_t added = 0;
	for (size_t i = 0; i < n && code == KILN_EXIT_OK; i++) {
		err = probe_add(tracefs, &defs[i]);
		if (err) {
			cli_error_last(NULL);
			code = KILN_EXIT_FAIL;
			break;
		}
		added++;
	}
	if (code != KILN_EXIT_OK && added) /* all of an event or none of it */
		probe_del(tracefs, defs[0].kernel, defs[0].group, defs[0].event);
	if (code == KILN_EXIT_OK && !c->quiet) {
		if (!*printed_head)
			cli_err("Added new event%s:\n", nprobes > 1 || n > 1 ? "s" : "");
		*printed_head = true;
		for (size_t i = 0; i < n; i++) {
			char name[512], args[1024];
			snprintf(name, sizeof(name), "%s:%s", defs[i].group, defs[i].event);
			arg_names(&defs[i], args, sizeof(args));
			const char *point = text + strspn(text, " \t");
			size_t plen = strcspn(point, " \t");
			const char *eq = memchr(point, '=', plen); /* perf shows the place, not EVENT= */
			if (eq) {
				plen -= (size_t)(eq + 1 - point);
				point = eq + 1;
			}
			char *abs = c->exec ? realpath(c->exec, NULL) : NULL;
			cli_err("  %-20s (on %.*s%s%s%s%s)\n", name, (int)plen, point, c->exec ? " in " : "",
				abs ? abs : c->exec ? c->exec : "", args[0] ? " with " : "", args);
			free(abs);
		}
		cli_err("\nYou can now use it in all perf tools, such as:\n\n\tkiln record -e %s:%s "
			"-aR sleep 1\n\n",
			defs[0].group, defs[0].event);
	}
	probe_defs_free(defs, n);
	probe_spec_free(&s);
	return code;
}

static int do_info(const struct probe_cli *c)
{
	char **v = NULL;
	size_t n = 0;
	int err;
	if (c->funcs) {
		const char *glob = c->funcs_filter ? c->funcs_filter : c->filter;
		err = c->exec ? probe_user_funcs(c->exec, glob, &v, &n)
			      : probe_kernel_funcs(NULL, glob, &v, &n);
	} else {
		struct probe_spec s;
		err = probe_spec_parse(c->vars ? c->vars : c->line, &s);
		if (err) {
			cli_error_last(NULL);
			return KILN_EXIT_USAGE;
		}
		if (c->vars)
			err = c->exec ? probe_user_vars(c->exec, &s, &v, &n)
				      : probe_kernel_vars(c->module, NULL, &s, &v, &n);
		else if (c->exec)
			err = probe_user_lines(c->exec, &s, &v, &n);
		else
			err = err_set(-EOPNOTSUPP, "-L for kernel functions needs the kernel's "
						   "debuginfo, which kiln does not read; -L works "
						   "with -x BINARY");
		probe_spec_free(&s);
	}
	if (err)
		return report_fail(err);
	print_lines(v, n);
	probe_lines_free(v, n);
	return KILN_EXIT_OK;
}

int cmd_probe(int argc, char **argv, const struct kiln_env *env)
{
	struct probe_cli c = { 0 };
	struct opts_parser p;
	int code;
	char *joined = NULL;
	(void)env;
	int first = cli_parse(&p, &probe_cmd, argc, argv, &c, &code);
	if (first < 0)
		goto out;
	/* the arguments are one probe, as perf probe takes them */
	struct buf b;
	buf_init(&b, (size_t)1 << 20);
	for (int i = first; i < argc; i++)
		buf_addf(&b, "%s%s", i > first ? " " : "", argv[i]);
	joined = buf_detach(&b, NULL);
	if (joined && *joined && c.funcs && !c.funcs_filter)
		c.funcs_filter = joined; /* -F GLOB */
	else if (joined && *joined && c.list && !c.list_filter)
		c.list_filter = joined; /* -l GLOB */
	else if (joined && *joined)
		opt_add(&p, NULL, joined, &c);
	int modes = (c.nadds > 0) + (c.ndels > 0) + c.list + (c.vars != NULL) + (c.line != NULL) +
		    c.funcs;
	if (modes != 1) {
		opts_error(&p, modes ? "give one of: a probe, -d, -l, -V, -L, -F"
				     : "nothing to do: give a probe, or -l, -d, -V, -L, -F");
		code = cli_usage_error(&p);
	} else if (c.exec && c.module) {
		opts_error(&p, "-x and -m cannot be used together");
		code = cli_usage_error(&p);
	} else if (c.list) {
		code = do_list(&c);
	} else if (c.ndels) {
		code = do_del(&c);
	} else if (c.nadds) {
		const char *t = c.dry_run ? "" : need_tracefs();
		code = t ? KILN_EXIT_OK : KILN_EXIT_FAIL;
		bool head = false;
		for (size_t i = 0; i < c.nadds && code == KILN_EXIT_OK; i++)
			code = add_one(&c, c.adds[i], t, &head, c.nadds);
	} else {
		code = do_info(&c);
	}
out:
	free(joined);
	free(c.dels);
	free(c.adds);
	return code;
}
