/*
 * perfmap: JIT symbol maps, /tmp/perf-PID.map (dso, L2).
 *
 * JIT runtimes (node --perf-basic-prof, Java's perf-map-agent, .NET with
 * DOTNET_PerfMapEnabled) write one line per generated function:
 *     START SIZE NAME\n        (START and SIZE in hex, "0x" optional)
 * Lines are read as perf reads them: each number as strtoull(.., 16)
 * would, then exactly one separator byte, then the rest of the line is
 * the name; a line too short to hold a name (perf: fewer than 3 bytes of
 * it) is skipped. The last byte of
 * every line (its '\n') is dropped, as perf drops it. Lines longer than
 * PERFMAP_LINE_MAX are skipped.
 *
 * A symbol covers [START, START + SIZE) (SIZE 0: START alone). Where
 * symbols overlap (a JIT reused the memory), the one starting last wins,
 * and of those starting at one address the later line.
 *
 * The file is used only if it is a regular file (not a symlink) owned by
 * root, by the user kiln runs as, or by the user process PID runs as
 * (when it still runs): anyone can write /tmp/perf-PID.map for someone
 * else's PID. (Older perf had the root-or-us rule; perf 6.1 reads any
 * owner's map.)
 */
#ifndef KILN_DSO_PERFMAP_H
#define KILN_DSO_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define PERFMAP_LINE_MAX 65536
#define PERFMAP_FILE_MAX ((uint64_t)2 << 30)

struct perfmap;

/* Parse 'len' bytes of map text (copied: the input may go). 0 or -errno;
 * garbage lines are skipped, never an error. */
int perfmap_parse(struct perfmap **out, const char *data, size_t len);
/* Check the ownership rule above ('pid': the process the map describes,
 * 0 if unknown), then read and parse 'path'. 0 or -errno (-EPERM: refused
 * by the rule; err_last() says why). */
int perfmap_load(struct perfmap **out, const char *path, uint32_t pid);
/* The rule alone, for 'path' opened as 'fd' (lstat'ed as *st): 0 or
 * -EPERM with err_last() set. */
int perfmap_check_owner(const char *path, const struct stat *st, uint32_t pid);
/* Open 'path' for reading if the rule allows it: not through a symlink, at
 * most PERFMAP_FILE_MAX bytes, and the file opened is the one checked.
 * The descriptor (*st: its fstat), or -errno with err_last() set. Shared
 * by the perf map and jitdump readers. */
int perfmap_open_owned(const char *path, uint32_t pid, struct stat *st);
/* perfmap_open_owned, then the file mapped and given to 'parse' (a file
 * that shrinks meanwhile, base/mapguard, is refused); an empty file goes
 * to 'parse' as ("", 0). Shared by perfmap_load and jitdump_load. */
int perfmap_load_with(struct perfmap **out, const char *path, uint32_t pid,
		      int (*parse)(struct perfmap **out, const void *data, size_t len));
void perfmap_free(struct perfmap *pm);
/* Building a table from another source (jitdump): new, add in file order
 * (the name is copied; 'names_max' bounds their total bytes), finish
 * (sorts; no adds after). perfmap_add returns the stored name (borrowed,
 * stable), or NULL when the names would pass 'names_max'. */
struct perfmap *perfmap_new(size_t names_max);
const char *perfmap_add(struct perfmap *pm, uint64_t start, uint64_t size, const char *name,
			size_t n);
void perfmap_finish(struct perfmap *pm);
/* The symbol containing 'ip' (name borrowed from pm, *start its start),
 * or NULL. */
const char *perfmap_lookup(const struct perfmap *pm, uint64_t ip, uint64_t *start);
/* Number of symbols. */
size_t perfmap_count(const struct perfmap *pm);

#endif
