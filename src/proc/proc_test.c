/* Unit tests for proc: address-space insertion with overlaps, fork/exec,
 * and lookups against a plain list of the mmaps (the last one wins). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "proc/proc.h"

static void check(const struct addr_space *as, size_t i, uint64_t s, uint64_t e, uint64_t pgoff,
		  uint32_t dso)
{
	assert_true(i < as->maps.n);
	assert_int_equal(as->maps.v[i].start, s);
	assert_int_equal(as->maps.v[i].end, e);
	assert_int_equal(as->maps.v[i].pgoff, pgoff);
	assert_int_equal(as->maps.v[i].dso, dso);
}

static void test_insert_overlaps(void **state)
{
	(void)state;
	struct addr_space as = { 0 };
	struct mapping a = { 0x1000, 0x5000, 0, 1 };
	addr_space_insert(&as, &a);
	/* Punch a hole in the middle: left and right parts survive, right pgoff moves. */
	struct mapping b = { 0x2000, 0x3000, 0x100000, 2 };
	addr_space_insert(&as, &b);
	assert_int_equal(as.maps.n, 3);
	check(&as, 0, 0x1000, 0x2000, 0, 1);
	check(&as, 1, 0x2000, 0x3000, 0x100000, 2);
	check(&as, 2, 0x3000, 0x5000, 0x2000, 1);
	/* Cover everything: one mapping left. */
	struct mapping c = { 0x0, 0x10000, 0, 3 };
	addr_space_insert(&as, &c);
	assert_int_equal(as.maps.n, 1);
	check(&as, 0, 0, 0x10000, 0, 3);
	/* Lookups. */
	struct mapping d = { 0x20000, 0x21000, 0, 4 };
	addr_space_insert(&as, &d);
	assert_non_null(addr_space_find(&as, 0x20fff));
	assert_int_equal(addr_space_find(&as, 0x20fff)->dso, 4);
	assert_null(addr_space_find(&as, 0x21000));
	assert_null(addr_space_find(&as, 0x10000));
	/* An empty mapping changes nothing. */
	struct mapping e = { 0x5000, 0x5000, 0, 5 };
	addr_space_insert(&as, &e);
	assert_int_equal(as.maps.n, 2);
	VEC_FREE(&as.maps);
}

/* A machine over its own string table and dso set. */
struct world {
	struct strtab strs;
	struct dso_set dsos;
	struct machine m;
};

static void world_init(struct world *w)
{
	strtab_init(&w->strs);
	dso_set_init(&w->dsos);
	machine_init(&w->m, &w->strs, &w->dsos);
}

static void world_release(struct world *w)
{
	machine_release(&w->m);
	dso_set_release(&w->dsos);
	strtab_release(&w->strs);
}

static uint8_t recbuf[256];

static struct event make_mmap2(uint32_t pid, uint64_t start, uint64_t len, const char *name)
{
	struct event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = PERF_RECORD_MMAP2;
	ev.misc = PERF_RECORD_MISC_USER;
	ev.u.mmap.pid = ev.u.mmap.tid = pid;
	ev.u.mmap.start = start;
	ev.u.mmap.len = len;
	ev.u.mmap.prot = 5; /* r-x */
	ev.u.mmap.filename = name;
	ev.bytes = recbuf;
	return ev;
}

static void test_fork_exec(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);

	struct event ev = make_mmap2(100, 0x400000, 0x1000, "/bin/parent");
	machine_apply(&w.m, &ev);
	struct event comm = { .type = PERF_RECORD_COMM };
	comm.u.comm.pid = comm.u.comm.tid = 100;
	comm.u.comm.comm = "parent";
	machine_apply(&w.m, &comm);

	/* fork: the child inherits the mapping and the comm. */
	struct event fork = { .type = PERF_RECORD_FORK };
	fork.u.task.pid = fork.u.task.tid = 101;
	fork.u.task.ppid = fork.u.task.ptid = 100;
	machine_apply(&w.m, &fork);
	const struct mapping *map = machine_find(&w.m, 101, 0x400010, false);
	assert_non_null(map);
	assert_string_equal(dso_set_get(&w.dsos, map->dso)->path, "/bin/parent");
	assert_string_equal(strtab_get(&w.strs, machine_thread(&w.m, 101, 101)->comm), "parent");

	/* exec in the child: its mappings go, the parent's stay. */
	struct event exec = { .type = PERF_RECORD_COMM };
	exec.u.comm.pid = exec.u.comm.tid = 101;
	exec.u.comm.comm = "child";
	exec.u.comm.exec = true;
	machine_apply(&w.m, &exec);
	assert_null(machine_find(&w.m, 101, 0x400010, false));
	assert_non_null(machine_find(&w.m, 100, 0x400010, false));
	assert_string_equal(strtab_get(&w.strs, machine_thread(&w.m, 101, 101)->comm), "child");

	/* A thread never named gets perf's ":TID". */
	assert_string_equal(strtab_get(&w.strs, machine_thread(&w.m, 7, 9)->comm), ":9");

	/* Non-executable MMAP2 is ignored. */
	struct event data = make_mmap2(100, 0x600000, 0x1000, "/bin/data");
	data.u.mmap.prot = 3;
	machine_apply(&w.m, &data);
	assert_null(machine_find(&w.m, 100, 0x600010, false));

	world_release(&w);
}

/* machine_forget: the processes named go with their threads; the others
 * keep their mappings, threads and comms; a forgotten pid comes back fresh. */
static void test_forget(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	for (uint32_t pid = 10; pid < 20; pid++) {
		struct event ev = make_mmap2(pid, 0x400000 + pid * 0x1000, 0x1000, "/bin/x");
		machine_apply(&w.m, &ev);
		struct event comm = { .type = PERF_RECORD_COMM };
		comm.u.comm.pid = comm.u.comm.tid = pid;
		comm.u.comm.comm = pid % 2 ? "odd" : "even";
		machine_apply(&w.m, &comm);
		machine_thread(&w.m, pid, pid + 100); /* a second thread */
	}
	assert_non_null(machine_find(&w.m, 13, 0x400000 + 13 * 0x1000, false)); /* cached */
	uint32_t gone[] = { 11, 13, 15, 17, 19 };
	machine_forget(&w.m, gone, 5);
	assert_int_equal(w.m.procs.n, 5);
	assert_int_equal(w.m.threads.n, 10);
	for (uint32_t pid = 10; pid < 20; pid++) {
		const struct mapping *map = machine_find(&w.m, pid, 0x400000 + pid * 0x1000, false);
		if (pid % 2) {
			assert_null(map);
		} else {
			assert_non_null(map);
			assert_string_equal(strtab_get(&w.strs, machine_thread(&w.m, pid, pid)->comm), "even");
			assert_int_equal(machine_thread(&w.m, pid, pid + 100)->pid, pid);
		}
	}
	assert_int_equal(w.m.threads.n, 10); /* the lookups above created nothing */
	assert_string_equal(strtab_get(&w.strs, machine_thread(&w.m, 13, 13)->comm), ":13");
	world_release(&w);
}

/*
 * A live view's eviction: machine_dsos_used marks what processes map (and
 * the perf maps of known processes), dso_set_retire unloads the rest but
 * kernel w.dsos, and their paths intern to new ids until
 * dso_set_reuse_retired hands the old ids out again, emptied.
 */
static void test_retire(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	char path[32];
	for (uint32_t pid = 10; pid < 14; pid++) {
		snprintf(path, sizeof(path), "/bin/a%u", pid);
		struct event ev = make_mmap2(pid, 0x400000, 0x1000, path);
		machine_apply(&w.m, &ev);
		ev = make_mmap2(pid, 0x7f0000000000, 0x1000, "/lib/shared");
		machine_apply(&w.m, &ev);
	}
	struct event self = make_mmap2(10, 0x500000, 0x1000, "/proc/self/exe");
	machine_apply(&w.m, &self);
	uint32_t exe = dso_set_intern(&w.dsos, "/proc/self/exe");
	assert_non_null(dso_image(&w.dsos, dso_set_get(&w.dsos, exe))); /* loaded: to be freed */
	uint32_t jit12 = dso_set_jit(&w.dsos, 12), jit99 = dso_set_jit(&w.dsos, 99);
	uint32_t kern = dso_set_intern(&w.dsos, "[kernel.kallsyms]");
	uint32_t a10 = dso_set_intern(&w.dsos, "/bin/a10"), a11 = dso_set_intern(&w.dsos, "/bin/a11");
	uint32_t shared = dso_set_intern(&w.dsos, "/lib/shared");
	uint32_t gone[] = { 10, 11 };
	machine_forget(&w.m, gone, 2);
	size_t n = w.dsos.v.n;
	uint8_t used[64] = { 0 };
	assert_true(n <= sizeof(used));
	machine_dsos_used(&w.m, used, n);
	assert_true(used[shared] && used[jit12] && !used[jit99] && !used[a10] && !used[exe]);
	assert_int_equal(dso_set_retire(&w.dsos, used), 4); /* a10, a11, exe, jit99 */
	assert_int_equal(dso_set_nretired(&w.dsos), 4);
	assert_true(dso_set_get(&w.dsos, exe)->retired);
	assert_null(dso_set_get(&w.dsos, exe)->img);
	assert_false(dso_set_get(&w.dsos, exe)->tried);
	assert_false(dso_set_get(&w.dsos, kern)->retired);
	assert_false(dso_set_get(&w.dsos, shared)->retired);
	assert_int_equal(dso_set_retire(&w.dsos, used), 0); /* once */
	/* Still known paths intern to themselves, retired ones to new ids. */
	assert_int_equal(dso_set_intern(&w.dsos, "/lib/shared"), shared);
	assert_int_equal(dso_set_jit(&w.dsos, 12), jit12);
	uint32_t again = dso_set_intern(&w.dsos, "/bin/a10");
	assert_int_equal(again, n);
	assert_int_not_equal(again, a10);
	/* Reused: the next new paths take the retired ids, emptied. */
	dso_set_reuse_retired(&w.dsos);
	assert_int_equal(dso_set_nretired(&w.dsos), 0);
	uint32_t fresh = dso_set_intern(&w.dsos, "/bin/new");
	assert_true(fresh == a10 || fresh == a11 || fresh == exe || fresh == jit99);
	const struct dso *d = dso_set_get(&w.dsos, fresh);
	assert_string_equal(d->path, "/bin/new");
	assert_string_equal(d->base, "new");
	assert_false(d->retired);
	assert_null(d->img);
	assert_int_equal(dso_set_intern(&w.dsos, "/bin/new"), fresh);
	assert_int_equal(w.dsos.v.n, n + 1);
	world_release(&w);
}

/* KSYMBOL: a BPF program is a kernel mapping of its own dso, named as the
 * symbol, until it is unregistered; removing a range trims across it. */
static void test_ksymbol(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	struct event k = { .type = PERF_RECORD_KSYMBOL };
	k.u.ksymbol.addr = 0xffffffffc0001000u;
	k.u.ksymbol.len = 0x200;
	k.u.ksymbol.ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF;
	k.u.ksymbol.name = "bpf_prog_0123456789abcdef_on_exit";
	machine_apply(&w.m, &k);
	const struct mapping *map = machine_find(&w.m, 1, 0xffffffffc00011ffu, true);
	assert_non_null(map);
	const struct dso *d = dso_set_get(&w.dsos, map->dso);
	assert_int_equal(d->kind, DSO_KSYM);
	assert_string_equal(d->path, "bpf_prog_0123456789abcdef_on_exit");
	assert_null(machine_find(&w.m, 1, 0xffffffffc0001200u, true));
	assert_null(machine_find(&w.m, 1, 0xffffffffc00011ffu, false)); /* user space: none */
	k.u.ksymbol.flags = PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER;
	machine_apply(&w.m, &k);
	assert_null(machine_find(&w.m, 1, 0xffffffffc0001000u, true));
	assert_int_equal(w.m.kernel.maps.n, 0);
	world_release(&w);

	struct addr_space as = { 0 };
	struct mapping a = { 0x1000, 0x5000, 0, 1 };
	addr_space_insert(&as, &a);
	addr_space_remove(&as, 0x2000, 0x3000);
	assert_int_equal(as.maps.n, 2);
	check(&as, 0, 0x1000, 0x2000, 0, 1);
	check(&as, 1, 0x3000, 0x5000, 0x2000, 1);
	addr_space_remove(&as, 0x0, 0x10000);
	assert_int_equal(as.maps.n, 0);
	addr_space_remove(&as, 0x10, 0x10); /* empty: nothing */
	VEC_FREE(&as.maps);
}

/* One mmap of the model: the last one that covers an address owns it. */
struct model_map {
	uint32_t pid;
	uint64_t start, end;
	char name[16];
};

/*
 * machine_find between random mmaps, execs and lookups in three
 * processes (lookups of one address in a row, and across processes, as
 * the symbolizer and unwinder make them) against the model.
 */
static void test_find_model(void **state)
{
	enum { NMAPS = 400 };
	static struct model_map mm[NMAPS];
	size_t n = 0;
	uint64_t rng = 0x2545f4914f6cdd1dull;
	struct world w;

	(void)state;
	world_init(&w);
	for (int it = 0; it < 20000; it++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		uint32_t pid = 100 + (uint32_t)(rng % 3);
		uint64_t addr = 0x400000 + ((rng >> 8) % 64) * 0x1000 + ((rng >> 20) % 0x1000);
		if (rng % 50 == 0 && n < NMAPS) {
			struct model_map *x = &mm[n++];
			x->pid = pid;
			x->start = addr & ~(uint64_t)0xfff;
			x->end = x->start + (1 + (rng >> 32) % 8) * 0x1000;
			snprintf(x->name, sizeof(x->name), "/bin/m%zu", n);
			struct event ev = make_mmap2(pid, x->start, x->end - x->start, x->name);
			machine_apply(&w.m, &ev);
			continue;
		}
		if (rng % 997 == 0) { /* exec: the process's mappings go */
			struct event ex = { .type = PERF_RECORD_COMM };
			ex.u.comm.pid = ex.u.comm.tid = pid;
			ex.u.comm.comm = "x";
			ex.u.comm.exec = true;
			machine_apply(&w.m, &ex);
			for (size_t i = 0; i < n; i++)
				if (mm[i].pid == pid)
					mm[i].pid = 0;
			continue;
		}
		for (int rep = 0; rep < 2; rep++) {
			const struct model_map *want = NULL;
			for (size_t i = 0; i < n; i++)
				if (mm[i].pid == pid && mm[i].start <= addr && addr < mm[i].end)
					want = &mm[i];
			const struct mapping *got = machine_find(&w.m, pid, addr, false);
			if (!want) {
				assert_null(got);
				continue;
			}
			assert_non_null(got);
			assert_true(got->start <= addr && addr < got->end);
			assert_string_equal(dso_set_get(&w.dsos, got->dso)->path, want->name);
			assert_int_equal(got->pgoff + (addr - got->start), addr - want->start);
		}
	}
	world_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_overlaps),
		cmocka_unit_test(test_fork_exec),
		cmocka_unit_test(test_forget),
		cmocka_unit_test(test_ksymbol),
		cmocka_unit_test(test_retire),
		cmocka_unit_test(test_find_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
