/* spec: perf probe's spec text parsed, probe_events lines written (probe, L3). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "probe/probe.h"

bool probe_good_name(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static bool is_ident(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

static char *xstrndup_(const char *s, size_t n)
{
	char *r = xmalloc(n + 1);
	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

/* VAR[->F|.F ...] into a; the text has no NAME= and no :TYPE. */
static int parse_var(const char *t, struct probe_arg *a, const char *whole)
{
	size_t n = strcspn(t, "-.[");
	if (t[n] == '[')
		return err_set(-EINVAL, "probe argument '%s': array elements are not supported", whole);
	if (!is_ident(t, n))
		return err_set(-EINVAL, "probe argument '%s': '%.*s' is not a variable name", whole, (int)n, t);
	a->var = xstrndup_(t, n);
	t += n;
	while (*t) {
		bool arrow;
		if (t[0] == '-' && t[1] == '>') {
			arrow = true;
			t += 2;
		} else if (t[0] == '.') {
			arrow = false;
			t++;
		} else if (t[0] == '[') {
			return err_set(-EINVAL, "probe argument '%s': array elements are not supported", whole);
		} else {
			return err_set(-EINVAL, "probe argument '%s': unexpected '%s'", whole, t);
		}
		size_t m = strcspn(t, "-.[");
		if (!is_ident(t, m))
			return err_set(-EINVAL, "probe argument '%s': '%.*s' is not a member name", whole,
				       (int)m, t);
		if (a->nfields == PROBE_MAX_FIELDS)
			return err_set(-EINVAL, "probe argument '%s': more than %d members", whole,
				       PROBE_MAX_FIELDS);
		a->arrow[a->nfields] = arrow;
		a->fields[a->nfields++] = xstrndup_(t, m);
		t += m;
	}
	return 0;
}

static int parse_arg(const char *text, struct probe_arg *a)
{
	const char *t = text;
	/* NAME= (a name never starts a fetch arg, so the first '=' before any
	 * '(' or '%' is the name's) */
	size_t eq = strcspn(t, "=(%+$@:");
	if (t[eq] == '=') {
		if (!is_ident(t, eq))
			return err_set(-EINVAL, "probe argument '%s': '%.*s' is not a valid name", text,
				       (int)eq, t);
		a->name = xstrndup_(t, eq);
		t += eq + 1;
	}
	if (!*t)
		return err_set(-EINVAL, "probe argument '%s' is empty", text);
	/* :TYPE at the end (a fetch arg's own text has no ':') */
	const char *colon = strrchr(t, ':');
	size_t len = colon ? (size_t)(colon - t) : strlen(t);
	if (colon) {
		if (!colon[1])
			return err_set(-EINVAL, "probe argument '%s': empty type after ':'", text);
		a->type = xstrdup(colon + 1);
	}
	char *body = xstrndup_(t, len);
	int err = 0;
	if (!strcmp(body, "$retval") || !strcmp(body, "$params")) {
		a->var = body;
		return 0;
	}
	if (strchr("%+-@$0123456789", body[0]) && !(body[0] == '-' && body[1] == '>')) {
		a->var = body;
		a->raw = true;
		return 0;
	}
	err = parse_var(body, a, text);
	free(body);
	return err;
}

int probe_spec_parse(const char *text, struct probe_spec *s)
{
	memset(s, 0, sizeof(*s));
	char *dup = xstrdup(text), *save = NULL;
	int err = 0;
	char *point = strtok_r(dup, " \t\n", &save);
	if (!point) {
		free(dup);
		return err_set(-EINVAL, "empty probe definition");
	}
	/* [[GROUP:]EVENT=] */
	char *eq = strchr(point, '=');
	if (eq) {
		*eq = '\0';
		char *c = strchr(point, ':');
		if (c) {
			*c = '\0';
			s->group = xstrdup(point);
			point = c + 1;
		}
		s->event = xstrdup(point);
		point = eq + 1;
		if ((s->group && !probe_good_name(s->group)) || !probe_good_name(s->event)) {
			err = err_set(-EINVAL, "'%s%s%s': an event or group name is letters, digits "
					       "and '_', not starting with a digit",
				      s->group ? s->group : "", s->group ? ":" : "", s->event);
			goto out;
		}
	}
	size_t plen = strlen(point);
	if (plen > 7 && !strcmp(point + plen - 7, "%return")) {
		s->retprobe = true;
		point[plen - 7] = '\0';
	} else if (strchr(point, '%')) {
		err = err_set(-EINVAL, "'%s': unknown probe point suffix (only %%return)", point);
		goto out;
	}
	char *plus = strchr(point, '+');
	if (plus) {
		*plus = '\0';
		char *e;
		errno = 0;
		unsigned long long v = strtoull(plus + 1, &e, 0);
		if (e == plus + 1 || *e || errno) {
			err = err_set(-EINVAL, "'%s': bad offset after '+'", plus + 1);
			goto out;
		}
		s->offset = v;
	}
	char *colon = strchr(point, ':');
	if (colon) {
		*colon = '\0';
		char *e;
		long v = strtol(colon + 1, &e, 10);
		if (e == colon + 1 || *e || v < 0 || v > 10000000) {
			err = err_set(-EINVAL, "'%s': bad line number after ':'", colon + 1);
			goto out;
		}
		s->line = (int)v;
		s->has_line = true;
	}
	char *at = strchr(point, '@');
	if (at) {
		*at = '\0';
		s->file = xstrdup(at + 1);
		s->func = xstrdup(point);
	} else if (s->has_line && (strchr(point, '.') || strchr(point, '/'))) {
		s->file = xstrdup(point); /* SRC:ALN */
	} else {
		s->func = xstrdup(point);
	}
	if (s->func && !is_ident(s->func, strlen(s->func)) && !strchr(s->func, '.')) {
		err = err_set(-EINVAL, "'%s' is not a function name", s->func);
		goto out;
	}
	if (!s->func && !s->has_line) {
		err = err_set(-EINVAL, "'%s': give a function, or SRC:LINE", text);
		goto out;
	}
	if (s->has_line && (s->offset || s->retprobe)) {
		err = err_set(-EINVAL, "'%s': a line cannot be combined with +OFF or %%return", text);
		goto out;
	}
	for (char *t = strtok_r(NULL, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		if (s->nargs == PROBE_MAX_ARGS) {
			err = err_set(-EINVAL, "more than %d probe arguments", PROBE_MAX_ARGS);
			goto out;
		}
		err = parse_arg(t, &s->args[s->nargs++]);
		if (err)
			goto out;
		struct probe_arg *a = &s->args[s->nargs - 1];
		if (!strcmp(a->var, "$retval") && !s->retprobe) {
			err = err_set(-EINVAL, "$retval needs a return probe (FUNC%%return)");
			goto out;
		}
	}
out:
	free(dup);
	if (err)
		probe_spec_free(s);
	return err;
}

void probe_spec_free(struct probe_spec *s)
{
	free(s->group);
	free(s->event);
	free(s->func);
	free(s->file);
	for (size_t i = 0; i < s->nargs; i++) {
		free(s->args[i].name);
		free(s->args[i].var);
		free(s->args[i].type);
		for (size_t j = 0; j < s->args[i].nfields; j++)
			free(s->args[i].fields[j]);
	}
	memset(s, 0, sizeof(*s));
}

void probe_def_free(struct probe_def *d)
{
	free(d->group);
	free(d->event);
	free(d->target);
	free(d->where);
	for (size_t i = 0; i < d->nargs; i++)
		free(d->args[i]);
	memset(d, 0, sizeof(*d));
}

void probe_defs_free(struct probe_def *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		probe_def_free(&d[i]);
	free(d);
}

char *probe_def_line(const struct probe_def *d)
{
	struct buf b;
	buf_init(&b, (size_t)1 << 20);
	buf_addf(&b, "%c:%s/%s %s", d->ret ? 'r' : 'p', d->group, d->event, d->target);
	for (size_t i = 0; i < d->nargs; i++)
		buf_addf(&b, " %s", d->args[i]);
	char *r = buf_detach(&b, NULL);
	return r ? r : xstrdup("");
}

char *probe_group_of(const char *binary)
{
	const char *b = strrchr(binary, '/');
	b = b ? b + 1 : binary;
	size_t n = 0;
	while (isalnum((unsigned char)b[n]))
		n++;
	char *r = xmalloc(n + 7);
	memcpy(r, "probe_", 6);
	memcpy(r + 6, b, n);
	r[n + 6] = '\0';
	return r;
}

char *probe_event_name(const struct probe_spec *s, int rel_line)
{
	if (s->event)
		return xstrdup(s->event);
	char buf[256];
	const char *f = s->func ? s->func : "probe";
	if (s->retprobe)
		snprintf(buf, sizeof(buf), "%s__return", f);
	else if (s->has_line)
		snprintf(buf, sizeof(buf), "%s_L%d", f, rel_line);
	else if (s->offset)
		snprintf(buf, sizeof(buf), "%s_%" PRIu64, f, s->offset);
	else
		snprintf(buf, sizeof(buf), "%s", f);
	for (char *p = buf; *p; p++) /* "foo.isra.0" → "foo_isra_0" */
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	return xstrdup(buf);
}

char *probe_arg_text(const struct probe_arg *a, const char *fetch, const char *type)
{
	struct buf b;
	buf_init(&b, 4096);
	if (a->name)
		buf_addstr(&b, a->name);
	else if (a->nfields) /* perf: the last member's name */
		buf_addstr(&b, a->fields[a->nfields - 1]);
	else if (a->type) /* perf: "msg:string" is msg_string */
		buf_addf(&b, "%s_%s", a->var, a->type);
	else
		buf_addstr(&b, a->var);
	buf_addf(&b, "=%s:%s", fetch, type);
	return buf_detach(&b, NULL);
}

char *probe_raw_arg_text(const struct probe_arg *a, size_t pos)
{
	struct buf b;
	buf_init(&b, 4096);
	if (a->name)
		buf_addf(&b, "%s=%s", a->name, a->var);
	else
		buf_addf(&b, "arg%zu=%s", pos, a->var);
	if (a->type)
		buf_addf(&b, ":%s", a->type);
	return buf_detach(&b, NULL);
}

int probe_def_add_arg(struct probe_def *d, char *arg)
{
	if (d->nargs == PROBE_MAX_ARGS) {
		free(arg);
		return err_set(-EINVAL, "more than %d probe arguments", PROBE_MAX_ARGS);
	}
	d->args[d->nargs++] = arg;
	return 0;
}
