/*
 * fuzz_perfmap: /tmp/perf-PID.map text through perfmap_parse (dso), then
 * lookups at the addresses the text names (the hex at the start of its
 * first lines, one either side), at 0 and at the top of the address
 * space. Checked beyond "no crash": a symbol found starts at or below the
 * address and a lookup at its start finds a symbol starting there; the
 * symbol count is bounded by the number of lines.
 */
#include <stdlib.h>

#include "dso/perfmap.h"
#include "fuzz/fuzz.h"

static void lookup(const struct perfmap *pm, uint64_t ip)
{
	uint64_t start = 0, again = 1;
	const char *name = perfmap_lookup(pm, ip, &start);
	if (!name)
		return;
	fuzz_check(start <= ip);
	fuzz_check(perfmap_lookup(pm, start, &again) != NULL);
	(void)strlen(name); /* a terminated string inside the table */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	uint8_t *buf = fuzz_copy(data, size);
	struct perfmap *pm;
	fuzz_check(perfmap_parse(&pm, (const char *)buf, size) == 0);
	size_t lines = 0;
	for (size_t i = 0; i < size; i++)
		lines += buf[i] == '\n';
	fuzz_check(perfmap_count(pm) <= lines + 1);
	const char *p = (const char *)buf, *end = p + size;
	for (int k = 0; k < 8 && p < end; k++) {
		char tmp[24];
		size_t n = 0;
		while (p + n < end && n < sizeof(tmp) - 1 && p[n] != ' ' && p[n] != '\n') {
			tmp[n] = p[n];
			n++;
		}
		tmp[n] = '\0';
		uint64_t v = strtoull(tmp, NULL, 16);
		lookup(pm, v);
		lookup(pm, v - 1);
		lookup(pm, v + 1);
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	lookup(pm, 0);
	lookup(pm, UINT64_MAX);
	perfmap_free(pm);
	free(buf);
	return 0;
}
