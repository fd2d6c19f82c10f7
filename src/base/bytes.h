/*
 * bytes: fixed-size integers read from unaligned bytes (base, L0).
 *
 * le32/le64 read little-endian fields of file formats (ELF on the
 * machines kiln reads, .gnu_debuglink, jitdump, compressed section
 * headers); ne32/ne64 read fields in this machine's order (perf records
 * and tracepoint payloads, which the kernel writes in its own order).
 * The caller has checked that the bytes are there.
 */
#ifndef KILN_BASE_BYTES_H
#define KILN_BASE_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static inline uint32_t ne32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t ne64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

#endif
