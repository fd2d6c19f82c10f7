/*
 * proc: the process model (proc, L3). Address spaces are sorted vectors
 * of mappings; inserting a mapping rewrites the overlapped range. Lookups
 * are binary searches.
 */
#include "proc/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/xalloc.h"

void machine_init(struct machine *m, struct strtab *strs, struct dso_set *dsos)
{
	memset(m, 0, sizeof(*m));
	m->strs = strs;
	m->dsos = dsos;
	hashmap_init(&m->pid_index);
	hashmap_init(&m->tid_index);
	m->unknown_comm = strtab_intern_str(strs, ":unknown:");
}

void machine_release(struct machine *m)
{
	for (size_t i = 0; i < m->procs.n; i++)
		VEC_FREE(&m->procs.v[i].as.maps);
	VEC_FREE(&m->procs);
	VEC_FREE(&m->threads);
	VEC_FREE(&m->kernel.maps);
	hashmap_release(&m->pid_index);
	hashmap_release(&m->tid_index);
}

void machine_forget(struct machine *m, const uint32_t *pids, size_t n)
{
	if (!n)
		return;
	struct hashmap gone;
	hashmap_init(&gone);
	for (size_t i = 0; i < n; i++)
		hashmap_put(&gone, pids[i], 1);
	uint64_t v;
	uint32_t *pmap;
	XALLOC_ARRAY(pmap, m->procs.n ? m->procs.n : 1);
	size_t np = 0;
	hashmap_release(&m->pid_index);
	hashmap_init(&m->pid_index);
	for (size_t i = 0; i < m->procs.n; i++) {
		struct process *p = &m->procs.v[i];
		if (hashmap_get(&gone, p->pid, &v)) {
			VEC_FREE(&p->as.maps);
			pmap[i] = UINT32_MAX;
			continue;
		}
		pmap[i] = (uint32_t)np;
		m->procs.v[np] = *p;
		hashmap_put(&m->pid_index, p->pid, np);
		np++;
	}
	m->procs.n = np;
	size_t nt = 0;
	hashmap_release(&m->tid_index);
	hashmap_init(&m->tid_index);
	for (size_t i = 0; i < m->threads.n; i++) {
		struct thread t = m->threads.v[i];
		if (pmap[t.proc] == UINT32_MAX)
			continue;
		t.proc = pmap[t.proc];
		m->threads.v[nt] = t;
		hashmap_put(&m->tid_index, t.tid, nt);
		nt++;
	}
	m->threads.n = nt;
	m->last_pid = 0; /* machine_find's cache held an index */
	free(pmap);
	hashmap_release(&gone);
}

static void mark_maps(const struct addr_space *as, uint8_t *used, size_t n)
{
	for (size_t i = 0; i < as->maps.n; i++)
		if (as->maps.v[i].dso < n)
			used[as->maps.v[i].dso] = 1;
}

void machine_dsos_used(const struct machine *m, uint8_t *used, size_t n)
{
	mark_maps(&m->kernel, used, n);
	for (size_t i = 0; i < m->procs.n; i++)
		mark_maps(&m->procs.v[i].as, used, n);
	uint64_t v;
	for (size_t id = 0; id < n && id < m->dsos->v.n; id++) {
		const struct dso *d = m->dsos->v.v[id];
		if (d->kind == DSO_JIT && d->pid && hashmap_get(&m->pid_index, d->pid, &v))
			used[id] = 1;
	}
}

void addr_space_insert(struct addr_space *as, const struct mapping *nm)
{
	if (nm->end <= nm->start)
		return;
	/* First mapping that ends after nm->start. */
	size_t lo = 0, hi = as->maps.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (as->maps.v[mid].end <= nm->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t first = lo, last = lo; /* [first, last) overlap nm */
	while (last < as->maps.n && as->maps.v[last].start < nm->end)
		last++;
	struct mapping keep[2];
	size_t nkeep = 0;
	if (first < last) {
		const struct mapping *a = &as->maps.v[first], *b = &as->maps.v[last - 1];
		if (a->start < nm->start) {
			keep[nkeep] = *a;
			keep[nkeep++].end = nm->start;
		}
		if (b->end > nm->end) {
			keep[nkeep] = *b;
			keep[nkeep].pgoff += nm->end - b->start;
			keep[nkeep++].start = nm->end;
		}
	}
	/* Replace [first, last) with keep-left, nm, keep-right. */
	size_t nnew = 1 + nkeep, nold = last - first;
	VEC_RESERVE(&as->maps, as->maps.n - nold + nnew);
	if (as->maps.n > last)
		memmove(&as->maps.v[first + nnew], &as->maps.v[last],
			(as->maps.n - last) * sizeof(as->maps.v[0]));
	as->maps.n = as->maps.n - nold + nnew;
	size_t at = first;
	if (nkeep && keep[0].start < nm->start)
		as->maps.v[at++] = keep[0];
	as->maps.v[at++] = *nm;
	if (nkeep && keep[nkeep - 1].start >= nm->end)
		as->maps.v[at++] = keep[nkeep - 1];
}

void addr_space_remove(struct addr_space *as, uint64_t start, uint64_t end)
{
	if (end <= start)
		return;
	/* Insert a placeholder over the range (it trims), then drop it: it is
	 * the one mapping holding 'start'. */
	struct mapping hole = { .start = start, .end = end, .dso = UINT32_MAX };
	addr_space_insert(as, &hole);
	size_t i = (size_t)(addr_space_find(as, start) - as->maps.v);
	memmove(&as->maps.v[i], &as->maps.v[i + 1], (as->maps.n - i - 1) * sizeof(as->maps.v[0]));
	as->maps.n--;
}

const struct mapping *addr_space_find(const struct addr_space *as, uint64_t addr)
{
	size_t lo = 0, hi = as->maps.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (as->maps.v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < as->maps.n && as->maps.v[lo].start <= addr)
		return &as->maps.v[lo];
	return NULL;
}

static uint32_t process_idx(struct machine *m, uint32_t pid)
{
	bool inserted;
	uint64_t *slot = hashmap_slot(&m->pid_index, pid, m->procs.n, &inserted);
	if (inserted) {
		struct process *p = VEC_PUSH_ZERO(&m->procs);
		p->pid = pid;
	}
	return (uint32_t)*slot;
}

static uint32_t thread_idx(struct machine *m, uint32_t pid, uint32_t tid)
{
	bool inserted;
	uint64_t *slot = hashmap_slot(&m->tid_index, tid, m->threads.n, &inserted);
	uint32_t idx = (uint32_t)*slot;
	if (inserted) {
		uint32_t proc = process_idx(m, pid);
		struct thread *t = VEC_PUSH_ZERO(&m->threads);
		t->pid = pid;
		t->tid = tid;
		t->proc = proc;
		char name[16];
		snprintf(name, sizeof(name), ":%d", (int)tid); /* perf's name for a thread never named */
		t->comm = strtab_intern_str(m->strs, name);
	} else if (m->threads.v[idx].pid != pid && pid != (uint32_t)-1) {
		/* A tid reused by another process: rebind. */
		uint32_t pi = process_idx(m, pid);
		m->threads.v[idx].pid = pid;
		m->threads.v[idx].proc = pi;
	}
	return idx;
}

const struct thread *machine_thread(struct machine *m, uint32_t pid, uint32_t tid)
{
	uint32_t idx = thread_idx(m, pid, tid); /* may grow threads: index first */
	return &m->threads.v[idx];
}

/*
 * addr_space_find(), trying the mapping of the last answer first: a
 * profile asks about the same few mappings over and over (and about one
 * address several times in a row). Mappings never overlap, so one that
 * holds 'addr' is the answer whatever changed since.
 */
static const struct mapping *find_hinted(struct addr_space *as, uint64_t addr)
{
	if (as->hint < as->maps.n) {
		const struct mapping *h = &as->maps.v[as->hint];
		if (h->start <= addr && addr < h->end)
			return h;
	}
	const struct mapping *r = addr_space_find(as, addr);
	if (r)
		as->hint = (size_t)(r - as->maps.v);
	return r;
}

const struct mapping *machine_find(struct machine *m, uint32_t pid, uint64_t addr, bool kernel)
{
	if (kernel)
		return find_hinted(&m->kernel, addr);
	if (m->last_pid != (uint64_t)pid + 1) {
		uint64_t idx;
		if (!hashmap_get(&m->pid_index, pid, &idx))
			return NULL;
		m->last_pid = (uint64_t)pid + 1;
		m->last_proc = (uint32_t)idx;
	}
	return find_hinted(&m->procs.v[m->last_proc].as, addr);
}

static void apply_mmap(struct machine *m, const struct event *ev)
{
	const struct ev_mmap *mm = &ev->u.mmap;
	if (!m->data_maps && ev->type == PERF_RECORD_MMAP2 && !(mm->prot & PROT_EXEC))
		return; /* data mappings carry no code */
	if (!m->data_maps && (ev->misc & PERF_RECORD_MISC_MMAP_DATA))
		return;
	uint32_t dso = dso_set_intern(m->dsos, mm->filename);
	if (mm->build_id_size)
		dso_set_expect_build_id(m->dsos, mm->filename, mm->build_id, mm->build_id_size);
	uint64_t end = mm->start + mm->len;
	if (end < mm->start)
		end = UINT64_MAX;
	struct mapping map = { .start = mm->start, .end = end, .pgoff = mm->pgoff, .dso = dso };
	/* Old kernels put the vDSO's address in its pgoff; it is always 0 (perf ignores it too). */
	if (dso_set_get(m->dsos, dso)->kind == DSO_VDSO)
		map.pgoff = 0;
	if (machine_record_is_kernel(ev)) {
		if (!strncmp(mm->filename, "[kernel.kallsyms]", 17))
			m->kernel_text = mm->pgoff;
		addr_space_insert(&m->kernel, &map);
		return;
	}
	dso_set_note_pid(m->dsos, dso, mm->pid);
	uint32_t pi = process_idx(m, mm->pid); /* may grow procs: index first */
	addr_space_insert(&m->procs.v[pi].as, &map);
}

bool machine_record_is_kernel(const struct event *ev)
{
	if (ev->type == PERF_RECORD_KSYMBOL)
		return true;
	if (ev->type != PERF_RECORD_MMAP && ev->type != PERF_RECORD_MMAP2)
		return false;
	return ev->u.mmap.pid == (uint32_t)-1 ||
	       (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
}

void machine_apply(struct machine *m, const struct event *ev)
{
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		apply_mmap(m, ev);
		break;
	case PERF_RECORD_KSYMBOL: {
		const struct ev_ksymbol *k = &ev->u.ksymbol;
		uint64_t end = k->addr + k->len < k->addr ? UINT64_MAX : k->addr + k->len;
		if (k->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
			addr_space_remove(&m->kernel, k->addr, end);
		} else if (k->name[0]) {
			struct mapping map = { .start = k->addr, .end = end,
					       .dso = dso_set_intern_ksym(m->dsos, k->name) };
			addr_space_insert(&m->kernel, &map);
		}
		break;
	}
	case PERF_RECORD_COMM: {
		uint32_t ti = thread_idx(m, ev->u.comm.pid, ev->u.comm.tid);
		m->threads.v[ti].comm = strtab_intern_str(m->strs, ev->u.comm.comm);
		m->threads.v[ti].named = true;
		if (ev->u.comm.exec && !m->keep_maps_on_exec) {
			struct process *p = &m->procs.v[m->threads.v[ti].proc];
			p->as.maps.n = 0;
		}
		break;
	}
	case PERF_RECORD_FORK: {
		const struct ev_task *t = &ev->u.task;
		uint64_t existing;
		bool known_parent = hashmap_get(&m->tid_index, t->ptid, &existing);
		uint32_t parent_comm = known_parent ? m->threads.v[existing].comm : m->unknown_comm;
		/* perf copies only a name a COMM gave: a never-named parent's child keeps ":TID" */
		bool copy = !known_parent || m->threads.v[existing].named;
		if (t->pid != t->ppid) {
			/* A new process: it starts with a copy of the parent's mappings. */
			uint64_t pp;
			uint32_t child = process_idx(m, t->pid);
			if (hashmap_get(&m->pid_index, t->ppid, &pp) && pp != child) {
				struct addr_space *src = &m->procs.v[pp].as;
				struct addr_space *dst = &m->procs.v[child].as;
				dst->maps.n = 0;
				VEC_RESERVE(&dst->maps, src->maps.n);
				if (src->maps.n)
					memcpy(dst->maps.v, src->maps.v,
					       src->maps.n * sizeof(src->maps.v[0]));
				dst->maps.n = src->maps.n;
			}
		}
		uint32_t ti = thread_idx(m, t->pid, t->tid);
		if (copy) {
			m->threads.v[ti].comm = parent_comm;
			m->threads.v[ti].named = known_parent;
		}
		break;
	}
	default:
		break;
	}
}
