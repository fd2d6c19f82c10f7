/*
 * filtercheck: why the kernel refused a tracepoint filter (source/live, L2).
 *
 * PERF_EVENT_IOC_SET_FILTER says no more than EINVAL. The commonest cause
 * is a field the event does not have; this names it, with the fields the
 * event's format file (tracefs) lists.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "source/live/evcat.h"
#include "source/live/live.h"

/* Whether name is a field of the format text, or one every event has. */
static bool has_field(const char *format, const char *name)
{
	static const char *const always[] = { "comm", "COMM", "cpu", "CPU" };
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (!strcmp(name, always[i]))
			return true;
	size_t n = strlen(name);
	for (const char *p = strstr(format, name); p; p = strstr(p + 1, name)) {
		/* "field:TYPE NAME;" or "NAME[N];": a whole word ending the declaration */
		bool start = p > format && (p[-1] == ' ' || p[-1] == '*');
		if (start && (p[n] == ';' || p[n] == '['))
			return true;
	}
	return false;
}

/* The fields of the format text, "a, b, c" (the common_ ones left out). */
static void field_list(const char *format, struct buf *b)
{
	for (const char *p = strstr(format, "field:"); p; p = strstr(p + 1, "field:")) {
		const char *end = strchr(p, ';');
		if (!end)
			break;
		const char *q = end;
		while (q > p && q[-1] == ']') /* NAME[N] */
			while (q > p && *--q != '[')
				;
		const char *e = q;
		while (q > p && (isalnum((unsigned char)q[-1]) || q[-1] == '_'))
			q--;
		if (e > q && strncmp(q, "common_", 7))
			buf_addf(b, "%s%.*s", b->len ? ", " : "", (int)(e - q), q);
	}
}

bool live_filter_unknown_field(const char *event, const char *filter, char *why, size_t len)
{
	const char *root = evcat_tracefs();
	const char *colon = strchr(event, ':');
	if (!root || !colon)
		return false;
	char path[1024];
	snprintf(path, sizeof(path), "%s/%.*s/%s/format", root, (int)(colon - event), event,
		 colon + 1);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	char format[16384];
	size_t got = fread(format, 1, sizeof(format) - 1, f);
	fclose(f);
	format[got] = '\0';
	for (const char *p = filter; *p;) {
		if (*p == '"' || *p == '\'') { /* a string value */
			char q = *p++;
			while (*p && *p != q)
				p += (*p == '\\' && p[1]) ? 2 : 1;
			if (*p)
				p++;
			continue;
		}
		if (!(isalpha((unsigned char)*p) || *p == '_')) {
			p++;
			continue;
		}
		const char *s = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		const char *op = p;
		while (*op == ' ' || *op == '\t')
			op++;
		if (!*op || !strchr("=!<>&~", *op))
			continue; /* a value, not a field */
		char name[128];
		snprintf(name, sizeof(name), "%.*s", (int)(p - s), s);
		if (has_field(format, name))
			continue;
		struct buf b;
		buf_init(&b, 4096);
		field_list(format, &b);
		snprintf(why, len, "%s has no field '%s' (its fields: %s)", event, name,
			 b.len ? buf_str(&b) : "none");
		buf_release(&b);
		return true;
	}
	return false;
}
