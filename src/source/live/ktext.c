/*
 * ktext: the kernel's text, __schedule's and the BPF programs' names from
 * /proc/kallsyms in one pass. See ktext.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/digits.h"
#include "base/lines.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "source/live/ktext.h"

/* /proc/kallsyms is ~10 MB with many modules; more is not a kallsyms. */
#define KTEXT_MAX_BYTES (256u << 20)
#define KTEXT_CHUNK (1u << 20)

/* One line's fields: "ADDR TYPE NAME[\t[MODULE]]". */
struct kline {
	uint64_t addr;
	char type;
	const char *name;
	size_t nl;
	bool module; /* a '[' in the line: a module's (or BPF's, ftrace's) symbol */
	bool bpf;    /* "\t[bpf]" in the line */
};

/* The fields of the line [s, e); false for a line without all three. */
static bool parse_line(const char *s, const char *e, struct kline *l)
{
	const char *p = s;
	while (p < e && lines_blank(*p))
		p++;
	uint64_t a = 0;
	const char *d = p;
	for (int v; p < e && (v = digits_hexval(*p)) >= 0; p++)
		a = a << 4 | (uint64_t)v;
	if (p == d || p - d > 16 || p == e || !lines_blank(*p))
		return false;
	while (p < e && lines_blank(*p))
		p++;
	if (p == e)
		return false;
	l->type = *p++;
	while (p < e && lines_blank(*p))
		p++;
	const char *n = p;
	while (p < e && !lines_blank(*p))
		p++;
	if (p == n)
		return false;
	l->addr = a;
	l->name = n;
	l->nl = (size_t)(p - n);
	l->module = memchr(p, '[', (size_t)(e - p)) != NULL;
	l->bpf = l->module && memmem(p, (size_t)(e - p), "\t[bpf]", 6);
	return true;
}

static bool name_is(const struct kline *l, const char *lit)
{
	size_t n = strlen(lit);
	return l->nl == n && !memcmp(l->name, lit, n);
}

void ktext_parse(struct ktext *k, const char *text, size_t len)
{
	VEC(struct ktext_bpf) bpf = { 0 };
	uint64_t text_at = 0, etext = 0, last = 0, lo = 0, hi = 0;
	enum { SCHED_LOOK, SCHED_NEXT, SCHED_DONE } sched = SCHED_LOOK;
	struct lines it;
	const char *s;
	size_t n;

	memset(k, 0, sizeof(*k));
	lines_init(&it, text, len);
	while (lines_next(&it, &s, &n)) {
		struct kline l;
		if (!parse_line(s, s + n, &l))
			continue;
		/* __schedule's text ends at the next line's higher address. */
		if (sched == SCHED_NEXT && l.addr > lo) {
			hi = l.addr;
			sched = SCHED_DONE;
		} else if (sched == SCHED_LOOK && (l.type == 't' || l.type == 'T') && l.addr &&
			   name_is(&l, "__schedule")) {
			lo = l.addr;
			sched = SCHED_NEXT;
		}
		if (l.bpf && l.nl > 9 && !memcmp(l.name, "bpf_prog_", 9)) {
			struct ktext_bpf *b = VEC_PUSH_ZERO(&bpf);
			b->addr = l.addr;
			b->name = xstrndup(l.name, l.nl);
		}
		if (l.module) /* module symbols follow the core kernel's */
			continue;
		if (name_is(&l, "_text"))
			text_at = l.addr;
		else if (name_is(&l, "_etext"))
			etext = l.addr;
		if (l.addr > last)
			last = l.addr;
	}
	if (text_at) {
		k->text = text_at;
		k->end = etext > text_at ? etext : last;
	}
	if (sched == SCHED_DONE) {
		k->sched_lo = lo;
		k->sched_hi = hi;
	}
	k->bpf = bpf.v;
	k->nbpf = bpf.n;
}

void ktext_read(struct ktext *k)
{
	memset(k, 0, sizeof(*k));
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	while (n < KTEXT_MAX_BYTES) {
		if (cap - n < KTEXT_CHUNK) {
			cap = cap ? cap * 2 : 8 * KTEXT_CHUNK;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, KTEXT_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* the end, or an error: what was read stands */
		n += (size_t)r;
	}
	close(fd);
	ktext_parse(k, buf ? buf : "", n);
	free(buf);
}

void ktext_release(struct ktext *k)
{
	for (size_t i = 0; i < k->nbpf; i++)
		free(k->bpf[i].name);
	free(k->bpf);
	memset(k, 0, sizeof(*k));
}
