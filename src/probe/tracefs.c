/* tracefs: probe events added, listed and deleted through tracefs (probe, L3). */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "probe/probe.h"

/* Longest probe_events line read back. */
#define PROBE_LINE_MAX 8192

const char *probe_tracefs(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	for (size_t i = 0; i < 2; i++) {
		char p[64];
		snprintf(p, sizeof(p), "%s/events", roots[i]);
		if (access(p, X_OK) == 0)
			return roots[i];
	}
	return NULL;
}

static const char *events_file(bool kernel)
{
	return kernel ? "kprobe_events" : "uprobe_events";
}

bool probe_tracefs_has(const char *tracefs, bool kernel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tracefs, events_file(kernel));
	return access(p, F_OK) == 0;
}

bool probe_event_exists(const char *tracefs, const char *group, const char *event)
{
	char p[1024];
	struct stat st;
	snprintf(p, sizeof(p), "%s/events/%s/%s", tracefs, group, event);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The last line of tracefs's error_log (the kernel's reason for a refusal), or "". */
static void last_error(const char *tracefs, char *out, size_t len)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/error_log", tracefs);
	out[0] = '\0';
	FILE *f = fopen(p, "re");
	if (!f)
		return;
	char line[1024], prev[1024] = "";
	/* error_log: "[time] trace_uprobe: error: REASON\n  Command: ...\n        ^\n" */
	while (fgets(line, sizeof(line), f)) {
		char *e = strstr(line, "error: ");
		if (e) {
			snprintf(prev, sizeof(prev), "%s", e + 7);
			prev[strcspn(prev, "\n")] = '\0';
		}
	}
	fclose(f);
	snprintf(out, len, "%s", prev);
}

static int write_line(const char *tracefs, bool kernel, const char *line)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", tracefs, events_file(kernel));
	int fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			return err_set(-ENOENT, "%s does not exist: this kernel has no %s events (%s)", p,
				       kernel ? "kprobe" : "uprobe",
				       kernel ? "CONFIG_KPROBE_EVENTS" : "CONFIG_UPROBE_EVENTS");
		return err_set(-e, "%s: %s%s", p, strerror(e),
			       e == EACCES || e == EPERM ? " (probes need root)" : "");
	}
	size_t n = strlen(line);
	char *l = xmalloc(n + 2);
	memcpy(l, line, n);
	l[n] = '\n';
	l[n + 1] = '\0';
	ssize_t w = write(fd, l, n + 1);
	int e = errno;
	free(l);
	close(fd);
	if (w == (ssize_t)(n + 1))
		return 0;
	if (w >= 0)
		e = EIO;
	return -e;
}

int probe_add(const char *tracefs, const struct probe_def *d)
{
	char *line = probe_def_line(d);
	err_clear();
	int err = write_line(tracefs, d->kernel, line);
	if (err && !err_last()->msg[0]) { /* opened, the write was refused */
		char why[512];
		last_error(tracefs, why, sizeof(why));
		err = err_set(err, "the kernel refused probe '%s': %s%s%s", line, strerror(-err),
			      why[0] ? ": " : "", why);
	}
	free(line);
	return err;
}

int probe_del(const char *tracefs, bool kernel, const char *group, const char *event)
{
	char line[512];
	snprintf(line, sizeof(line), "-:%s/%s", group, event);
	err_clear();
	int err = write_line(tracefs, kernel, line);
	if (err == -EBUSY)
		return err_set(err, "%s:%s is in use (a perf_event or trace is using it): stop that "
				    "first",
			       group, event);
	if (err && !err_last()->msg[0])
		return err_set(err, "cannot delete %s:%s: %s", group, event, strerror(-err));
	return err;
}

/* Parse one probe_events line "p:GROUP/EVENT TARGET ARGS". */
static bool parse_line(char *line, bool kernel, struct probe_entry *e)
{
	memset(e, 0, sizeof(*e));
	line[strcspn(line, "\n")] = '\0';
	if ((line[0] != 'p' && line[0] != 'r') || !strchr(line, ':'))
		return false;
	char *save = NULL;
	char *kind = strtok_r(line, " ", &save);
	char *target = strtok_r(NULL, " ", &save);
	char *c = strchr(kind, ':'), *slash = c ? strchr(c, '/') : NULL;
	if (!c || !slash || !target)
		return false;
	e->kernel = kernel;
	e->ret = kind[0] == 'r';
	*slash = '\0';
	e->group = xstrdup(c + 1);
	e->event = xstrdup(slash + 1);
	e->target = xstrdup(target);
	char names[PROBE_LINE_MAX] = "";
	size_t used = 0;
	for (char *a = strtok_r(NULL, " ", &save); a; a = strtok_r(NULL, " ", &save)) {
		size_t n = strcspn(a, "=");
		if (used + n + 2 >= sizeof(names))
			break;
		if (used)
			names[used++] = ' ';
		memcpy(names + used, a, n);
		used += n;
		names[used] = '\0';
	}
	e->argnames = xstrdup(names);
	return true;
}

int probe_list(const char *tracefs, struct probe_entry **v, size_t *n)
{
	*v = NULL;
	*n = 0;
	for (int k = 0; k < 2; k++) {
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", tracefs, events_file(k == 1));
		FILE *f = fopen(p, "re");
		if (!f) {
			if (errno == ENOENT)
				continue;
			int e = errno;
			probe_entries_free(*v, *n);
			*v = NULL;
			*n = 0;
			return err_set(-e, "%s: %s", p, strerror(e));
		}
		char *line = xmalloc(PROBE_LINE_MAX);
		while (fgets(line, PROBE_LINE_MAX, f)) {
			if (!strchr(line, '\n')) { /* longer: the rest is not parsed */
				int ch;
				while ((ch = fgetc(f)) != EOF && ch != '\n')
					;
			}
			struct probe_entry e;
			if (!parse_line(line, k == 1, &e))
				continue;
			XREALLOC_ARRAY(*v, *n + 1);
			(*v)[(*n)++] = e;
		}
		free(line);
		fclose(f);
	}
	/* by GROUP:EVENT as perf probe -l sorts them; an event's addresses stay in order */
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0; j--) {
			struct probe_entry *a = &(*v)[j - 1], *b = &(*v)[j];
			int c = strcmp(a->group, b->group);
			if (c < 0 || (c == 0 && strcmp(a->event, b->event) <= 0))
				break;
			struct probe_entry tmp = *a;
			*a = *b;
			*b = tmp;
		}
	return 0;
}

void probe_entries_free(struct probe_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].group);
		free(v[i].event);
		free(v[i].target);
		free(v[i].argnames);
	}
	free(v);
}

bool probe_glob_match(const char *pattern, const char *group, const char *event)
{
	const char *c = strchr(pattern, ':');
	if (!c)
		return fnmatch(pattern, event, 0) == 0;
	char g[256];
	size_t n = (size_t)(c - pattern);
	if (n >= sizeof(g))
		return false;
	memcpy(g, pattern, n);
	g[n] = '\0';
	return fnmatch(g, group, 0) == 0 && fnmatch(c + 1, event, 0) == 0;
}
