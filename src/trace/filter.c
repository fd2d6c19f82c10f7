/*
 * filter: which calls are shown (trace, L7).
 *
 * -e takes a comma-separated list of call names, each a glob ("open*");
 * a leading '!' shows every call but those. --pid, --tid and --comm
 * narrow by task. (--failure and --duration are decided at the result.)
 */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "trace/trace_int.h"

static int parse(struct tr_filter *f, const char *expr)
{
	const char *p = expr;
	if (*p == '!') {
		f->negate = true;
		p++;
	}
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || n > 64)
			return err_set(-EINVAL, "-e '%s': %s", expr,
				       n ? "a name longer than 64 characters" : "an empty name");
		for (size_t i = 0; i < n; i++) {
			char c = p[i];
			if (!(c == '_' || c == '*' || c == '?' || c == '[' || c == ']' ||
			      (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
				return err_set(-EINVAL, "-e '%s': '%c' cannot be in a system call name",
					       expr, c);
		}
		f->globs = xreallocarray(f->globs, f->nglobs + 1, sizeof(*f->globs));
		f->globs[f->nglobs++] = xstrndup(p, n);
		p += n;
		if (*p == ',') {
			p++;
			if (!*p)
				return err_set(-EINVAL, "-e '%s': an empty name", expr);
		}
	}
	if (!f->nglobs)
		return err_set(-EINVAL, "-e '%s': no system call named", expr);
	return 0;
}

int filter_init(struct tr_filter *f, const struct trace_opts *o)
{
	memset(f, 0, sizeof(*f));
	f->o = o;
	return o->expr ? parse(f, o->expr) : 0;
}

void filter_release(struct tr_filter *f)
{
	for (size_t i = 0; i < f->nglobs; i++)
		free(f->globs[i]);
	free(f->globs);
	memset(f, 0, sizeof(*f));
}

int trace_check_expr(const char *expr)
{
	struct trace_opts o = { .expr = expr };
	struct tr_filter f;
	int err = filter_init(&f, &o);
	filter_release(&f);
	return err;
}

static bool has_pid(const pid_t *v, size_t n, uint32_t p)
{
	for (size_t i = 0; i < n; i++)
		if ((uint32_t)v[i] == p)
			return true;
	return false;
}

bool filter_call(const struct tr_filter *f, const char *name, uint32_t pid, uint32_t tid,
		 const char *comm)
{
	const struct trace_opts *o = f->o;
	if (o->nonly_pids && !has_pid(o->only_pids, o->nonly_pids, pid))
		return false;
	if (o->nonly_tids && !has_pid(o->only_tids, o->nonly_tids, tid))
		return false;
	if (o->comm && strcmp(o->comm, comm) != 0)
		return false;
	if (!f->nglobs || !name)
		return true; /* -e names calls, not page faults */
	bool hit = false;
	for (size_t i = 0; i < f->nglobs && !hit; i++)
		hit = fnmatch(f->globs[i], name, 0) == 0;
	return hit != f->negate;
}
