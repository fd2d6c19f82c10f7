/* buildids: the build-id table of a recording (pipeline, L8). */
#include "pipeline/buildids.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "dso/elf_image.h"
#include "dso/nsroot.h"

enum { MMAP2_TYPE = 10, MMAP2_FILENAME = 72, PROT_EXEC_BIT = 4 };
enum { MISC_KERNEL = 1, MISC_USER = 2, MISC_MMAP_BUILD_ID = 1 << 14 };

void buildids_init(struct buildids *b)
{
	memset(b, 0, sizeof(*b));
	hashmap_init(&b->seen);
}

void buildids_release(struct buildids *b)
{
	for (size_t i = 0; i < b->paths.n; i++)
		free(b->paths.v[i]);
	VEC_FREE(&b->paths);
	hashmap_release(&b->seen);
}

const char *buildids_exec_path(const void *rec, size_t len, uint32_t *pid, size_t *plen)
{
	const uint8_t *p = rec;
	uint32_t type, prot; /* perf_event_header: u32 type, u16 misc, u16 size */
	uint16_t misc;
	if (len <= MMAP2_FILENAME)
		return NULL;
	memcpy(&type, p, 4);
	memcpy(&misc, p + 4, 2);
	if (type != MMAP2_TYPE || (misc & MISC_MMAP_BUILD_ID))
		return NULL;
	memcpy(pid, p + 8, 4);
	memcpy(&prot, p + 64, 4);
	const char *path = (const char *)p + MMAP2_FILENAME;
	*plen = strnlen(path, len - MMAP2_FILENAME);
	if (!(prot & PROT_EXEC_BIT) || *plen == len - MMAP2_FILENAME || path[0] != '/' ||
	    strstr(path, " (deleted)"))
		return NULL;
	return path;
}

void buildids_record(struct buildids *b, const void *rec, size_t len)
{
	uint32_t pid;
	size_t plen;
	const char *path = buildids_exec_path(rec, len, &pid, &plen);
	if (!path || b->paths.n >= BUILDIDS_MAX_FILES || !strncmp(path, "/memfd:", 7))
		return;
	uint64_t key = hash_bytes(path, plen);
	if (hashmap_get(&b->seen, key, NULL))
		return;
	/* A process in another mount namespace: its files are not the
	 * host's at that path (nscache keeps them). */
	if (nsroot_foreign(pid))
		return;
	hashmap_put(&b->seen, key, 1);
	VEC_PUSH(&b->paths, xstrndup(path, plen));
}

static size_t file_build_id(const char *path, uint8_t id[ELF_BUILD_ID_MAX])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct stat st;
	struct elf_image *img = NULL;
	size_t n = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && elf_image_open_fd(&img, fd, path) == 0)
		n = elf_image_build_id(img, id);
	elf_image_free(img);
	close(fd);
	return n;
}

static void add(struct perf_header_info *h, uint16_t cpumode, const uint8_t *id, size_t n,
		const char *name)
{
	h->build_ids = xrealloc(h->build_ids, (h->nbuild_ids + 1) * sizeof(*h->build_ids));
	struct perf_build_id *e = &h->build_ids[h->nbuild_ids++];
	memset(e, 0, sizeof(*e));
	e->pid = -1; /* the host machine, as perf writes it */
	e->cpumode = cpumode;
	e->size = (uint8_t)n;
	memcpy(e->id, id, n);
	e->filename = xstrdup(name);
}

void buildids_take(struct buildids *b, struct perf_header_info *h)
{
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t n = buildids_running_kernel(id, sizeof(id));
	if (n >= 2 && n <= 20)
		add(h, MISC_KERNEL, id, n, "[kernel.kallsyms]");
	for (size_t i = 0; i < b->paths.n; i++) {
		n = file_build_id(b->paths.v[i], id);
		if (n >= 2 && n <= 20)
			add(h, MISC_USER, id, n, b->paths.v[i]);
	}
}

size_t buildids_running_kernel(uint8_t *out, size_t cap)
{
	uint8_t buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	size_t off = 0;
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name_at = off + 12;
		if (namesz > (size_t)n || descsz > (size_t)n)
			return 0;
		size_t desc_at = name_at + ((namesz + 3u) & ~3u);
		size_t next = desc_at + ((descsz + 3u) & ~3u);
		if (next > (size_t)n)
			return 0;
		if (type == 3 && namesz == 4 && !memcmp(buf + name_at, "GNU", 4)) {
			size_t len = descsz < cap ? descsz : cap;
			memcpy(out, buf + desc_at, len);
			return len;
		}
		off = next;
	}
	return 0;
}

