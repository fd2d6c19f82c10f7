/* elf_expand: compressed ELF sections decompressed into a new image (dso, L2). */
#include "dso/elf_expand.h"

#include <elf.h>
#include <errno.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "dso/unpack.h"

enum { CH_ZLIB = 1, CH_ZSTD = 2 };

/* Below this much output, a second thread costs more than it saves. */
#define THREAD_MIN ((size_t)1 << 20)
#define ALIGN_MAX 4096

struct job {
	const uint8_t *src;
	size_t srclen;
	uint8_t *dst;
	size_t dstlen;
	uint32_t type;
	uint32_t sec;
	int rc;
};

static int decompress(struct job *j)
{
	if (j->type == CH_ZLIB) {
		struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
		if (!d)
			return -ENOMEM;
		size_t got = 0;
		enum libdeflate_result r =
			libdeflate_zlib_decompress(d, j->src, j->srclen, j->dst, j->dstlen, &got);
		libdeflate_free_decompressor(d);
		return r == LIBDEFLATE_SUCCESS && got == j->dstlen ? 0 : -EBADMSG;
	}
	size_t r = ZSTD_decompress(j->dst, j->dstlen, j->src, j->srclen);
	return !ZSTD_isError(r) && r == j->dstlen ? 0 : -EBADMSG;
}

static void *job_thread(void *arg)
{
	struct job *j = arg;
	j->rc = decompress(j);
	return NULL;
}

/* The biggest job on a second thread, the others here. */
static void run_jobs(struct job *jobs, size_t nj)
{
	size_t big = 0;
	for (size_t i = 1; i < nj; i++)
		if (jobs[i].dstlen > jobs[big].dstlen)
			big = i;
	pthread_t th;
	bool threaded = nj > 1 && jobs[big].dstlen >= THREAD_MIN &&
			!pthread_create(&th, NULL, job_thread, &jobs[big]);
	for (size_t i = 0; i < nj; i++)
		if (!threaded || i != big)
			jobs[i].rc = decompress(&jobs[i]);
	if (threaded)
		pthread_join(th, NULL);
}

/* A section's name, or NULL when its offset or terminator is out of range. */
static const char *sec_name(const uint8_t *names, size_t len, uint32_t off)
{
	if (!names || off >= len || !memchr(names + off, '\0', len - off))
		return NULL;
	return (const char *)names + off;
}

static size_t round_up(size_t v, uint64_t align)
{
	if (align <= 1)
		return v;
	if (align > ALIGN_MAX || (align & (align - 1)))
		align = 8;
	return (v + (size_t)align - 1) & ~((size_t)align - 1);
}

struct plan {
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	uint64_t *off; /* new offset per section */
	struct job *jobs;
	size_t nj, size;
	bool changed;
};

/* Decide each section's fate and place it; returns 0 or an error. */
static int layout(const uint8_t *p, size_t n, bool (*skip)(const char *), unsigned flags,
		  struct plan *pl)
{
	size_t ns = pl->eh.e_shnum;
	const uint8_t *names = NULL;
	size_t names_len = 0;
	if (pl->eh.e_shstrndx < ns) {
		const Elf64_Shdr *s = &pl->sh[pl->eh.e_shstrndx];
		if (s->sh_type != SHT_NOBITS && !(s->sh_flags & SHF_COMPRESSED) && s->sh_offset <= n &&
		    s->sh_size <= n - s->sh_offset) {
			names = p + s->sh_offset;
			names_len = (size_t)s->sh_size;
		}
	}
	size_t pos = sizeof(Elf64_Ehdr) + (size_t)pl->eh.e_phnum * sizeof(Elf64_Phdr);
	for (size_t i = 1; i < ns; i++) {
		Elf64_Shdr *s = &pl->sh[i];
		pl->off[i] = pos;
		if (s->sh_type == SHT_NOBITS || s->sh_size == 0) {
			s->sh_flags &= ~(uint64_t)SHF_COMPRESSED; /* nothing to decompress */
			continue;
		}
		if ((flags & ELF_EXPAND_DROP_LOADED) && (s->sh_flags & SHF_ALLOC) &&
		    s->sh_type == SHT_PROGBITS && !(s->sh_flags & SHF_COMPRESSED)) {
			s->sh_type = SHT_NOBITS; /* header kept: address and size */
			continue;
		}
		if (s->sh_offset > n || s->sh_size > n - s->sh_offset)
			return err_corrupt_at(pl->eh.e_shoff + i * sizeof(Elf64_Shdr),
					      "section %zu lies outside the file", i);
		const char *name = sec_name(names, names_len, s->sh_name);
		if (skip && name && skip(name)) {
			s->sh_type = SHT_NOBITS;
			s->sh_name = 0;
			s->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			pl->changed = true;
			continue;
		}
		uint64_t size = s->sh_size, align = s->sh_addralign;
		if (s->sh_flags & SHF_COMPRESSED) {
			Elf64_Chdr ch;
			if (s->sh_size < sizeof(ch))
				return err_corrupt_at(s->sh_offset, "section %zu: compressed, but shorter than its header", i);
			memcpy(&ch, p + s->sh_offset, sizeof(ch));
			if (ch.ch_type != CH_ZLIB && ch.ch_type != CH_ZSTD)
				return err_corrupt_at(s->sh_offset, "section %zu: unknown compression type %u", i,
						      ch.ch_type);
			if (ch.ch_size > UNPACK_MAX)
				return err_set(-E2BIG, "section %zu decompresses to more than %zu MiB", i,
					       UNPACK_MAX >> 20);
			size = ch.ch_size;
			align = ch.ch_addralign;
			pl->jobs[pl->nj++] = (struct job){ p + s->sh_offset + sizeof(ch),
							   (size_t)s->sh_size - sizeof(ch), NULL,
							   (size_t)size, ch.ch_type, (uint32_t)i, 0 };
			pl->changed = true;
		}
		pos = round_up(pos, align);
		if (pos > UNPACK_MAX || size > UNPACK_MAX - pos)
			return err_set(-E2BIG, "the decompressed file would exceed %zu MiB", UNPACK_MAX >> 20);
		pl->off[i] = pos;
		pos += (size_t)size;
	}
	pl->size = round_up(pos, 8) + ns * sizeof(Elf64_Shdr);
	return 0;
}

/* The plan for the n bytes at p: 0, or -ENOENT (nothing to expand) or an error. */
static int make_plan(const uint8_t *p, size_t n, bool (*skip)(const char *name), unsigned flags,
		     struct plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	if (n < sizeof(pl->eh) || memcmp(p, ELFMAG, SELFMAG) || p[EI_CLASS] != ELFCLASS64 ||
	    p[EI_DATA] != ELFDATA2LSB)
		return -ENOENT;
	memcpy(&pl->eh, p, sizeof(pl->eh));
	size_t ns = pl->eh.e_shnum, np = pl->eh.e_phnum;
	if (pl->eh.e_shentsize != sizeof(Elf64_Shdr) || ns == 0 || pl->eh.e_shoff > n ||
	    (n - pl->eh.e_shoff) / sizeof(Elf64_Shdr) < ns)
		return -ENOENT; /* unusual headers: left to libelf */
	if (np && (pl->eh.e_phentsize != sizeof(Elf64_Phdr) || pl->eh.e_phoff > n ||
		   (n - pl->eh.e_phoff) / sizeof(Elf64_Phdr) < np))
		np = 0; /* program headers are not needed by DWARF readers */
	pl->eh.e_phnum = (Elf64_Half)np;
	XALLOC_ARRAY(pl->sh, ns);
	memcpy(pl->sh, p + pl->eh.e_shoff, ns * sizeof(Elf64_Shdr));
	XALLOC_ARRAY(pl->off, ns);
	XALLOC_ARRAY(pl->jobs, ns);
	int err = layout(p, n, skip, flags, pl);
	if (!err && !pl->nj)
		err = -ENOENT; /* nothing compressed: the file serves as it is */
	return err;
}

static void free_plan(struct plan *pl)
{
	free(pl->sh);
	free(pl->off);
	free(pl->jobs);
}

int elf_expand_check(const uint8_t *p, size_t n, bool (*skip)(const char *name), unsigned flags)
{
	struct plan pl;
	int err = make_plan(p, n, skip, flags, &pl);
	free_plan(&pl);
	return err;
}

int elf_expand(const uint8_t *p, size_t n, bool (*skip)(const char *name), unsigned flags,
	       uint8_t **out, size_t *outlen)
{
	struct plan pl;
	int err = make_plan(p, n, skip, flags, &pl);
	size_t ns = pl.eh.e_shnum, np = pl.eh.e_phnum;
	uint64_t phoff = pl.eh.e_phoff;
	uint8_t *img = NULL;
	if (!err) {
		img = xcalloc(1, pl.size);
		for (size_t i = 1; i < ns; i++) {
			const Elf64_Shdr *s = &pl.sh[i];
			if (s->sh_type != SHT_NOBITS && s->sh_size && !(s->sh_flags & SHF_COMPRESSED))
				memcpy(img + pl.off[i], p + s->sh_offset, (size_t)s->sh_size);
		}
		for (size_t j = 0; j < pl.nj; j++)
			pl.jobs[j].dst = img + pl.off[pl.jobs[j].sec];
		run_jobs(pl.jobs, pl.nj);
		for (size_t j = 0; j < pl.nj && !err; j++)
			if (pl.jobs[j].rc) {
				const Elf64_Shdr *s = &pl.sh[pl.jobs[j].sec];
				err = err_corrupt_at(s->sh_offset,
						     "section %u: compressed data does not give its declared %zu bytes",
						     pl.jobs[j].sec, pl.jobs[j].dstlen);
			}
	}
	if (!err) {
		for (size_t j = 0; j < pl.nj; j++) {
			Elf64_Shdr *s = &pl.sh[pl.jobs[j].sec];
			Elf64_Chdr ch;
			memcpy(&ch, p + s->sh_offset, sizeof(ch));
			s->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			s->sh_size = ch.ch_size;
			s->sh_addralign = ch.ch_addralign;
		}
		for (size_t i = 1; i < ns; i++)
			pl.sh[i].sh_offset = pl.off[i];
		size_t shoff = pl.size - ns * sizeof(Elf64_Shdr);
		pl.eh.e_shoff = shoff;
		pl.eh.e_phoff = np ? sizeof(Elf64_Ehdr) : 0;
		memcpy(img, &pl.eh, sizeof(pl.eh));
		if (np)
			memcpy(img + sizeof(Elf64_Ehdr), p + phoff, np * sizeof(Elf64_Phdr));
		memcpy(img + shoff, pl.sh, ns * sizeof(Elf64_Shdr));
		*out = img;
		*outlen = pl.size;
	} else {
		free(img);
	}
	free_plan(&pl);
	return err;
}
