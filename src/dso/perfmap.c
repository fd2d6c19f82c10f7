/*
 * perfmap: /tmp/perf-PID.map text → a sorted symbol table (dso, L2). The
 * text is read line by line within its length; names are copied into one
 * arena no larger than the input.
 */
#include "dso/perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mapguard.h"
#include "base/search.h"
#include "base/vec.h"
#include "base/xalloc.h"

struct pm_sym {
	uint64_t start, end; /* [start, end); end == start: the start address alone */
	uint64_t maxend;     /* the largest end of this and every earlier entry */
	size_t name;         /* offset in 'names' */
	size_t seq;
};

struct perfmap {
	VEC(struct pm_sym) syms;
	char *names;
	size_t names_len, names_max;
};

/* How many earlier symbols a lookup may step over to find one that
 * reaches back over the address (overlapping JIT maps only). */
#define LOOKBACK_MAX 4096

/* strtoull(p, &end, 16) within [p, lim): leading white space, a sign,
 * an optional 0x, hex digits; saturating. Returns the bytes consumed (0 if
 * no number). */
static size_t hex_field(const char *p, const char *lim, uint64_t *v)
{
	const char *s = p;
	bool neg = false;
	*v = 0;
	while (s < lim && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
		s++;
	if (s < lim && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	if (lim - s >= 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    strchr("0123456789abcdefABCDEF", s[2]) && s[2])
		s += 2;
	const char *digits = s;
	bool over = false;
	for (; s < lim; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (*v >> 60)
			over = true;
		*v = *v << 4 | (uint64_t)d;
	}
	if (s == digits) {
		*v = 0;
		return 0;
	}
	if (over)
		*v = UINT64_MAX;
	else if (neg)
		*v = -*v;
	return (size_t)(s - p);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct pm_sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct perfmap *perfmap_new(size_t names_max)
{
	struct perfmap *pm = xcalloc(1, sizeof(*pm));
	pm->names = xmalloc(names_max + 1);
	pm->names_max = names_max;
	return pm;
}

const char *perfmap_add(struct perfmap *pm, uint64_t start, uint64_t size, const char *name,
			size_t n)
{
	if (n > pm->names_max - pm->names_len)
		return NULL;
	struct pm_sym *s = VEC_PUSH_ZERO(&pm->syms);
	s->start = start;
	s->end = size && start + size > start ? start + size : size ? UINT64_MAX : start;
	s->seq = pm->syms.n - 1;
	s->name = pm->names_len;
	memcpy(pm->names + pm->names_len, name, n);
	pm->names[pm->names_len + n] = '\0';
	pm->names_len += n + 1;
	return pm->names + s->name;
}

/* One line without its last byte, as perf's dso__load_perf_map reads it. */
static void parse_line(struct perfmap *pm, const char *line, size_t n)
{
	if (n == 0)
		return;
	n--; /* perf drops the '\n' (or, on a last line without one, its last byte) */
	const char *lim = line + n;
	uint64_t start, size;
	size_t len = hex_field(line, lim, &start) + 1;
	if (len + 2 >= n)
		return;
	len += hex_field(line + len, lim, &size) + 1;
	if (len + 2 >= n)
		return;
	const char *name = line + len;
	size_t nlen = n - len;
	/* A NUL inside the name ends it, as it does for perf's C string. */
	const char *nul = memchr(name, '\0', nlen);
	if (nul)
		nlen = (size_t)(nul - name);
	perfmap_add(pm, start, size, name, nlen);
}

void perfmap_finish(struct perfmap *pm)
{
	if (pm->syms.n)
		qsort(pm->syms.v, pm->syms.n, sizeof(*pm->syms.v), sym_cmp);
	uint64_t maxend = 0;
	for (size_t i = 0; i < pm->syms.n; i++) {
		struct pm_sym *s = &pm->syms.v[i];
		uint64_t e = s->end == s->start ? s->start + (s->start != UINT64_MAX) : s->end;
		if (e > maxend)
			maxend = e;
		s->maxend = maxend;
	}
}

int perfmap_parse(struct perfmap **out, const char *data, size_t len)
{
	/* Every name is a part of a line plus a NUL that replaces one of the
	 * line's bytes: the arena never outgrows the input. */
	struct perfmap *pm = perfmap_new(len);
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) + 1 : len - pos;
		if (n <= PERFMAP_LINE_MAX)
			parse_line(pm, data + pos, n);
		pos += n;
	}
	perfmap_finish(pm);
	*out = pm;
	return 0;
}

int perfmap_check_owner(const char *path, const struct stat *st, uint32_t pid)
{
	if (!S_ISREG(st->st_mode))
		return err_set(-EPERM, "'%s' is not a regular file; not used", path);
	if (st->st_uid == 0 || st->st_uid == geteuid())
		return 0;
	char proc[32];
	struct stat ps;
	snprintf(proc, sizeof(proc), "/proc/%u", pid);
	if (pid && !stat(proc, &ps) && ps.st_uid == st->st_uid)
		return 0;
	return err_set(-EPERM, "'%s' is owned by uid %u, not by root, the current user or "
		       "the process's user; not used", path, (unsigned)st->st_uid);
}

int perfmap_open_owned(const char *path, uint32_t pid, struct stat *st)
{
	struct stat lst;
	if (lstat(path, &lst))
		return err_set(-errno, "cannot read '%s': %s", path, strerror(errno));
	int err = perfmap_check_owner(path, &lst, pid);
	if (err)
		return err;
	if ((uint64_t)lst.st_size > PERFMAP_FILE_MAX)
		return err_set(-EFBIG, "'%s' is larger than %llu bytes", path,
			       (unsigned long long)PERFMAP_FILE_MAX);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_set(-errno, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, st) || st->st_ino != lst.st_ino || st->st_dev != lst.st_dev) {
		close(fd);
		return err_set(-EPERM, "'%s' changed while it was opened; not used", path);
	}
	if ((uint64_t)st->st_size > PERFMAP_FILE_MAX) {
		close(fd);
		return err_set(-EFBIG, "'%s' is larger than %llu bytes", path,
			       (unsigned long long)PERFMAP_FILE_MAX);
	}
	return fd;
}

int perfmap_load_with(struct perfmap **out, const char *path, uint32_t pid,
		      int (*parse)(struct perfmap **out, const void *data, size_t len))
{
	struct stat st;
	int err;
	*out = NULL;
	int fd = perfmap_open_owned(path, pid, &st);
	if (fd < 0)
		return fd;
	void *map = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (map == MAP_FAILED) {
		err = err_set(-errno, "cannot map '%s': %s", path, strerror(errno));
	} else if (!map) {
		err = parse(out, "", 0);
	} else {
		int guard = mapguard_add(map, (size_t)st.st_size); /* it may shrink meanwhile */
		err = parse(out, map, (size_t)st.st_size);
		uint64_t lost;
		if (mapguard_faulted(guard, &lost)) {
			if (!err)
				perfmap_free(*out);
			*out = NULL;
			err = err_corrupt_at(lost, "'%s' shrank while being read", path);
		}
		mapguard_remove(guard);
		munmap(map, (size_t)st.st_size);
	}
	close(fd);
	return err;
}

static int parse_text(struct perfmap **out, const void *data, size_t len)
{
	return perfmap_parse(out, data, len);
}

int perfmap_load(struct perfmap **out, const char *path, uint32_t pid)
{
	return perfmap_load_with(out, path, pid, parse_text);
}

void perfmap_free(struct perfmap *pm)
{
	if (!pm)
		return;
	VEC_FREE(&pm->syms);
	free(pm->names);
	free(pm);
}

static bool contains(const struct pm_sym *s, uint64_t ip)
{
	return s->end == s->start ? ip == s->start : ip >= s->start && ip < s->end;
}

const char *perfmap_lookup(const struct perfmap *pm, uint64_t ip, uint64_t *start)
{
	size_t lo = UPPER_BOUND(pm->syms.v, pm->syms.n, struct pm_sym, start, ip);
	/* lo: the first symbol starting above ip. Walk back while an earlier
	 * symbol may still reach ip. */
	for (size_t i = lo, steps = 0; i-- > 0 && steps < LOOKBACK_MAX; steps++) {
		const struct pm_sym *s = &pm->syms.v[i];
		if (s->maxend <= ip)
			break;
		if (contains(s, ip)) {
			if (start)
				*start = s->start;
			return pm->names + s->name;
		}
	}
	return NULL;
}

size_t perfmap_count(const struct perfmap *pm)
{
	return pm->syms.n;
}
