/*
 * fuzz_maps: /proc/PID/maps text through maps_parse (source/live/maps.c,
 * what kiln record reads to describe processes already running).
 *
 * Checked beyond "no crash": every line is counted once, as good, bad or
 * long; each entry has start <= end, permissions from "rwx-"/"psx-", and a
 * name inside the text and inside its line; lines over MAPS_MAX_LINE are
 * never handed out; a good line re-parsed alone gives the same entry.
 */
#include "fuzz/fuzz.h"
#include "source/live/maps.h"

struct ctx {
	const char *text;
	size_t len;
	uint64_t good;
};

static int on_entry(void *arg, const struct maps_entry *e)
{
	struct ctx *c = arg;
	c->good++;
	fuzz_check(e->start <= e->end);
	for (int i = 0; i < 4; i++)
		fuzz_check(strchr(i == 3 ? "psx-" : "rwx-", e->perms[i]) && e->perms[i]);
	fuzz_check(e->perms[4] == '\0');
	fuzz_check(e->name >= c->text && e->name <= c->text + c->len);
	fuzz_check(e->name_len <= (size_t)(c->text + c->len - e->name));
	fuzz_check(!memchr(e->name, '\n', e->name_len));
	/* The line the entry came from, re-parsed alone. */
	const char *ls = e->name;
	while (ls > c->text && ls[-1] != '\n')
		ls--;
	size_t n = (size_t)(e->name + e->name_len - ls);
	fuzz_check(n <= MAPS_MAX_LINE);
	struct maps_entry again;
	fuzz_check(maps_parse_line(ls, n, &again) == 0);
	fuzz_check(again.start == e->start && again.end == e->end && again.pgoff == e->pgoff &&
		   again.ino == e->ino && again.maj == e->maj && again.min == e->min &&
		   again.name == e->name && again.name_len == e->name_len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	char *text = (char *)fuzz_copy(data, size);
	struct ctx c = { text, size, 0 };
	struct maps_stats st;
	fuzz_check(maps_parse(text, size, on_entry, &c, &st) == 0);
	fuzz_check(st.lines == c.good + st.bad + st.long_lines);
	fuzz_check(st.lines <= size);
	free(text);
	return 0;
}
