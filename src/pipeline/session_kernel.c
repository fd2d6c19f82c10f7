/*
 * session_kernel: the kernel's symbols under the session's rules
 * (pipeline, L8); see session.h.
 *
 * perf uses /proc/kallsyms for the recorded kernel when the file names no
 * kernel build-id, or names the running kernel's; otherwise the kernel
 * has no symbols ("No kallsyms or vmlinux with build-id ... was found").
 * Symbols move with the recorded kernel's relocation (KASLR): the kernel
 * MMAP names a reference symbol ("[kernel.kallsyms]_text") and its
 * recorded address (pgoff); kallsyms gives its address now. A reference
 * symbol kallsyms lacks leaves the kernel without symbols, as in perf.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "dso/kallsyms.h"
#include "pipeline/buildids.h"
#include "pipeline/session.h"
#include "pipeline/session_int.h"
#include "source/live/ksymbpf.h"

_Static_assert(KSYM_REC_HEADER == KALLSYMS_REC_HEADER && KSYM_REC_NAME == KALLSYMS_REC_NAME &&
		       KSYM_REC_MODULE == KALLSYMS_REC_MODULE,
	       "the iterator's records are the ones kallsyms parses");

#define KERNEL_MMAP_PREFIX "[kernel.kallsyms]"

bool session_kallsyms_usable(const struct perf_header_info *h)
{
	for (size_t i = 0; i < h->nbuild_ids; i++) {
		const struct perf_build_id *b = &h->build_ids[i];
		if (b->cpumode != PERF_RECORD_MISC_KERNEL ||
		    strncmp(b->filename, KERNEL_MMAP_PREFIX, strlen(KERNEL_MMAP_PREFIX)))
			continue;
		if (!b->size)
			continue; /* an empty id (kiln record writes them): as if none */
		uint8_t id[64];
		size_t n = buildids_running_kernel(id, sizeof(id));
		if (n < b->size || memcmp(id, b->id, b->size))
			return false;
		for (size_t j = b->size; j < n; j++) /* old files' ids come zero-trimmed */
			if (id[j])
				return false;
		return true;
	}
	return true;
}

/* Remember the recorded kernel's reference symbol ("[kernel.kallsyms]_text" at pgoff). */
void session_kernel_note(struct session *s, const struct event *ev)
{
	if (ev->type != PERF_RECORD_MMAP && ev->type != PERF_RECORD_MMAP2)
		return;
	const char *f = ev->u.mmap.filename;
	size_t pl = strlen(KERNEL_MMAP_PREFIX);
	if (strncmp(f, KERNEL_MMAP_PREFIX, pl) || !ev->u.mmap.pgoff)
		return;
	snprintf(s->kref_name, sizeof(s->kref_name), "%s", f[pl] ? f + pl : "_text");
	s->kref_addr = ev->u.mmap.pgoff;
	s->kdone = false;
}

/* The iterator's records (source/live/bpf/ksym_bpf.h) are the ones the
 * reader takes (dso/kallsyms.h): the two layers each name the numbers. */
_Static_assert(KSYM_REC_HEADER == KALLSYMS_REC_HEADER && KSYM_REC_NAME == KALLSYMS_REC_NAME &&
		       KSYM_REC_MODULE == KALLSYMS_REC_MODULE,
	       "the BPF symbol records and their reader agree");

/*
 * The running kernel's symbols: through the BPF symbol iterator where it
 * can be used (source/live/ksymbpf.h: the same symbols without the
 * kernel's text formatting; not with KILN_KALLSYMS=proc), else, or if its
 * records do not parse (said in a warning), from /proc/kallsyms. The same
 * table either way. 0 or -errno.
 */
static int load_running(struct kallsyms **out, bool perf, const struct kiln_env *env)
{
	if (!(env && env->kallsyms_proc)) {
		struct err_report before = *err_last(); /* a way not taken leaves no error */
		struct ksymbpf *b;
		if (!ksymbpf_open(&b)) {
			int rc = kallsyms_load_records(out, ksymbpf_fd(b), perf,
						       "the BPF symbol iterator");
			ksymbpf_close(b);
			if (!rc)
				return 0;
			log_warn("%s; reading /proc/kallsyms instead", err_last()->msg);
		}
		err_restore(&before);
	}
	return perf ? kallsyms_load_perf(out, "/proc/kallsyms") : kallsyms_load(out, "/proc/kallsyms");
}

/* perf_ and prefetch_kallsyms: /proc/kallsyms is read on a second thread
 * from the start (the kernel formats it slowly) and joined when first
 * needed. */
struct session_kthread {
	pthread_t th;
	atomic_bool done; /* the thread has finished: joining does not wait */
	int rc;
	bool perf; /* perf 6.1's reading, else symbolize()'s */
	const struct kiln_env *env;
	struct kallsyms *ks;
};

static void *kallsyms_thread(void *arg)
{
	struct session_kthread *k = arg;
	k->rc = load_running(&k->ks, k->perf, k->env);
	atomic_store_explicit(&k->done, true, memory_order_release);
	return NULL;
}

void session_kernel_start(struct session *s)
{
	bool prefetch = s->o.prefetch_kallsyms && !s->dsos.ksyms_tried && s->dsos.ksyms_allowed;
	if (!(s->o.perf_kallsyms || prefetch) || s->kth || s->kperf_tried || !s->ksyms_usable)
		return;
	if (s->o.env && s->o.env->threads == 1)
		return; /* never a second thread: read when first needed */
	bool kernel = false;
	for (size_t i = 0; i < s->attrs->v.n; i++)
		kernel |= !s->attrs->v.v[i].attr.exclude_kernel;
	if (!kernel)
		return;
	struct session_kthread *k = xcalloc(1, sizeof(*k));
	k->perf = s->o.perf_kallsyms;
	k->env = s->o.env;
	if (pthread_create(&k->th, NULL, kallsyms_thread, k)) {
		free(k);
		return;
	}
	s->kth = k;
}

/* The prefetched table (0 or an error), or -EAGAIN if none was started. */
static int kthread_join(struct session *s, struct kallsyms **out)
{
	struct session_kthread *k = s->kth;
	if (!k)
		return -EAGAIN;
	pthread_join(k->th, NULL);
	s->kth = NULL;
	*out = k->ks;
	int rc = k->rc;
	free(k);
	return rc;
}

bool session_kernel_waiting(const struct session *s)
{
	return s->kth && !atomic_load_explicit(&s->kth->done, memory_order_acquire);
}

/* The table the session's flavour reads, or NULL. */
static const struct kallsyms *load(struct session *s)
{
	if (!s->o.perf_kallsyms) {
		struct kallsyms *ks = NULL;
		if (!s->dsos.ksyms_tried && s->dsos.ksyms_allowed) {
			int rc = kthread_join(s, &ks);
			if (rc == -EAGAIN)
				rc = load_running(&ks, false, s->o.env);
			if (!rc && !kallsyms_restricted(ks)) { /* else dso_kallsyms reads and warns */
				s->dsos.ksyms = ks;
				s->dsos.ksyms_tried = true;
			} else {
				kallsyms_free(ks);
			}
		}
		return dso_kallsyms(&s->dsos); /* allowed by ksyms_usable (session.c) */
	}
	if (s->kperf_tried)
		return s->kperf;
	s->kperf_tried = true;
	if (!s->ksyms_usable)
		return NULL;
	struct kallsyms *ks = NULL;
	int rc = kthread_join(s, &ks);
	if (rc == -EAGAIN)
		rc = load_running(&ks, true, s->o.env);
	if (rc)
		return NULL;
	if (kallsyms_restricted(ks)) {
		kallsyms_free(ks);
		return NULL;
	}
	s->kperf = ks;
	return ks;
}

/* Work out the relocation once per kernel MMAP. */
static void relocate(struct session *s)
{
	if (s->kdone)
		return;
	s->kdone = true;
	const struct kallsyms *ks = load(s);
	uint64_t local;
	s->kdelta = 0;
	s->kok = ks != NULL;
	if (ks && s->kref_addr && s->kref_name[0]) {
		if (kallsyms_find(ks, s->kref_name, &local))
			s->kdelta = local - s->kref_addr;
		else
			s->kok = false; /* perf cannot relocate: no symbols */
	}
	if (!s->o.perf_kallsyms) {
		s->dsos.ksyms_delta = s->kdelta;
		if (!s->kok && s->dsos.ksyms) {
			kallsyms_free(s->dsos.ksyms);
			s->dsos.ksyms = NULL;
		}
	}
}

const struct kallsyms *session_kallsyms(struct session *s, uint64_t *delta)
{
	relocate(s);
	*delta = s->kdelta;
	return s->kok ? (s->o.perf_kallsyms ? s->kperf : s->dsos.ksyms) : NULL;
}

void session_symbolize(struct session *s, uint32_t pid, uint64_t ip, bool kernel, struct sym *out)
{
	if (kernel && !s->kdone)
		relocate(s);
	symbolize(&s->sz, pid, ip, kernel, out);
}

void session_kernel_release(struct session *s)
{
	struct kallsyms *unused = NULL;
	if (!kthread_join(s, &unused))
		kallsyms_free(unused);
	kallsyms_free(s->kperf);
	s->kperf = NULL;
}
