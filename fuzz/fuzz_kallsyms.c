/*
 * fuzz_kallsyms: /proc/kallsyms text through kallsyms_parse and
 * kallsyms_parse_perf (dso: kiln's table and perf's reading of it), then
 * on each table lookups at the addresses the text itself names (the hex at the start of
 * its first lines, and one byte either side), at 0 and at the top of the
 * address space, and by name for every symbol found. Checked beyond "no
 * crash": a symbol found for an address starts at or below it; its name is
 * non-empty and kallsyms_find() knows it (at an address no higher); the
 * counts are bounded by the text's length; a restricted table resolves
 * nothing; the core kernel's span does not end before it starts. The
 * same bytes as binary records (kallsyms_parse_records, both flavours):
 * either -EBADMSG and no table, or a table that passes the same checks,
 * looked up at the values of its first records.
 */
#include <errno.h>
#include <stdbool.h>

#include "dso/kallsyms.h"
#include "fuzz/fuzz.h"

static void lookup(const struct kallsyms *ks, uint64_t addr)
{
	uint64_t start = 0, found = 0;
	const char *module = NULL;
	const char *name = kallsyms_lookup(ks, addr, &start, &module);
	if (!name)
		return;
	fuzz_check(!kallsyms_restricted(ks));
	fuzz_check(start <= addr);
	fuzz_check(name[0] != '\0');
	fuzz_check(module == NULL || module[0] != '\0');
	fuzz_check(kallsyms_find(ks, name, &found));
	fuzz_check(found <= start);
	fuzz_check(kallsyms_lookup(ks, addr, NULL, NULL) == name);
}

/* The hex number at the start of the line at 'p', if any. */
static int line_addr(const char *p, const char *end, uint64_t *addr)
{
	uint64_t v = 0;
	int digits = 0;
	for (; p < end && digits < 16; p++, digits++) {
		char c = *p;
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
	}
	*addr = v;
	return digits > 0;
}

/* Check one parsed table against the text it came from. */
static void check_table(const struct kallsyms *ks, const char *text, size_t size)
{
	/* A line takes at least 5 bytes ("0 t a"), plus its newline. */
	fuzz_check(kallsyms_count(ks) <= size / 5);
	fuzz_check(kallsyms_bad_lines(ks) <= size);
	if (kallsyms_restricted(ks))
		fuzz_check(!kallsyms_lookup(ks, 0, NULL, NULL));
	uint64_t lo, hi;
	if (kallsyms_core_span(ks, &lo, &hi))
		fuzz_check(lo <= hi);

	lookup(ks, 0);
	lookup(ks, UINT64_MAX);
	const char *p = text, *end = text + size;
	for (int lines = 0; p < end && lines < 64; lines++) {
		uint64_t a;
		if (line_addr(p, end, &a)) {
			lookup(ks, a);
			lookup(ks, a - 1);
			lookup(ks, a + 1);
		}
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	uint64_t a;
	if (kallsyms_find(ks, "_text", &a))
		lookup(ks, a);
}

/* The bytes as records: an error leaves no table; a table is sane. */
static void check_records(const uint8_t *data, size_t size, bool perf)
{
	struct kallsyms *ks = (void *)1;
	int err = kallsyms_parse_records(&ks, data, size, perf);
	if (err) {
		fuzz_check(err == -EBADMSG && ks == NULL);
		return;
	}
	fuzz_check(kallsyms_count(ks) <= size / (KALLSYMS_REC_HEADER + 1));
	fuzz_check(kallsyms_bad_lines(ks) <= size);
	if (kallsyms_restricted(ks))
		fuzz_check(!kallsyms_lookup(ks, 0, NULL, NULL));
	lookup(ks, 0);
	lookup(ks, UINT64_MAX);
	for (size_t p = 0, n = 0; p + KALLSYMS_REC_HEADER <= size && n < 64; n++) {
		uint64_t v;
		uint16_t nl;
		memcpy(&v, data + p, sizeof(v));
		memcpy(&nl, data + p + 8, sizeof(nl));
		lookup(ks, v);
		lookup(ks, v + 1);
		p += KALLSYMS_REC_HEADER + nl + data[p + 10];
	}
	kallsyms_free(ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	char *text = (char *)fuzz_copy(data, size);
	struct kallsyms *ks = kallsyms_parse(text, size);
	check_table(ks, text, size);
	kallsyms_free(ks);
	ks = kallsyms_parse_perf(text, size);
	check_table(ks, text, size);
	kallsyms_free(ks);
	free(text);
	check_records(data, size, false);
	check_records(data, size, true);
	return 0;
}
