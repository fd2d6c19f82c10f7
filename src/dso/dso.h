/*
 * dso: the registry of binaries a profile refers to (dso, L2).
 *
 * Every mapped file gets one struct dso, interned by path, with a dense
 * uint32_t id that later stages store instead of pointers. The ELF image
 * behind a dso is opened lazily, on the first symbol lookup, and kept
 * until the set is freed, so each binary is read once per run. A build-id
 * recorded in the profile is compared with the file on disk; a file that
 * does not match is never used (one warning per dso). Kernel symbols come
 * from /proc/kallsyms, used only when it belongs to the kernel that was
 * recorded (dso_set_use_kallsyms decides).
 */
#ifndef KILN_DSO_DSO_H
#define KILN_DSO_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/env.h"
#include "base/hashmap.h"
#include "base/vec.h"
#include "dso/elf_image.h"
#include "dso/kallsyms.h"
#include "dso/perfmap.h"

enum dso_kind {
	DSO_FILE = 0, /* a file on disk */
	DSO_KERNEL,   /* [kernel.kallsyms] and kernel modules */
	DSO_VDSO,     /* [vdso], [vsyscall] */
	DSO_ANON,     /* //anon, [heap], [stack], memfd:, ... : no file */
	DSO_JIT,      /* /tmp/perf-PID.map: JIT symbols of PID's anonymous code */
	DSO_KSYM,     /* a kernel symbol of its own (KSYMBOL: a BPF program), named as it */
};

struct dso {
	char *path;       /* as recorded, " (deleted)" kept */
	char *file;       /* the file its image was read from (under --symfs...), or NULL */
	const char *base; /* the basename part of path (borrowed from path) */
	enum dso_kind kind;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	uint8_t build_id_size; /* 0: none recorded */
	struct elf_image *img;    /* the binary itself: segments, build-id */
	struct elf_image *symimg; /* its separate debug file, if found with symbols */
	char *symimg_path;        /* the path symimg was read from */
	uint8_t *bytes; /* an in-memory image we own (the vDSO copy), or NULL */
	struct perfmap *jit;     /* DSO_JIT: the perf map's symbols, once loaded */
	struct perfmap *jitdump; /* DSO_JIT: the process's jitdump symbols, if recorded */
	int64_t jit_size;        /* DSO_JIT: the perf map's size when read (-1: none) */
	uint32_t pid;   /* the first process seen mapping it (0: none): its root holds the file */
	bool anon_code; /* dso_is_anon_code(), worked out from the path once */
	bool tried;     /* img load was attempted */
	bool dbg_tried; /* the debug file search was done */
	bool retired;   /* dso_set_retire: no longer interned, its id waits for reuse */
};

struct dso_set {
	VEC(struct dso *) v;
	struct hashmap by_path; /* hash(path) -> id (collisions chained by probing ids) */
	struct kallsyms *ksyms; /* NULL until loaded; stays NULL if unusable */
	bool ksyms_allowed;
	bool ksyms_tried;
	/* Kernel addresses are looked up in ksyms at address + ksyms_delta:
	 * the running kernel's address of the recorded kernel's reference
	 * symbol minus the recorded one (KASLR), set by the caller. */
	uint64_t ksyms_delta;
	struct hashmap jitdumps; /* pid -> 1 + id of a mapped ".../jit-PID.dump" */
	/* Perf maps grow while they are read (a live view, kiln top): an
	 * address a perf map does not name reads it again if it grew. */
	bool jit_live;
	/* Take "[vdso]" symbols from this process's vDSO even when kallsyms is
	 * not allowed (perf's way), unless a recorded build-id differs. */
	bool vdso_always;
	/* Binaries opened without their symbol tables (ELF_IMAGE_NO_SYMBOLS):
	 * for a set only unwinding reads (sections and segments). */
	bool no_symbols;
	const char *symfs; /* prefix for file paths, or NULL */
	const char *debug_dir; /* instead of SYMFS/usr/lib/debug, or NULL */
	/* The environment (HOME for ~/.debug, the cache directory), or NULL:
	 * no home directory and no cache. */
	const struct kiln_env *env;
	/* A live view's eviction (dso_set_retire): ids retired and not yet
	 * free, and ids free for dso_set_intern to hand out again. */
	VEC(uint32_t) retired;
	VEC(uint32_t) free_ids;
};

void dso_set_init(struct dso_set *s);
void dso_set_release(struct dso_set *s);
/* The id of the dso for 'path', created if new. */
uint32_t dso_set_intern(struct dso_set *s, const char *path);
/* The id of the DSO_KSYM dso of a KSYMBOL record's 'name', created if new:
 * perf names the dso as the symbol ("bpf_prog_<tag>_<name>"). */
uint32_t dso_set_intern_ksym(struct dso_set *s, const char *name);
static inline struct dso *dso_set_get(const struct dso_set *s, uint32_t id)
{
	return s->v.v[id];
}
/* Note that process 'pid' maps dso 'id' (the first one is kept): when
 * that process runs in another mount namespace, the file is looked up
 * inside its root (dso/nsroot.h). */
void dso_set_note_pid(struct dso_set *s, uint32_t id, uint32_t pid);
/* Remember the build-id the profile recorded for 'path'. */
void dso_set_expect_build_id(struct dso_set *s, const char *path, const uint8_t *id, size_t n);
/* The ELF image of a file dso, or NULL (missing, unreadable, mismatched:
 * said once through log_warn). For [vdso] of the running kernel (when
 * kallsyms may be used, see below), kiln's own vDSO, which is the same. */
const struct elf_image *dso_image(struct dso_set *s, struct dso *d);
/* The image to take symbols from: the debug file found by build-id or
 * .gnu_debuglink (see dso/debugfile.h) when it has any symbols (perf
 * prefers a debug file's .symtab: it holds the binary's functions and the
 * static ones), with the binary's PLT stubs added, else the binary (with its MiniDebugInfo symbols added). NULL when dso_image() is
 * NULL. */
const struct elf_image *dso_symbols(struct dso_set *s, struct dso *d);
/*
 * Anonymous code (perf's rule: "//anon", "/dev/zero", "/anon_hugepage",
 * "[stack", "/SYSV", "[heap]" mapped executable) is named after its
 * process's JIT map, "/tmp/perf-PID.map", as perf names it.
 */
bool dso_is_anon_code(const struct dso *d);
/*
 * perf's short name of a kernel module (kmod_path__parse_name):
 * "/lib/modules/.../snd-pcm.ko.xz" -> "[snd_pcm]", written into buf
 * (cap bytes); a path that is no module's (or already "[name]") gives its
 * last component, pointing into 'path'.
 */
const char *dso_module_name(const char *path, char *buf, size_t cap);
/* The id of the DSO_JIT dso "/tmp/perf-PID.map". */
uint32_t dso_set_jit(struct dso_set *s, uint32_t pid);
/* The JIT symbol at absolute address 'ip' in a DSO_JIT dso, or NULL:
 * from the process's jitdump file when the recording mapped one
 * (dso/jitdump.h), else from /tmp/perf-PID.map (dso/perfmap.h). Both are
 * read on first use; a refused or broken file is said once through
 * log_warn, a missing perf map is silent. Borrowed. */
const char *dso_jit_lookup(struct dso_set *s, struct dso *d, uint64_t ip, uint64_t *start);
/* The path of the file dso_symbols() takes its symbols from (the debug
 * file or the binary, with the symfs prefix), written to buf; NULL when
 * dso_symbols() is NULL. The file DWARF line tables are read from. */
const char *dso_symbols_path(struct dso_set *s, struct dso *d, char *buf, size_t len);
/*
 * A live view's eviction (kiln top), off the sampling path: every dso not
 * marked in used[id] (used has one byte per id, s->v.n of them) but
 * kernel, vDSO and KSYMBOL ones (the kernel's, loading nothing) is
 * retired: what it loaded (images, perf maps, the vDSO copy) is freed
 * and its path no longer interns to it, so a later mapping of the path
 * gets another id and reads the file as it is then.
 * The ids retired are appended to s->retired (the caller drops what it
 * keyed by them: the unwinder's tables). Returns how many were retired.
 */
size_t dso_set_retire(struct dso_set *s, const uint8_t *used);
/* How many retired ids wait (dso_set_reuse_retired frees them). */
static inline size_t dso_set_nretired(const struct dso_set *s)
{
	return s->retired.n;
}
/*
 * Let dso_set_intern hand the retired ids out again (their structs reused
 * for new paths). Only once nothing keyed by them remains: the
 * symbolizer's cache (symbolizer_forget), the unwinder's (unwinder_forget)
 * and what consumers keyed by dso id.
 */
void dso_set_reuse_retired(struct dso_set *s);

/* Allow or forbid /proc/kallsyms (true only when the recorded kernel is
 * the running one). */
void dso_set_use_kallsyms(struct dso_set *s, bool allowed);
/* Kernel symbols, or NULL if not allowed, missing or restricted. */
const struct kallsyms *dso_kallsyms(struct dso_set *s);

#endif
