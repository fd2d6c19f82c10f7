/*
 * dwline: a DWARF 2-5 line program, read from the section bytes
 * (symbolize, L5).
 *
 * dwline_open() reads a unit's line program header at an offset of
 * .debug_line: the parameters of the state machine and, on request, the
 * file table as basenames (entry N is what the file register value N
 * names; before DWARF 5 entry 0 is empty, as there is no file 0).
 * dwline_run() runs the program and hands each row to a callback: its
 * address, line, file register, whether it ends a sequence, and whether
 * the file register was set in its sequence. DW_LNE_define_file adds to
 * the file table as it runs.
 *
 * The rules are those of libdw's reader, which kiln used before: an
 * opcode whose standard length disagrees with the header, a directory
 * index out of range, a DWARF 5 entry format without a path, or a header
 * whose length does not match what it holds make the whole program
 * invalid (false). Every read is bounded by the program's length and the
 * string sections' sizes; nothing is allocated but the file table.
 */
#ifndef KILN_SYMBOLIZE_DWLINE_H
#define KILN_SYMBOLIZE_DWLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"

/* The sections a line program reads (a NULL section reads as empty). */
struct dwline_secs {
	const uint8_t *line, *line_str, *str;
	size_t line_len, line_str_len, str_len;
};

/* A file name's last path component, pointing into the section bytes. */
struct dwline_file {
	const char *name; /* NULL: no such entry (file 0 before DWARF 5) */
	size_t len;
};

struct dwline_prog {
	unsigned version, asize, offsz;
	unsigned min_inst, max_ops, line_range, opcode_base;
	int line_base;
	bool default_is_stmt;
	uint8_t oplen[256];
	const uint8_t *p, *end; /* the opcodes */
	size_t ndirs;
	VEC(struct dwline_file) files;
};

struct dwline_row {
	uint64_t addr;
	int64_t line;
	uint64_t file;
	bool end;      /* DW_LNE_end_sequence */
	bool file_set; /* DW_LNS_set_file seen since the sequence began */
};

typedef void (*dwline_row_fn)(void *arg, const struct dwline_row *r);

/*
 * Reads the header of the program at 'off' for a unit of address size
 * 'cu_asize' (4 or 8). With 'files', the file table too (else it is
 * skipped). false: no program there, or an invalid header. Release with
 * dwline_close() in either case.
 */
bool dwline_open(const struct dwline_secs *s, uint64_t off, unsigned cu_asize, bool files,
		 struct dwline_prog *lp);
/* Runs the program; false if it is invalid (rows before the fault were given). */
bool dwline_run(struct dwline_prog *lp, dwline_row_fn fn, void *arg);
void dwline_close(struct dwline_prog *lp);

#endif
