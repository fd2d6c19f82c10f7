/*
 * unpack: zlib, zstd and xz payloads of ELF files, decompressed with a
 * ceiling (dso, L2). The output buffer starts small and doubles only as
 * the stream really produces bytes, so a header that lies about the size
 * costs nothing; a stream that produces more than it declared, ends early
 * or carries trailing garbage is an error.
 */
#include "dso/unpack.h"

#include <errno.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "base/bytes.h"
#include "base/err.h"
#include "base/xalloc.h"

enum { ELFCOMPRESS_ZLIB = 1, ELFCOMPRESS_ZSTD = 2 };

#define XZ_MEMLIMIT ((uint64_t)128 << 20) /* the xz decoder's own tables */

/* A growing output buffer that never exceeds 'cap' bytes. */
struct obuf {
	uint8_t *p;
	size_t len, size, cap;
};

/* Room for more output; false when 'cap' bytes are already there. */
static bool obuf_grow(struct obuf *o)
{
	if (o->len < o->size)
		return true;
	if (o->size >= o->cap)
		return false;
	size_t ns = o->size ? o->size * 2 : 4096;
	if (ns > o->cap || ns < o->size)
		ns = o->cap;
	o->p = xrealloc(o->p, ns ? ns : 1);
	o->size = ns;
	return true;
}

static int zlib_stream(const uint8_t *p, size_t n, uint64_t base, size_t want, uint8_t **out,
		       size_t *outlen)
{
	struct obuf o = { .cap = want };
	z_stream z;
	int err = 0, rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return err_set(-ENOMEM, "cannot start zlib");
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	for (;;) {
		if (!obuf_grow(&o)) {
			/* Full: the stream must end exactly here. */
			uint8_t extra;
			z.next_out = &extra;
			z.avail_out = 1;
			rc = inflate(&z, Z_NO_FLUSH);
			if (rc == Z_STREAM_END && z.avail_out == 1)
				break;
			err = err_corrupt_at(base, "zlib data longer than the declared %zu bytes", want);
			goto out;
		}
		z.next_out = o.p + o.len;
		z.avail_out = (uInt)(o.size - o.len > UINT32_MAX ? UINT32_MAX : o.size - o.len);
		size_t before = z.avail_out;
		rc = inflate(&z, Z_NO_FLUSH);
		o.len += before - z.avail_out;
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			err = err_corrupt_at(base + z.total_in, "bad zlib data (%s)",
					     z.msg ? z.msg : "error");
			goto out;
		}
		if (rc == Z_BUF_ERROR && z.avail_in == 0) {
			err = err_corrupt_at(base + n, "zlib data ends early (%zu of %zu bytes)", o.len,
					     want);
			goto out;
		}
	}
	if (o.len != want)
		err = err_corrupt_at(base, "zlib data gives %zu bytes, header says %zu", o.len, want);
out:
	inflateEnd(&z);
	if (err) {
		free(o.p);
		return err;
	}
	*out = o.p ? o.p : xmalloc(1);
	*outlen = o.len;
	return 0;
}

static int zstd_stream(const uint8_t *p, size_t n, uint64_t base, size_t want, uint8_t **out,
		       size_t *outlen)
{
	struct obuf o = { .cap = want };
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer in = { p, n, 0 };
	int err = 0;
	size_t rc = 1;

	if (!z)
		return err_set(-ENOMEM, "cannot start zstd");
	ZSTD_DCtx_setParameter(z, ZSTD_d_windowLogMax, 27);
	while (rc != 0) {
		if (!obuf_grow(&o)) {
			uint8_t extra;
			ZSTD_outBuffer ob = { &extra, 1, 0 };
			rc = ZSTD_decompressStream(z, &ob, &in);
			if (!ZSTD_isError(rc) && ob.pos == 0 && rc == 0)
				break;
			err = err_corrupt_at(base, "zstd data longer than the declared %zu bytes", want);
			goto out;
		}
		ZSTD_outBuffer ob = { o.p + o.len, o.size - o.len, 0 };
		size_t in_before = in.pos;
		rc = ZSTD_decompressStream(z, &ob, &in);
		if (ZSTD_isError(rc)) {
			err = err_corrupt_at(base + in.pos, "bad zstd data (%s)", ZSTD_getErrorName(rc));
			goto out;
		}
		o.len += ob.pos;
		if (rc != 0 && in.pos == n && ob.pos == 0 && in_before == in.pos) {
			err = err_corrupt_at(base + n, "zstd data ends early (%zu of %zu bytes)", o.len,
					     want);
			goto out;
		}
	}
	if (o.len != want)
		err = err_corrupt_at(base, "zstd data gives %zu bytes, header says %zu", o.len, want);
out:
	ZSTD_freeDStream(z);
	if (err) {
		free(o.p);
		return err;
	}
	*out = o.p ? o.p : xmalloc(1);
	*outlen = o.len;
	return 0;
}

int unpack_chdr(const uint8_t *p, size_t n, bool is64, uint8_t **out, size_t *outlen)
{
	size_t hdr = is64 ? 24 : 12;
	if (n < hdr)
		return err_corrupt_at(0, "compressed section too short for its header (%zu bytes)", n);
	uint32_t type = le32(p);
	uint64_t size = is64 ? le64(p + 8) : le32(p + 4);
	if (size > UNPACK_MAX)
		return err_corrupt_at(is64 ? 8 : 4, "compressed section claims %" PRIu64
				      " bytes (limit %zu)", size, UNPACK_MAX);
	if (type == ELFCOMPRESS_ZLIB)
		return zlib_stream(p + hdr, n - hdr, hdr, (size_t)size, out, outlen);
	if (type == ELFCOMPRESS_ZSTD)
		return zstd_stream(p + hdr, n - hdr, hdr, (size_t)size, out, outlen);
	return err_corrupt_at(0, "unknown section compression type %u", type);
}

int unpack_zdebug(const uint8_t *p, size_t n, uint8_t **out, size_t *outlen)
{
	if (n < 12 || memcmp(p, "ZLIB", 4))
		return err_corrupt_at(0, "no \"ZLIB\" header in a .zdebug section");
	uint64_t size = 0;
	for (int i = 0; i < 8; i++)
		size = size << 8 | p[4 + i];
	if (size > UNPACK_MAX)
		return err_corrupt_at(4, ".zdebug section claims %" PRIu64 " bytes (limit %zu)", size,
				      UNPACK_MAX);
	return zlib_stream(p + 12, n - 12, 12, (size_t)size, out, outlen);
}

int unpack_xz(const uint8_t *p, size_t n, size_t cap, uint8_t **out, size_t *outlen)
{
	struct obuf o = { .cap = cap < UNPACK_MAX ? cap : UNPACK_MAX };
	lzma_stream z = LZMA_STREAM_INIT;
	int err = 0;

	if (lzma_stream_decoder(&z, XZ_MEMLIMIT, 0) != LZMA_OK)
		return err_set(-ENOMEM, "cannot start the xz decoder");
	z.next_in = p;
	z.avail_in = n;
	for (;;) {
		if (!obuf_grow(&o)) {
			uint8_t extra;
			z.next_out = &extra;
			z.avail_out = 1;
			if (lzma_code(&z, LZMA_FINISH) == LZMA_STREAM_END && z.avail_out == 1)
				break;
			err = err_corrupt_at(0, "xz data longer than %zu bytes", o.cap);
			goto out;
		}
		z.next_out = o.p + o.len;
		z.avail_out = o.size - o.len;
		size_t before = z.avail_out;
		lzma_ret rc = lzma_code(&z, LZMA_FINISH);
		o.len += before - z.avail_out;
		if (rc == LZMA_STREAM_END)
			break;
		if (rc == LZMA_OK)
			continue;
		if (rc == LZMA_BUF_ERROR)
			err = err_corrupt_at(n, "xz data ends early");
		else if (rc == LZMA_MEMLIMIT_ERROR)
			err = err_corrupt_at(z.total_in, "xz data needs more than %" PRIu64
					     " bytes of decoder memory", XZ_MEMLIMIT);
		else
			err = err_corrupt_at(z.total_in, "bad xz data (error %d)", (int)rc);
		goto out;
	}
	if (z.avail_in)
		err = err_corrupt_at(z.total_in, "%zu bytes after the end of the xz data",
				     z.avail_in);
out:
	lzma_end(&z);
	if (err) {
		free(o.p);
		return err;
	}
	*out = o.p ? o.p : xmalloc(1);
	*outlen = o.len;
	return 0;
}
