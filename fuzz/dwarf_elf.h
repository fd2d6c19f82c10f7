/*
 * dwarf_elf: what fuzz_dwarf_line and fuzz_dwarf_die share (fuzz/).
 *
 * The input is a list of records, each a kind byte, a little-endian u16
 * length and that many bytes (the last one clipped to what is left):
 *
 *   kind % 16 = 0 .debug_info   1 .debug_abbrev  2 .debug_line  3 .debug_str
 *               4 .debug_line_str  5 .debug_ranges  6 .debug_rnglists
 *               7 .debug_aranges  8 .debug_addr  9 .debug_str_offsets
 *               10 .debug_loclists  15 addresses (little-endian u64s)
 *               others: ignored
 *
 * Records of one kind are concatenated. The sections are written into a
 * minimal ELF64 file (ET_DYN, x86-64: a NOBITS .text over the queried
 * addresses, the DWARF sections, a .symtab with an STT_FILE symbol and a
 * function symbol at each given address) in a memfd, which goes through
 * the real path: the dso registry opens it by its /proc/self/fd name and
 * srclines_a2l reads it with libdw. Each query address is asked twice of
 * one srclines (the second answer comes from the cache and must be the
 * same records) and once of a fresh one (same records again: answers
 * depend on the file only), then twice of a names-only one (srcline's own
 * line-program scan instead of libdw's rows; the cached answer is the
 * same). Checked beyond "no crash": at most SRCLINE_MAX_INLINE records,
 * every string id valid.
 */
#ifndef KILN_FUZZ_DWARF_ELF_H
#define KILN_FUZZ_DWARF_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"

enum dwarf_sec {
	DS_INFO,
	DS_ABBREV,
	DS_LINE,
	DS_STR,
	DS_LINE_STR,
	DS_RANGES,
	DS_RNGLISTS,
	DS_ARANGES,
	DS_ADDR,
	DS_STR_OFFSETS,
	DS_LOCLISTS,
	DS_N,
};
#define DWARF_KIND_ADDRS 15

struct dwarf_input {
	VEC(uint8_t) sec[DS_N];
	VEC(uint64_t) addrs;   /* given by the input */
	VEC(uint64_t) queries; /* what is asked (dwarf_input_query) */
};

/* Split the records into sections and addresses. */
void dwarf_input_split(struct dwarf_input *in, const uint8_t *data, size_t size);
void dwarf_input_free(struct dwarf_input *in);
/* Ask about 'base' and a few bytes past it (bounded count). */
void dwarf_input_query(struct dwarf_input *in, uint64_t base);
/* Query bases found in the sections: DW_LNE_set_address operands in
 * .debug_line; 8-byte words of .debug_info, .debug_addr, .debug_ranges
 * and .debug_rnglists that fall near a given address. */
void dwarf_input_scan(struct dwarf_input *in);
/* Write the ELF file, ask every query; returns the records seen. */
size_t dwarf_input_run(struct dwarf_input *in);

#endif
