/*
 * proc: processes, threads and address spaces (proc, L3).
 *
 * Replays the sideband records of a profile (COMM, FORK, EXIT, MMAP,
 * MMAP2, KSYMBOL) to know, at each sample, which thread ran, what it was called
 * and which file was mapped at each address. The kernel has one address
 * space of its own (pid -1 in MMAP records).
 *
 * Invariants:
 *  1. An address space's mappings are sorted by start and never overlap:
 *     a new mapping trims or removes what it covers (as mmap does).
 *  2. FORK of a new process (pid != ppid) copies the parent's mappings;
 *     FORK of a thread (pid == ppid) shares its process's address space.
 *  3. COMM with the exec flag empties the process's address space (the
 *     new image's MMAPs follow it), unless keep_maps_on_exec is set: then
 *     the old mappings stay until new ones cover them, as perf keeps them
 *     (the rest of the execve syscall still runs in the old image).
 *  4. KSYMBOL adds a mapping of the kernel's space over the symbol's range
 *     (a DSO_KSYM dso named as the symbol, as perf maps a BPF program);
 *     its unregistering removes what lies in that range.
 *  5. Threads and processes are created on first mention, so a profile
 *     that starts mid-flight still resolves.
 * Names are strtab ids; dsos are ids in the dso_set passed at init.
 */
#ifndef KILN_PROC_PROC_H
#define KILN_PROC_PROC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/strtab.h"
#include "base/vec.h"
#include "dso/dso.h"
#include "event/event.h"

struct mapping {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;      /* file offset of 'start' (kernel: the relocation reference) */
	uint32_t dso;        /* id in the dso_set */
};

struct addr_space {
	VEC(struct mapping) maps;
	size_t hint; /* index of machine_find's last answer (checked before use) */
};

struct thread {
	uint32_t pid, tid;
	uint32_t comm; /* strtab id */
	uint32_t proc; /* index of its process */
	bool named;    /* a COMM named it (or it forked from a named thread) */
};

struct process {
	uint32_t pid;
	struct addr_space as;
};

struct machine {
	struct strtab *strs;  /* borrowed */
	struct dso_set *dsos; /* borrowed */
	VEC(struct process) procs;
	VEC(struct thread) threads;
	struct hashmap pid_index; /* pid -> procs index */
	struct hashmap tid_index; /* tid -> threads index */
	uint64_t last_pid;        /* machine_find's last pid + 1 (0: none)... */
	uint32_t last_proc;       /* ...and its procs index (pids never move) */
	struct addr_space kernel;
	uint64_t kernel_text; /* the kernel MMAP's pgoff (runtime _text), 0 if none */
	uint32_t unknown_comm; /* strtab id of ":PID"-less fallback "[unknown]" */
	bool keep_maps_on_exec; /* invariant 3's exception (perf script's view) */
	bool data_maps;         /* keep data mappings too (kiln trace's page fault addresses) */
};

void machine_init(struct machine *m, struct strtab *strs, struct dso_set *dsos);
void machine_release(struct machine *m);
/* Apply one sideband record (other types are ignored). */
void machine_apply(struct machine *m, const struct event *ev);
/* Whether machine_apply of this record may change the kernel's address
 * space (a kernel or pid -1 MMAP/MMAP2, a KSYMBOL): what a kernel
 * address resolves to may differ after it. */
bool machine_record_is_kernel(const struct event *ev);
/* The thread for (pid, tid), created if new. Pointer valid until the next
 * call that may create a thread. */
const struct thread *machine_thread(struct machine *m, uint32_t pid, uint32_t tid);
/* The mapping containing 'addr' in pid's space (kernel=false) or the
 * kernel's (kernel=true); NULL if none. Valid until the next apply. */
const struct mapping *machine_find(struct machine *m, uint32_t pid, uint64_t addr, bool kernel);

/*
 * Forget processes that exited (a live view's memory stays bounded): their
 * address spaces and threads go; a later mention creates them afresh.
 * Indices of the others change (pointers from machine_thread are stale).
 */
void machine_forget(struct machine *m, const uint32_t *pids, size_t n);
/*
 * Mark in used[id] (one byte per dso id, n of them) the dsos a mapping of
 * a process or of the kernel refers to, and the JIT dsos (perf maps) of
 * the processes known: what a live view must keep loaded.
 */
void machine_dsos_used(const struct machine *m, uint8_t *used, size_t n);

/* Address-space primitives (exposed for tests). */
void addr_space_insert(struct addr_space *as, const struct mapping *m);
/* Remove what lies in [start, end), trimming mappings across its ends. */
void addr_space_remove(struct addr_space *as, uint64_t start, uint64_t end);
const struct mapping *addr_space_find(const struct addr_space *as, uint64_t addr);

#endif
