/*
 * source: unit file tables by libdw, source files read whole (annotate,
 * L6). Only the unit that covers the annotated function is read, once
 * per annotation, so libdw's cost is that unit's line header.
 */
#include "annotate/source.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/ifile.h"
#include "base/xalloc.h"

void source_set_init(struct source_set *s)
{
	memset(s, 0, sizeof(*s));
}

void source_set_release(struct source_set *s)
{
	for (size_t i = 0; i < s->v.n; i++) {
		free(s->v.v[i].path);
		free(s->v.v[i].text);
		VEC_FREE(&s->v.v[i].starts);
	}
	VEC_FREE(&s->v);
	for (size_t i = 0; i < s->cu_paths.n; i++)
		free(s->cu_paths.v[i]);
	VEC_FREE(&s->cu_paths);
}

int source_set_load_unit(struct source_set *s, const char *path, uint64_t vaddr)
{
	struct stat st;
	int fd = ifile_open(path, &st);
	int err = -ENOENT;

	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t n;
	if (dw && dwarf_addrdie(dw, vaddr, &cu) && dwarf_getsrcfiles(&cu, &files, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			const char *p = dwarf_filesrc(files, i, NULL, NULL);
			if (p)
				VEC_PUSH(&s->cu_paths, xstrdup(p));
		}
		err = 0;
	}
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

static const char *last_part(const char *p)
{
	const char *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

const char *source_set_unit_path(const struct source_set *s, const char *base)
{
	for (size_t i = 0; i < s->cu_paths.n; i++)
		if (!strcmp(last_part(s->cu_paths.v[i]), base))
			return s->cu_paths.v[i];
	return NULL;
}

void source_rewrite_path(const char *path, const struct source_opts *o, char *buf, size_t len)
{
	/* objdump: both apply to absolute paths only, and --prefix-strip
	 * only with --prefix. */
	if (!o || !o->prefix || path[0] != '/') {
		snprintf(buf, len, "%s", path);
		return;
	}
	const char *p = path;
	for (unsigned i = 0; i < o->prefix_strip; i++) {
		const char *next = strchr(p + 1, '/');
		if (!next)
			break; /* never the file name itself */
		p = next;
	}
	size_t pl = strlen(o->prefix);
	while (pl > 1 && o->prefix[pl - 1] == '/')
		pl--;
	snprintf(buf, len, "%.*s%s", (int)pl, o->prefix, p);
}

static void read_whole(struct source_file *f)
{
	struct stat st;
	int fd = ifile_open(f->path, &st);

	if (fd < 0)
		return;
	if (st.st_size < 0 || (uint64_t)st.st_size > SOURCE_MAX_BYTES) {
		close(fd);
		return;
	}
	size_t want = (size_t)st.st_size, got = 0;
	char *text = xmalloc(want + 1);
	while (got < want) {
		ssize_t r = read(fd, text + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* shrank: keep what was read */
		got += (size_t)r;
	}
	close(fd);
	text[got] = '\0';
	f->text = text;
	f->len = got;
	f->found = true;
	for (size_t at = 0; at < got;) {
		VEC_PUSH(&f->starts, at);
		const char *nl = memchr(text + at, '\n', got - at);
		at = nl ? (size_t)(nl - text) + 1 : got;
	}
}

size_t source_set_add(struct source_set *s, const char *dwpath, const struct source_opts *o)
{
	char path[4096];

	source_rewrite_path(dwpath, o, path, sizeof(path));
	for (size_t i = 0; i < s->v.n; i++)
		if (!strcmp(s->v.v[i].path, path))
			return i;
	struct source_file *f = VEC_PUSH_ZERO(&s->v);
	f->path = xstrdup(path);
	read_whole(f);
	return s->v.n - 1;
}

const char *source_line(const struct source_file *f, uint32_t line, size_t *len)
{
	if (!f->found || line == 0 || line > f->starts.n)
		return NULL;
	size_t at = f->starts.v[line - 1];
	size_t end = line < f->starts.n ? f->starts.v[line] : f->len;
	while (end > at && (f->text[end - 1] == '\n' || f->text[end - 1] == '\r'))
		end--;
	*len = end - at;
	return f->text + at;
}
