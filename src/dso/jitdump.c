/*
 * jitdump: jit-PID.dump code-load records → a JIT symbol table (dso, L2).
 * Bounded: every field is read inside the record, every record inside the
 * file, and the names' arena is no larger than the file.
 */
#include "dso/jitdump.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/err.h"
#include "base/mapguard.h"
#include "base/hashmap.h"

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_HEADER_MIN 40
#define JR_PREFIX 16
#define JR_LOAD_FIXED (JR_PREFIX + 40)
#define JR_MOVE_FIXED (JR_PREFIX + 48)

enum { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1 };

int jitdump_parse(struct perfmap **out, const void *data, size_t len)
{
	const uint8_t *p = data;
	*out = NULL;
	if (len < JITDUMP_HEADER_MIN)
		return err_corrupt_at(0, "jitdump header truncated (%zu bytes)", len);
	if (le32(p) != JITDUMP_MAGIC)
		return err_corrupt_at(0, "not a jitdump file (magic %#x)", le32(p));
	uint32_t hsize = le32(p + 8);
	if (hsize < JITDUMP_HEADER_MIN || hsize > len)
		return err_corrupt_at(8, "jitdump header size %u", hsize);
	struct perfmap *pm = perfmap_new(len);
	struct hashmap loaded; /* code address -> its latest name (a pointer into pm) */
	hashmap_init(&loaded);
	for (size_t pos = hsize; len - pos >= JR_PREFIX;) {
		const uint8_t *r = p + pos;
		uint32_t id = le32(r), size = le32(r + 4);
		if (size < JR_PREFIX || size > len - pos)
			break; /* torn or bad: keep what was read */
		if (id == JIT_CODE_LOAD && size >= JR_LOAD_FIXED) {
			uint64_t addr = le64(r + 32), csize = le64(r + 40);
			const uint8_t *name = r + JR_LOAD_FIXED;
			const uint8_t *nul = memchr(name, '\0', size - JR_LOAD_FIXED);
			const char *kept = NULL;
			if (nul && nul > name)
				kept = perfmap_add(pm, addr, csize, (const char *)name,
						   (size_t)(nul - name));
			if (kept)
				hashmap_put(&loaded, addr, (uint64_t)(uintptr_t)kept);
		} else if (id == JIT_CODE_MOVE && size >= JR_MOVE_FIXED) {
			/* The code keeps its name at the new address: find it at the old one. */
			uint64_t old = le64(r + 32), addr = le64(r + 40), csize = le64(r + 48);
			uint64_t v;
			const char *kept = NULL;
			if (hashmap_get(&loaded, old, &v)) {
				const char *name = (const char *)(uintptr_t)v;
				kept = perfmap_add(pm, addr, csize, name, strlen(name));
			}
			if (kept)
				hashmap_put(&loaded, addr, (uint64_t)(uintptr_t)kept);
		}
		pos += size;
	}
	hashmap_release(&loaded);
	perfmap_finish(pm);
	*out = pm;
	return 0;
}

/* An empty jitdump has no header: refused, as a corrupt one. */
static int parse_dump(struct perfmap **out, const void *data, size_t len)
{
	if (!len)
		return err_corrupt_at(0, "the jitdump file is empty");
	return jitdump_parse(out, data, len);
}

int jitdump_load(struct perfmap **out, const char *path, uint32_t pid)
{
	return perfmap_load_with(out, path, pid, parse_dump);
}
