/* schedsw: sched:sched_switch's id, payload layout and state letters (source/live, L2). */
#include "source/live/schedsw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

#define FORMAT_MAX (64u << 10)

static const char *const roots[] = { "/sys/kernel/tracing/events/sched/sched_switch",
				      "/sys/kernel/debug/tracing/events/sched/sched_switch" };

/* A field's offset and size from its "field:TYPE NAME;\toffset:N;\tsize:M;" line. */
static bool field(const char *text, const char *name, uint32_t *off, uint32_t *size)
{
	size_t n = strlen(name);
	for (const char *p = strstr(text, "field:"); p; p = strstr(p + 1, "field:")) {
		const char *semi = strchr(p, ';');
		if (!semi || (size_t)(semi - p) < n + 1)
			continue;
		const char *nm = semi - n;
		if (memcmp(nm, name, n) || (nm[-1] != ' ' && nm[-1] != '\t' && nm[-1] != '*'))
			continue;
		const char *o = strstr(semi, "offset:"), *s = strstr(semi, "size:");
		const char *eol = strchr(semi, '\n');
		if (!o || !s || (eol && (o > eol || s > eol)))
			return false;
		*off = (uint32_t)strtoul(o + 7, NULL, 10);
		*size = (uint32_t)strtoul(s + 5, NULL, 10);
		return true;
	}
	return false;
}

/* The { 0xN, "L" } pairs of the print format's __print_flags table. */
static void flags(const char *text, struct schedsw_layout *lay)
{
	const char *p = strstr(text, "__print_flags(");
	lay->nflags = 0;
	lay->preempt_bit = 0;
	for (p = p ? strstr(p, "{ 0x") : NULL; p && lay->nflags < SCHEDSW_MAX_FLAGS;
	     p = strstr(p + 1, "{ 0x")) {
		char *e;
		uint64_t bit = strtoull(p + 2, &e, 16);
		const char *q = strchr(e, '"');
		if (!bit || !q || q - e > 4 || !q[1] || q[2] != '"')
			continue;
		lay->flag_bits[lay->nflags] = bit;
		lay->flag_letters[lay->nflags++] = q[1];
		if (bit << 1 > lay->preempt_bit)
			lay->preempt_bit = bit << 1;
	}
	if (!lay->nflags) { /* the letters of kernels 4.14 to 6.x */
		static const char def[] = "SDTtXZPI";
		for (unsigned i = 0; i < 8; i++) {
			lay->flag_bits[i] = 1ULL << i;
			lay->flag_letters[i] = def[i];
		}
		lay->nflags = 8;
		lay->preempt_bit = 1ULL << 8;
	}
}

int schedsw_parse_format(const char *text, struct schedsw_layout *lay)
{
	uint32_t sz;
	memset(lay, 0, sizeof(*lay));
	if (!field(text, "prev_pid", &lay->prev_pid_off, &sz) || sz != 4 ||
	    !field(text, "next_pid", &lay->next_pid_off, &sz) || sz != 4 ||
	    !field(text, "prev_state", &lay->prev_state_off, &lay->prev_state_size) ||
	    (lay->prev_state_size != 4 && lay->prev_state_size != 8))
		return -EINVAL;
	uint32_t end = lay->prev_state_off + lay->prev_state_size;
	if (lay->prev_pid_off + 4 > end)
		end = lay->prev_pid_off + 4;
	if (lay->next_pid_off + 4 > end)
		end = lay->next_pid_off + 4;
	lay->min_size = end;
	flags(text, lay);
	return 0;
}

char schedsw_state_letter(const struct schedsw_layout *lay, uint64_t state)
{
	if (state == 0 || (lay->preempt_bit && (state & lay->preempt_bit)))
		return 'R';
	for (unsigned i = 0; i < lay->nflags; i++)
		if (state & lay->flag_bits[i])
			return lay->flag_letters[i];
	return '?';
}

/* A tracefs file's text, NUL-terminated, at most FORMAT_MAX bytes. */
static int slurp(const char *path, char **out)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	char *b = malloc(FORMAT_MAX + 1);
	if (!b) {
		fclose(f);
		return -ENOMEM;
	}
	size_t n = fread(b, 1, FORMAT_MAX, f);
	fclose(f);
	b[n] = '\0';
	*out = b;
	return 0;
}

int schedsw_open_attr(struct perf_event_attr *attr, struct schedsw_layout *lay)
{
	int first_err = -ENOENT;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char path[256], *text = NULL;
		snprintf(path, sizeof(path), "%s/id", roots[i]);
		int err = slurp(path, &text);
		if (err) {
			if (first_err == -ENOENT && err != -ENOENT)
				first_err = err;
			continue;
		}
		char *e;
		unsigned long long id = strtoull(text, &e, 10);
		bool ok = e != text;
		free(text);
		if (!ok)
			return err_set(-EINVAL, "%s: not a tracepoint id", path);
		snprintf(path, sizeof(path), "%s/format", roots[i]);
		if ((err = slurp(path, &text)))
			return err_set(err, "cannot read %s: %s", path, strerror(-err));
		err = schedsw_parse_format(text, lay);
		free(text);
		if (err)
			return err_set(err, "%s: no prev_pid, prev_state and next_pid fields", path);
		attr->type = PERF_TYPE_TRACEPOINT;
		attr->config = id;
		return 0;
	}
	return err_set(first_err, "cannot read the sched:sched_switch tracepoint from tracefs "
				  "(%s): %s",
		       roots[0], first_err == -ENOENT ? "not mounted or no such event"
						      : strerror(-first_err));
}

size_t schedsw_sched_from(const uint64_t *k, size_t n, uint64_t lo, uint64_t hi)
{
	if (lo >= hi)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (k[i] >= lo && k[i] < hi)
			return i;
	return 0;
}

size_t schedsw_trim(uint64_t *chain, size_t n, uint64_t lo, uint64_t hi)
{
	if (n < 2 || chain[0] != PERF_CONTEXT_KERNEL)
		return n;
	size_t kn = 1; /* the kernel part: up to the next context marker */
	while (kn < n && chain[kn] < PERF_CONTEXT_MAX)
		kn++;
	size_t from = schedsw_sched_from(chain + 1, kn - 1, lo, hi);
	if (!from)
		return n;
	memmove(chain + 1, chain + 1 + from, (n - 1 - from) * sizeof(*chain));
	return n - from;
}
