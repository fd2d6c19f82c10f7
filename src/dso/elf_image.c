/*
 * elf_image: our own ELF reader over (pointer, length) for symbolization
 * (dso, L2). It reads the ELF header, the PT_LOAD list (file offset ->
 * link-time vaddr), the GNU build-id note and the function symbols, plus
 * synthesized "name@plt" stubs, into one address-sorted table. Nothing
 * read from the file is trusted: every offset, size, count and string is
 * checked against the bytes really present before it is used, so a
 * truncated or hostile file yields -EBADMSG (or fewer symbols), never a
 * crash or an allocation out of proportion to the file.
 */
#include "dso/elf_image.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/err.h"
#include "base/ifile.h"
#include "base/mapguard.h"
#include "base/search.h"
#include "base/sort.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "dso/elf_int.h"
#include "dso/unpack.h"

/* ---- headers ---- */

static int parse_ehdr(struct elf_parse *ps, uint64_t *shoff, unsigned *shentsize, unsigned *shnum,
		      unsigned *shstrndx)
{
	struct elf_image *img = ps->img;
	const uint8_t *d = img->data;

	if (img->len < 16)
		return err_corrupt_at(0, "file too short for an ELF header (%zu bytes)", img->len);
	if (memcmp(d, "\177ELF", 4) != 0)
		return err_corrupt_at(0, "not an ELF file (bad magic)");
	if (d[4] != ELFCLASS32 && d[4] != ELFCLASS64)
		return err_corrupt_at(4, "bad ELF class %u", d[4]);
	if (d[5] == ELFDATA2MSB)
		return err_corrupt_at(5, "big-endian ELF not supported");
	if (d[5] != ELFDATA2LSB)
		return err_corrupt_at(5, "bad ELF data encoding %u", d[5]);
	if (d[6] != 1)
		return err_corrupt_at(6, "bad ELF version %u", d[6]);
	img->is64 = d[4] == ELFCLASS64;

	size_t ehsize = img->is64 ? 64 : 52;
	if (img->len < ehsize)
		return err_corrupt_at(0, "truncated ELF header (%zu of %zu bytes)", img->len, ehsize);
	img->type = rd16(d + 16);
	img->machine = rd16(d + 18);
	if (img->is64) {
		ps->phoff = le64(d + 32);
		*shoff = le64(d + 40);
		ps->phentsize = rd16(d + 54);
		ps->phnum = rd16(d + 56);
		*shentsize = rd16(d + 58);
		*shnum = rd16(d + 60);
		*shstrndx = rd16(d + 62);
	} else {
		ps->phoff = le32(d + 28);
		*shoff = le32(d + 32);
		ps->phentsize = rd16(d + 42);
		ps->phnum = rd16(d + 44);
		*shentsize = rd16(d + 46);
		*shnum = rd16(d + 48);
		*shstrndx = rd16(d + 50);
	}
	return 0;
}

static void read_shdr(const struct elf_image *img, const uint8_t *p, struct shdr *sh)
{
	sh->name = le32(p);
	sh->type = le32(p + 4);
	if (img->is64) {
		sh->flags = le64(p + 8);
		sh->addr = le64(p + 16);
		sh->offset = le64(p + 24);
		sh->size = le64(p + 32);
		sh->link = le32(p + 40);
		sh->info = le32(p + 44);
		sh->addralign = le64(p + 48);
		sh->entsize = le64(p + 56);
	} else {
		sh->flags = le32(p + 8);
		sh->addr = le32(p + 12);
		sh->offset = le32(p + 16);
		sh->size = le32(p + 20);
		sh->link = le32(p + 24);
		sh->info = le32(p + 28);
		sh->addralign = le32(p + 32);
		sh->entsize = le32(p + 36);
	}
}

/*
 * The section header table. e_shnum == 0 with a non-zero e_shoff means the
 * real count is in section 0's sh_size, and e_shstrndx == SHN_XINDEX means
 * the real index is in section 0's sh_link (extended numbering).
 */
static int parse_shdrs(struct elf_parse *ps, uint64_t shoff, unsigned shentsize, unsigned e_shnum,
		       unsigned e_shstrndx)
{
	struct elf_image *img = ps->img;
	size_t min = img->is64 ? 64 : 40;
	struct shdr sh0;

	if (shoff == 0)
		return 0; /* no section headers: segments only */
	if (shentsize < min)
		return err_corrupt_at(img->is64 ? 58 : 46, "e_shentsize %u too small", shentsize);
	if (!in_file(img, shoff, shentsize))
		return err_corrupt_at(shoff, "section headers at %#" PRIx64 " beyond end of file",
				      shoff);
	read_shdr(img, img->data + shoff, &sh0);

	uint64_t n = e_shnum ? e_shnum : sh0.size;
	if (n > (img->len - shoff) / shentsize)
		return err_corrupt_at(shoff, "%" PRIu64 " section headers exceed the file", n);
	uint64_t strndx = e_shstrndx == SHN_XINDEX ? sh0.link : e_shstrndx;
	if (n && strndx >= n)
		return err_corrupt_at(img->is64 ? 62 : 50, "e_shstrndx %" PRIu64 " out of range",
				      strndx);

	ps->shnum = (size_t)n;
	ps->shstrndx = (size_t)strndx;
	XALLOC_ARRAY(ps->sh, ps->shnum ? ps->shnum : 1);
	for (size_t i = 0; i < ps->shnum; i++)
		read_shdr(img, img->data + shoff + i * shentsize, &ps->sh[i]);
	return 0;
}

/* A section's bytes as stored in the file, if they are inside it. */
static bool sec_raw(const struct elf_parse *ps, size_t idx, const uint8_t **p, size_t *n)
{
	const struct shdr *sh;

	if (idx == 0 || idx >= ps->shnum)
		return false;
	sh = &ps->sh[idx];
	if (sh->type == SHT_NOBITS || !in_file(ps->img, sh->offset, sh->size))
		return false;
	*p = ps->img->data + sh->offset;
	*n = (size_t)sh->size;
	return true;
}

/* Decompress into a buffer the image owns; 0 or -EBADMSG. */
static int unpack_owned(struct elf_image *img, enum zkind kind, const uint8_t *raw, size_t rawn,
			const uint8_t **p, size_t *n)
{
	uint8_t *buf;
	size_t len;
	int err = kind == Z_CHDR ? unpack_chdr(raw, rawn, img->is64, &buf, &len)
				 : unpack_zdebug(raw, rawn, &buf, &len);
	if (err)
		return err;
	VEC_PUSH(&img->owned, (char *)buf);
	*p = buf;
	*n = len;
	return 0;
}

/*
 * A section's bytes, if it has any inside the file; compressed sections
 * (SHF_COMPRESSED) are decompressed once, and a section that does not
 * decompress has no bytes.
 */
bool elf_sec_data(struct elf_parse *ps, size_t idx, const uint8_t **p, size_t *n)
{
	if (!sec_raw(ps, idx, p, n))
		return false;
	if (!(ps->sh[idx].flags & SHF_COMPRESSED))
		return true;
	if (!ps->z)
		ps->z = xcalloc(ps->shnum, sizeof(*ps->z));
	struct zsec *z = &ps->z[idx];
	if (z->state == 0)
		z->state = unpack_owned(ps->img, Z_CHDR, *p, *n, &z->p, &z->n) ? -1 : 1;
	*p = z->p;
	*n = z->n;
	return z->state > 0;
}

/* Names longer than this are treated as bad: every name is scanned for
 * its NUL, so a cap keeps hostile tables (many symbols pointing into one
 * long NUL-free run) linear instead of quadratic. */
#define NAME_MAX_LEN 16384

/* The NUL-terminated string at 'off' in a string table, or NULL. */
const char *elf_str_at(const char *str, size_t strsz, uint64_t off)
{
	if (!str || off >= strsz)
		return NULL;
	size_t left = strsz - (size_t)off;
	if (!memchr(str + off, '\0', left < NAME_MAX_LEN ? left : NAME_MAX_LEN))
		return NULL;
	return str + off;
}

static const char *sec_name(struct elf_parse *ps, size_t idx)
{
	const uint8_t *p;
	size_t n;

	if (!ps->shstrndx || !elf_sec_data(ps, ps->shstrndx, &p, &n))
		return NULL;
	return elf_str_at((const char *)p, n, ps->sh[idx].name);
}

/* Index of the first section with this name (and type, if non-zero), or 0. */
size_t elf_find_section(struct elf_parse *ps, const char *name, uint32_t type)
{
	for (size_t i = 1; i < ps->shnum; i++) {
		const char *s = sec_name(ps, i);
		if (s && strcmp(s, name) == 0 && (!type || ps->sh[i].type == type))
			return i;
	}
	return 0;
}

/* ---- program headers and notes ---- */

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/*
 * Scan a note area for NT_GNU_BUILD_ID with name "GNU". Name and
 * descriptor are padded to 'align' (4, or 8 for 8-aligned note areas such
 * as .note.gnu.property). Stops at the first malformed header.
 */
static bool scan_notes(struct elf_image *img, const uint8_t *p, size_t n, uint64_t align)
{
	size_t pos = 0;

	while (n - pos >= 12) {
		uint32_t namesz = le32(p + pos), descsz = le32(p + pos + 4);
		uint32_t type = le32(p + pos + 8);
		pos += 12;
		uint64_t name_pad = align_up(namesz, align);
		if (name_pad > n - pos)
			return false;
		const uint8_t *name = p + pos;
		pos += (size_t)name_pad;
		if (descsz > n - pos)
			return false;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
		    descsz > 0 && descsz <= ELF_BUILD_ID_MAX) {
			memcpy(img->build_id, p + pos, descsz);
			img->build_id_len = descsz;
			return true;
		}
		uint64_t desc_pad = align_up(descsz, align);
		if (desc_pad >= n - pos)
			return false;
		pos += (size_t)desc_pad;
	}
	return false;
}

static int parse_phdrs(struct elf_parse *ps)
{
	struct elf_image *img = ps->img;
	size_t min = img->is64 ? 56 : 32;
	size_t phnum = ps->phnum;

	if (phnum == 0)
		return 0;
	if (phnum == PN_XNUM) {
		/* Extended numbering: the count is in section 0's sh_info. */
		if (ps->shnum == 0)
			return err_corrupt_at(img->is64 ? 56 : 44,
					      "e_phnum is PN_XNUM without section 0");
		phnum = ps->sh[0].info;
	}
	if (ps->phentsize < min)
		return err_corrupt_at(img->is64 ? 54 : 42, "e_phentsize %zu too small",
				      ps->phentsize);
	if (ps->phoff > img->len || phnum > (img->len - ps->phoff) / ps->phentsize)
		return err_corrupt_at(ps->phoff, "%zu program headers at %#" PRIx64
				      " exceed the file", phnum, ps->phoff);
	ps->phnum = phnum;

	for (size_t i = 0; i < phnum; i++) {
		const uint8_t *p = img->data + ps->phoff + i * ps->phentsize;
		uint32_t type = le32(p);
		uint64_t off, vaddr, filesz, align;
		if (img->is64) {
			off = le64(p + 8);
			vaddr = le64(p + 16);
			filesz = le64(p + 32);
			align = le64(p + 48);
		} else {
			off = le32(p + 4);
			vaddr = le32(p + 8);
			filesz = le32(p + 16);
			align = le32(p + 28);
		}
		if (type == PT_LOAD && filesz && off <= UINT64_MAX - filesz) {
			struct load_seg seg = { .offset = off, .filesz = filesz, .vaddr = vaddr };
			VEC_PUSH(&img->loads, seg);
		} else if (type == PT_NOTE && !img->build_id_len && in_file(img, off, filesz)) {
			scan_notes(img, img->data + off, (size_t)filesz, align == 8 ? 8 : 4);
		}
	}
	return 0;
}

static void scan_note_sections(struct elf_parse *ps)
{
	for (size_t i = 1; i < ps->shnum && !ps->img->build_id_len; i++) {
		const uint8_t *p;
		size_t n;
		if (ps->sh[i].type == SHT_NOTE && elf_sec_data(ps, i, &p, &n))
			scan_notes(ps->img, p, n, ps->sh[i].addralign == 8 ? 8 : 4);
	}
}

/* ---- API ---- */

/* Remember every named section whose bytes are in the file (for CFI);
 * compressed ones are decompressed when first asked for. */
static void keep_sections(struct elf_parse *ps)
{
	for (size_t i = 1; i < ps->shnum; i++) {
		const uint8_t *p;
		size_t n;
		const char *name = sec_name(ps, i);
		if (!name || !sec_raw(ps, i, &p, &n))
			continue;
		struct named_section *ns = VEC_PUSH_ZERO(&ps->img->sections);
		ns->name = name;
		ns->s.data = p;
		ns->s.size = n;
		ns->s.vaddr = ps->sh[i].addr;
		if (ps->sh[i].flags & SHF_COMPRESSED)
			ns->zkind = Z_CHDR;
		else if (!strncmp(name, ".zdebug", 7))
			ns->zkind = Z_ZDEBUG;
	}
}

int elf_image_parse(struct elf_image **out, const void *data, size_t len)
{
	return elf_image_parse_flags(out, data, len, 0);
}

int elf_image_parse_flags(struct elf_image **out, const void *data, size_t len, unsigned flags)
{
	struct elf_parse ps = { 0 };
	uint64_t shoff = 0;
	unsigned shentsize = 0, shnum = 0, shstrndx = 0;
	int err;

	*out = NULL;
	ps.img = xcalloc(1, sizeof(*ps.img));
	ps.img->data = data;
	ps.img->len = len;

	err = parse_ehdr(&ps, &shoff, &shentsize, &shnum, &shstrndx);
	if (!err)
		err = parse_shdrs(&ps, shoff, shentsize, shnum, shstrndx);
	if (!err)
		err = parse_phdrs(&ps);
	if (err)
		goto out;
	if (!ps.img->build_id_len)
		scan_note_sections(&ps);
	if (!(flags & ELF_IMAGE_NO_SYMBOLS))
		elf_load_symbols(&ps);
	keep_sections(&ps);
	*out = ps.img;
	ps.img = NULL;
out:
	free(ps.sh);
	free(ps.z);
	HVEC_FREE(&ps.cands);
	elf_image_free(ps.img);
	return err;
}

int elf_image_parse_take(struct elf_image **out, void *heap, size_t len)
{
	int err = elf_image_parse(out, heap, len);
	if (err) {
		free(heap);
		return err;
	}
	VEC_PUSH(&(*out)->owned, (char *)heap);
	return 0;
}

int elf_image_open_fd(struct elf_image **out, int fd, const char *path)
{
	return elf_image_open_fd_flags(out, fd, path, 0);
}

int elf_image_open_fd_flags(struct elf_image **out, int fd, const char *path, unsigned flags)
{
	struct stat st;
	void *map;
	int err;

	*out = NULL;
	if (fstat(fd, &st))
		return err_set(-errno, "cannot stat '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(-EINVAL, "'%s' is not a regular file", path);
	if (st.st_size == 0)
		return err_corrupt_at(0, "'%s' is empty", path);
	if ((uint64_t)st.st_size > SIZE_MAX)
		return err_set(-EFBIG, "'%s' is too large to map", path);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return err_set(-errno, "cannot map '%s': %s", path, strerror(errno));
	int guard = mapguard_add(map, (size_t)st.st_size); /* the file may shrink meanwhile */
	err = elf_image_parse_flags(out, map, (size_t)st.st_size, flags);
	uint64_t lost;
	if (mapguard_faulted(guard, &lost)) {
		if (!err)
			elf_image_free(*out);
		*out = NULL;
		err = err_corrupt_at(lost, "'%s' shrank while being read", path);
	}
	if (err) {
		mapguard_remove(guard);
		munmap(map, (size_t)st.st_size);
		return err;
	}
	(*out)->map = map;
	(*out)->map_len = (size_t)st.st_size;
	(*out)->guard = guard;
	elf_image_drop_pages(*out);
	return 0;
}

int elf_image_open(struct elf_image **out, const char *path)
{
	return elf_image_open_flags(out, path, 0);
}

int elf_image_open_flags(struct elf_image **out, const char *path, unsigned flags)
{
	struct stat st;
	int fd, err;

	*out = NULL;
	fd = ifile_open(path, &st);
	if (fd < 0)
		return fd;
	err = elf_image_open_fd_flags(out, fd, path, flags);
	close(fd);
	return err;
}

void elf_image_drop_pages(const struct elf_image *img)
{
	if (img->map)
		madvise(img->map, img->map_len, MADV_DONTNEED);
}

void elf_image_free(struct elf_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->owned.n; i++)
		free(img->owned.v[i]);
	VEC_FREE(&img->owned);
	VEC_FREE(&img->syms);
	VEC_FREE(&img->loads);
	VEC_FREE(&img->sections);
	if (img->map) {
		mapguard_remove(img->guard);
		munmap(img->map, img->map_len);
	}
	free(img);
}

bool elf_image_shrank(const struct elf_image *img, uint64_t *off)
{
	return img && img->map && mapguard_faulted(img->guard, off);
}

unsigned elf_image_type(const struct elf_image *img)
{
	return img->type;
}

bool elf_image_offset_segment(const struct elf_image *img, uint64_t off, uint64_t *vaddr,
			      uint64_t *lo, uint64_t *hi)
{
	for (size_t i = 0; i < img->loads.n; i++) {
		const struct load_seg *s = &img->loads.v[i];
		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			*lo = s->offset;
			*hi = s->offset + s->filesz;
			return true;
		}
	}
	return false;
}

bool elf_image_offset_to_vaddr(const struct elf_image *img, uint64_t off, uint64_t *vaddr)
{
	uint64_t lo, hi;
	return elf_image_offset_segment(img, off, vaddr, &lo, &hi);
}

const char *elf_image_lookup(const struct elf_image *img, uint64_t vaddr, uint64_t *start)
{
	return elf_image_lookup_range(img, vaddr, start, NULL);
}

const char *elf_image_lookup_range(const struct elf_image *img, uint64_t vaddr, uint64_t *start,
				   uint64_t *end)
{
	/* The first symbol starting above vaddr; the one before it is the
	 * only candidate, since starts are unique. */
	size_t lo = UPPER_BOUND(img->syms.v, img->syms.n, struct elf_sym, start, vaddr);
	if (lo == 0)
		return NULL;
	const struct elf_sym *s = &img->syms.v[lo - 1];
	if (vaddr >= s->end)
		return NULL;
	if (start)
		*start = s->start;
	if (end)
		*end = s->end;
	return s->name;
}

size_t elf_image_nsyms(const struct elf_image *img)
{
	return img->syms.n;
}

size_t elf_image_build_id(const struct elf_image *img, uint8_t out[ELF_BUILD_ID_MAX])
{
	memcpy(out, img->build_id, img->build_id_len);
	return img->build_id_len;
}

/* True if section 'sec' is the one asked for as 'name': the same name,
 * or ".zdebug_x" for ".debug_x" (the old GNU compressed form). */
static bool section_is(const char *sec, const char *name)
{
	if (!strcmp(sec, name))
		return true;
	return !strncmp(sec, ".zdebug", 7) && !strncmp(name, ".debug", 6) &&
	       !strcmp(sec + 7, name + 6);
}

bool elf_image_section(const struct elf_image *cimg, const char *name, struct elf_section *out)
{
	/* The image is const to its users; decompressing on first use only
	 * fills a cache inside it (it was allocated non-const). */
	struct elf_image *img = (struct elf_image *)(uintptr_t)cimg;
	for (size_t i = 0; i < img->sections.n; i++) {
		struct named_section *ns = &img->sections.v[i];
		if (!section_is(ns->name, name))
			continue;
		if (ns->zkind && !ns->unpacked) {
			if (ns->bad)
				return false;
			const uint8_t *p;
			size_t n;
			if (unpack_owned(img, ns->zkind, ns->s.data, ns->s.size, &p, &n)) {
				ns->bad = true;
				return false;
			}
			ns->s.data = p;
			ns->s.size = n;
			ns->unpacked = true;
		}
		*out = ns->s;
		return true;
	}
	return false;
}

const uint8_t *elf_image_data(const struct elf_image *img, size_t *len)
{
	*len = img->len;
	return img->data;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static inline uint64_t sym_start(const struct elf_sym *s)
{
	return s->start;
}

RADIX_DEFINE(sort_syms_by_start, struct elf_sym, sym_start)

static bool is_plt_name(const char *name)
{
	size_t n = strlen(name);
	return n >= 4 && !strcmp(name + n - 4, "@plt");
}

static void add_symbols(struct elf_image *img, const struct elf_image *from, bool plt_only)
{
	size_t n0 = img->syms.n;

	for (size_t i = 0; i < from->syms.n; i++) {
		const struct elf_sym *f = &from->syms.v[i];
		if (plt_only && !is_plt_name(f->name))
			continue;
		/* Keep ours where one starts at the same address. */
		struct elf_sym key = { .start = f->start };
		if (n0 && bsearch(&key, img->syms.v, n0, sizeof(key), sym_cmp))
			continue;
		char *name = xstrdup(f->name);
		VEC_PUSH(&img->owned, name);
		struct elf_sym s = { f->start, f->end, name };
		VEC_PUSH(&img->syms, s);
	}
	if (img->syms.n == n0)
		return;
	/* Both parts had unique starts and none is shared: still unique. */
	sort_syms_by_start(img->syms.v, img->syms.n);
}

void elf_image_add_symbols(struct elf_image *img, const struct elf_image *from)
{
	add_symbols(img, from, false);
}

void elf_image_add_plt_symbols(struct elf_image *img, const struct elf_image *from)
{
	add_symbols(img, from, true);
}

unsigned elf_image_machine(const struct elf_image *img)
{
	return img->machine;
}

static bool range_in(uint64_t vaddr, uint64_t size, uint64_t at, uint64_t len)
{
	return vaddr >= at && vaddr - at <= len && size <= len - (vaddr - at);
}

int elf_image_code(const struct elf_image *img, uint64_t vaddr, uint64_t size, const uint8_t **out)
{
	/* Sections first: a debug-only file keeps the program headers of the
	 * binary (eu-strip -f even their file sizes) while its code sections
	 * are NOBITS, which keep_sections() never kept. */
	if (img->sections.n) {
		for (size_t i = 0; i < img->sections.n; i++) {
			const struct named_section *ns = &img->sections.v[i];
			if (ns->zkind || !ns->s.vaddr ||
			    !range_in(vaddr, size, ns->s.vaddr, ns->s.size))
				continue;
			*out = ns->s.data + (vaddr - ns->s.vaddr);
			return 0;
		}
		return -ENODATA;
	}
	for (size_t i = 0; i < img->loads.n; i++) {
		const struct load_seg *s = &img->loads.v[i];
		if (!range_in(vaddr, size, s->vaddr, s->filesz) ||
		    !in_file(img, s->offset + (vaddr - s->vaddr), size))
			continue;
		*out = img->data + s->offset + (vaddr - s->vaddr);
		return 0;
	}
	return -ENODATA;
}

bool elf_image_is64(const struct elf_image *img)
{
	return img->is64;
}
