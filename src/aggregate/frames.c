/* frames: stackcollapse-compatible frame naming (aggregate, L6). */
#include "aggregate/frames.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"

#define NAME_MAX_BYTES 4096

struct trie_frame frame_for_sym(struct strtab *strs, const struct symbolizer *sz,
				const struct sym *sym, const struct frame_opts *o)
{
	struct buf b;
	buf_init(&b, NAME_MAX_BYTES + 16);
	uint8_t kind;
	const char *dso = sym_dso_basename(sz, sym);
	bool jit = dso && !strncmp(dso, "perf-", 5) && strstr(dso, ".map");
	if (sym->name != SYM_NONE) {
		const char *n = strtab_get(strs, sym->name);
		size_t len = strnlen(n, NAME_MAX_BYTES);
		for (size_t i = 0; i < len; i++)
			buf_addch(&b, n[i] == ';' ? ':' : n[i]);
		kind = sym->kernel ? FRAME_KERNEL : jit ? FRAME_JIT : FRAME_USER;
	} else {
		/* perf script prints "[unknown] (dso)"; stackcollapse turns that into
		 * "[dso basename]" ("[kernel.kallsyms]" and "[vdso]" already are). */
		const char *path = sym_dso_path(sz, sym);
		if (path && strstr(path, " ("))
			buf_addstr(&b, "[unknown] "); /* "[unknown] (/x (deleted))" split at " (deleted" */
		else if (o->addrs)
			buf_addf(&b, "[%s <%" PRIx64 ">]", dso ? dso : "unknown", sym->pc);
		else if (!dso)
			buf_addstr(&b, "[unknown]");
		else if (dso[0] == '[')
			buf_addstr(&b, dso);
		else
			buf_addf(&b, "[%s]", dso);
		kind = sym->kernel ? FRAME_KERNEL : FRAME_UNKNOWN;
	}
	if (kind == FRAME_KERNEL && o->annotate_kernel)
		buf_addstr(&b, "_[k]");
	if (kind == FRAME_JIT && o->annotate_jit)
		buf_addstr(&b, "_[j]");
	struct trie_frame f = { strtab_intern(strs, buf_str(&b), b.len), kind };
	buf_release(&b);
	return f;
}

struct trie_frame frame_for_inline(struct strtab *strs, const struct sym_inline *in,
				   const struct frame_opts *o)
{
	struct buf b;
	buf_init(&b, NAME_MAX_BYTES + 16);
	const char *n = strtab_get(strs, in->name);
	size_t len = strnlen(n, NAME_MAX_BYTES);
	for (size_t i = 0; i < len; i++)
		buf_addch(&b, n[i] == ';' ? ':' : n[i]);
	if (in->inlined && o->annotate_inline)
		buf_addstr(&b, "_[i]");
	struct trie_frame f = { strtab_intern(strs, buf_str(&b), b.len),
				in->inlined ? FRAME_INLINE : FRAME_USER };
	buf_release(&b);
	return f;
}

struct trie_frame frame_for_process(struct strtab *strs, const char *comm, uint32_t pid,
				    uint32_t tid, const struct frame_opts *o)
{
	char name[96];
	size_t n = strnlen(comm, 64);
	memcpy(name, comm, n);
	name[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (name[i] == ' ' || name[i] == ';')
			name[i] = '_';
	if (o->with_tid)
		snprintf(name + n, sizeof(name) - n, "-%u/%u", pid, tid);
	else if (o->with_pid)
		snprintf(name + n, sizeof(name) - n, "-%u", pid);
	struct trie_frame f = { strtab_intern_str(strs, name), FRAME_PROCESS };
	return f;
}
