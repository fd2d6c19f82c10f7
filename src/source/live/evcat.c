/* evcat: event catalogue and -e lists (source/live, L2). */
#include "source/live/evcat.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "source/live/evspec.h"
#include "source/live/live.h"
#include "source/live/tracedata.h"

struct named {
	const char *name, *alias;
	uint64_t config;
};

/* perf list's hardware and software names (perf's spellings, sorted). */
static const struct named hw_events[] = {
	{ "branch-instructions", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_COUNT_HW_BUS_CYCLES },
	{ "cache-misses", NULL, PERF_COUNT_HW_CACHE_MISSES },
	{ "cache-references", NULL, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cpu-cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_COUNT_HW_INSTRUCTIONS },
	{ "ref-cycles", NULL, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
};

static const struct named sw_events[] = {
	{ "alignment-faults", NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "bpf-output", NULL, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", NULL, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES */ },
	{ "context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-clock", NULL, PERF_COUNT_SW_CPU_CLOCK },
	{ "cpu-migrations", "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "dummy", NULL, PERF_COUNT_SW_DUMMY },
	{ "emulation-faults", NULL, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK },
};

static const char *const tool_events[] = { "duration_time", "user_time", "system_time" };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Hardware cache events: perf's names and which ops each cache has. */
static const char *const cache_names[] = { "L1-dcache", "L1-icache", "LLC", "dTLB",
					   "iTLB", "branch", "node" };
static const unsigned cache_ops_valid[] = { 7, 5, 7, 7, 1, 1, 7 }; /* bit per op */
static const char *const cache_op_names[] = { "load", "store", "prefetch" };
static const char *const cache_access[] = { "loads", "stores", "prefetches" };

const char *evcat_tracefs(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events",
					      "/sys/kernel/debug/tracing/events" };
	for (size_t i = 0; i < NELEM(roots); i++)
		if (access(roots[i], R_OK | X_OK) == 0) {
			char probe[64];
			snprintf(probe, sizeof(probe), "%s/sched", roots[i]);
			if (access(probe, X_OK) == 0 || i == NELEM(roots) - 1)
				return roots[i];
		}
	return NULL;
}

/* The name of cache event (c, op, res) into out; false if perf has none. */
static bool cache_name(unsigned c, unsigned op, unsigned res, char *out, size_t len)
{
	if (!(cache_ops_valid[c] & (1u << op)))
		return false;
	if (res == 0)
		snprintf(out, len, "%s-%s", cache_names[c], cache_access[op]);
	else
		snprintf(out, len, "%s-%s-misses", cache_names[c], cache_op_names[op]);
	return true;
}

static bool lookup_cache(const char *base, uint64_t *config)
{
	char nm[64];
	for (unsigned c = 0; c < NELEM(cache_names); c++)
		for (unsigned op = 0; op < 3; op++)
			for (unsigned res = 0; res < 2; res++)
				if (cache_name(c, op, res, nm, sizeof(nm)) && !strcmp(nm, base)) {
					*config = c | (op << 8) | (res << 16);
					return true;
				}
	return false;
}

static bool lookup_named(const struct named *t, size_t n, const char *base, uint64_t *config)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, base) || (t[i].alias && !strcmp(t[i].alias, base))) {
			*config = t[i].config;
			return true;
		}
	return false;
}

/* Put 'val' into the bits a PMU format file names ("config:0-7,32-35"). */
static int apply_format(struct perf_event_attr *attr, const char *fmt, uint64_t val)
{
	__u64 *dst;
	const char *bits;
	if (!strncmp(fmt, "config:", 7)) {
		dst = &attr->config;
		bits = fmt + 7;
	} else if (!strncmp(fmt, "config1:", 8)) {
		dst = &attr->config1;
		bits = fmt + 8;
	} else if (!strncmp(fmt, "config2:", 8)) {
		dst = &attr->config2;
		bits = fmt + 8;
	} else {
		return -EINVAL;
	}
	unsigned shift = 0;
	while (*bits) {
		char *end;
		unsigned long lo = strtoul(bits, &end, 10), hi = lo;
		if (end == bits || lo > 63)
			return -EINVAL;
		if (*end == '-') {
			bits = end + 1;
			hi = strtoul(bits, &end, 10);
			if (end == bits || hi > 63 || hi < lo)
				return -EINVAL;
		}
		for (unsigned long b = lo; b <= hi; b++, shift++)
			if (shift < 64 && (val >> shift & 1))
				*dst |= 1ULL << b;
		if (*end == ',')
			end++;
		bits = end;
	}
	return 0;
}

static int apply_terms(struct perf_event_attr *attr, const char *pmu, char *terms, int depth);

/* One term of pmu/TERMS/: a format field, config*, or a sysfs event alias. */
static int apply_term(struct perf_event_attr *attr, const char *pmu, char *term, int depth)
{
	char *eq = strchr(term, '=');
	uint64_t val = 1;
	if (eq) {
		*eq = '\0';
		char *end;
		errno = 0;
		val = strtoull(eq + 1, &end, 0);
		if (errno || end == eq + 1 || *end)
			return -EINVAL;
	}
	if (!strcmp(term, "config")) {
		attr->config = val;
		return 0;
	}
	if (!strcmp(term, "config1")) {
		attr->config1 = val;
		return 0;
	}
	if (!strcmp(term, "config2")) {
		attr->config2 = val;
		return 0;
	}
	char path[512], text[512];
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/%s", pmu, term);
	if (live_read_small(path, text, sizeof(text)) == 0)
		return apply_format(attr, text, val);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/%s", pmu, term);
	if (!eq && depth == 0 && live_read_small(path, text, sizeof(text)) == 0)
		return apply_terms(attr, pmu, text, depth + 1);
	return -ENOENT;
}

static int apply_terms(struct perf_event_attr *attr, const char *pmu, char *terms, int depth)
{
	char *save = NULL;
	for (char *t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		if (*t && apply_term(attr, pmu, t, depth))
			return -EINVAL;
	}
	return 0;
}

/* pmu/terms/mods */
static int parse_pmu(const char *spec, struct perf_event_attr *attr)
{
	const char *s1 = strchr(spec, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	if (!s1 || !s2 || s1 == spec || s1 - spec >= 128 || s2 - s1 >= 512)
		return err_set(-EINVAL, "bad event '%s' (PMU/terms/)", spec);
	char pmu[128], terms[512], path[256], text[64];
	memcpy(pmu, spec, (size_t)(s1 - spec));
	pmu[s1 - spec] = '\0';
	memcpy(terms, s1 + 1, (size_t)(s2 - s1 - 1));
	terms[s2 - s1 - 1] = '\0';
	if (strchr(pmu, '.'))
		return err_set(-EINVAL, "unknown PMU '%s' in '%s'", pmu, spec);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	if (live_read_small(path, text, sizeof(text)))
		return err_set(-EINVAL, "unknown PMU '%s' in '%s' (no %s)", pmu, spec, path);
	attr->type = (uint32_t)strtoul(text, NULL, 10);
	if (apply_terms(attr, pmu, terms, 0))
		return err_set(-EINVAL, "bad terms in '%s' (see /sys/bus/event_source/devices/%s/format)",
			       spec, pmu);
	return evspec_modifiers(attr, s2 + 1, spec);
}

static void push(struct evcat_event **v, size_t *n, const char *name,
		 const struct perf_event_attr *a)
{
	XREALLOC_ARRAY(*v, *n + 1);
	(*v)[*n] = (struct evcat_event){ .name = xstrdup(name), .attr = *a, .leader = -1 };
	(*n)++;
}

static bool is_glob(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
	return false;
}

static bool skip_dir(const char *name)
{
	return name[0] == '.' || !strcmp(name, "enable") || !strcmp(name, "filter") ||
	       !strcmp(name, "header_page") || !strcmp(name, "header_event");
}

static int read_id(const char *root, const char *sys, const char *ev, uint64_t *id)
{
	char path[1024], text[32];
	snprintf(path, sizeof(path), "%s/%s/%s/id", root, sys, ev);
	if (live_read_small(path, text, sizeof(text)))
		return -ENOENT;
	*id = strtoull(text, NULL, 10);
	return 0;
}

/* sys:ev with globs, in the directory order of tracefs (as perf opens them). */
static int expand_tracepoints(const char *sysg, const char *evg, const char *mods,
			      const char *spec, struct evcat_event **v, size_t *n)
{
	const char *root = evcat_tracefs();
	if (!root)
		return err_set(-EINVAL, "'%s': tracefs is not readable (mount it, or run as root)",
			       spec);
	DIR *d = opendir(root);
	if (!d)
		return err_set(-EINVAL, "'%s': cannot read %s: %s", spec, root, strerror(errno));
	size_t before = *n;
	int err = 0;
	struct dirent *de;
	while (!err && (de = readdir(d))) {
		if (skip_dir(de->d_name) || !strcmp(de->d_name, "ftrace") ||
		    fnmatch(sysg, de->d_name, 0))
			continue;
		char sub[1024];
		snprintf(sub, sizeof(sub), "%s/%s", root, de->d_name);
		DIR *e = opendir(sub);
		if (!e)
			continue;
		struct dirent *ee;
		while ((ee = readdir(e))) {
			uint64_t id;
			if (skip_dir(ee->d_name) || fnmatch(evg, ee->d_name, 0) ||
			    read_id(root, de->d_name, ee->d_name, &id))
				continue;
			struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .config = id };
			if ((err = evspec_modifiers(&a, mods, spec)))
				break;
			char *nm = xasprintf("%s:%s", de->d_name, ee->d_name);
			push(v, n, nm, &a);
			free(nm);
		}
		closedir(e);
	}
	closedir(d);
	if (!err && *n == before)
		err = err_set(-EINVAL, "no tracepoint matches '%s'", spec);
	return err;
}

/* One event (no commas outside a PMU's slashes). */
static int parse_one(const char *spec, struct evcat_event **v, size_t *n)
{
	struct perf_event_attr a = { 0 };
	if (strchr(spec, '/')) {
		int err = parse_pmu(spec, &a);
		if (!err)
			push(v, n, spec, &a);
		return err;
	}
	char base[256];
	size_t bl = strcspn(spec, ":");
	if (bl == 0 || bl >= sizeof(base))
		return err_set(-EINVAL, "bad event name '%s'", spec);
	memcpy(base, spec, bl);
	base[bl] = '\0';
	const char *mods = spec[bl] == ':' ? spec + bl + 1 : "";
	bool mods_only = strspn(mods, "ukhpHGS") == strlen(mods);
	for (unsigned i = 0; i < NELEM(tool_events); i++)
		if (!strcmp(spec, tool_events[i])) {
			a.type = EVCAT_TYPE_TOOL;
			a.config = i;
			push(v, n, spec, &a);
			return 0;
		}
	uint64_t config;
	uint32_t type = PERF_TYPE_MAX;
	if (lookup_cache(base, &config))
		type = PERF_TYPE_HW_CACHE;
	else if (lookup_named(sw_events, NELEM(sw_events), base, &config))
		type = PERF_TYPE_SOFTWARE;
	else if (lookup_named(hw_events, NELEM(hw_events), base, &config))
		type = PERF_TYPE_HARDWARE;
	if (mods_only && type != PERF_TYPE_MAX) {
		a.type = type;
		a.config = config;
		int err = evspec_modifiers(&a, mods, spec);
		if (!err)
			push(v, n, spec, &a);
		return err;
	}
	if (!mods_only && !evcat_tracefs())
		return err_set(-EINVAL, "'%s': tracefs is not readable by this user (mount it, or "
					"run as root)",
			       spec);
	if (!mods_only) {
		size_t el = strcspn(mods, ":");
		if (is_glob(base, bl) || is_glob(mods, el)) {
			char ev[256];
			if (el == 0 || el >= sizeof(ev))
				return err_set(-EINVAL, "bad tracepoint '%s'", spec);
			memcpy(ev, mods, el);
			ev[el] = '\0';
			return expand_tracepoints(base, ev, mods[el] == ':' ? mods + el + 1 : "",
						  spec, v, n);
		}
	}
	char *name = NULL;
	int err = evspec_parse(spec, &a, &name);
	if (err)
		return err;
	push(v, n, name, &a);
	free(name);
	return 0;
}

/* The end of the event starting at s: the next 'stop' outside a PMU's slashes. */
static size_t term_len(const char *s, const char *stop)
{
	size_t i = 0;
	bool in_pmu = false;
	for (; s[i]; i++) {
		if (s[i] == '/')
			in_pmu = !in_pmu;
		else if (!in_pmu && strchr(stop, s[i]))
			break;
	}
	return i;
}

static int parse_term(const char *s, size_t len, struct evcat_event **v, size_t *n, char **bad)
{
	char *one = xstrndup(s, len);
	int err = parse_one(one, v, n);
	if (err && bad && !*bad)
		*bad = xstrdup(one);
	free(one);
	return err;
}

int evcat_parse(const char *arg, struct evcat_event **v, size_t *n, char **bad)
{
	const char *s = arg;
	while (*s) {
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s != '{') {
			size_t len = term_len(s, ",");
			int err = parse_term(s, len, v, n, bad);
			if (err)
				return err;
			s += len;
			continue;
		}
		/* {a,b,...}[:mods] */
		const char *close = strchr(s, '}');
		if (!close)
			return err_set(-EINVAL, "'%s': a group without its closing '}'", arg);
		size_t first = *n;
		const char *p = s + 1;
		while (p < close) {
			if (*p == ',') {
				p++;
				continue;
			}
			size_t len = term_len(p, ",}");
			int err = parse_term(p, len, v, n, bad);
			if (err)
				return err;
			p += len;
		}
		s = close + 1;
		if (*s == ':') {
			size_t ml = strcspn(s + 1, ",");
			char *mods = xstrndup(s + 1, ml);
			for (size_t i = first; i < *n; i++) {
				int err = evspec_modifiers(&(*v)[i].attr, mods, arg);
				if (err) {
					free(mods);
					return err;
				}
				/* perf names a group's members without the group's modifiers */
			}
			free(mods);
			s += 1 + ml;
		}
		if (*n - first > 1)
			for (size_t i = first; i < *n; i++)
				(*v)[i].leader = (int)first;
	}
	return 0;
}

void evcat_events_free(struct evcat_event *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* ---- the list ---- */

static bool kernel_accepts(uint32_t type, uint64_t config)
{
	struct perf_event_attr a = { .type = type, .size = sizeof(a), .config = config,
				     .disabled = 1, .exclude_kernel = 1, .exclude_hv = 1 };
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

static void add_entry(struct evcat_entry **v, size_t *n, enum evcat_kind k, const char *name,
		      const char *alias, const char *desc)
{
	XREALLOC_ARRAY(*v, *n + 1);
	(*v)[(*n)++] = (struct evcat_entry){ .kind = k, .name = xstrdup(name),
					     .alias = alias ? xstrdup(alias) : NULL,
					     .desc = desc ? xstrdup(desc) : NULL };
}

static void list_pmus(struct evcat_entry **v, size_t *n)
{
	const char *root = "/sys/bus/event_source/devices";
	size_t np;
	char **pmus = live_list_dir(root, &np);
	for (size_t i = 0; i < np; i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s/events", root, pmus[i]);
		size_t ne;
		char **evs = live_list_dir(path, &ne);
		for (size_t j = 0; j < ne; j++) {
			size_t l = strlen(evs[j]);
			/* .scale, .unit, .per-pkg, .snapshot: attributes of an event */
			if (strchr(evs[j], '.') && l > 0)
				continue;
			char *name = xasprintf("%s/%s/", pmus[i], evs[j]);
			char desc[256];
			char *dp = NULL;
			snprintf(path, sizeof(path), "%s/%s/events/%s.desc", root, pmus[i], evs[j]);
			if (live_read_small(path, desc, sizeof(desc)) == 0)
				dp = desc;
			add_entry(v, n, EVCAT_PMU, name, NULL, dp);
			free(name);
		}
		live_list_free(evs, ne);
	}
	live_list_free(pmus, np);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct evcat_entry *)a)->name, ((const struct evcat_entry *)b)->name);
}

void evcat_list(struct evcat_entry **v, size_t *n, unsigned *notes)
{
	*v = NULL;
	*n = 0;
	*notes = 0;
	for (size_t i = 0; i < NELEM(hw_events); i++)
		if (kernel_accepts(PERF_TYPE_HARDWARE, hw_events[i].config))
			add_entry(v, n, EVCAT_HW, hw_events[i].name, hw_events[i].alias, NULL);
	for (size_t i = 0; i < NELEM(sw_events); i++)
		add_entry(v, n, EVCAT_SW, sw_events[i].name, sw_events[i].alias, NULL);
	for (size_t i = 0; i < NELEM(tool_events); i++)
		add_entry(v, n, EVCAT_TOOL, tool_events[i], NULL, NULL);
	size_t c0 = *n;
	char nm[64];
	for (unsigned c = 0; c < NELEM(cache_names); c++)
		for (unsigned op = 0; op < 3; op++)
			for (unsigned res = 0; res < 2; res++)
				if (cache_name(c, op, res, nm, sizeof(nm)) &&
				    kernel_accepts(PERF_TYPE_HW_CACHE, c | (op << 8) | (res << 16)))
					add_entry(v, n, EVCAT_CACHE, nm, NULL, NULL);
	if (*n > c0)
		qsort(*v + c0, *n - c0, sizeof(**v), cmp_entry);
	list_pmus(v, n);
	const char *root = evcat_tracefs();
	size_t ns;
	char **systems = root ? live_list_dir(root, &ns) : NULL;
	if (!root || !systems) {
		*notes |= EVCAT_NO_TRACEFS;
		return;
	}
	size_t t0 = *n;
	for (size_t i = 0; i < ns; i++) {
		if (skip_dir(systems[i]))
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", root, systems[i]);
		size_t ne;
		char **evs = live_list_dir(path, &ne);
		for (size_t j = 0; j < ne; j++) {
			uint64_t id;
			if (skip_dir(evs[j]) || read_id(root, systems[i], evs[j], &id))
				continue;
			char *name = xasprintf("%s:%s", systems[i], evs[j]);
			add_entry(v, n, EVCAT_TRACEPOINT, name, NULL, NULL);
			free(name);
		}
		live_list_free(evs, ne);
	}
	live_list_free(systems, ns);
	if (*n > t0)
		qsort(*v + t0, *n - t0, sizeof(**v), cmp_entry);
}

void evcat_list_free(struct evcat_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].alias);
		free(v[i].desc);
	}
	free(v);
}

size_t evcat_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, 255), lb = strnlen(b, 255);
	size_t row[256];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

char *evcat_closest(const char *name)
{
	char base[256];
	size_t bl = strcspn(name, strchr(name, '/') ? "" : ":");
	/* a tracepoint keeps its sys:event; other names lose their modifiers */
	if (strchr(name, ':') && strspn(name + bl + 1, "ukhpHGS") != strlen(name + bl + 1))
		bl = strcspn(name + bl + 1, ":") + bl + 1;
	snprintf(base, sizeof(base), "%.*s", (int)bl, name);
	struct evcat_entry *v;
	size_t n;
	unsigned notes;
	evcat_list(&v, &n, &notes);
	/* The hardware names perf knows, whether or not this machine counts them. */
	for (size_t i = 0; i < NELEM(hw_events); i++)
		add_entry(&v, &n, EVCAT_HW, hw_events[i].name, hw_events[i].alias, NULL);
	const char *best = NULL;
	size_t bestd = (size_t)-1;
	for (size_t i = 0; i < n; i++) {
		const char *cand[2] = { v[i].name, v[i].alias };
		for (int k = 0; k < 2; k++) {
			if (!cand[k])
				continue;
			size_t d = evcat_distance(base, cand[k]);
			if (d < bestd) {
				bestd = d;
				best = cand[k];
			}
		}
	}
	size_t limit = strlen(base) / 3 + 1;
	char *out = best && bestd <= limit && bestd > 0 ? xstrdup(best) : NULL;
	evcat_list_free(v, n);
	return out;
}
