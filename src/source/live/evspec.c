/* evspec: event name parsing for -e (source/live, L2). */
#include "source/live/evspec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
};

static int tracepoint_id(const char *sys, const char *ev, uint64_t *id)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events",
					      "/sys/kernel/debug/tracing/events" };
	for (size_t i = 0; i < 2; i++) {
		char path[1024];
		if (snprintf(path, sizeof(path), "%s/%s/%s/id", roots[i], sys, ev) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		unsigned long long v;
		int ok = fscanf(f, "%llu", &v) == 1;
		fclose(f);
		if (ok) {
			*id = v;
			return 0;
		}
	}
	return -ENOENT;
}

int evspec_modifiers(struct perf_event_attr *attr, const char *mods, const char *spec)
{
	bool u = false, k = false, h = false;
	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'u':
			u = true;
			break;
		case 'k':
			k = true;
			break;
		case 'h':
			h = true;
			break;
		case 'p':
			if (attr->precise_ip < 3)
				attr->precise_ip++;
			break;
		case 'H':
		case 'G':
		case 'S':
			break;
		default:
			return err_set(-EINVAL, "unknown modifier '%c' in event '%s'", *m, spec);
		}
	}
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	return 0;
}

int evspec_parse(const char *spec, struct perf_event_attr *attr, char **name)
{
	char base[256];
	const char *mods = "";
	size_t n = strcspn(spec, ":");
	if (n >= sizeof(base) || n == 0)
		return err_set(-EINVAL, "bad event name '%s'", spec);
	memcpy(base, spec, n);
	base[n] = '\0';
	bool found = false;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (!strcmp(base, events[i].name)) {
			attr->type = events[i].type;
			attr->config = events[i].config;
			found = true;
			break;
		}
	}
	if (spec[n] == ':') {
		const char *rest = spec + n + 1;
		if (!found && strspn(rest, "ukhpHGS") != strlen(rest)) {
			/* sys:event tracepoint, maybe with :mods after it */
			char ev[256];
			size_t m = strcspn(rest, ":");
			if (m >= sizeof(ev) || m == 0)
				return err_set(-EINVAL, "bad tracepoint '%s'", spec);
			memcpy(ev, rest, m);
			ev[m] = '\0';
			uint64_t id;
			if (tracepoint_id(base, ev, &id))
				return err_set(-EINVAL, "unknown tracepoint '%s:%s' (is tracefs "
							"mounted?)",
					       base, ev);
			attr->type = PERF_TYPE_TRACEPOINT;
			attr->config = id;
			found = true;
			mods = rest[m] == ':' ? rest + m + 1 : "";
		} else {
			mods = rest;
		}
	}
	if (!found && base[0] == 'r' && base[1] && strspn(base + 1, "0123456789abcdefABCDEF") ==
							   strlen(base + 1)) {
		attr->type = PERF_TYPE_RAW;
		attr->config = strtoull(base + 1, NULL, 16);
		found = true;
	}
	if (!found)
		return err_set(-EINVAL, "unknown event '%s'", spec);
	int err = evspec_modifiers(attr, mods, spec);
	if (err)
		return err;
	*name = xstrdup(spec);
	return 0;
}
