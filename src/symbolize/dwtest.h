/*
 * dwtest: what the DWARF reader tests share (symbolize, tests only): the
 * debug file the dso registry finds for a binary, this test binary's
 * path, and small programs built by each compiler and DWARF version this
 * machine has.
 */
#ifndef KILN_SYMBOLIZE_DWTEST_H
#define KILN_SYMBOLIZE_DWTEST_H

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dso/dso.h"

/* A section's bytes as libdw holds them (decompressed), by name. */
static inline bool dwtest_section(Elf *elf, const char *want, const uint8_t **p, size_t *n)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(name, want)) {
			Elf_Data *d = elf_getdata(scn, NULL);
			if (!d || !d->d_buf)
				return false;
			*p = d->d_buf;
			*n = d->d_size;
			return true;
		}
	}
	return false;
}

/* A file opened for libdw (which decompresses its debug sections); false if it cannot be. */
struct dwtest_file {
	int fd;
	Elf *elf;
	Dwarf *dw;
};

static inline bool dwtest_open(const char *path, struct dwtest_file *f)
{
	elf_version(EV_CURRENT);
	f->elf = NULL;
	f->dw = NULL;
	if ((f->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	f->dw = f->elf ? dwarf_begin_elf(f->elf, DWARF_C_READ, NULL) : NULL;
	return f->dw != NULL;
}

static inline void dwtest_close(struct dwtest_file *f)
{
	if (f->dw)
		dwarf_end(f->dw);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
}

/* The debug file the dso registry finds for 'bin' (not 'bin' itself). */
static inline bool dwtest_debug_file(const char *bin, char *out, size_t cap)
{
	struct dso_set ds;
	dso_set_init(&ds);
	struct dso *d = dso_set_get(&ds, dso_set_intern(&ds, bin));
	bool ok = dso_image(&ds, d) && dso_symbols_path(&ds, d, out, cap) && strcmp(out, bin);
	dso_set_release(&ds);
	return ok;
}

static inline bool dwtest_self(char *out, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", out, cap - 1);
	if (n <= 0)
		return false;
	out[n] = '\0';
	return true;
}

/*
 * Builds a small program (an inlined function, a function from an
 * included file) with gcc at DWARF 2, 3, 4 and 5 (one compressed) and
 * with clang at DWARF 4 and 5 when clang is here, and calls fn with each
 * file. Returns how many were built.
 */
static inline size_t dwtest_programs(void (*fn)(const char *path, void *arg), void *arg)
{
	static const char src[] =
		"#include <stdio.h>\n"
		"static inline __attribute__((always_inline)) int sq(int x) { return x * x; }\n"
		"#include \"/tmp/kiln-dwtest-inc.h\"\n"
		"int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i) + twice(i); "
		"return s; }\n"
		"int main(int argc, char **argv) { (void)argv; printf(\"%d\\n\", work(argc * 100)); "
		"return 0; }\n";
	static const char inc[] = "static inline int twice(int x)\n{\n\treturn 2 * x;\n}\n";
	static const char *const builds[] = {
		"gcc -O2 -gdwarf-2",   "gcc -O2 -gdwarf-3",   "gcc -O0 -gdwarf-4",
		"gcc -O2 -gdwarf-5",   "clang -O2 -gdwarf-4", "clang -O2 -gdwarf-5",
		"gcc -O2 -gdwarf-5 -gz=zlib",
	};
	char srcpath[64], incpath[] = "/tmp/kiln-dwtest-inc.h";
	snprintf(srcpath, sizeof(srcpath), "/tmp/kiln-dwtest-%d.c", (int)getpid());
	FILE *f = fopen(srcpath, "w");
	if (!f)
		return 0;
	fputs(src, f);
	fclose(f);
	if (!(f = fopen(incpath, "w")))
		return 0;
	fputs(inc, f);
	fclose(f);
	size_t built = 0;
	for (size_t i = 0; i < sizeof(builds) / sizeof(*builds); i++) {
		char out[64], cmd[512];
		snprintf(out, sizeof(out), "/tmp/kiln-dwtest-%d-%zu", (int)getpid(), i);
		snprintf(cmd, sizeof(cmd), "%s -o %s %s 2>/dev/null", builds[i], out, srcpath);
		if (system(cmd) != 0)
			continue;
		fn(out, arg);
		unlink(out);
		built++;
	}
	unlink(srcpath);
	return built;
}

#endif
