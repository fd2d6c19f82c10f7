/*
 * maps: /proc/PID/maps text (source/live, L2). See maps.h.
 */
#include "source/live/maps.h"

#include <errno.h>
#include <string.h>

#include "base/digits.h"

struct cur {
	const char *p, *end;
};

/* 1..16 hex digits. */
static int get_hex(struct cur *c, uint64_t *v)
{
	uint64_t x = 0;
	int n = 0, d;
	while (c->p < c->end && (d = digits_hexval(*c->p)) >= 0) {
		if (++n > 16)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
		c->p++;
	}
	*v = x;
	return n ? 0 : -EINVAL;
}

/* Decimal, at most 2^64 - 1. */
static int get_dec(struct cur *c, uint64_t *v)
{
	uint64_t x = 0;
	int n = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		uint64_t d = (uint64_t)(*c->p - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
		c->p++;
		n++;
	}
	*v = x;
	return n ? 0 : -EINVAL;
}

static int get_ch(struct cur *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return -EINVAL;
	c->p++;
	return 0;
}

int maps_parse_line(const char *p, size_t n, struct maps_entry *e)
{
	struct cur c = { p, p + n };
	uint64_t maj, min;
	memset(e, 0, sizeof(*e));
	if (get_hex(&c, &e->start) || get_ch(&c, '-') || get_hex(&c, &e->end) || get_ch(&c, ' '))
		return -EINVAL;
	if (e->end < e->start || c.end - c.p < 4)
		return -EINVAL;
	for (int i = 0; i < 4; i++, c.p++) {
		if (!strchr(i == 3 ? "psx-" : "rwx-", *c.p) || !*c.p)
			return -EINVAL;
		e->perms[i] = *c.p;
	}
	if (get_ch(&c, ' ') || get_hex(&c, &e->pgoff) || get_ch(&c, ' ') || get_hex(&c, &maj) ||
	    get_ch(&c, ':') || get_hex(&c, &min) || get_ch(&c, ' ') || get_dec(&c, &e->ino))
		return -EINVAL;
	if (maj > UINT32_MAX || min > UINT32_MAX)
		return -EINVAL;
	e->maj = (uint32_t)maj;
	e->min = (uint32_t)min;
	if (c.p < c.end && *c.p != ' ')
		return -EINVAL;
	while (c.p < c.end && *c.p == ' ')
		c.p++;
	e->name = c.p;
	e->name_len = (size_t)(c.end - c.p);
	return 0;
}

int maps_parse(const char *text, size_t len, maps_fn fn, void *arg, struct maps_stats *st)
{
	const char *p = text, *end = text + len;
	memset(st, 0, sizeof(*st));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		st->lines++;
		struct maps_entry e;
		if (n > MAPS_MAX_LINE) {
			st->long_lines++;
		} else if (maps_parse_line(p, n, &e)) {
			st->bad++;
		} else {
			int ret = fn(arg, &e);
			if (ret)
				return ret;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}
