/*
 * opts_gen: the artefacts generated from the command tables besides
 * --help (cli, L9): man pages in troff (kiln-CMD.1 and kiln.1) and shell
 * completion for bash and zsh. The build runs `kiln --man CMD` and
 * `kiln --completion SHELL` to install them; output is deterministic.
 */
#include <string.h>

#include "cli/opts.h"
#include "cli/opts_int.h"

/* ---- troff ---- */

/* Text for a troff text line: '\' and '-' escaped, and a control
 * character ('.', '\'') at the start of a line made literal. */
static void man_text(FILE *f, const char *s, size_t n)
{
	bool bol = true;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (bol && (c == '.' || c == '\''))
			fputs("\\&", f);
		bol = c == '\n';
		if (c == '\\')
			fputs("\\e", f);
		else if (c == '-')
			fputs("\\-", f);
		else
			fputc(c, f);
	}
}

static void man_str(FILE *f, const char *s)
{
	man_text(f, s, strlen(s));
}

/* Paragraphs separated by blank lines; one with a line that starts with
 * two spaces is a list or table, kept as laid out. */
static void man_paragraphs(FILE *f, const char *s)
{
	while (*s) {
		while (*s == '\n')
			s++;
		if (!*s)
			break;
		const char *end = strstr(s, "\n\n");
		size_t n = end ? (size_t)(end - s) : strlen(s);
		while (n && s[n - 1] == '\n')
			n--;
		bool list = false; /* a line of it starts with two spaces */
		for (const char *l = s; l && l < s + n; l = memchr(l, '\n', (size_t)(s + n - l))) {
			l += *l == '\n';
			if (l[0] == ' ' && l[1] == ' ')
				list = true;
		}
		fputs(list ? ".PP\n.nf\n" : ".PP\n", f);
		man_text(f, s, n);
		fputs(list ? "\n.fi\n" : "\n", f);
		s += n;
	}
}

static void man_header(FILE *f, const char *name, const char *summary, const char *version)
{
	fputs(".TH \"", f);
	for (const char *p = name; *p; p++)
		fputc(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, f);
	fprintf(f, "\" 1 \"\" \"kiln %s\" \"kiln manual\"\n.SH NAME\n", version);
	man_str(f, name);
	fputs(" \\- ", f);
	man_str(f, summary);
	fputs("\n", f);
}

static void man_synopsis(FILE *f, const struct opts_cmd *cmd)
{
	bool top = !strcmp(cmd->name, "kiln");
	fputs(".SH SYNOPSIS\n.nf\n", f);
	for (const char *s = cmd->synopsis; s && *s;) {
		size_t n = strcspn(s, "\n");
		fprintf(f, "\\fBkiln%s%s\\fR ", top ? "" : " ", top ? "" : cmd->name);
		man_text(f, s, n);
		fputs("\n", f);
		s += n;
		if (*s)
			s++;
	}
	fputs(".fi\n", f);
}

static void man_examples(FILE *f, const char *ex)
{
	if (!ex)
		return;
	fputs(".SH EXAMPLES\n.nf\n", f);
	man_str(f, ex);
	if (ex[0] && ex[strlen(ex) - 1] != '\n')
		fputs("\n", f);
	fputs(".fi\n", f);
}

static void man_option(FILE *f, const struct opts_row *r)
{
	const struct opt *o = r->o;
	fputs(".TP\n", f);
	if (r->short_name)
		fprintf(f, "\\fB\\-%c\\fR%s", r->short_name, r->long_name ? ", " : "");
	if (r->long_name) {
		fputs("\\fB\\-\\-", f);
		man_str(f, r->long_name);
		fputs("\\fR", f);
	}
	if (opts_takes_value(o)) {
		bool opt = o->flags & OPT_OPTARG;
		fputs(opt ? (r->long_name ? "[=" : "[") : " ", f);
		fputs("\\fI", f);
		man_str(f, o->metavar ? o->metavar : "VALUE");
		fputs(opt ? "\\fR]" : "\\fR", f);
	}
	fputs("\n", f);
	man_str(f, o->help ? o->help : "");
	fputs("\n", f);
}

void opts_man(FILE *f, const struct opts_cmd *cmd, const char *version)
{
	char name[64];
	snprintf(name, sizeof(name), "kiln-%s", cmd->name);
	man_header(f, name, cmd->summary, version);
	man_synopsis(f, cmd);
	if (cmd->description) {
		fputs(".SH DESCRIPTION\n", f);
		man_paragraphs(f, cmd->description);
	}
	struct opts_flat fl;
	opts_flatten(&fl, cmd);
	fputs(".SH OPTIONS\n", f);
	for (size_t i = 0; i < fl.n; i++) {
		const struct opts_row *r = &fl.v[i];
		if (r->o->kind == OPT_KIND_GROUP) {
			fputs(".SS ", f);
			/* A title ends with ':' in --help; a heading does not need it. */
			size_t n = strlen(r->o->help);
			fputc('"', f);
			man_text(f, r->o->help, n && r->o->help[n - 1] == ':' ? n - 1 : n);
			fputs("\"\n", f);
		} else if (!(r->o->flags & OPT_HIDDEN)) {
			man_option(f, r);
		}
	}
	if (cmd->notes) {
		fputs(".SH NOTES\n", f);
		man_paragraphs(f, cmd->notes);
	}
	man_examples(f, cmd->examples);
	fputs(".SH SEE ALSO\n\\fBkiln\\fR(1)\n", f);
}

void opts_man_index(FILE *f, const struct opts_cmd *top, const struct opts_cmd *const *cmds,
		    size_t n, const char *version)
{
	man_header(f, "kiln", top->summary, version);
	man_synopsis(f, top);
	if (top->description) {
		fputs(".SH DESCRIPTION\n", f);
		man_paragraphs(f, top->description);
	}
	fputs(".SH COMMANDS\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs(".TP\n\\fBkiln\\-", f);
		man_str(f, cmds[i]->name);
		fputs("\\fR(1)\n", f);
		man_str(f, cmds[i]->summary);
		fputs("\n", f);
	}
	struct opts_flat fl;
	opts_flatten(&fl, top);
	fputs(".SH OPTIONS\n", f);
	for (size_t i = 0; i < fl.n; i++)
		if (fl.v[i].o->kind != OPT_KIND_GROUP && !(fl.v[i].o->flags & OPT_HIDDEN))
			man_option(f, &fl.v[i]);
	if (top->notes) {
		fputs(".SH NOTES\n", f);
		man_paragraphs(f, top->notes);
	}
	man_examples(f, top->examples);
	fputs(".SH SEE ALSO\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "\\fBkiln\\-%s\\fR(1)%s\n", cmds[i]->name, i + 1 < n ? "," : "");
}

/* ---- completion ---- */

void opts_list(FILE *f, const struct opts_cmd *cmd)
{
	struct opts_flat fl;
	opts_flatten(&fl, cmd);
	for (size_t i = 0; i < fl.n; i++) {
		const struct opts_row *r = &fl.v[i];
		if (r->o->kind == OPT_KIND_GROUP || (r->o->flags & OPT_HIDDEN))
			continue;
		if (r->long_name)
			fprintf(f, "--%s\n", r->long_name);
		if (r->short_name)
			fprintf(f, "-%c\n", r->short_name);
	}
}

/* The option words of cmd, space-separated; with 'values', only those
 * taking a value ('files': whose value is a path, or not) as a case
 * pattern list "-o|--output". */
static void bash_words(FILE *f, const struct opts_cmd *cmd, bool values, bool files)
{
	struct opts_flat fl;
	opts_flatten(&fl, cmd);
	const char *sep = "";
	for (size_t i = 0; i < fl.n; i++) {
		const struct opts_row *r = &fl.v[i];
		if (r->o->kind == OPT_KIND_GROUP || (r->o->flags & OPT_HIDDEN))
			continue;
		if (values && (!opts_takes_value(r->o) || (r->o->flags & OPT_OPTARG) ||
			       !(r->o->flags & OPT_FILE) != !files))
			continue;
		if (r->long_name) {
			fprintf(f, "%s--%s", sep, r->long_name);
			sep = values ? "|" : " ";
		}
		if (r->short_name) {
			fprintf(f, "%s-%c", sep, r->short_name);
			sep = values ? "|" : " ";
		}
	}
}

static bool has_values(const struct opts_cmd *cmd, bool files)
{
	struct opts_flat fl;
	opts_flatten(&fl, cmd);
	for (size_t i = 0; i < fl.n; i++) {
		const struct opt *o = fl.v[i].o;
		if (o->kind != OPT_KIND_GROUP && !(o->flags & (OPT_HIDDEN | OPT_OPTARG)) &&
		    opts_takes_value(o) && !(o->flags & OPT_FILE) == !files)
			return true;
	}
	return false;
}

void opts_completion_bash(FILE *f, const struct opts_cmd *top,
			  const struct opts_cmd *const *cmds, size_t n)
{
	fputs("# bash completion for kiln (generated by 'kiln --completion bash')\n"
	      "_kiln()\n{\n"
	      "\tlocal cur prev cmd opts i\n"
	      "\tcur=${COMP_WORDS[COMP_CWORD]}\n"
	      "\tprev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tcmd=\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n"
	      "\t\t-*) ;;\n"
	      "\t\t*) cmd=${COMP_WORDS[i]}; break ;;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "\tCOMPREPLY=()\n"
	      "\tcase $cmd in\n"
	      "\t'')\n"
	      "\t\tCOMPREPLY=($(compgen -W \"",
	      f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s ", cmds[i]->name);
	fputs("help ", f);
	bash_words(f, top, false, false);
	fputs("\" -- \"$cur\"))\n\t\treturn 0 ;;\n\thelp)\n\t\tCOMPREPLY=($(compgen -W \"", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", cmds[i]->name);
	fputs("\" -- \"$cur\"))\n\t\treturn 0 ;;\n", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\t%s)\n\t\topts=\"", cmds[i]->name);
		bash_words(f, cmds[i], false, false);
		fputs("\"\n\t\tcase $prev in\n", f);
		if (has_values(cmds[i], true)) {
			fputs("\t\t", f);
			bash_words(f, cmds[i], true, true);
			fputs(")\n\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\t\t\treturn 0 ;;\n", f);
		}
		if (has_values(cmds[i], false)) {
			fputs("\t\t", f);
			bash_words(f, cmds[i], true, false);
			fputs(")\n\t\t\treturn 0 ;;\n", f);
		}
		fputs("\t\tesac ;;\n", f);
	}
	fputs("\t*)\n\t\treturn 0 ;;\n"
	      "\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\tfi\n"
	      "\treturn 0\n"
	      "}\n"
	      "complete -o filenames -F _kiln kiln\n",
	      f);
}

/* Text safe inside a zsh single-quoted _arguments spec: no quote, colon,
 * bracket or backslash; cut at the first clause. */
static void zsh_desc(FILE *f, const char *s, size_t max)
{
	char out[128];
	size_t k = 0;
	if (max >= sizeof(out))
		max = sizeof(out) - 1;
	for (; s && *s && k < max; s++) {
		char c = *s;
		if (c == ';' || ((c == '(' || c == ':') && k > 0))
			break;
		if (c == '\'' || c == ':' || c == '[' || c == ']' || c == '\\' || c == '(' ||
		    c == ')' || c == '`' || c == '$')
			c = ' ';
		out[k++] = c;
	}
	while (k && out[k - 1] == ' ')
		k--;
	fwrite(out, 1, k, f);
}

static void zsh_spec(FILE *f, const struct opt *o, const char *spelling, bool is_long)
{
	fprintf(f, " \\\n\t\t\t'*%s", spelling);
	if (opts_takes_value(o))
		fputs(o->flags & OPT_OPTARG ? (is_long ? "=-" : "-") : (is_long ? "=" : "+"), f);
	fputc('[', f);
	zsh_desc(f, o->help, 60);
	fputc(']', f);
	if (opts_takes_value(o)) {
		fputc(':', f);
		zsh_desc(f, o->metavar ? o->metavar : "value", 20);
		fputs(o->flags & OPT_FILE ? ":_files" : ": ", f);
	}
	fputc('\'', f);
}

void opts_completion_zsh(FILE *f, const struct opts_cmd *top, const struct opts_cmd *const *cmds,
			 size_t n)
{
	(void)top;
	fputs("#compdef kiln\n"
	      "# zsh completion for kiln (generated by 'kiln --completion zsh')\n"
	      "_kiln() {\n"
	      "\tlocal -a commands\n"
	      "\tcommands=(\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\t\t'%s:", cmds[i]->name);
		zsh_desc(f, cmds[i]->summary, 70);
		fputs("'\n", f);
	}
	fputs("\t\t'help:show the help of a command'\n"
	      "\t)\n"
	      "\tif (( CURRENT == 2 )); then\n"
	      "\t\t_describe -t commands 'kiln command' commands\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tlocal cmd=$words[2]\n"
	      "\tshift words\n"
	      "\t(( CURRENT-- ))\n"
	      "\tcase $cmd in\n"
	      "\thelp)\n"
	      "\t\t_describe -t commands 'kiln command' commands ;;\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct opts_flat fl;
		opts_flatten(&fl, cmds[i]);
		fprintf(f, "\t%s)\n\t\t_arguments -s -S", cmds[i]->name);
		for (size_t j = 0; j < fl.n; j++) {
			const struct opts_row *r = &fl.v[j];
			if (r->o->kind == OPT_KIND_GROUP || (r->o->flags & OPT_HIDDEN))
				continue;
			char sp[80];
			if (r->long_name) {
				snprintf(sp, sizeof(sp), "--%s", r->long_name);
				zsh_spec(f, r->o, sp, true);
			}
			if (r->short_name) {
				snprintf(sp, sizeof(sp), "-%c", r->short_name);
				zsh_spec(f, r->o, sp, false);
			}
		}
		fputs(" \\\n\t\t\t'*:file:_files' ;;\n", f);
	}
	fputs("\tesac\n}\n_kiln \"$@\"\n", f);
}
