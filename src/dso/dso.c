/* dso: the binary registry with lazy image loading (dso, L2). */
#include "dso/dso.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"

void dso_set_init(struct dso_set *s)
{
	memset(s, 0, sizeof(*s));
	hashmap_init(&s->by_path);
}

void dso_set_release(struct dso_set *s)
{
	for (size_t i = 0; i < s->v.n; i++) {
		elf_image_free(s->v.v[i]->img);
		elf_image_free(s->v.v[i]->symimg);
		free(s->v.v[i]->symimg_path);
		free(s->v.v[i]->bytes);
		free(s->v.v[i]->path);
		free(s->v.v[i]);
	}
	VEC_FREE(&s->v);
	hashmap_release(&s->by_path);
	kallsyms_free(s->ksyms);
}

static enum dso_kind kind_of(const char *path)
{
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
	struct dso *d = xcalloc(1, sizeof(*d));
	d->path = xstrdup(path);
	const char *slash = strrchr(d->path, '/');
	d->base = slash ? slash + 1 : d->path;
	d->kind = kind_of(path);
	uint32_t id = (uint32_t)s->v.n;
	VEC_PUSH(&s->v, d);
	uint64_t k = h;
	while (hashmap_get(&s->by_path, k, NULL))
		k++;
	hashmap_put(&s->by_path, k, id);
	return id;
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
	char path[4096];
	const char *p = d->path;
	size_t len = strlen(p);
	static const char deleted[] = " (deleted)";
	if (len > sizeof(deleted) - 1 && !strcmp(p + len - (sizeof(deleted) - 1), deleted)) {
		log_warn("%s: the binary was deleted after it was mapped; no symbols", d->path);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s%s", s->symfs ? s->symfs : "", p);
	struct elf_image *img;
	int err = elf_image_open(&img, path);
	if (err) {
		log_warn("%s: no symbols: %s", path, err == -ENOENT ? "file not found" : err_last()->msg);
		return NULL;
	}
	if (d->build_id_size) {
		uint8_t id[ELF_BUILD_ID_MAX];
		size_t n = elf_image_build_id(img, id);
		if (n != d->build_id_size || memcmp(id, d->build_id, n)) {
			char want[2 * ELF_BUILD_ID_MAX + 1], got[2 * ELF_BUILD_ID_MAX + 1];
			hex(want, d->build_id, d->build_id_size);
			hex(got, id, n);
			log_warn("%s: build-id mismatch (recorded %s, on disk %s); not used", path, want,
				 n ? got : "none");
			elf_image_free(img);
			return NULL;
		}
	}
	d->img = img;
	return img;
}

/* A debug file by build-id: the system's debug tree, then perf's cache. */
static struct elf_image *open_debug_file(const struct dso_set *s, const uint8_t *id, size_t n,
				       char **found_path)
{
	char hexid[2 * ELF_BUILD_ID_MAX + 1], path[4096];
	const char *home = getenv("HOME");
	if (n < 2)
		return NULL;
	hex(hexid, id, n);
	for (int i = 0; i < 2; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
				 s->symfs ? s->symfs : "", hexid, hexid + 2);
		else if (home)
			snprintf(path, sizeof(path), "%s/.debug/.build-id/%.2s/%s/debug", home, hexid,
				 hexid + 2);
		else
			continue;
		struct elf_image *img;
		if (elf_image_open(&img, path))
			continue;
		uint8_t got[ELF_BUILD_ID_MAX];
		size_t gn = elf_image_build_id(img, got);
		if (gn == n && !memcmp(got, id, n)) {
			*found_path = xstrdup(path);
			return img;
		}
		elf_image_free(img); /* not the file it claims to be: never used */
	}
	return NULL;
}

const struct elf_image *dso_symbols(struct dso_set *s, struct dso *d)
{
	const struct elf_image *img = dso_image(s, d);
	if (!img)
		return NULL;
	if (!d->dbg_tried) {
		d->dbg_tried = true;
		uint8_t id[ELF_BUILD_ID_MAX];
		size_t n = elf_image_build_id(img, id);
		char *dbg_path = NULL;
		struct elf_image *dbg = open_debug_file(s, id, n, &dbg_path);
		if (dbg && elf_image_nsyms(dbg) > elf_image_nsyms(img)) {
			d->symimg = dbg;
			d->symimg_path = dbg_path;
		} else {
			elf_image_free(dbg);
			free(dbg_path);
		}
	}
	return d->symimg ? d->symimg : img;
}

const char *dso_symbols_path(struct dso_set *s, struct dso *d, char *buf, size_t len)
{
	if (!dso_symbols(s, d) || d->kind != DSO_FILE)
		return NULL;
	if (d->symimg_path)
		snprintf(buf, len, "%s", d->symimg_path);
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
