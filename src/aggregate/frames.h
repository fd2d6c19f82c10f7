/*
 * frames: how a resolved address is named in a folded stack (aggregate, L6).
 *
 * The rules are stackcollapse-perf.pl's, so kiln's folded output can
 * stand in for `perf script | stackcollapse-perf.pl`: a symbol keeps its
 * name (with ';' turned into ':' so it cannot split the stack); an
 * address with no symbol becomes "[dso basename]", or "[unknown]" when
 * not even the mapping is known ("[dso <PC>]" and "[unknown <PC>]" with
 * addrs, PC being the address perf script prints); a dso path holding
 * " (" ("/x (deleted)", "/memfd:y (deleted)") gives "[unknown] ", as
 * stackcollapse-perf.pl's frame pattern splits such a line at its last
 * " ("; with annotations on, kernel frames get the suffix "_[k]" and JIT
 * frames "_[j]" (and, with inline frames shown, inlined calls "_[i]").
 * The process frame is the comm
 * with spaces as '_', optionally "-PID" or "-PID/TID".
 */
#ifndef KILN_AGGREGATE_FRAMES_H
#define KILN_AGGREGATE_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "aggregate/trie.h"
#include "base/strtab.h"
#include "symbolize/symbolize.h"

struct frame_opts {
	bool annotate_kernel; /* "_[k]" */
	bool annotate_jit;    /* "_[j]" */
	bool annotate_inline; /* "_[i]" on inline frames */
	bool with_pid;        /* comm-PID */
	bool with_tid;        /* comm-PID/TID */
	bool addrs;           /* "[dso <PC>]" for frames without a symbol (stackcollapse --addrs) */
};

/* The trie frame for a resolved address. */
struct trie_frame frame_for_sym(struct strtab *strs, const struct symbolizer *sz,
				const struct sym *sym, const struct frame_opts *o);
/* An inline frame from symbolize_inlines(): named like a symbol; kind
 * FRAME_INLINE (with "_[i]" under annotate_inline) when it is an inlined
 * call, FRAME_USER when it is the frame's own function. */
struct trie_frame frame_for_inline(struct strtab *strs, const struct sym_inline *in,
				   const struct frame_opts *o);
/* The root frame for a thread. */
struct trie_frame frame_for_process(struct strtab *strs, const char *comm, uint32_t pid,
				    uint32_t tid, const struct frame_opts *o);

#endif
