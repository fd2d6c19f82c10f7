/*
 * opts: the option-table parser and the help text written from the same
 * table (cli, L9). The man page and completion writers are in opts_gen.c.
 * See opts.h for the parsing rules.
 */
#include "cli/opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "cli/opts_int.h"

#define HELP_COL 24   /* option help starts in this column */
#define HELP_WIDTH 79 /* and wraps before this one */

static const struct opt help_row = {
	.kind = OPT_KIND_CALLBACK, .short_name = 'h', .long_name = "help",
	.help = "this help", .flags = OPT_NOARG | OPT_NONEG,
};

static void flatten_into(struct opts_flat *fl, const struct opt *t, size_t base)
{
	for (; t->kind != OPT_KIND_END; t++) {
		if (t->kind == OPT_KIND_INCLUDE) {
			flatten_into(fl, t->include, base + t->offset);
			continue;
		}
		/* A later row loses a name or letter an earlier row has
		 * (getopt_long's first match); with neither left, it is dropped. */
		const char *ln = t->long_name;
		char sn = t->short_name;
		for (size_t i = 0; i < fl->n; i++) {
			if (ln && fl->v[i].long_name && !strcmp(fl->v[i].long_name, ln))
				ln = NULL;
			if (sn && fl->v[i].short_name == sn)
				sn = 0;
		}
		if (t->kind != OPT_KIND_GROUP && !ln && !sn)
			continue;
		if (fl->n == OPTS_MAX_ROWS)
			BUG("option table larger than OPTS_MAX_ROWS");
		fl->v[fl->n++] = (struct opts_row){ t, base + t->offset, ln, sn };
	}
}

void opts_flatten(struct opts_flat *fl, const struct opts_cmd *cmd)
{
	fl->n = 0;
	if (cmd->opts)
		flatten_into(fl, cmd->opts, 0);
	/* -h/--help last among the options, before the first titled group. */
	size_t at = fl->n;
	for (size_t i = 0; i < fl->n; i++) {
		if (fl->v[i].o->kind == OPT_KIND_GROUP) {
			at = i;
			break;
		}
	}
	if (fl->n == OPTS_MAX_ROWS)
		BUG("option table larger than OPTS_MAX_ROWS");
	memmove(&fl->v[at + 1], &fl->v[at], (fl->n - at) * sizeof(fl->v[0]));
	fl->v[at] = (struct opts_row){ &help_row, 0, help_row.long_name, help_row.short_name };
	fl->n++;
}

bool opts_takes_value(const struct opt *o)
{
	switch (o->kind) {
	case OPT_KIND_STRING:
	case OPT_KIND_U64:
	case OPT_KIND_DOUBLE:
		return true;
	case OPT_KIND_CALLBACK:
		return !(o->flags & OPT_NOARG);
	default:
		return false;
	}
}

bool opts_negatable(const struct opt *o)
{
	if (o->flags & OPT_NONEG)
		return false;
	return o->kind == OPT_KIND_BOOL || (o->kind == OPT_KIND_CALLBACK && (o->flags & OPT_NEG_CB));
}

int opts_error(struct opts_parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Two rows do the same thing (aliases): a prefix matching both is fine. */
static bool same_target(const struct opts_row *a, const struct opts_row *b)
{
	return a->o->kind == b->o->kind && a->off == b->off && a->o->cb == b->o->cb &&
	       a->o->value == b->o->value && a->o != &help_row && b->o != &help_row;
}

/*
 * The row a long name (len bytes of 'name') means: an exact match, else
 * the rows it is a prefix of, if they agree. *neg is set for --no-NAME.
 */
static const struct opts_row *find_long(struct opts_parser *p, const struct opts_flat *fl,
					const char *name, size_t len, bool *neg)
{
	*neg = false;
	for (int pass = 0; pass < 2; pass++) {
		const char *n = name;
		size_t l = len;
		if (pass == 1) {
			if (len < 3 || memcmp(name, "no-", 3))
				break;
			n += 3;
			l -= 3;
		}
		const struct opts_row *exact = NULL, *pre = NULL;
		bool ambiguous = false;
		for (size_t i = 0; i < fl->n; i++) {
			const struct opts_row *r = &fl->v[i];
			if (!r->long_name || (pass == 1 && !opts_negatable(r->o)))
				continue;
			if (strncmp(r->long_name, n, l))
				continue;
			if (r->long_name[l] == '\0') {
				exact = r;
				break;
			}
			if (pre && !same_target(pre, r))
				ambiguous = true;
			if (!pre)
				pre = r;
		}
		if (!exact && ambiguous) {
			char list[256];
			size_t k = 0;
			list[0] = '\0';
			for (size_t i = 0; i < fl->n; i++) {
				const struct opts_row *r = &fl->v[i];
				if (!r->long_name || (r->o->flags & OPT_HIDDEN) ||
				    (pass == 1 && !opts_negatable(r->o)) || strncmp(r->long_name, n, l))
					continue;
				int w = snprintf(list + k, sizeof(list) - k, "%s--%s%s", k ? ", " : "",
						 pass ? "no-" : "", r->long_name);
				if (w > 0 && (size_t)w < sizeof(list) - k)
					k += (size_t)w;
			}
			opts_error(p, "option '--%.*s' is ambiguous (%s)", (int)len, name, list);
			return NULL;
		}
		const struct opts_row *r = exact ? exact : pre;
		if (r) {
			*neg = pass == 1;
			return r;
		}
	}
	opts_error(p, "unknown option '--%.*s'", (int)len, name);
	return NULL;
}

static const struct opts_row *find_short(const struct opts_flat *fl, char c)
{
	for (size_t i = 0; i < fl->n; i++)
		if (fl->v[i].short_name == c)
			return &fl->v[i];
	return NULL;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int parse_double(const char *s, double *v)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || *end || x != x)
		return -1;
	*v = x;
	return 0;
}

/* Store one option's value. 'name' is how the user spelled it (messages). */
static int apply(struct opts_parser *p, const struct opts_row *r, const char *arg, bool neg,
		 void *base, const char *name)
{
	const struct opt *o = r->o;
	void *field = (char *)base + r->off;
	if (o == &help_row)
		return OPTS_HELP;
	switch (o->kind) {
	case OPT_KIND_BOOL:
		*(bool *)field = !neg;
		return 0;
	case OPT_KIND_SET_INT:
		*(int *)field = (int)o->value;
		return 0;
	case OPT_KIND_STRING:
		*(const char **)field = arg;
		return 0;
	case OPT_KIND_U64:
		if (parse_u64(arg, (uint64_t *)field))
			return opts_error(p, "%s takes a number, not '%s'", name, arg);
		return 0;
	case OPT_KIND_DOUBLE:
		if (parse_double(arg, (double *)field))
			return opts_error(p, "%s takes a number, not '%s'", name, arg);
		return 0;
	case OPT_KIND_CALLBACK:
		return o->cb(p, o, neg ? NULL : arg, field) ? -1 : 0;
	default:
		return 0;
	}
}

static int parse_long(struct opts_parser *p, const struct opts_flat *fl, int argc, char **argv,
		      int *i, void *base)
{
	const char *name = argv[*i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	bool neg;
	if (len == 0)
		return opts_error(p, "unknown option '%s'", argv[*i]);
	const struct opts_row *r = find_long(p, fl, name, len, &neg);
	if (!r)
		return -1;
	char spelled[128];
	snprintf(spelled, sizeof(spelled), "--%s%s", neg ? "no-" : "", r->long_name);
	const char *arg = NULL;
	if (neg || !opts_takes_value(r->o)) {
		if (eq)
			return opts_error(p, "option '%s' takes no value", spelled);
	} else if (eq) {
		arg = eq + 1;
	} else if (!(r->o->flags & OPT_OPTARG)) {
		if (*i + 1 >= argc)
			return opts_error(p, "option '%s' requires a value", spelled);
		arg = argv[++*i];
	}
	return apply(p, r, arg, neg, base, spelled);
}

static int parse_short(struct opts_parser *p, const struct opts_flat *fl, int argc, char **argv,
		       int *i, void *base)
{
	const char *a = argv[*i];
	for (size_t j = 1; a[j]; j++) {
		const struct opts_row *r = find_short(fl, a[j]);
		if (!r)
			return opts_error(p, "unknown option '-%c'", a[j]);
		char spelled[4] = { '-', a[j], 0 };
		if (!opts_takes_value(r->o)) {
			int rc = apply(p, r, NULL, false, base, spelled);
			if (rc)
				return rc;
			continue;
		}
		const char *arg = NULL;
		if (a[j + 1])
			arg = a + j + 1;
		else if (!(r->o->flags & OPT_OPTARG)) {
			if (*i + 1 >= argc)
				return opts_error(p, "option '-%c' requires a value", a[j]);
			arg = argv[++*i];
		}
		return apply(p, r, arg, false, base, spelled);
	}
	return 0;
}

int opts_parse(struct opts_parser *p, const struct opts_cmd *cmd, int argc, char **argv,
	       void *base)
{
	struct opts_flat fl;
	opts_flatten(&fl, cmd);
	p->cmd = cmd;
	p->err[0] = '\0';
	p->dashdash = 0;
	bool stop = cmd->flags & OPTS_STOP_AT_ARG;
	/* Permuting: options (with their values) first, then the arguments. */
	char **optv = NULL, **argsv = NULL;
	int nopt = 0, nargs = 0;
	if (!stop && argc > 1) {
		optv = xmalloc((size_t)argc * sizeof(*optv));
		argsv = xmalloc((size_t)argc * sizeof(*argsv));
	}
	int i = 1, rc = 0;
	while (i < argc) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			p->dashdash = i;
			if (optv)
				optv[nopt++] = argv[i];
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			if (stop)
				break;
			argsv[nargs++] = argv[i++];
			continue;
		}
		int start = i;
		rc = a[1] == '-' ? parse_long(p, &fl, argc, argv, &i, base)
				 : parse_short(p, &fl, argc, argv, &i, base);
		if (rc)
			break;
		i++;
		for (int k = start; optv && k < i; k++)
			optv[nopt++] = argv[k];
	}
	if (optv) {
		if (!rc) {
			for (; i < argc; i++)
				argsv[nargs++] = argv[i];
			memcpy(argv + 1, optv, (size_t)nopt * sizeof(*argv));
			memcpy(argv + 1 + nopt, argsv, (size_t)nargs * sizeof(*argv));
			i = 1 + nopt;
			if (p->dashdash)
				p->dashdash = nopt; /* "--" is the last option word */
		}
		free(optv);
		free(argsv);
	}
	if (rc)
		return rc == OPTS_HELP ? OPTS_HELP : -1;
	return i;
}

/* ---- help ---- */

/* Write 'text' filled to HELP_WIDTH, continuation lines at column 'col';
 * the first line starts at column 'at'. */
static void put_wrapped(FILE *f, const char *text, size_t at, size_t col)
{
	size_t pos = at;
	const char *s = text;
	bool first = true;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		size_t w = strcspn(s, " ");
		if (!first && pos + 1 + w > HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)col, "");
			pos = col;
		} else if (!first) {
			fputc(' ', f);
			pos++;
		}
		fwrite(s, 1, w, f);
		pos += w;
		s += w;
		first = false;
	}
	fputc('\n', f);
}

void opts_left_column(const struct opts_row *r, char *buf, size_t n)
{
	const struct opt *o = r->o;
	const char *long_name = r->long_name;
	size_t k = 0;
	int w;
	if (r->short_name)
		w = snprintf(buf, n, "  -%c%s", r->short_name, long_name ? ", " : "");
	else
		w = snprintf(buf, n, "      ");
	k = w > 0 ? (size_t)w : 0;
	if (long_name && k < n) {
		w = snprintf(buf + k, n - k, "--%s", long_name);
		k += w > 0 ? (size_t)w : 0;
	}
	if (opts_takes_value(o) && k < n) {
		const char *mv = o->metavar ? o->metavar : "VALUE";
		if (o->flags & OPT_OPTARG)
			w = snprintf(buf + k, n - k, long_name ? "[=%s]" : "[%s]", mv);
		else
			w = snprintf(buf + k, n - k, " %s", mv);
		(void)w;
	}
}

static void opts_synopsis(FILE *f, const struct opts_cmd *cmd)
{
	const char *s = cmd->synopsis;
	const char *prefix = "usage: ";
	bool top = !strcmp(cmd->name, "kiln");
	while (s && *s) {
		size_t n = strcspn(s, "\n");
		if (top)
			fprintf(f, "%skiln %.*s\n", prefix, (int)n, s);
		else
			fprintf(f, "%skiln %s %.*s\n", prefix, cmd->name, (int)n, s);
		prefix = "   or: ";
		s += n;
		if (*s)
			s++;
	}
}

static void put_examples(FILE *f, const char *ex)
{
	if (!ex)
		return;
	fputs("\nEXAMPLES\n", f);
	while (*ex) {
		size_t n = strcspn(ex, "\n");
		fprintf(f, "  %.*s\n", (int)n, ex);
		ex += n;
		if (*ex)
			ex++;
	}
}

static void opts_help_body(FILE *f, const struct opts_cmd *cmd, bool with_options)
{
	opts_synopsis(f, cmd);
	if (cmd->description)
		fprintf(f, "\n%s", cmd->description);
	if (with_options) {
		struct opts_flat fl;
		opts_flatten(&fl, cmd);
		fputs("\noptions:\n", f);
		for (size_t i = 0; i < fl.n; i++) {
			const struct opts_row *r = &fl.v[i];
			if (r->o->kind == OPT_KIND_GROUP) {
				fprintf(f, "\n%s\n", r->o->help);
				continue;
			}
			if (r->o->flags & OPT_HIDDEN)
				continue;
			char left[128];
			opts_left_column(r, left, sizeof(left));
			size_t w = strlen(left);
			fputs(left, f);
			if (w + 1 > HELP_COL) {
				fprintf(f, "\n%*s", HELP_COL, "");
				w = HELP_COL;
			} else {
				fprintf(f, "%*s", (int)(HELP_COL - w), "");
				w = HELP_COL;
			}
			put_wrapped(f, r->o->help ? r->o->help : "", w, HELP_COL);
		}
	}
}

void opts_help(FILE *f, const struct opts_cmd *cmd)
{
	opts_help_body(f, cmd, true);
	if (cmd->notes)
		fprintf(f, "\n%s", cmd->notes);
	put_examples(f, cmd->examples);
}

void opts_help_top(FILE *f, const struct opts_cmd *top, const struct opts_cmd *const *cmds,
		   size_t n)
{
	opts_help_body(f, top, false);
	fputs("\ncommands:\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "   %-10s %s\n", cmds[i]->name, cmds[i]->summary);
	fputs("\n'kiln <command> --help' (or 'kiln help <command>') shows a command's options "
	      "and examples.\n",
	      f);
	if (top->notes)
		fprintf(f, "\n%s", top->notes);
	put_examples(f, top->examples);
}
