/*
 * fuzz_jitdump: jit-PID.dump bytes through jitdump_parse (dso), then
 * lookups at every code address a record names (read at the record
 * offsets the parser itself uses) and at 0 / the top. Checked beyond "no
 * crash": a symbol found starts at or below the address; the symbol count
 * is bounded by the number of records the bytes can hold.
 */
#include <stdlib.h>

#include "dso/jitdump.h"
#include "fuzz/fuzz.h"

static void lookup(const struct perfmap *pm, uint64_t ip)
{
	uint64_t start = 0;
	const char *name = perfmap_lookup(pm, ip, &start);
	if (name) {
		fuzz_check(start <= ip);
		(void)strlen(name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	uint8_t *buf = fuzz_copy(data, size);
	struct perfmap *pm;
	if (jitdump_parse(&pm, buf, size) == 0) {
		fuzz_check(size >= 40);
		fuzz_check(perfmap_count(pm) <= size / 16);
		/* Walk the records as the format lays them out. */
		uint32_t hsize = (uint32_t)fuzz_u64(buf + 8, 4);
		for (size_t pos = hsize; pos + 16 <= size;) {
			uint32_t rsize = (uint32_t)fuzz_u64(buf + pos + 4, 4);
			if (rsize < 16 || rsize > size - pos)
				break;
			if (rsize >= 56) {
				uint64_t a = fuzz_u64(buf + pos + 32, 8);
				lookup(pm, a);
				lookup(pm, a + fuzz_u64(buf + pos + 40, 8) - 1);
			}
			pos += rsize;
		}
		lookup(pm, 0);
		lookup(pm, UINT64_MAX);
		perfmap_free(pm);
	}
	free(buf);
	return 0;
}
