/*
 * hist unit tests (aggregate, L6): self and children periods on synthetic
 * stacks (recursion counted once per sample), entries keyed by the sort
 * keys, callchain trees in caller and callee order, filtered samples kept
 * in the total but showing no entry by themselves, the sorted order and
 * decay.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "aggregate/hist.h"

struct fixture {
	struct strtab s;
	struct hist h;
	uint32_t comm, dso;
};

static void setup(struct fixture *f, bool children, bool chains, enum hist_order order)
{
	strtab_init(&f->s);
	struct hist_opts o = { .keys = { HIST_COMM, HIST_DSO, HIST_SYM }, .nkeys = 3,
			       .children = children, .callchains = chains, .order = order };
	hist_init(&f->h, &o, &f->s);
	f->comm = strtab_intern_str(&f->s, "prog");
	f->dso = strtab_intern_str(&f->s, "prog");
}

static void teardown(struct fixture *f)
{
	hist_release(&f->h);
	strtab_release(&f->s);
}

/* Add a sample whose stack is the names in 'leaf_first', separated by spaces. */
static void add(struct fixture *f, const char *leaf_first, uint64_t period, bool filtered)
{
	struct hist_frame fr[16];
	size_t n = 0;
	char buf[256];
	strcpy(buf, leaf_first);
	for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		memset(&fr[n], 0, sizeof(fr[n]));
		fr[n].sym = strtab_intern_str(&f->s, t);
		fr[n].dso = f->dso;
		fr[n].start = 0x1000 + fr[n].sym * 0x10;
		n++;
	}
	struct hist_sample s = { .comm = f->comm, .pid = 1, .tid = 1, .period = period,
				 .frames = fr, .n = n, .filtered = filtered };
	hist_add(&f->h, &s);
}

static const struct hist_entry *entry(struct fixture *f, const char *name)
{
	for (size_t i = 0; i < f->h.entries.n; i++) {
		const struct hist_entry *e = &f->h.entries.v[i];
		if (e->k.sym != HIST_NONE && !strcmp(strtab_get(&f->s, e->k.sym), name))
			return e;
	}
	return NULL;
}

static const char *name_of(struct fixture *f, const struct hist_entry *e)
{
	return strtab_get(&f->s, e->k.sym);
}

static void test_self_children(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, true, false, HIST_CALLER);
	add(&f, "leaf mid main", 10, false);
	add(&f, "mid main", 5, false);
	add(&f, "other main", 1, false);
	hist_finish(&f.h);
	assert_int_equal(f.h.total, 16);
	assert_int_equal(f.h.nsamples, 3);
	assert_int_equal(entry(&f, "leaf")->self, 10);
	assert_int_equal(entry(&f, "leaf")->children, 10);
	assert_int_equal(entry(&f, "mid")->self, 5);
	assert_int_equal(entry(&f, "mid")->children, 15);
	assert_int_equal(entry(&f, "mid")->nself, 1);
	assert_int_equal(entry(&f, "mid")->nchildren, 2);
	assert_int_equal(entry(&f, "main")->self, 0);
	assert_int_equal(entry(&f, "main")->children, 16);
	/* sorted by children: main, mid, leaf, other */
	assert_int_equal(hist_count(&f.h), 4);
	assert_string_equal(name_of(&f, hist_at(&f.h, 0)), "main");
	assert_string_equal(name_of(&f, hist_at(&f.h, 1)), "mid");
	assert_string_equal(name_of(&f, hist_at(&f.h, 2)), "leaf");
	assert_string_equal(name_of(&f, hist_at(&f.h, 3)), "other");
	teardown(&f);
}

static void test_recursion_once(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, true, true, HIST_CALLER);
	/* fib calls itself three deep: its children period counts the sample once */
	add(&f, "fib fib fib main", 7, false);
	add(&f, "fib main", 3, false);
	hist_finish(&f.h);
	const struct hist_entry *fib = entry(&f, "fib");
	assert_int_equal(fib->self, 10);
	assert_int_equal(fib->children, 10);
	assert_int_equal(fib->nchildren, 2);
	assert_int_equal(entry(&f, "main")->children, 10);
	/* fib's tree holds its self samples as full chains, caller first */
	const struct hist_node *root = hist_node(&f.h, fib->root);
	assert_int_equal(root->cumul, 10);
	uint32_t first = root->first_child;
	assert_string_equal(strtab_get(&f.s, hist_node_frame(&f.h, first)->sym), "main");
	assert_int_equal(hist_node(&f.h, first)->cumul, 10);
	assert_int_equal(hist_node(&f.h, first)->next_sibling, HIST_NONE);
	teardown(&f);
}

static void test_no_children(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, false, true, HIST_CALLEE);
	add(&f, "a b c", 4, false);
	add(&f, "a d c", 2, false);
	add(&f, "b c", 1, false);
	hist_finish(&f.h);
	assert_int_equal(hist_count(&f.h), 2); /* a and b: entries only for leaves */
	const struct hist_entry *a = hist_at(&f.h, 0);
	assert_string_equal(name_of(&f, a), "a");
	assert_int_equal(a->self, 6);
	assert_int_equal(a->children, 0);
	/* callee order: a, then b (4) before d (2) */
	const struct hist_node *r = hist_node(&f.h, a->root);
	uint32_t na = r->first_child;
	assert_string_equal(strtab_get(&f.s, hist_node_frame(&f.h, na)->sym), "a");
	uint32_t nb = hist_node(&f.h, na)->first_child;
	uint32_t nd = hist_node(&f.h, nb)->next_sibling;
	assert_string_equal(strtab_get(&f.s, hist_node_frame(&f.h, nb)->sym), "b");
	assert_string_equal(strtab_get(&f.s, hist_node_frame(&f.h, nd)->sym), "d");
	assert_int_equal(hist_node(&f.h, nb)->cumul, 4);
	assert_int_equal(hist_node(&f.h, nd)->cumul, 2);
	uint32_t nc = hist_node(&f.h, nb)->first_child;
	assert_int_equal(hist_node(&f.h, nc)->hit, 4);
	teardown(&f);
}

static void test_filtered(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, true, false, HIST_CALLER);
	add(&f, "x main", 3, true); /* filtered out: x and main show nowhere */
	add(&f, "y main", 1, false);
	add(&f, "z main", 2, false);
	add(&f, "z main", 5, true); /* adds to z, made by an unfiltered sample */
	hist_finish(&f.h);
	assert_int_equal(f.h.total, 11);
	/* perf keeps the filter bits of the sample that made an entry: main
	 * was made by a filtered one */
	assert_int_equal(hist_count(&f.h), 2);
	assert_string_equal(name_of(&f, hist_at(&f.h, 0)), "z");
	assert_int_equal(hist_at(&f.h, 0)->self, 7); /* both samples' periods */
	assert_string_equal(name_of(&f, hist_at(&f.h, 1)), "y");
	teardown(&f);
}

static void test_decay(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, false, false, HIST_CALLEE);
	add(&f, "a", 100, false);
	add(&f, "b", 50, false);
	hist_decay(&f.h, 1, 2);
	hist_finish(&f.h);
	assert_int_equal(f.h.total, 75);
	assert_int_equal(hist_at(&f.h, 0)->self, 50);
	assert_int_equal(hist_at(&f.h, 1)->self, 25);
	teardown(&f);
}

/* perf top's decay: periods and sample counts scale by 7/8; entries and
 * callchain nodes that decay to zero are dropped, the rest keep their
 * periods, trees and keys (later samples find them again). */
static void test_drop_decayed(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, true, true, HIST_CALLER);
	for (int i = 0; i < 8; i++)
		add(&f, "a main", 100, false);
	add(&f, "b other", 1, false);
	hist_finish(&f.h);
	size_t nodes_before = f.h.nodes.n, frames_before = f.h.frames.n;
	assert_non_null(entry(&f, "b"));
	hist_decay(&f.h, 7, 8);
	assert_int_equal(entry(&f, "a")->nself, 7);
	assert_int_equal(entry(&f, "b")->self, 0);
	struct hist_remap map;
	size_t dropped = hist_drop_decayed(&f.h, &map);
	assert_int_equal(dropped, 2); /* b and other */
	assert_int_equal(f.h.entries.n, 2);
	assert_int_equal(hist_count(&f.h), 2);
	assert_null(entry(&f, "b"));
	assert_null(entry(&f, "other"));
	assert_true(f.h.nodes.n < nodes_before);
	assert_true(f.h.frames.n < frames_before);
	assert_int_equal(map.nentries, 4);
	size_t kept = 0;
	for (size_t i = 0; i < map.nentries; i++)
		kept += map.entry[i] != HIST_NONE;
	assert_int_equal(kept, 2);
	hist_remap_release(&map);
	const struct hist_entry *a = entry(&f, "a");
	assert_non_null(a);
	assert_int_equal(a->self, 700);
	assert_int_equal(a->children, 700);
	/* a's tree in caller order: root -> main -> a, periods kept */
	const struct hist_node *r = hist_node(&f.h, a->root);
	assert_int_equal(r->cumul, 700);
	assert_int_not_equal(r->first_child, HIST_NONE);
	const struct hist_node *m = hist_node(&f.h, r->first_child);
	assert_string_equal(strtab_get(&f.s, hist_node_frame(&f.h, r->first_child)->sym), "main");
	assert_int_equal(m->cumul, 700);
	assert_string_equal(strtab_get(&f.s, hist_node_frame(&f.h, m->first_child)->sym), "a");
	/* New samples reach the kept entries and make new ones. */
	add(&f, "a main", 100, false);
	add(&f, "b other", 5, false);
	hist_finish(&f.h);
	assert_int_equal(entry(&f, "a")->self, 800);
	assert_int_equal(entry(&f, "b")->self, 5);
	assert_int_equal(hist_node(&f.h, entry(&f, "a")->root)->cumul, 800);
	/* -z: zeroing every refresh drops everything. */
	hist_decay(&f.h, 0, 1);
	hist_drop_decayed(&f.h, NULL);
	assert_int_equal(f.h.entries.n, 0);
	assert_int_equal(f.h.nodes.n, 0);
	assert_int_equal(f.h.frames.n, 0);
	assert_int_equal(f.h.total, 0);
	add(&f, "c", 3, false);
	hist_finish(&f.h);
	assert_int_equal(hist_count(&f.h), 1);
	teardown(&f);
}

/* Callchain trees stop at max_nodes; periods stay exact. */
/* -s srcline: samples at two lines of one symbol are two entries, lines
 * shared by two symbols one; ties by the text. The chain's first frame
 * counts as an inclusive entry of its own when its text differs (perf
 * looks it up by the unmapped address). */
static void test_srcline_key(void **state)
{
	(void)state;
	struct strtab s;
	strtab_init(&s);
	struct hist h;
	struct hist_opts o = { .keys = { HIST_SRCLINE }, .nkeys = 1, .children = true };
	hist_init(&h, &o, &s);
	uint32_t a5 = strtab_intern_str(&s, "a.c:5"), a7 = strtab_intern_str(&s, "a.c:7");
	uint32_t mainx = strtab_intern_str(&s, "main+99"), mainl = strtab_intern_str(&s, "a.c:20");
	struct hist_frame fr[2] = {
		{ .sym = 1, .srcline = a7, .csrcline = a7 },
		{ .sym = 2, .srcline = mainl, .csrcline = mainx },
	};
	struct hist_sample smp = { .period = 3, .frames = fr, .n = 2 };
	hist_add(&h, &smp);
	fr[0].srcline = fr[0].csrcline = a5;
	smp.period = 3;
	hist_add(&h, &smp);
	fr[0].csrcline = strtab_intern_str(&s, "work+1234"); /* another text unmapped */
	smp.period = 1;
	hist_add(&h, &smp);
	hist_finish(&h);
	assert_int_equal(hist_count(&h), 4);
	/* main+99 reached by every sample; a.c:20 never the leaf's own key */
	assert_int_equal(hist_at(&h, 0)->k.srcline, mainx);
	assert_int_equal(hist_at(&h, 0)->children, 7);
	assert_int_equal(hist_at(&h, 1)->k.srcline, a5);
	assert_int_equal(hist_at(&h, 1)->self, 4);
	assert_int_equal(hist_at(&h, 1)->children, 4); /* once per sample */
	assert_int_equal(hist_at(&h, 2)->k.srcline, a7);
	assert_int_equal(strcmp(strtab_get(&s, hist_at(&h, 3)->k.srcline), "work+1234"), 0);
	assert_int_equal(hist_at(&h, 3)->self, 0);
	assert_int_equal(hist_sort_parse("srcfile"), HIST_SRCFILE);
	assert_int_equal(hist_sort_parse("tid"), HIST_PID);
	hist_release(&h);
	strtab_release(&s);
}

/* -s symoff: one entry per offset, the higher offset first on equal
 * shares; -s parent: by the sample's parent, "[other]" (none) last. */
static void test_symoff_parent(void **state)
{
	(void)state;
	struct strtab s;
	strtab_init(&s);
	struct hist h;
	struct hist_opts o = { .keys = { HIST_PARENT, HIST_SYMOFF }, .nkeys = 2 };
	hist_init(&h, &o, &s);
	uint32_t f = strtab_intern_str(&s, "f"), sys = strtab_intern_str(&s, "sys_read");
	struct hist_frame fr = { .sym = f, .start = 0x100, .off = 4 };
	struct hist_sample smp = { .period = 1, .frames = &fr, .n = 1, .parent = HIST_NONE };
	hist_add(&h, &smp);
	fr.off = 9;
	hist_add(&h, &smp);
	smp.parent = sys;
	hist_add(&h, &smp);
	hist_finish(&h);
	assert_int_equal(hist_count(&h), 3);
	assert_int_equal(hist_at(&h, 0)->k.parent, sys);
	assert_int_equal(hist_at(&h, 1)->k.parent, HIST_NONE);
	assert_int_equal(hist_at(&h, 1)->k.off, 9);
	assert_int_equal(hist_at(&h, 2)->k.off, 4);
	hist_release(&h);
	strtab_release(&s);
}

static void test_node_cap(void **state)
{
	(void)state;
	struct fixture f;
	strtab_init(&f.s);
	struct hist_opts o = { .keys = { HIST_SYM }, .nkeys = 1, .children = true,
			       .callchains = true, .order = HIST_CALLER, .max_nodes = 12 };
	hist_init(&f.h, &o, &f.s);
	f.comm = f.dso = strtab_intern_str(&f.s, "prog");
	add(&f, "a b", 1, false);   /* a: root + b, a; b: root + b: 5 nodes */
	assert_false(f.h.chains_cut);
	add(&f, "c d e", 1, false); /* needs 4 + 3 + 2 more: cut */
	add(&f, "c d e", 1, false);
	hist_finish(&f.h);
	assert_true(f.h.chains_cut);
	assert_true(f.h.nodes.n <= 12);
	assert_int_equal(f.h.total, 3);
	assert_int_equal(entry(&f, "e")->children, 2);
	assert_int_equal(entry(&f, "c")->children, 2);
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_children), cmocka_unit_test(test_recursion_once),
		cmocka_unit_test(test_no_children),   cmocka_unit_test(test_filtered),
		cmocka_unit_test(test_decay), cmocka_unit_test(test_drop_decayed),	      cmocka_unit_test(test_node_cap),
		cmocka_unit_test(test_srcline_key),   cmocka_unit_test(test_symoff_parent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
