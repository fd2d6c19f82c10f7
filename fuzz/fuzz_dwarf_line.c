/*
 * fuzz_dwarf_line: DWARF line programs through srclines_a2l
 * (symbolize/srcline.c: libdw's dwarf_getsrclines and srcline's own scan
 * for DWARF 5 rows of the default file). .debug_line, the string
 * sections and the addresses come from the input (records as in
 * dwarf_elf.h); .debug_info and .debug_abbrev are generated: one
 * compilation unit per line-table unit found by walking its unit lengths
 * (at most 32), each pointing at its line table with DW_AT_stmt_list, of
 * the DWARF version that table has (2 to 5; 4 for others), and without
 * address ranges, so every query reaches its line program. Asked: the
 * input's addresses and every DW_LNE_set_address operand, each with a few
 * bytes past it. Checked: see dwarf_elf.h.
 */
#include <dwarf.h>

#include "fuzz/dwarf_elf.h"
#include "fuzz/fuzz.h"

#define MAX_UNITS 32

typedef VEC(uint8_t) bytes;

static void put(bytes *b, const void *p, size_t n)
{
	VEC_RESERVE(b, b->n + n);
	memcpy(b->v + b->n, p, n);
	b->n += n;
}

static void put_le(bytes *b, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = (uint8_t)(v >> (8 * i));
		put(b, &c, 1);
	}
}

/* Abbrev 1: the unit with DW_AT_stmt_list as sec_offset (DWARF 4, 5); 2: as data4 (2, 3). */
static void gen_abbrevs(bytes *ab)
{
	for (unsigned code = 1; code <= 2; code++) {
		const uint8_t head[] = { (uint8_t)code, DW_TAG_compile_unit, DW_CHILDREN_no,
					 DW_AT_name, DW_FORM_string, DW_AT_comp_dir, DW_FORM_string,
					 DW_AT_language, DW_FORM_data1, DW_AT_stmt_list,
					 code == 1 ? DW_FORM_sec_offset : DW_FORM_data4, 0, 0 };
		put(ab, head, sizeof(head));
	}
	put_le(ab, 0, 1);
}

static void gen_unit(bytes *info, unsigned version, uint64_t stmt)
{
	static const char body[] = "fuzz.c\0/fuzz";
	size_t len_at = info->n;
	put_le(info, 0, 4);
	put_le(info, version, 2);
	if (version >= 5) {
		put_le(info, DW_UT_compile, 1);
		put_le(info, 8, 1);
		put_le(info, 0, 4); /* abbrev offset */
	} else {
		put_le(info, 0, 4);
		put_le(info, 8, 1);
	}
	put_le(info, version >= 4 ? 1 : 2, 1);
	put(info, body, sizeof(body));
	put_le(info, DW_LANG_C99, 1);
	put_le(info, stmt, 4);
	uint32_t len = (uint32_t)(info->n - len_at - 4);
	memcpy(info->v + len_at, &len, 4);
}

static void gen_units(struct dwarf_input *in)
{
	bytes *info = (bytes *)&in->sec[DS_INFO], *ab = (bytes *)&in->sec[DS_ABBREV];
	const bytes *line = (const bytes *)&in->sec[DS_LINE];
	info->n = 0;
	ab->n = 0;
	gen_abbrevs(ab);
	uint64_t off = 0;
	unsigned units = 0;
	while (units < MAX_UNITS && (off < line->n || !units) && off <= UINT32_MAX) {
		uint64_t avail = off < line->n ? line->n - off : 0;
		const uint8_t *p = avail ? line->v + off : (const uint8_t *)"";
		uint64_t len = fuzz_u64(p, avail < 4 ? avail : 4), hdr = 4;
		if (len == 0xffffffff) {
			len = avail > 4 ? fuzz_u64(p + 4, avail - 4 < 8 ? avail - 4 : 8) : 0;
			hdr = 12;
		}
		unsigned v = avail > hdr ? (unsigned)fuzz_u64(p + hdr, avail - hdr < 2 ? avail - hdr : 2)
					 : 4;
		gen_unit(info, v >= 5 ? 5 : v >= 2 ? v : 4, off);
		units++;
		if (avail < hdr || len > avail - hdr)
			break;
		off += hdr + len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwarf_input in;

	fuzz_quiet();
	dwarf_input_split(&in, data, size);
	gen_units(&in);
	for (size_t i = 0; i < in.addrs.n; i++)
		dwarf_input_query(&in, in.addrs.v[i]);
	dwarf_input_scan(&in);
	dwarf_input_run(&in);
	dwarf_input_free(&in);
	return 0;
}
