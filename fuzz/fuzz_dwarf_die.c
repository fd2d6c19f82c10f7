/*
 * fuzz_dwarf_die: DIE trees through srclines_a2l (symbolize/srcline.c and
 * libdw): every DWARF section comes from the input (records as in
 * dwarf_elf.h: .debug_info, .debug_abbrev, the string, range, address and
 * line sections), written as an ELF file the dso registry opens. Asked:
 * the input's addresses (which also get function symbols) and a few bytes
 * past each, and every 8-byte word of .debug_info, .debug_addr and the
 * range sections that falls near one of them (DW_AT_low_pc, range bounds),
 * so lookups land inside subprograms and inlined subroutines. Checked:
 * see dwarf_elf.h (bounded records, valid strings, cache and a fresh
 * reader agree).
 */
#include "fuzz/dwarf_elf.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwarf_input in;

	fuzz_quiet();
	dwarf_input_split(&in, data, size);
	for (size_t i = 0; i < in.addrs.n; i++)
		dwarf_input_query(&in, in.addrs.v[i]);
	dwarf_input_scan(&in);
	dwarf_input_run(&in);
	dwarf_input_free(&in);
	return 0;
}
