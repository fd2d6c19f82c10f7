/* palmap: palette.map read, looked up, extended and written (output, L7). */
#include "output/palmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/lines.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "base/xalloc.h"

struct palmap {
	struct strtab names;
	VEC(uint8_t) has;      /* name id -> 1 if coloured */
	VEC(uint8_t) rgb;      /* name id -> 3 bytes */
	size_t count;
};

struct palmap *palmap_new(void)
{
	struct palmap *m;
	XALLOC_ARRAY(m, 1);
	memset(m, 0, sizeof(*m));
	strtab_init(&m->names);
	return m;
}

void palmap_free(struct palmap *m)
{
	if (!m)
		return;
	strtab_release(&m->names);
	VEC_FREE(&m->has);
	VEC_FREE(&m->rgb);
	free(m);
}

/* A number 0..255 at *p, advancing it; -1 if none. */
static int byte_at(const char **p, const char *end)
{
	int v = 0, digits = 0;
	while (*p < end && **p >= '0' && **p <= '9' && digits < 4) {
		v = v * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	return digits == 0 || digits > 3 || v > 255 ? -1 : v;
}

static bool parse_rgb(const char *p, const char *end, uint8_t rgb[3])
{
	if (end - p < 4 || memcmp(p, "rgb(", 4))
		return false;
	p += 4;
	for (int i = 0; i < 3; i++) {
		int v = byte_at(&p, end);
		if (v < 0)
			return false;
		rgb[i] = (uint8_t)v;
		if (p >= end || *p != (i < 2 ? ',' : ')'))
			return false;
		p++;
	}
	return p == end;
}

uint64_t palmap_parse(struct palmap *m, const char *data, size_t len)
{
	uint64_t skipped = 0;
	struct lines it;
	const char *s;
	size_t n;
	lines_init(&it, data, len);
	while (lines_next(&it, &s, &n)) {
		n = lines_drop_cr(s, n);
		if (n == 0)
			continue;
		const char *arrow = NULL;
		if (n <= PALMAP_MAX_LINE && !memchr(s, '\0', n)) {
			for (size_t i = n - 1; i >= 1; i--) {
				if (s[i - 1] == '-' && s[i] == '>') {
					arrow = s + i - 1;
					break;
				}
			}
		}
		uint8_t rgb[3];
		if (!arrow || !parse_rgb(arrow + 2, s + n, rgb)) {
			skipped++;
			continue;
		}
		palmap_put(m, s, (size_t)(arrow - s), rgb);
	}
	return skipped;
}

bool palmap_get(const struct palmap *m, const char *name, size_t n, uint8_t rgb[3])
{
	/* strtab has no lookup without insert: intern in a const-cast-free way. */
	struct palmap *mm = (struct palmap *)m;
	uint32_t id = strtab_intern(&mm->names, name, n);
	if (id >= m->has.n || !m->has.v[id])
		return false;
	memcpy(rgb, m->rgb.v + 3 * (size_t)id, 3);
	return true;
}

void palmap_put(struct palmap *m, const char *name, size_t n, const uint8_t rgb[3])
{
	if (memchr(name, '\n', n) || memchr(name, '\0', n))
		return;
	uint32_t id = strtab_intern(&m->names, name, n);
	while (m->has.n <= id) {
		VEC_PUSH(&m->has, 0);
		for (int i = 0; i < 3; i++)
			VEC_PUSH(&m->rgb, 0);
	}
	if (!m->has.v[id])
		m->count++;
	m->has.v[id] = 1;
	memcpy(m->rgb.v + 3 * (size_t)id, rgb, 3);
}

size_t palmap_count(const struct palmap *m)
{
	return m->count;
}

static int cmp_names(const void *a, const void *b, void *arg)
{
	const struct strtab *t = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t lx = strtab_len(t, x), ly = strtab_len(t, y);
	int c = memcmp(strtab_get(t, x), strtab_get(t, y), lx < ly ? lx : ly);
	if (c)
		return c;
	return lx < ly ? -1 : lx > ly;
}

int palmap_write(const struct palmap *m, FILE *f)
{
	VEC(uint32_t) ids = { 0 };
	for (uint32_t id = 0; id < m->has.n; id++)
		if (m->has.v[id])
			VEC_PUSH(&ids, id);
	if (ids.n > 1)
		qsort_r(ids.v, ids.n, sizeof(ids.v[0]), cmp_names, (void *)&m->names);
	for (size_t i = 0; i < ids.n; i++) {
		const uint8_t *c = m->rgb.v + 3 * (size_t)ids.v[i];
		fwrite(strtab_get(&m->names, ids.v[i]), 1, strtab_len(&m->names, ids.v[i]), f);
		fprintf(f, "->rgb(%u,%u,%u)\n", c[0], c[1], c[2]);
	}
	VEC_FREE(&ids);
	return ferror(f) ? -EIO : 0;
}
