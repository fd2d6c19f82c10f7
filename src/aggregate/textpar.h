/*
 * textpar: perf script text parsed on several threads (aggregate, L6).
 *
 * The text is cut into one part per thread after blank lines, where the
 * parser carries nothing from one line to the next that matters to the
 * result (a sample ends there; the one piece of state left, the event
 * kept when no filter is named, is found beforehand by
 * scripttext_first_event and named to every part). Each part is parsed on
 * its own thread into its own strtab and trie; the tries are then merged
 * into the caller's (trie_merge) and the stats summed. The trie that
 * results holds the same stacks with the same weights as one parse of the
 * whole text, and the stats are the same numbers, so what is written from
 * it is byte for byte what one thread writes; only node and name ids
 * differ, which no output depends on (trie_sort orders by bytes).
 *
 *     text: |---- part 0 ----|\n\n|---- part 1 ----|\n\n|-- part 2 --|
 *              caller's trie        own trie, merged    own trie, merged
 *
 * Each part's line cache starts cold and each part's trie is walked once
 * more by the merge, so the threads cost some CPU time: worth it for
 * texts of several MB with repeated frame lines (perf script's). Folded
 * stacks are parsed on one thread: when their stacks share little, the
 * merge costs as much as the parse and the parts' tables add up to half
 * as much memory again (measured; bench/README.md, issue 21). A thread
 * that cannot be started has its part parsed on the caller's thread.
 */
#ifndef KILN_AGGREGATE_TEXTPAR_H
#define KILN_AGGREGATE_TEXTPAR_H

#include <stddef.h>
#include <stdint.h>

#include "aggregate/scripttext.h"
#include "aggregate/trie.h"
#include "base/strtab.h"

#define TEXTPAR_MAX_THREADS 64u
/* Bytes of text a thread should have before another thread is worth it
 * (its own tables start cold: lines seen in every part are parsed once
 * per part, and the merge walks each part's trie). Measured with a free
 * core, two threads against one in wall time: a 6 MB text +8%, 8 MB -15%,
 * 11 MB -13%, 47 MB -27% (bench/README.md). */
#define TEXTPAR_PART_MIN ((size_t)4 << 20)

/*
 * The threads for 'len' bytes of text: 'want' if given (1 or more, from
 * KILN_THREADS), else one per TEXTPAR_PART_MIN bytes, at most 'cpus' and
 * TEXTPAR_MAX_THREADS.
 */
unsigned textpar_threads(unsigned want, long cpus, size_t len);

/* scripttext_parse (same arguments and meaning) on up to 'threads' threads. */
int textpar_script(const char *data, size_t len, const struct scripttext_opts *o,
		   struct strtab *strs, struct trie *t, struct scripttext_stats *st,
		   unsigned threads);

#endif
