/*
 * scripttext: `perf script` text folded into the stack trie, by the rules of
 * FlameGraph's stackcollapse-perf.pl (aggregate, L6).
 *
 * The input is text in memory (pointer and length; no I/O, so it can be
 * fuzzed), read line by line:
 *
 *   java 4263/4270 [001] 8765.43: 1000 cycles:     sample header: comm, [PID/]TID,
 *           7f2a1b3c Lfoo/Bar;::baz+0x1f (/tmp/perf-4263.map)      frames, leaf first,
 *           ffffffff81000000 do_syscall_64 ([kernel.kallsyms])    "ADDR SYM (DSO)"
 *                                                    blank line: the sample ends
 *
 * Each sample becomes one path from the trie root: the process frame
 * ("comm", "comm-PID" or "comm-PID/TID", spaces as '_'), then the frames
 * from outermost caller to leaf, weighted by the period the header carries
 * (1 if none). Frame names are tidied as stackcollapse-perf.pl does:
 * "+0x.." offsets dropped, "[unknown]" becomes "[dso basename]", ';'
 * becomes ':', everything from the first '(' dropped (Go method names and
 * "(anonymous namespace)" excepted), quotes removed, the JVM's leading 'L'
 * dropped for processes named java*, optional "_[k]"/"_[j]" suffixes.
 * Only samples of one event are kept: the one named in the options, else
 * the first one seen.
 *
 * Invariants:
 *  1. The folded lines the trie prints are byte for byte the lines
 *     stackcollapse-perf.pl prints for the same text (the root frame is
 *     split at ';' so identical joined stacks merge), except where a limit
 *     below was hit, and for weights Perl would print as 0 (a period
 *     written "00": kiln adds the stack with weight 0, which prints no
 *     line) or as floating point (sums past 2^64-1 saturate).
 *  2. Like stackcollapse-perf.pl, a sample counts at the blank line after
 *     it: text that ends inside a sample drops that sample (reported in
 *     'unterminated').
 *  3. Nothing is read outside [data, data + len); memory is bounded by the
 *     input: lines longer than SCRIPTTEXT_MAX_LINE are skipped, stacks keep
 *     at most SCRIPTTEXT_MAX_FRAMES frames (the leaf-most, as perf keeps),
 *     and each is counted in the stats.
 *  4. Lines holding a NUL byte are skipped and counted as unrecognised
 *     (names are C strings).
 */
#ifndef KILN_AGGREGATE_SCRIPTTEXT_H
#define KILN_AGGREGATE_SCRIPTTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate/trie.h"
#include "base/strtab.h"

#define SCRIPTTEXT_MAX_LINE (64u << 10) /* bytes, without the newline */
#define SCRIPTTEXT_MAX_FRAMES 1024u     /* frames per stack, process frame aside */

struct scripttext_opts {
	bool with_pid;            /* process frame "comm-PID" ("comm-?" if only a TID is given) */
	bool with_tid;            /* "comm-PID/TID"; wins over with_pid */
	bool annotate_kernel;     /* "_[k]" when the dso is "[...]" or ends in "vmlinux" */
	bool annotate_jit;        /* "_[j]" when the dso is a /tmp/perf-PID.map */
	bool addrs;               /* "[dso <ADDR>]" instead of "[dso]" for frames with no symbol */
	const char *event_filter; /* keep samples of this event; NULL or "": the first seen */
};

struct scripttext_stats {
	uint64_t lines;          /* lines read */
	uint64_t headers;        /* sample headers recognised, filtered ones included */
	uint64_t frame_lines;    /* frame lines recognised, kept or not */
	uint64_t samples;        /* stacks added to the trie */
	uint64_t filtered;       /* sample headers of another event, skipped */
	uint64_t unrecognized;   /* lines neither header, frame, comment nor blank */
	uint64_t long_lines;     /* lines over SCRIPTTEXT_MAX_LINE, skipped */
	uint64_t dropped_frames; /* frames past SCRIPTTEXT_MAX_FRAMES, dropped */
	uint64_t truncated;      /* stacks that lost frames that way */
	uint64_t frameless;      /* scripttext_samples: samples handed over with no frame */
	bool unterminated;       /* the text ended inside a sample, which was dropped */
	uint32_t event;          /* strtab id of the event kept, or TRIE_NO_NAME if none was named */
	bool event_defaulted;    /* 'event' is the first one seen, not the option */
};

/*
 * Fold the 'len' bytes at 'data' into 't', whose names live in 'strs'
 * (the trie must have been initialised over 'strs'). 'data' is borrowed
 * and need not be NUL-terminated. Fills *st. Returns 0: text never fails
 * as a whole; every line it cannot use is counted in *st instead.
 */
int scripttext_parse(const char *data, size_t len, const struct scripttext_opts *o,
		     struct strtab *strs, struct trie *t, struct scripttext_stats *st);

/*
 * The event scripttext_parse keeps when no filter is named: the event of
 * the first sample header that names one, as *ev and *n (pointing into
 * 'data'); false if no header names an event. Parsing a part of the text
 * with that event as o->event_filter then folds it as the whole text's
 * parse would (aggregate/textpar.h).
 */
bool scripttext_first_event(const char *data, size_t len, const char **ev, size_t *n);

/*
 * The samples of perf script text as they are, for a table of them (kiln
 * report): each sample's header fields and its frame lines (leaf first:
 * the address in hex, the symbol with any "+0x.." offset split off, the
 * dso inside the parentheses), handed to fn at the blank line ending it.
 * Spans point into 'data' and hold for the call. A sample of more than
 * SCRIPTTEXT_MAX_FRAMES frames keeps the leaf-most ones ('truncated' in
 * the stats); the other stats count as scripttext_parse counts them
 * ('samples': those handed to fn). A sample whose frame lines are
 * missing (perf script prints none when it cannot resolve a callchain)
 * is handed over with n == 0 and counted in 'frameless', so that totals
 * stay those of the recording. Returns 0, or fn's first non-zero value.
 */
struct scripttext_span {
	const char *p;
	size_t n;
};
struct scripttext_frame {
	uint64_t addr;
	struct scripttext_span sym; /* without the offset; "[unknown]" as printed */
	uint64_t off;
	bool has_off;
	struct scripttext_span dso; /* as printed: a path, "[kernel.kallsyms]", "[unknown]" */
};
struct scripttext_sample {
	struct scripttext_span comm, event; /* event.n == 0: none printed */
	uint32_t pid, tid; /* pid 0 when only the thread is printed */
	uint32_t cpu;      /* UINT32_MAX when not printed */
	uint64_t period;   /* 1 when not printed */
	const struct scripttext_frame *frames; /* leaf first */
	size_t n;
};
typedef int (*scripttext_sample_fn)(void *ctx, const struct scripttext_sample *s);
int scripttext_samples(const char *data, size_t len, scripttext_sample_fn fn, void *ctx,
		       struct scripttext_stats *st);

/*
 * Whether the first 'len' bytes of a longer input can start perf script
 * text (or, with 'folded', folded stacks), so that a reader of a pipe can
 * refuse what is not text before it reads the rest: 1 if a sample header
 * or a frame line (or a folded stack line) comes within the first
 * SCRIPTTEXT_SNIFF_LINES lines that are not blank nor '#' comments, -1 if
 * those lines are all something else, if the bytes hold a NUL, or if
 * they hold no line end within SCRIPTTEXT_SNIFF_BYTES (the longest line
 * either parser keeps), 0 if the bytes cannot tell yet.
 */
#define SCRIPTTEXT_SNIFF_LINES 16u
#define SCRIPTTEXT_SNIFF_BYTES ((size_t)(1u << 20) + 2) /* FOLDEDTEXT_MAX_LINE, "\r\n" */
int scripttext_sniff(const char *data, size_t len, bool folded);

#endif
