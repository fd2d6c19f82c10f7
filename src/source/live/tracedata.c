/* tracedata: the TRACING_DATA blob, from tracefs (source/live, L2). */
#include "source/live/tracedata.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xalloc.h"

#define BLOB_MAX (256u << 20)
#define FILE_MAX (64u << 20)

static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static const char *tracefs_root(void)
{
	for (size_t i = 0; i < 2; i++) {
		char p[256];
		snprintf(p, sizeof(p), "%s/events/header_page", roots[i]);
		if (!access(p, R_OK))
			return roots[i];
	}
	return NULL;
}

/* A tracefs file's whole text (its size is unknown until read). */
static int slurp(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return err_set(-errno, "cannot read %s: %s", path, strerror(errno));
	char tmp[8192];
	size_t n;
	int err = 0;
	buf_reset(b);
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0) {
		if (buf_add(b, tmp, n)) {
			err = err_set(-E2BIG, "%s is over %u MiB", path, FILE_MAX >> 20);
			break;
		}
	}
	if (!err && ferror(f))
		err = err_set(-EIO, "cannot read %s", path);
	fclose(f);
	return err;
}

/* Appends that remember a failure (the blob's ceiling) in *bad. */
static void add(struct buf *o, const void *p, size_t n, bool *bad)
{
	if (buf_add(o, p, n))
		*bad = true;
}

static void put32(struct buf *o, uint32_t v, bool *bad)
{
	add(o, &v, 4, bad);
}

static void put64(struct buf *o, uint64_t v, bool *bad)
{
	add(o, &v, 8, bad);
}

static bool wanted(const struct perf_event_attr *attrs, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (attrs[i].type == PERF_TYPE_TRACEPOINT && attrs[i].config == id)
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **live_list_dir(const char *path, size_t *n)
{
	DIR *d = opendir(path);
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	if (!d)
		return NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

void live_list_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* One system's recorded events: "name\0", u32 count, (u64 size, text)... */
static int add_system(struct buf *o, const char *root, const char *sys,
		      const struct perf_event_attr *attrs, size_t nattrs, struct buf *tmp,
		      uint32_t *nsys, bool *bad)
{
	char dir[1024];
	size_t nev;
	snprintf(dir, sizeof(dir), "%s/events/%s", root, sys);
	char **evs = live_list_dir(dir, &nev);
	struct buf part;
	uint32_t count = 0;
	int err = 0;
	buf_init(&part, BLOB_MAX);
	for (size_t i = 0; i < nev && !err; i++) {
		char p[2048];
		snprintf(p, sizeof(p), "%s/%s/id", dir, evs[i]);
		FILE *f = fopen(p, "re");
		unsigned long long id;
		if (!f)
			continue;
		bool ok = fscanf(f, "%llu", &id) == 1;
		fclose(f);
		if (!ok || !wanted(attrs, nattrs, id))
			continue;
		snprintf(p, sizeof(p), "%s/%s/format", dir, evs[i]);
		err = slurp(p, tmp);
		if (!err) {
			put64(&part, tmp->len, bad);
			add(&part, tmp->p ? tmp->p : "", tmp->len, bad);
			count++;
		}
	}
	if (!err && count) {
		add(o, sys, strlen(sys) + 1, bad);
		put32(o, count, bad);
		add(o, part.p ? part.p : "", part.len, bad);
		(*nsys)++;
	}
	buf_release(&part);
	live_list_free(evs, nev);
	return err;
}

int live_tracing_data(const struct perf_event_attr *attrs, size_t n, uint8_t **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= attrs[i].type == PERF_TYPE_TRACEPOINT;
	if (!any)
		return 0;
	const char *root = tracefs_root();
	if (!root)
		return err_set(-ENOENT, "tracefs is not mounted (/sys/kernel/tracing)");
	struct buf o, tmp;
	buf_init(&o, BLOB_MAX);
	buf_init(&tmp, FILE_MAX);
	char p[1024];
	int err = 0;
	bool bad = false; /* an append hit BLOB_MAX */
	add(&o, "\027\010\104tracing", 10, &bad);
	add(&o, "0.6", 4, &bad);
	uint8_t be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, ls = (uint8_t)sizeof(long);
	add(&o, &be, 1, &bad);
	add(&o, &ls, 1, &bad);
	put32(&o, (uint32_t)sysconf(_SC_PAGESIZE), &bad);
	static const char *const hdrs[] = { "header_page", "header_event" };
	for (int i = 0; i < 2 && !err; i++) {
		snprintf(p, sizeof(p), "%s/events/%s", root, hdrs[i]);
		err = slurp(p, &tmp);
		if (!err) {
			add(&o, hdrs[i], strlen(hdrs[i]) + 1, &bad);
			put64(&o, tmp.len, &bad);
			add(&o, tmp.p ? tmp.p : "", tmp.len, &bad);
		}
	}
	put32(&o, 0, &bad); /* ftrace formats */
	size_t nsys_at = o.len;
	uint32_t nsys = 0;
	put32(&o, 0, &bad);
	size_t ns = 0;
	snprintf(p, sizeof(p), "%s/events", root);
	char **systems = live_list_dir(p, &ns);
	for (size_t i = 0; i < ns && !err; i++) {
		if (!strcmp(systems[i], "ftrace"))
			continue;
		char d[1024];
		snprintf(d, sizeof(d), "%s/events/%s", root, systems[i]);
		DIR *probe = opendir(d);
		if (!probe)
			continue;
		closedir(probe);
		err = add_system(&o, root, systems[i], attrs, n, &tmp, &nsys, &bad);
	}
	live_list_free(systems, ns);
	if (!err) {
		memcpy(o.p + nsys_at, &nsys, 4);
		put32(&o, 0, &bad); /* kallsyms: perf 6.1 resolves kernel addresses itself */
		snprintf(p, sizeof(p), "%s/printk_formats", root);
		if (slurp(p, &tmp))
			buf_reset(&tmp); /* unreadable: none */
		put32(&o, (uint32_t)tmp.len, &bad);
		add(&o, tmp.p ? tmp.p : "", tmp.len, &bad);
		put64(&o, 0, &bad); /* saved cmdlines */
		if (bad)
			err = err_set(-E2BIG, "tracing data over %u MiB", BLOB_MAX >> 20);
	}
	buf_release(&tmp);
	if (err) {
		buf_release(&o);
		return err;
	}
	*out = (uint8_t *)buf_detach(&o, len);
	return 0;
}
