/* profile: perf.data → stack trie (pipeline, L8). */
#include "pipeline/profile.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "dso/dso.h"
#include "pipeline/readahead.h"
#include "proc/proc.h"
#include "source/perffile/perffile.h"
#include "symbolize/symbolize.h"
#include "unwind/dwarf.h"
#include "unwind/unwind.h"

/* Use /proc/kallsyms only for a profile of this very kernel: same release,
 * and (checked at the first kernel address) the same _text after KASLR. */
static bool same_kernel(const struct perf_header_info *h)
{
	struct utsname u;
	if (!h->osrelease)
		return true;
	return uname(&u) == 0 && !strcmp(u.release, h->osrelease);
}

static void check_kaslr(struct machine *m, struct dso_set *dsos, bool *checked)
{
	*checked = true;
	const struct kallsyms *ks = dso_kallsyms(dsos);
	uint64_t text;
	if (!ks || !m->kernel_text || !kallsyms_find(ks, "_text", &text))
		return;
	if (text != m->kernel_text) {
		log_warn("the recorded kernel was loaded at 0x%llx, the running one at 0x%llx "
			 "(another boot): kernel frames will show as [kernel.kallsyms]",
			 (unsigned long long)m->kernel_text, (unsigned long long)text);
		dso_set_use_kallsyms(dsos, false);
		kallsyms_free(dsos->ksyms);
		dsos->ksyms = NULL;
	}
}

/* Read and unwind on a second thread (readahead.h) for a file input (pipe
 * mode adds attrs while reading) of at least READAHEAD_MIN bytes when
 * there is a second CPU: the thread opens the binaries a second time,
 * which small inputs do not repay. KILN_THREADS=1 never, =2 always (for
 * a file). The output is the same either way. */
#define READAHEAD_MIN ((off_t)32 << 20)

static bool use_readahead(const struct perf_header_info *h, const char *input)
{
	const char *env = getenv("KILN_THREADS");
	struct stat st;
	if (h->pipe_mode || (env && !strcmp(env, "1")))
		return false;
	if (env && !strcmp(env, "2"))
		return true;
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 && stat(input, &st) == 0 &&
	       st.st_size >= READAHEAD_MIN;
}

/* Frame names per (symbol, dso, mode): naming builds and interns a string,
 * so it is done once per distinct symbol (the key is exact, not a hash). */
static struct trie_frame cached_frame(struct hashmap *fc, struct strtab *strs,
				      const struct symbolizer *sz, const struct sym *sym,
				      const struct frame_opts *o)
{
	/* An exact key: name id (32 bits), dso id (31 bits), kernel (1 bit). */
	uint64_t key = ((uint64_t)sym->name << 32) | ((uint64_t)(sym->dso & 0x7fffffff) << 1) |
		       sym->kernel, v;
	if (sym->name == SYM_NONE || sym->dso == SYM_NONE || sym->dso > 0x7fffffff)
		return frame_for_sym(strs, sz, sym, o);
	if (hashmap_get(fc, key, &v))
		return (struct trie_frame){ (uint32_t)(v >> 8), (uint8_t)(v & 0xff) };
	struct trie_frame f = frame_for_sym(strs, sz, sym, o);
	hashmap_put(fc, key, ((uint64_t)f.name << 8) | f.kind);
	return f;
}

int profile_load(const struct profile_opts *o, struct strtab *strs, struct trie *t,
		 struct profile_stats *st)
{
	memset(st, 0, sizeof(*st));
	struct perf_reader *r;
	int err = perf_reader_open(&r, o->input, NULL);
	if (err)
		return err;
	const struct perf_header_info *h = perf_reader_info(r);
	struct dso_set dsos;
	struct machine m;
	struct symbolizer sz;
	dso_set_init(&dsos);
	dsos.symfs = o->symfs;
	dso_set_use_kallsyms(&dsos, same_kernel(h));
	for (size_t i = 0; i < h->nbuild_ids; i++)
		if (h->build_ids[i].pid != -1 || h->build_ids[i].filename[0] == '/')
			dso_set_expect_build_id(&dsos, h->build_ids[i].filename,
						h->build_ids[i].id, h->build_ids[i].size);
	machine_init(&m, strs, &dsos);
	symbolizer_init(&sz, &m, strs);
	struct unwinder uw;
	unwinder_init(&uw, &m);
	struct hashmap fcache;
	hashmap_init(&fcache);

	struct unwind_stack *stack = xmalloc(sizeof(*stack)); /* 16 KiB: off the C stack */
	struct trie_frame frames[UNWIND_MAX_FRAMES + 2];
	uint32_t truncated_name = strtab_intern_str(strs, PROFILE_TRUNCATED_FRAME);
	bool kaslr_checked = false;
	struct event ev;
	int rc;
	struct readahead *ra = use_readahead(h, o->input) ? readahead_start(r, true, o->symfs) : NULL;
	while ((rc = ra ? readahead_next(ra, &ev, stack) : perf_reader_next(r, &ev)) == 1) {
		if (ev.type != PERF_RECORD_SAMPLE) {
			machine_apply(&m, &ev);
			if (ev.type == PERF_RECORD_LOST)
				st->lost += ev.u.lost.lost;
			else if (ev.type == PERF_RECORD_LOST_SAMPLES)
				st->lost_samples += ev.u.lost.lost;
			continue;
		}
		st->samples++;
		const struct thread *th = machine_thread(&m, ev.sid.pid, ev.sid.tid);
		frames[0] = frame_for_process(strs, strtab_get(strs, th->comm), ev.sid.pid,
					      ev.sid.tid, &o->frames);
		if (!ra) /* else the reader thread unwound it */
			unwinder_sample(&uw, &ev, stack);
		size_t n = 1;
		if (stack->truncated) {
			st->truncated++;
			frames[n++] = (struct trie_frame){ truncated_name, FRAME_UNKNOWN };
		}
		for (size_t i = stack->n; i-- > 0;) {
			struct sym sym;
			if (stack->frames[i].kernel && !kaslr_checked)
				check_kaslr(&m, &dsos, &kaslr_checked);
			symbolize(&sz, ev.sid.pid, stack->frames[i].ip, stack->frames[i].kernel, &sym);
			frames[n++] = cached_frame(&fcache, strs, &sz, &sym, &o->frames);
		}
		trie_add(t, frames, n, 1);
	}
	readahead_stop(ra);
	const struct perf_reader_stats *rs = perf_reader_stats(r);
	st->unknown_records = rs->unknown_records;
	st->partial = perf_reader_partial(r) || rc < 0;
	if (st->partial)
		err_restore(perf_reader_error(r));
	free(stack);
	unwinder_release(&uw);
	hashmap_release(&fcache);
	symbolizer_release(&sz);
	machine_release(&m);
	dso_set_release(&dsos);
	perf_reader_free(r);
	return 0;
}
