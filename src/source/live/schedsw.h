/*
 * schedsw: the sched:sched_switch tracepoint for off-CPU recording
 * (source/live, L2).
 *
 * Reads the tracepoint's id and the layout of its payload from tracefs
 * (the offsets of prev_pid, prev_state and next_pid differ between
 * kernels) and the prev_state letters of its print format (the
 * __print_flags table: S sleeping, D uninterruptible, ...; 0 is R, and
 * the bit above the table's highest marks a preempted task, R+), so a
 * switch can be told apart without libtraceevent.
 */
#ifndef KILN_SOURCE_LIVE_SCHEDSW_H
#define KILN_SOURCE_LIVE_SCHEDSW_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHEDSW_MAX_FLAGS 16

struct schedsw_layout {
	uint32_t prev_pid_off, next_pid_off; /* s32 fields */
	uint32_t prev_state_off, prev_state_size; /* 4 or 8 bytes */
	uint32_t min_size; /* payload bytes the fields need */
	/* prev_state bits and their letters, from the print format */
	uint64_t flag_bits[SCHEDSW_MAX_FLAGS];
	char flag_letters[SCHEDSW_MAX_FLAGS];
	unsigned nflags;
	uint64_t preempt_bit; /* the "+" bit (a preempted, still runnable task) */
};

/*
 * Fill attr->type/config for sched:sched_switch and *lay from tracefs.
 * 0; -EACCES/-EPERM when tracefs cannot be read (unprivileged), -ENOENT
 * when the tracepoint or tracefs is missing, -EINVAL for a format
 * without the fields; err_last() says which file and why.
 */
int schedsw_open_attr(struct perf_event_attr *attr, struct schedsw_layout *lay);

/* The letter for a prev_state value: 'R' for 0 or the preempt bit,
 * else the letter of its lowest known bit, '?' if none. */
char schedsw_state_letter(const struct schedsw_layout *lay, uint64_t state);

/* Parse a format file's text into *lay (exposed for tests). 0 or -EINVAL. */
int schedsw_parse_format(const char *text, struct schedsw_layout *lay);

/*
 * A perf callchain taken at a switch-out, its kernel part made to start at
 * the scheduler: the frames before the first one in [lo, hi) (the
 * tracepoint's own: __traceiter_sched_switch when another program shares
 * the tracepoint, a BPF program and its helpers) are dropped. A chain not
 * starting with PERF_CONTEXT_KERNEL, without a frame in [lo, hi), or an
 * empty range is left as it is. Returns the new length (moved in place).
 */
size_t schedsw_trim(uint64_t *chain, size_t n, uint64_t lo, uint64_t hi);
/* Of n kernel frames, the index of the first in [lo, hi), or 0 when none
 * is (or the range is empty): where the kept frames start. */
size_t schedsw_sched_from(const uint64_t *k, size_t n, uint64_t lo, uint64_t hi);

#endif
