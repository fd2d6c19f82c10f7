/*
 * debugfile: separate debug files by build-id and .gnu_debuglink, and
 * MiniDebugInfo (dso, L2). Each candidate is checked before use (build-id
 * or CRC-32), so a stale debug file never names the wrong functions.
 */
#include "dso/debugfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/bytes.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "base/log.h"
#include "dso/dso.h"
#include "dso/nsroot.h"
#include "dso/unpack.h"

int debuglink_parse(const uint8_t *p, size_t n, struct debuglink *out)
{
	const uint8_t *nul = memchr(p, '\0', n);
	if (!nul)
		return err_corrupt_at(0, ".gnu_debuglink: file name not terminated");
	size_t len = (size_t)(nul - p);
	if (len == 0)
		return err_corrupt_at(0, ".gnu_debuglink: empty file name");
	if (len > DEBUGLINK_NAME_MAX)
		return err_corrupt_at(0, ".gnu_debuglink: file name of %zu bytes (limit %d)", len,
				      DEBUGLINK_NAME_MAX);
	if (memchr(p, '/', len))
		return err_corrupt_at(0, ".gnu_debuglink: file name contains '/'");
	size_t crc_at = (len + 1 + 3) & ~(size_t)3;
	if (crc_at > n || n - crc_at < 4)
		return err_corrupt_at(crc_at, ".gnu_debuglink: no CRC after the file name "
				      "(section of %zu bytes)", n);
	memcpy(out->name, p, len);
	out->name[len] = '\0';
	out->crc = le32(p + crc_at);
	return 0;
}

uint32_t debuglink_crc(const uint8_t *p, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	while (n) {
		uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
		crc = crc32(crc, p, k);
		p += k;
		n -= k;
	}
	return (uint32_t)crc;
}

int minidebug_open(struct elf_image **out, const uint8_t *p, size_t n)
{
	uint8_t *buf;
	size_t len;
	*out = NULL;
	int err = unpack_xz(p, n, MINIDEBUG_MAX, &buf, &len);
	if (err)
		return err;
	return elf_image_parse_take(out, buf, len);
}

static void hex(char *out, const uint8_t *id, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * n] = '\0';
}

/* The system debug directory: --debug-dir, else /usr/lib/debug under --symfs. */
static void debug_dir(const struct dso_set *s, char *out, size_t size)
{
	if (s->debug_dir)
		snprintf(out, size, "%s", s->debug_dir);
	else
		snprintf(out, size, "%s/usr/lib/debug", s->symfs ? s->symfs : "");
}

static bool same_build_id(const struct elf_image *a, const uint8_t *id, size_t n)
{
	uint8_t got[ELF_BUILD_ID_MAX];
	size_t gn = elf_image_build_id(a, got);
	return gn == n && !memcmp(got, id, n);
}

/* Candidates 1 and 2: named by the build-id, which must match. */
static struct elf_image *by_build_id(const struct dso_set *s, const uint8_t *id, size_t n,
				       char **found)
{
	char hexid[2 * ELF_BUILD_ID_MAX + 1], dir[4096], path[8192];
	const char *home = s->env ? s->env->home : NULL;
	if (n < 2)
		return NULL;
	hex(hexid, id, n);
	debug_dir(s, dir, sizeof(dir));
	for (int i = 0; i < 2; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, hexid,
				 hexid + 2);
		else if (home && *home)
			snprintf(path, sizeof(path), "%s/.debug/.build-id/%.2s/%s/debug", home,
				 hexid, hexid + 2);
		else
			continue;
		struct elf_image *img;
		if (elf_image_open(&img, path))
			continue;
		if (same_build_id(img, id, n)) {
			*found = xstrdup(path);
			return img;
		}
		elf_image_free(img); /* not the file it claims to be: never used */
	}
	return NULL;
}

/* The directory part of 'path' ("" for none), without the final '/'. */
static void dir_of(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	snprintf(out, size, "%.*s", (int)n, path);
}

/* Candidate 3: the .gnu_debuglink file beside the binary, in .debug/ and
 * under the debug directory, checked by CRC. */
static struct elf_image *by_debuglink(const struct dso_set *s, const struct dso *d,
				      const struct elf_image *img, const uint8_t *id, size_t n,
				      char **found)
{
	struct elf_section sec;
	struct debuglink dl;
	if (!elf_image_section(img, ".gnu_debuglink", &sec))
		return NULL;
	if (debuglink_parse(sec.data, sec.size, &dl)) {
		log_warn("%s: %s", d->file ? d->file : d->path, err_last()->msg);
		return NULL;
	}
	char bindir[4096], recdir[4096], dbgdir[4096], path[16384];
	dir_of(d->file ? d->file : d->path, bindir, sizeof(bindir));
	dir_of(d->path, recdir, sizeof(recdir));
	debug_dir(s, dbgdir, sizeof(dbgdir));
	bool warned = false;
	bool inroot = d->pid && d->file && !strncmp(d->file, "/proc/", 6) && strstr(d->file, "/root/");
	for (int i = 0; i < 3; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "%s/%s", bindir, dl.name);
		else if (i == 1)
			snprintf(path, sizeof(path), "%s/.debug/%s", bindir, dl.name);
		else
			snprintf(path, sizeof(path), "%s%s/%s", dbgdir, recdir, dl.name);
		if (d->file && !strcmp(path, d->file))
			continue; /* the binary names itself */
		struct elf_image *dbg;
		if (i < 2 && inroot) {
			/* Beside a binary read inside a container's root: stay in it. */
			char rel[8192];
			snprintf(rel, sizeof(rel), i == 0 ? "%s/%s" : "%s/.debug/%s", recdir, dl.name);
			int fd = nsroot_open(d->pid, rel);
			if (fd < 0)
				continue;
			int err = elf_image_open_fd(&dbg, fd, path);
			close(fd);
			if (err)
				continue;
		} else if (elf_image_open(&dbg, path)) {
			continue;
		}
		size_t len;
		const uint8_t *bytes = elf_image_data(dbg, &len);
		uint32_t crc = debuglink_crc(bytes, len);
		uint8_t got[ELF_BUILD_ID_MAX];
		size_t gn = elf_image_build_id(dbg, got);
		if (crc == dl.crc && (!n || !gn || same_build_id(dbg, id, n))) {
			*found = xstrdup(path);
			return dbg;
		}
		if (!warned)
			log_warn("%s: debug file %s does not match (%s); not used", d->path, path,
				 crc != dl.crc ? "CRC differs from .gnu_debuglink's"
					       : "build-id differs");
		warned = true;
		elf_image_free(dbg);
	}
	return NULL;
}

struct elf_image *debugfile_find(const struct dso_set *s, const struct dso *d,
				 const struct elf_image *img, char **found)
{
	*found = NULL;
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t n = elf_image_build_id(img, id);
	struct elf_image *dbg = by_build_id(s, id, n, found);
	if (!dbg)
		dbg = by_debuglink(s, d, img, id, n, found);
	return dbg;
}
