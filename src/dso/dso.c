/* dso: the binary registry with lazy image loading (dso, L2). */
#include "dso/dso.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "dso/debugfile.h"
#include "dso/jitdump.h"
#include "dso/nsroot.h"

void dso_set_init(struct dso_set *s)
{
	memset(s, 0, sizeof(*s));
	hashmap_init(&s->by_path);
	hashmap_init(&s->jitdumps);
}

/* Free what d loaded (a file that shrank while mapped is said first);
 * the next lookup loads it again. */
static void unload(struct dso *d)
{
	uint64_t off;
	if (elf_image_shrank(d->img, &off))
		log_warn("%s: file shrank while being read (at offset 0x%llx); its symbols "
			 "and unwinding may be wrong", d->file ? d->file : d->path,
			 (unsigned long long)off);
	if (elf_image_shrank(d->symimg, &off))
		log_warn("%s: file shrank while being read (at offset 0x%llx); its symbols "
			 "may be wrong", d->symimg_path, (unsigned long long)off);
	elf_image_free(d->img);
	elf_image_free(d->symimg);
	free(d->symimg_path);
	free(d->bytes);
	perfmap_free(d->jit);
	perfmap_free(d->jitdump);
	free(d->file);
	d->img = d->symimg = NULL;
	d->symimg_path = d->file = NULL;
	d->bytes = NULL;
	d->jit = d->jitdump = NULL;
	d->tried = d->dbg_tried = false;
}

void dso_set_release(struct dso_set *s)
{
	for (size_t i = 0; i < s->v.n; i++) {
		unload(s->v.v[i]);
		free(s->v.v[i]->path);
		free(s->v.v[i]);
	}
	VEC_FREE(&s->v);
	VEC_FREE(&s->retired);
	VEC_FREE(&s->free_ids);
	hashmap_release(&s->by_path);
	hashmap_release(&s->jitdumps);
	kallsyms_free(s->ksyms);
}

/* "/tmp/perf-<digits>.map" */
static bool jit_map_name(const char *path)
{
	static const char pre[] = "/tmp/perf-";
	if (strncmp(path, pre, sizeof(pre) - 1))
		return false;
	const char *p = path + sizeof(pre) - 1;
	size_t n = strspn(p, "0123456789");
	return n > 0 && !strcmp(p + n, ".map");
}

static enum dso_kind kind_of(const char *path)
{
	if (jit_map_name(path))
		return DSO_JIT;
	if (!strncmp(path, "[kernel.kallsyms]", 17) || !strcmp(path, "[guest.kernel.kallsyms]"))
		return DSO_KERNEL;
	if (!strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]") || !strcmp(path, "[vvar]"))
		return DSO_VDSO;
	if (path[0] == '/')
		return DSO_FILE;
	if (path[0] == '[' && strchr(path, '/') == NULL && strcmp(path, "[heap]") &&
	    strcmp(path, "[stack]") && strncmp(path, "[anon", 5))
		return DSO_KERNEL; /* a kernel module: [name] */
	return DSO_ANON;
}

static bool anon_path(const char *p)
{
	return !strcmp(p, "//anon") || !strncmp(p, "/dev/zero", 9) ||
	       !strncmp(p, "/anon_hugepage", 14) || !strncmp(p, "[stack", 6) ||
	       !strncmp(p, "/SYSV", 5) || !strcmp(p, "[heap]");
}

/* Index dso 'id' under its path's hash h (probing h, h+1, ...). */
static void index_path(struct dso_set *s, uint32_t id, uint64_t h)
{
	uint64_t k = h;
	while (hashmap_get(&s->by_path, k, NULL))
		k++;
	hashmap_put(&s->by_path, k, id);
}

uint32_t dso_set_intern(struct dso_set *s, const char *path)
{
	uint64_t h = hash_bytes(path, strlen(path));
	/* Probe h, h+1, ... until an empty key or a matching path. */
	for (uint64_t k = h;; k++) {
		uint64_t id;
		if (!hashmap_get(&s->by_path, k, &id))
			break;
		if (!strcmp(s->v.v[id]->path, path))
			return (uint32_t)id;
	}
	uint32_t id;
	struct dso *d;
	if (s->free_ids.n) { /* a retired one's struct, emptied (dso_set_retire) */
		id = s->free_ids.v[--s->free_ids.n];
		d = s->v.v[id];
		unload(d); /* it may have been loaded again since (an annotation) */
		free(d->path);
		memset(d, 0, sizeof(*d));
	} else {
		d = xcalloc(1, sizeof(*d));
		id = (uint32_t)s->v.n;
		VEC_PUSH(&s->v, d);
	}
	d->path = xstrdup(path);
	const char *slash = strrchr(d->path, '/');
	d->base = slash ? slash + 1 : d->path;
	d->kind = kind_of(path);
	d->anon_code = anon_path(d->path);
	unsigned jpid;
	int end = 0;
	if (sscanf(d->base, "jit-%u.dump%n", &jpid, &end) == 1 && end > 0 && !d->base[end] &&
	    d->base[4] >= '0' && d->base[4] <= '9')
		hashmap_put(&s->jitdumps, jpid, (uint64_t)id + 1);
	index_path(s, id, h);
	return id;
}

uint32_t dso_set_intern_ksym(struct dso_set *s, const char *name)
{
	uint32_t id = dso_set_intern(s, name);
	struct dso *d = dso_set_get(s, id);
	if (d->kind == DSO_ANON && !d->anon_code)
		d->kind = DSO_KSYM; /* a mapping's path never has this shape (no '/', no '[') */
	return id;
}

size_t dso_set_retire(struct dso_set *s, const uint8_t *used)
{
	size_t n = 0;
	for (uint32_t id = 0; id < s->v.n; id++) {
		struct dso *d = s->v.v[id];
		if (d->retired)
			unload(d); /* loaded again since (an annotation): not for long */
		if (used[id] || d->retired || d->kind == DSO_KERNEL || d->kind == DSO_VDSO ||
		    d->kind == DSO_KSYM) /* the kernel's: loads nothing, mapped in no process */
			continue;
		unload(d);
		d->retired = true;
		VEC_PUSH(&s->retired, id);
		n++;
	}
	if (!n)
		return 0;
	/* The paths' index and the jitdump files' without them. */
	hashmap_release(&s->by_path);
	hashmap_init(&s->by_path);
	for (uint32_t id = 0; id < s->v.n; id++)
		if (!s->v.v[id]->retired)
			index_path(s, id, hash_bytes(s->v.v[id]->path, strlen(s->v.v[id]->path)));
	struct hashmap dumps;
	hashmap_init(&dumps);
	size_t pos = 0;
	uint64_t pid, v;
	while (hashmap_next(&s->jitdumps, &pos, &pid, &v))
		if (!s->v.v[v - 1]->retired)
			hashmap_put(&dumps, pid, v);
	hashmap_release(&s->jitdumps);
	s->jitdumps = dumps;
	return n;
}

void dso_set_reuse_retired(struct dso_set *s)
{
	for (size_t i = 0; i < s->retired.n; i++)
		VEC_PUSH(&s->free_ids, s->retired.v[i]);
	s->retired.n = 0;
}

void dso_set_expect_build_id(struct dso_set *s, const char *path, const uint8_t *id, size_t n)
{
	struct dso *d = dso_set_get(s, dso_set_intern(s, path));
	if (n > sizeof(d->build_id))
		n = sizeof(d->build_id);
	memcpy(d->build_id, id, n);
	d->build_id_size = (uint8_t)n;
}

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
	out[2 * n] = '\0';
}

/* A copy of this process's vDSO, read through /proc/self/maps. */
static uint8_t *own_vdso(size_t *len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return NULL;
	char line[512];
	unsigned long long start = 0, end = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
		start = end = 0;
	}
	fclose(f);
	if (!start || end <= start || end - start > (1u << 20))
		return NULL;
	*len = (size_t)(end - start);
	uint8_t *p = xmalloc(*len);
	memcpy(p, (const void *)(uintptr_t)start, *len);
	return p;
}

/* Does img carry the build-id recorded for d (or was none recorded)? */
static bool id_matches(const struct dso *d, const struct elf_image *img, char *why, size_t wsz)
{
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t n = elf_image_build_id(img, id);
	if (!d->build_id_size || (n == d->build_id_size && !memcmp(id, d->build_id, n)))
		return true;
	char want[2 * ELF_BUILD_ID_MAX + 1], got[2 * ELF_BUILD_ID_MAX + 1];
	hex(want, d->build_id, d->build_id_size);
	hex(got, id, n);
	snprintf(why, wsz, "build-id mismatch (recorded %s, on disk %s); not used", want,
		 n ? got : "none");
	return false;
}

/* Take 'img' read from 'file' for d if its build-id fits; else free it. */
static bool adopt(struct dso *d, struct elf_image *img, const char *file, char *why, size_t wsz)
{
	if (!id_matches(d, img, why, wsz)) {
		elf_image_free(img);
		return false;
	}
	d->img = img;
	d->file = xstrdup(file);
	return true;
}

/* How the set's binaries are parsed (elf_image.h). */
static unsigned image_flags(const struct dso_set *s)
{
	return s->no_symbols ? ELF_IMAGE_NO_SYMBOLS : 0;
}

/* The binary as the process that mapped it sees it, inside its root; or
 * (host) at its host path without following symlinks. */
static bool open_in_root(const struct dso_set *s, struct dso *d, const char *path, bool host,
			 char *why, size_t wsz)
{
	char name[4200];
	int fd = host ? nsroot_open_nofollow(path) : nsroot_open(d->pid, path);
	if (host)
		snprintf(name, sizeof(name), "%s", path);
	else
		snprintf(name, sizeof(name), "/proc/%u/root%s", d->pid, path);
	if (fd < 0) {
		snprintf(why, wsz, "%s", err_last()->msg);
		return false;
	}
	struct elf_image *img;
	int err = elf_image_open_fd_flags(&img, fd, name, image_flags(s));
	close(fd);
	if (err) {
		snprintf(why, wsz, "%s", err_last()->msg);
		return false;
	}
	return adopt(d, img, name, why, wsz);
}

static bool open_at(const struct dso_set *s, struct dso *d, const char *path, char *why,
		    size_t wsz)
{
	struct elf_image *img;
	int err = elf_image_open_flags(&img, path, image_flags(s));
	if (err) {
		snprintf(why, wsz, "%s", err == -ENOENT ? "file not found" : err_last()->msg);
		return false;
	}
	return adopt(d, img, path, why, wsz);
}

/*
 * A file dso's image, tried in order: inside the root of the process that
 * mapped it when that process runs in another mount namespace (and no
 * --symfs); the recorded path (under --symfs; for such a process without
 * following symlinks, since its directories may be the container's);
 * perf's build-id cache (~/.debug/.build-id/xx/rest/elf). The first
 * failure is the warning.
 */
static const struct elf_image *open_file(struct dso_set *s, struct dso *d)
{
	char path[4096], why[600] = "", why2[600];
	static const char deleted[] = " (deleted)";
	size_t len = strlen(d->path);
	bool gone = len > sizeof(deleted) - 1 && !strcmp(d->path + len - (sizeof(deleted) - 1), deleted);

	snprintf(path, sizeof(path), "%s%s", s->symfs ? s->symfs : "", d->path);
	if (gone && !strncmp(d->path, "/memfd:", 7))
		snprintf(why, sizeof(why), "a memfd (anonymous memory file) has no file on disk; "
			 "no symbols");
	else if (gone)
		snprintf(why, sizeof(why), "the binary was deleted after it was mapped; no symbols");
	bool foreign = !gone && !s->symfs && d->pid && nsroot_foreign(d->pid);
	if (foreign && open_in_root(s, d, d->path, false, why, sizeof(why)))
		return d->img;
	if (foreign && open_in_root(s, d, path, true, why2, sizeof(why2)))
		return d->img;
	if (!gone && !foreign && open_at(s, d, path, why, sizeof(why)))
		return d->img;
	const char *home = s->env ? s->env->home : NULL;
	if (d->build_id_size >= 2 && home) {
		char hexid[2 * ELF_BUILD_ID_MAX + 1], cached[8192];
		hex(hexid, d->build_id, d->build_id_size);
		snprintf(cached, sizeof(cached), "%s/.debug/.build-id/%.2s/%s/elf", home, hexid,
			 hexid + 2);
		if (open_at(s, d, cached, why2, sizeof(why2)))
			return d->img;
	}
	if (gone)
		log_repeat(LOG_REPEAT_DSO, "%s: %s", d->path, why);
	else
		log_repeat(LOG_REPEAT_DSO, "%s: no symbols: %s", path, why);
	return NULL;
}

const struct elf_image *dso_image(struct dso_set *s, struct dso *d)
{
	if (d->tried)
		return d->img;
	d->tried = true;
	if (d->kind == DSO_VDSO && !strcmp(d->path, "[vdso]") &&
	    (s->ksyms_allowed || s->vdso_always)) {
		size_t len;
		d->bytes = own_vdso(&len);
		if (d->bytes && elf_image_parse(&d->img, d->bytes, len)) {
			free(d->bytes);
			d->bytes = NULL;
			d->img = NULL;
		}
		uint8_t id[ELF_BUILD_ID_MAX];
		if (d->img && d->build_id_size &&
		    (elf_image_build_id(d->img, id) != d->build_id_size ||
		     memcmp(id, d->build_id, d->build_id_size))) {
			elf_image_free(d->img); /* another kernel's vDSO was recorded */
			free(d->bytes);
			d->bytes = NULL;
			d->img = NULL;
		}
		return d->img;
	}
	if (d->kind != DSO_FILE)
		return NULL;
	return open_file(s, d);
}

/* MiniDebugInfo: the static functions .dynsym lacks, added to the binary's. */
static void add_minidebug(struct dso *d)
{
	struct elf_section sec;
	struct elf_image *mini;
	if (!elf_image_section(d->img, ".gnu_debugdata", &sec))
		return;
	if (minidebug_open(&mini, sec.data, sec.size)) {
		log_warn("%s: .gnu_debugdata (MiniDebugInfo) unusable: %s", d->file ? d->file : d->path,
			 err_last()->msg);
		return;
	}
	elf_image_add_symbols(d->img, mini);
	elf_image_free(mini);
}

const struct elf_image *dso_symbols(struct dso_set *s, struct dso *d)
{
	const struct elf_image *img = dso_image(s, d);
	if (!img)
		return NULL;
	if (!d->dbg_tried) {
		d->dbg_tried = true;
		char *dbg_path = NULL;
		struct elf_image *dbg = debugfile_find(s, d, img, &dbg_path);
		if (dbg && elf_image_nsyms(dbg) > 0) { /* perf prefers a debug file's .symtab */
			elf_image_add_plt_symbols(dbg, img);
			d->symimg = dbg;
			d->symimg_path = dbg_path;
		} else {
			elf_image_free(dbg);
			free(dbg_path);
		}
		if (!d->symimg)
			add_minidebug(d);
	}
	return d->symimg ? d->symimg : img;
}

void dso_set_note_pid(struct dso_set *s, uint32_t id, uint32_t pid)
{
	struct dso *d = dso_set_get(s, id);
	if (!d->pid && pid && pid != UINT32_MAX)
		d->pid = pid;
}

bool dso_is_anon_code(const struct dso *d)
{
	return d->anon_code; /* asked for every sampled address: see anon_path() */
}

uint32_t dso_set_jit(struct dso_set *s, uint32_t pid)
{
	char name[64];
	snprintf(name, sizeof(name), "/tmp/perf-%u.map", pid);
	uint32_t id = dso_set_intern(s, name);
	dso_set_note_pid(s, id, pid); /* the process whose JIT it names */
	return id;
}

/* A perf map's size, -1 when it cannot be read. */
static int64_t jit_file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

const char *dso_jit_lookup(struct dso_set *s, struct dso *d, uint64_t ip, uint64_t *start)
{
	if (d->kind != DSO_JIT)
		return NULL;
	if (!d->tried) {
		d->tried = true;
		unsigned pid = 0;
		uint64_t v;
		if (sscanf(d->path, "/tmp/perf-%u.map", &pid) == 1 &&
		    hashmap_get(&s->jitdumps, pid, &v)) {
			const char *dump = dso_set_get(s, (uint32_t)(v - 1))->path;
			if (jitdump_load(&d->jitdump, dump, pid))
				log_warn("%s: %s", dump, err_last()->msg);
		}
		int err = perfmap_load(&d->jit, d->path, pid);
		if (err && err != -ENOENT)
			log_warn("%s: %s", d->path, err_last()->msg);
		d->jit_size = jit_file_size(d->path);
	}
	const char *name = d->jitdump ? perfmap_lookup(d->jitdump, ip, start) : NULL;
	if (!name && d->jit)
		name = perfmap_lookup(d->jit, ip, start);
	if (!name && s->jit_live && jit_file_size(d->path) != d->jit_size) {
		/* the JIT wrote more since: read the map again */
		unsigned pid = 0;
		if (sscanf(d->path, "/tmp/perf-%u.map", &pid) == 1) {
			struct perfmap *pm = NULL;
			d->jit_size = jit_file_size(d->path);
			if (perfmap_load(&pm, d->path, pid) == 0) {
				perfmap_free(d->jit);
				d->jit = pm;
				name = perfmap_lookup(d->jit, ip, start);
			}
		}
	}
	return name;
}

const char *dso_symbols_path(struct dso_set *s, struct dso *d, char *buf, size_t len)
{
	if (!dso_symbols(s, d) || d->kind != DSO_FILE)
		return NULL;
	if (d->symimg_path)
		snprintf(buf, len, "%s", d->symimg_path);
	else if (d->file)
		snprintf(buf, len, "%s", d->file);
	else
		snprintf(buf, len, "%s%s", s->symfs ? s->symfs : "", d->path);
	return buf;
}

void dso_set_use_kallsyms(struct dso_set *s, bool allowed)
{
	s->ksyms_allowed = allowed;
}

const struct kallsyms *dso_kallsyms(struct dso_set *s)
{
	if (s->ksyms_tried)
		return s->ksyms;
	s->ksyms_tried = true;
	if (!s->ksyms_allowed)
		return NULL;
	struct kallsyms *ks;
	if (kallsyms_load(&ks, "/proc/kallsyms")) {
		log_warn("cannot read /proc/kallsyms: kernel frames will show as [kernel.kallsyms]");
		return NULL;
	}
	if (kallsyms_restricted(ks)) {
		log_warn("kernel symbols are hidden (kernel.kptr_restrict); kernel frames will "
			 "show as [kernel.kallsyms]");
		kallsyms_free(ks);
		return NULL;
	}
	s->ksyms = ks;
	return ks;
}

const char *dso_module_name(const char *path, char *buf, size_t cap)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (base[0] == '[')
		return base;
	const char *ext = strrchr(base, '.');
	if (ext && (!strcmp(ext, ".gz") || !strcmp(ext, ".xz") || !strcmp(ext, ".zst")))
		ext -= 3;
	if (!ext || ext <= base || strncmp(ext, ".ko", 3))
		return base;
	snprintf(buf, cap, "[%.*s]", (int)(ext - base), base);
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
	return buf;
}
