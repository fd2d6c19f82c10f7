/*
 * synth: records for state that existed before recording began
 * (source/live, L2). The kernel only reports changes, so the threads,
 * names and mappings of processes already running, and the kernel's own
 * text mapping, are read from /proc and written as the records the
 * kernel would have sent, with time 0 (perf's convention). BPF programs
 * already loaded get the KSYMBOL records perf writes for them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/log.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "source/live/ktext.h"
#include "source/live/live.h"
#include "source/live/maps.h"

/* Append the sample_id_all trailer the tracking attr implies. */
static void add_trailer(struct buf *b, const struct perf_event_attr *a, uint32_t pid, uint32_t tid,
			uint64_t id)
{
	if (!a->sample_id_all)
		return;
	uint64_t st = a->sample_type, zero = 0;
	if (st & PERF_SAMPLE_TID) {
		buf_add(b, &pid, 4);
		buf_add(b, &tid, 4);
	}
	if (st & PERF_SAMPLE_TIME)
		buf_add(b, &zero, 8);
	if (st & PERF_SAMPLE_ID)
		buf_add(b, &id, 8);
	if (st & PERF_SAMPLE_STREAM_ID)
		buf_add(b, &id, 8);
	if (st & PERF_SAMPLE_CPU)
		buf_add(b, &zero, 8);
	if (st & PERF_SAMPLE_IDENTIFIER)
		buf_add(b, &id, 8);
}

/* Start a record: header with size to be patched by finish(). */
static void begin(struct buf *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };
	buf_reset(b);
	buf_add(b, &h, sizeof(h));
}

/* 'n' bytes of a string (cut at a NUL), NUL-terminated and padded to 8 bytes. */
static void add_padded_n(struct buf *b, const char *s, size_t n)
{
	static const char zeros[8];
	const char *nul = memchr(s, 0, n);
	if (nul)
		n = (size_t)(nul - s);
	buf_add(b, s, n);
	buf_add(b, zeros, 8 - (n % 8));
}

/* NUL-terminate and pad a string to 8 bytes. */
static void add_padded(struct buf *b, const char *s, size_t max)
{
	add_padded_n(b, s, strnlen(s, max));
}

static int finish(struct buf *b, live_record_fn fn, void *arg)
{
	if (b->len > 65535)
		return 0; /* cannot be represented; drop (names are bounded, so never seen) */
	uint16_t size = (uint16_t)b->len;
	memcpy(b->p + 6, &size, 2);
	return fn(arg, b->p, b->len);
}

int live_read_small(const char *path, char *out, size_t max)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	size_t n = fread(out, 1, max - 1, f);
	fclose(f);
	out[n] = '\0';
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

int live_list_threads(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	*tids = NULL;
	*n = 0;
	if (!d)
		return -errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		XREALLOC_ARRAY(*tids, *n + 1);
		(*tids)[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	if (*n == 0)
		return -ESRCH;
	qsort(*tids, *n, sizeof(**tids), cmp_pid);
	return 0;
}

int live_append_threads(const pid_t *pids, size_t npids, pid_t **tids, size_t *n)
{
	for (size_t i = 0; i < npids; i++) {
		pid_t *t;
		size_t nt;
		if (live_list_threads(pids[i], &t, &nt))
			return err_set(-ESRCH, "no such process: %d", (int)pids[i]);
		XREALLOC_ARRAY(*tids, *n + nt);
		memcpy(*tids + *n, t, nt * sizeof(*t));
		*n += nt;
		free(t);
	}
	return 0;
}

/* A name of 'n' bytes (cut at 'max' and at any NUL), NUL-terminated and
 * padded to 8 bytes. */
static void add_name(struct buf *b, const char *s, size_t n, size_t max)
{
	add_padded_n(b, s, n < max ? n : max);
}

struct maps_ctx {
	uint32_t pid;
	const struct perf_event_attr *a;
	uint64_t id;
	live_record_fn fn;
	void *arg;
	struct buf *b;
};

/* One MMAP2 record for an executable mapping (maps_fn). */
static int synth_map(void *arg, const struct maps_entry *e)
{
	struct maps_ctx *c = arg;
	struct buf *b = c->b;
	if (e->perms[2] != 'x')
		return 0;
	const char *name = e->name;
	size_t name_len = e->name_len;
	if (!name_len) {
		name = "//anon";
		name_len = 6;
	}
	uint32_t prot = (e->perms[0] == 'r' ? PROT_READ : 0) | (e->perms[1] == 'w' ? PROT_WRITE : 0) |
			PROT_EXEC;
	uint32_t flags = e->perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	uint64_t len = e->end - e->start, ino_gen = 0;
	begin(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	buf_add(b, &c->pid, 4);
	buf_add(b, &c->pid, 4);
	buf_add(b, &e->start, 8);
	buf_add(b, &len, 8);
	buf_add(b, &e->pgoff, 8);
	buf_add(b, &e->maj, 4);
	buf_add(b, &e->min, 4);
	buf_add(b, &e->ino, 8);
	buf_add(b, &ino_gen, 8);
	buf_add(b, &prot, 4);
	buf_add(b, &flags, 4);
	add_name(b, name, name_len, 4095);
	add_trailer(b, c->a, c->pid, c->pid, c->id);
	return finish(b, c->fn, c->arg);
}

/* /proc/PID/maps is read whole (bounded: LIVE_MAPS_MAX_BYTES) and parsed
 * by maps_parse. */
#define LIVE_MAPS_MAX_BYTES ((size_t)64 << 20)

static int synth_maps(pid_t pid, const struct perf_event_attr *a, uint64_t id, live_record_fn fn,
		      void *arg, struct buf *b)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* exited, or a kernel thread: nothing to say */
	struct buf text;
	buf_init(&text, LIVE_MAPS_MAX_BYTES);
	char chunk[16384];
	ssize_t got;
	bool capped = false;
	while ((got = read(fd, chunk, sizeof(chunk))) > 0) {
		if (buf_add(&text, chunk, (size_t)got)) {
			capped = true;
			break;
		}
	}
	close(fd);
	if (capped)
		log_warn("%s: more than %zu MiB; mappings past that are not synthesized", path,
			 LIVE_MAPS_MAX_BYTES >> 20);
	struct maps_ctx c = { (uint32_t)pid, a, id, fn, arg, b };
	struct maps_stats st;
	int ret = maps_parse(text.p ? text.p : "", text.len, synth_map, &c, &st);
	if (st.bad || st.long_lines)
		log_warn("%s: %llu unreadable lines skipped", path,
			 (unsigned long long)(st.bad + st.long_lines));
	buf_release(&text);
	return ret;
}

int live_synth_process(pid_t pid, const struct perf_event_attr *a, uint64_t id, live_record_fn fn,
		       void *arg)
{
	pid_t *tids;
	size_t n;
	int ret = live_list_threads(pid, &tids, &n);
	if (ret)
		return ret == -ENOENT || ret == -ESRCH ? 0 : ret;
	struct buf b;
	buf_init(&b, 1 << 16);
	for (size_t i = 0; i < n && !ret; i++) {
		char path[96], comm[64];
		uint32_t upid = (uint32_t)pid, utid = (uint32_t)tids[i];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tids[i]);
		if (live_read_small(path, comm, sizeof(comm)))
			continue;
		if (tids[i] != pid) {
			uint64_t zero = 0;
			begin(&b, PERF_RECORD_FORK, 0);
			buf_add(&b, &upid, 4);
			buf_add(&b, &upid, 4);
			buf_add(&b, &utid, 4);
			buf_add(&b, &upid, 4);
			buf_add(&b, &zero, 8);
			add_trailer(&b, a, upid, utid, id);
			ret = finish(&b, fn, arg);
		}
		begin(&b, PERF_RECORD_COMM, 0);
		buf_add(&b, &upid, 4);
		buf_add(&b, &utid, 4);
		add_padded(&b, comm, 15);
		add_trailer(&b, a, upid, utid, id);
		if (!ret)
			ret = finish(&b, fn, arg);
	}
	if (!ret)
		ret = synth_maps(pid, a, id, fn, arg, &b);
	buf_release(&b);
	free(tids);
	return ret;
}

/* The processes in /proc (owned by 'uid', or all for (uid_t)-1), sorted. */
static int list_pids(uid_t uid, pid_t **pids, size_t *n)
{
	DIR *d = opendir("/proc");
	*pids = NULL;
	*n = 0;
	if (!d)
		return err_set(-errno, "cannot read /proc: %s", strerror(errno));
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		struct stat st;
		if (uid != (uid_t)-1 &&
		    (fstatat(dirfd(d), de->d_name, &st, 0) || st.st_uid != uid))
			continue;
		XREALLOC_ARRAY(*pids, *n + 1);
		(*pids)[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(*pids, *n, sizeof(**pids), cmp_pid);
	return 0;
}

int live_user_pids(uid_t uid, pid_t **pids, size_t *n)
{
	return list_pids(uid, pids, n);
}

int live_synth_all(const struct perf_event_attr *a, uint64_t id, live_record_fn fn, void *arg)
{
	pid_t *pids;
	size_t n;
	int err = list_pids((uid_t)-1, &pids, &n);
	if (err)
		return err;
	int ret = 0;
	for (size_t i = 0; i < n && !ret; i++)
		ret = live_synth_process(pids[i], a, id, fn, arg);
	free(pids);
	return ret;
}

/* ---- BPF programs already loaded ---- */

#define BPF_SYNTH_FUNCS 256u  /* functions (main and subprograms) read per program */
#define BPF_SYNTH_PROGS 65536 /* programs walked at most */

static int sys_bpf(int cmd, union bpf_attr *at)
{
	return (int)syscall(__NR_bpf, cmd, at, sizeof(*at));
}

static int prog_info(int fd, struct bpf_prog_info *info)
{
	union bpf_attr at;
	memset(&at, 0, sizeof(at));
	at.info.bpf_fd = (uint32_t)fd;
	at.info.info_len = sizeof(*info);
	at.info.info = (uint64_t)(uintptr_t)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &at);
}

static int ksymbol(uint64_t addr, uint32_t len, const char *name,
		   const struct perf_event_attr *a, uint64_t id, live_record_fn fn, void *arg)
{
	uint16_t type = PERF_RECORD_KSYMBOL_TYPE_BPF, flags = 0;
	struct buf b;
	buf_init(&b, 1024);
	begin(&b, PERF_RECORD_KSYMBOL, PERF_RECORD_MISC_KERNEL);
	buf_add(&b, &addr, 8);
	buf_add(&b, &len, 4);
	buf_add(&b, &type, 2);
	buf_add(&b, &flags, 2);
	add_padded(&b, name, 512);
	add_trailer(&b, a, (uint32_t)-1, 0, id);
	int ret = finish(&b, fn, arg);
	buf_release(&b);
	return ret;
}

/*
 * A KSYMBOL for each function of each loaded BPF program (its JITed
 * address and length from BPF_OBJ_GET_INFO_BY_FD), named as kallsyms names
 * it, or "bpf_prog_TAG_NAME" for a main program kallsyms does not list.
 * Without the right to walk programs (CAP_SYS_ADMIN), nothing, as perf.
 */
static int synth_bpf(const struct ktext *kt, const struct perf_event_attr *a, uint64_t id,
		     live_record_fn fn, void *arg)
{
	uint32_t next = 0;
	int ret = 0;
	for (int guard = 0; !ret && guard < BPF_SYNTH_PROGS; guard++) {
		union bpf_attr at;
		memset(&at, 0, sizeof(at));
		at.start_id = next;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &at))
			break; /* ENOENT: the last one; EPERM: not allowed */
		next = at.next_id;
		memset(&at, 0, sizeof(at));
		at.prog_id = next;
		int fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &at);
		if (fd < 0)
			continue; /* unloaded meanwhile */
		struct bpf_prog_info info;
		memset(&info, 0, sizeof(info));
		uint32_t n = 0;
		if (!prog_info(fd, &info))
			n = info.nr_jited_ksyms < info.nr_jited_func_lens ? info.nr_jited_ksyms
									  : info.nr_jited_func_lens;
		if (n > BPF_SYNTH_FUNCS)
			n = BPF_SYNTH_FUNCS;
		uint64_t addrs[BPF_SYNTH_FUNCS];
		uint32_t lens[BPF_SYNTH_FUNCS];
		if (n) {
			memset(&info, 0, sizeof(info));
			info.nr_jited_ksyms = n;
			info.jited_ksyms = (uint64_t)(uintptr_t)addrs;
			info.nr_jited_func_lens = n;
			info.jited_func_lens = (uint64_t)(uintptr_t)lens;
			if (prog_info(fd, &info))
				n = 0;
		}
		close(fd);
		for (uint32_t i = 0; !ret && i < n; i++) {
			if (!addrs[i] || !lens[i])
				continue; /* addresses hidden */
			const char *name = NULL;
			for (size_t k = 0; !name && k < kt->nbpf; k++)
				if (kt->bpf[k].addr == addrs[i])
					name = kt->bpf[k].name;
			char own[64];
			if (!name && i == 0 && info.name[0]) {
				int at_ = snprintf(own, sizeof(own), "bpf_prog_");
				for (size_t t = 0; t < sizeof(info.tag); t++)
					at_ += snprintf(own + at_, sizeof(own) - (size_t)at_, "%02x",
							info.tag[t]);
				snprintf(own + at_, sizeof(own) - (size_t)at_, "_%.*s",
					 (int)sizeof(info.name), info.name);
				name = own;
			}
			if (name)
				ret = ksymbol(addrs[i], lens[i], name, a, id, fn, arg);
		}
	}
	return ret;
}

int live_synth_kernel(const struct perf_event_attr *a, uint64_t id, const struct ktext *kt,
		      live_record_fn fn, void *arg)
{
	if (!kt->text)
		return 0; /* hidden by kptr_restrict: nothing trustworthy to say */
	uint64_t len = kt->end > kt->text ? kt->end - kt->text : 0;
	uint32_t pid = (uint32_t)-1, tid = 0;
	uint64_t start = kt->text, pgoff = kt->text;
	struct buf b;
	buf_init(&b, 1 << 16);
	begin(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	buf_add(&b, &pid, 4);
	buf_add(&b, &tid, 4);
	buf_add(&b, &start, 8);
	buf_add(&b, &len, 8);
	buf_add(&b, &pgoff, 8);
	add_padded(&b, "[kernel.kallsyms]_text", 64);
	add_trailer(&b, a, pid, tid, id);
	int ret = finish(&b, fn, arg);
	buf_release(&b);
	if (!ret)
		ret = synth_bpf(kt, a, id, fn, arg);
	return ret;
}
