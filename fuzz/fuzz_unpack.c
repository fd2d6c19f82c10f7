/*
 * fuzz_unpack: the byte payloads of debug files (dso). The first input
 * byte picks the parser, the rest is its input:
 *   0  .gnu_debuglink section (debuglink_parse)
 *   1  MiniDebugInfo: xz stream → ELF image (minidebug_open)
 *   2  SHF_COMPRESSED section of an ELF64 file (unpack_chdr)
 *   3  SHF_COMPRESSED section of an ELF32 file
 *   4  .zdebug section (unpack_zdebug)
 * Checked beyond "no crash": a debug link name is non-empty, slash-free
 * and within its limit; decompressed output never exceeds its ceiling and
 * equals the size the header declared; a MiniDebugInfo image's symbols
 * resolve to themselves.
 */
#include <stdlib.h>
#include <string.h>

#include "dso/debugfile.h"
#include "dso/unpack.h"
#include "fuzz/fuzz.h"

static uint64_t declared(const uint8_t *p, size_t n, int kind)
{
	if (kind == 2)
		return fuzz_u64(p + 8, n > 8 ? n - 8 : 0);
	if (kind == 3)
		return fuzz_u64(p + 4, 4);
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[4 + i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	if (size == 0)
		return 0;
	int kind = data[0] % 5;
	size_t n = size - 1;
	uint8_t *buf = fuzz_copy(data + 1, n);
	if (kind == 0) {
		struct debuglink dl;
		if (debuglink_parse(buf, n, &dl) == 0) {
			size_t len = strlen(dl.name);
			fuzz_check(len > 0 && len <= DEBUGLINK_NAME_MAX);
			fuzz_check(!strchr(dl.name, '/'));
			fuzz_check(memcmp(buf, dl.name, len) == 0);
		}
	} else if (kind == 1) {
		struct elf_image *img;
		if (minidebug_open(&img, buf, n) == 0) {
			size_t len;
			elf_image_data(img, &len);
			fuzz_check(len <= MINIDEBUG_MAX);
			uint64_t start;
			const char *name = elf_image_lookup(img, 0, &start);
			fuzz_check(!name || start == 0);
			elf_image_free(img);
		}
	} else {
		uint8_t *out = NULL;
		size_t outlen = 0;
		int err = kind == 4 ? unpack_zdebug(buf, n, &out, &outlen)
				    : unpack_chdr(buf, n, kind == 2, &out, &outlen);
		if (err == 0) {
			fuzz_check(outlen <= UNPACK_MAX);
			fuzz_check(outlen == declared(buf, n, kind));
			volatile uint8_t sum = 0;
			for (size_t i = 0; i < outlen; i++)
				sum += out[i];
			(void)sum;
			free(out);
		}
	}
	free(buf);
	return 0;
}
