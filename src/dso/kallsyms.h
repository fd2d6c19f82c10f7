/*
 * kallsyms: kernel symbols from /proc/kallsyms text, or from the same
 * symbols as binary records (the BPF symbol iterator's; see
 * kallsyms_parse_records) (dso, L2).
 *
 * Parses "<hex addr> <type> <name>[\t[module]]" lines (text symbols:
 * types t/T/w/W, plus any symbol inside a module) into an address-sorted
 * table. A symbol ends where the next address in the file starts (data
 * symbols included), and at most 1 MiB past its own start. Aliases at one
 * address all stay in the table; lookups return the preferred one (as perf:
 * non-weak over weak, global over local, then the last line, as perf
 * keeps the last alias: __x64_sys_X over __ia32_sys_X). All-zero addresses
 * (kptr_restrict) are reported through kallsyms_restricted(). The parser
 * takes text from memory, so it is fuzzable; malformed lines are skipped
 * and counted.
 */
#ifndef KILN_DSO_KALLSYMS_H
#define KILN_DSO_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kallsyms;

/* Parse 'len' bytes of kallsyms text. Always succeeds (bad lines skipped). */
struct kallsyms *kallsyms_parse(const char *text, size_t len);
/* Read and parse a file (normally /proc/kallsyms). 0 or -errno. */
int kallsyms_load(struct kallsyms **out, const char *path);
/*
 * The same text as perf 6.1 reads it, for output that must match perf's:
 * only t/T, w/W, d/D and b/B symbols exist (the others do not even end
 * the symbol before them), a symbol ends where the next kept address
 * starts however far away it is (the last one page-rounded, one page
 * past its start), and of several symbols at one address the last line
 * wins. Lookups and finds work as for kallsyms_parse().
 */
struct kallsyms *kallsyms_parse_perf(const char *text, size_t len);
int kallsyms_load_perf(struct kallsyms **out, const char *path);
void kallsyms_free(struct kallsyms *ks);

/*
 * The same symbols as binary records, as the kernel's symbol iterator
 * writes them (source/live/bpf/ksym.bpf.c, whose ksym_bpf.h holds the same
 * numbers): one record per line /proc/kallsyms shows, in its order, each
 * a header of KALLSYMS_REC_HEADER bytes (the value, 8 bytes in host
 * order, 0 where the text shows zeros; the name's length, 2 bytes, 1 to
 * KALLSYMS_REC_NAME - 1; the module's, 1 byte, 0 for the core kernel and
 * below KALLSYMS_REC_MODULE; the type letter) then the name and the
 * module, without NULs. The table is the one the text of the same lines
 * gives (kallsyms_parse, or with 'perf' kallsyms_parse_perf): a record
 * whose name the text could not hold (a blank, '\n' or NUL in it) is a bad
 * line. Left out: the iterator program's own symbol (a BPF program named
 * KALLSYMS_REC_PROG) and the stale record the kernel's last run of the
 * program writes after the end. A record with lengths out of range, or
 * cut short at the end, fails the whole read: -EBADMSG, with err_last()
 * naming the byte.
 */
#define KALLSYMS_REC_HEADER 12
#define KALLSYMS_REC_NAME 512
#define KALLSYMS_REC_MODULE 64
#define KALLSYMS_REC_PROG "kiln_ksym"
int kallsyms_parse_records(struct kallsyms **out, const void *buf, size_t len, bool perf);
/* Records read from 'fd' to its end (in pieces; 'what' names it in errors). */
int kallsyms_load_records(struct kallsyms **out, int fd, bool perf, const char *what);

/* The symbol containing 'addr', or NULL. Sets *start and, if 'module' is
 * non-NULL, *module (NULL for the core kernel; else the name without
 * brackets). Strings are borrowed from 'ks'. */
const char *kallsyms_lookup(const struct kallsyms *ks, uint64_t addr, uint64_t *start,
			    const char **module);
/* Address of a kept symbol by exact name (e.g. "_text"); false if absent
 * or restricted. A repeated name (static functions) gives the lowest
 * address. O(n): meant for a few calls per run. */
bool kallsyms_find(const struct kallsyms *ks, const char *name, uint64_t *addr);
/* The range the core kernel's symbols cover (module symbols left out):
 * from the lowest start to the highest end. False if there are none. */
bool kallsyms_core_span(const struct kallsyms *ks, uint64_t *start, uint64_t *end);
/* True if every address was zero (hidden by kptr_restrict). */
bool kallsyms_restricted(const struct kallsyms *ks);
size_t kallsyms_count(const struct kallsyms *ks);
/* Lines that could not be parsed. */
size_t kallsyms_bad_lines(const struct kallsyms *ks);

#endif
