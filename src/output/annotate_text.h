/*
 * annotate_text: an annotation as perf annotate --stdio prints it
 * (output, L7).
 *
 * The layout is perf 6.1's:
 *
 *    Percent |<TAB>Source code & Disassembly of DSO for EVENT (N samples, percent: local period)
 *   --------------------------------------------------------------------- (header length + 4)
 *            : 0000000000001210 <outer>:
 *            : middle():
 *            : 29   x = leaf_mix(x ^ 3);
 *       0.00 :   1210:   xor    $0x3,%rdi
 *      49.48 :   1234:   add    %rdx,%rdi
 *
 * Instruction rows are " %7.2f :   ADDR:   TEXT", the address in hex
 * right-aligned to the width of the highest one and followed by spaces to
 * the next multiple of 8 columns from its field's start (objdump's tab,
 * expanded: "1210:   ", "3fc77:  ", "167ac0: ", "1b6abe0:        "),
 * the share that of the symbol's period; the header counts its samples. Between them, where the innermost function changes,
 * "FUNC():", and where the source position changes, the line number
 * (left-aligned to the address width) and the line's text without its
 * leading blanks, or "FILE:LINE" when the file was not found. perf takes
 * those lines from objdump -S and numbers them oddly; kiln numbers them
 * by the source file. Notes (a missing source file) follow the dashes as
 * "         : note: ..." rows.
 *
 * The per-line summary is perf annotate --print-line's:
 *
 *   (empty line)
 *   Sorted summary for file DSO_PATH
 *   ----------------------------------------------
 *   (empty line)
 *      99.79 inlines.c:18
 *
 * one row per source line, hottest first. perf sums only instructions
 * above 0.5% into it; 'perf_threshold' does the same.
 */
#ifndef KILN_OUTPUT_ANNOTATE_TEXT_H
#define KILN_OUTPUT_ANNOTATE_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "annotate/annotate.h"
#include "base/strtab.h"

struct annotate_text_opts {
	const char *dso_name;  /* as the header names it (perf: the basename) */
	const char *event;     /* "cpu-clock:ppp" */
	const char *percent_type; /* NULL: "local period" */
	/* The name to show for a function name id of the annotation (the
	 * symbol's, inline functions'): demangling is the caller's; NULL or
	 * a NULL answer: the name as the binary spells it. */
	const char *(*func_name)(void *ctx, uint32_t id);
	void *func_ctx;
	bool no_source; /* instruction rows only (and the function header) */
};

/* Writes the disassembly view. 0, or -EIO if writing failed. */
int annotate_text_write(FILE *f, const struct annotation *a, const struct strtab *strs,
			const struct annotate_text_opts *o);
/* Writes the per-source-line summary of 'dso_path'. With
 * 'perf_threshold', as perf: only instructions above 0.5% count, lines
 * left empty are not shown. 0, or -EIO. */
int annotate_text_write_lines(FILE *f, const struct annotation *a, const struct strtab *strs,
			      const char *dso_path, bool perf_threshold);

/*
 * The per-source-line view (kiln annotate --sort-by-lines): the header as
 * above ("Source lines of DSO for ..."), the function's address and name,
 * then one row per source line that has samples, hottest first, with the
 * line's share of the symbol and its text when the file was found:
 *
 *      51.49 : inlines.c:18   x = x * 6364136223846793005ULL + ...;
 *
 * and, when there are instructions, a last "(no source line)" row for the
 * share of those without a position (and of samples outside the
 * symbol). 0, or -EIO.
 */
int annotate_text_write_by_line(FILE *f, const struct annotation *a, const struct strtab *strs,
				const struct annotate_text_opts *o);

#endif
