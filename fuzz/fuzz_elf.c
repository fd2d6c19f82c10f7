/*
 * fuzz_elf: ELF bytes through elf_image_parse (dso), then the lookups the
 * symbolizer makes: file offset -> vaddr, vaddr -> symbol, the build-id.
 * Addresses come from the input (e_entry, the last words of the file) and
 * from the parse itself (what offsets map to, what lookups return), so
 * lookups hit symbols. Checked beyond "no crash": a symbol found for an
 * address starts at or below it and has a non-empty name, a lookup at a
 * symbol's start finds that symbol, the build-id fits its buffer, the
 * symbol count is bounded by the file size, and the sections the unwinder
 * asks for lie inside the input, or, decompressed, within UNPACK_MAX (each
 * is read in full, so ASan sees it). The same bytes then go through
 * elf_expand (the image srcline hands libdw): an image it returns has
 * its section headers inside it, none still compressed, and each
 * section's bytes inside the image.
 */
#include <stdbool.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "dso/elf_expand.h"
#include "dso/elf_image.h"
#include "dso/unpack.h"
#include "fuzz/fuzz.h"

static void lookup(const struct elf_image *img, uint64_t vaddr)
{
	uint64_t start = 0;
	const char *name = elf_image_lookup(img, vaddr, &start);
	if (!name)
		return;
	fuzz_check(start <= vaddr);
	fuzz_check(name[0] != '\0');
	uint64_t again = 1;
	fuzz_check(elf_image_lookup(img, start, &again) == name && again == start);
	fuzz_check(elf_image_lookup(img, vaddr, NULL) == name);
}

static void section(const struct elf_image *img, const char *name, const uint8_t *buf,
		    size_t size)
{
	struct elf_section sec;
	volatile uint8_t sum = 0;
	if (!elf_image_section(img, name, &sec))
		return;
	/* Stored sections lie inside the input; decompressed ones (SHF_COMPRESSED,
	 * .zdebug) are the image's own memory, at most UNPACK_MAX bytes. */
	bool inside = (uintptr_t)sec.data >= (uintptr_t)buf && (uintptr_t)sec.data <= (uintptr_t)buf + size;
	if (inside)
		fuzz_check(sec.size <= size && (size_t)(sec.data - buf) <= size - sec.size);
	else
		fuzz_check(sec.size <= UNPACK_MAX);
	for (size_t i = 0; i < sec.size; i++)
		sum += sec.data[i];
	(void)sum;
}

static bool skip_line(const char *name)
{
	return !strcmp(name, ".debug_line");
}

static void expand(const uint8_t *buf, size_t size)
{
	uint8_t *out;
	size_t n;
	if (elf_expand(buf, size, size & 1 ? skip_line : NULL, size & 2 ? ELF_EXPAND_DROP_LOADED : 0, &out,
		       &n) != 0)
		return;
	Elf64_Ehdr eh;
	fuzz_check(n >= sizeof(eh));
	memcpy(&eh, out, sizeof(eh));
	fuzz_check(eh.e_shoff <= n && (n - eh.e_shoff) / sizeof(Elf64_Shdr) >= eh.e_shnum);
	for (size_t i = 1; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		memcpy(&sh, out + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		fuzz_check(!(sh.sh_flags & SHF_COMPRESSED));
		if (sh.sh_type != SHT_NOBITS)
			fuzz_check(sh.sh_offset <= n && sh.sh_size <= n - sh.sh_offset);
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_image *img;
	uint8_t *buf;

	fuzz_quiet();
	buf = fuzz_copy(data, size);
	if (elf_image_parse(&img, buf, size) == 0) {
		uint8_t id[ELF_BUILD_ID_MAX];
		fuzz_check(elf_image_build_id(img, id) <= ELF_BUILD_ID_MAX);
		(void)elf_image_type(img);
		fuzz_check(elf_image_is64(img) == (buf[4] == 2));
		section(img, ".eh_frame", buf, size);
		section(img, ".eh_frame_hdr", buf, size);
		section(img, ".debug_frame", buf, size);
		section(img, ".text", buf, size);
		section(img, ".debug_info", buf, size);
		section(img, ".gnu_debuglink", buf, size);
		/* Each symbol comes from a symbol-table entry or a relocation in
		 * the file, or from a .plt.got slot: never more than the bytes. */
		fuzz_check(elf_image_nsyms(img) <= size);

		/* e_entry: at 24 in both classes (a parsed image has a whole
		 * ELF header), 8 bytes in ELF64, 4 in ELF32. */
		uint64_t entry = fuzz_u64(buf + 24, buf[4] == 2 ? 8 : 4);
		lookup(img, entry);
		lookup(img, 0);
		lookup(img, UINT64_MAX);
		/* Words at the end of the input: free for the fuzzer to choose. */
		for (size_t k = 1; k <= 4 && 8 * k <= size; k++) {
			uint64_t v = fuzz_u64(buf + size - 8 * k, 8);
			lookup(img, v);
			lookup(img, v - 1);
		}
		/* File offsets across the file, as samples of a mapping give them. */
		for (uint64_t off = 0; off < size; off += size / 16 + 1) {
			uint64_t vaddr;
			if (elf_image_offset_to_vaddr(img, off, &vaddr))
				lookup(img, vaddr);
		}
		uint64_t vaddr;
		if (elf_image_offset_to_vaddr(img, UINT64_MAX, &vaddr))
			lookup(img, vaddr);
		elf_image_free(img);
	}
	expand(buf, size);
	free(buf);
	return 0;
}
