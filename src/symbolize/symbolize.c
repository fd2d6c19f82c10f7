/*
 * symbolize: mapping → dso → ELF or kallsyms symbol, with a per-(dso,
 * address) cache (symbolize, L5). The address translation goes through
 * the PT_LOAD segment that holds the file offset, so PIE, shared objects
 * and odd layouts resolve alike.
 */
#include "symbolize/symbolize.h"

#define HAVE_DECL_BASENAME 1 /* libiberty's headers test it */
#include <demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void symbolizer_init(struct symbolizer *s, struct machine *m, struct strtab *strs)
{
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->strs = strs;
	hashmap_init(&s->cache);
	hashmap_init(&s->demangled);
	hashmap_init(&s->srcline_texts);
	srclines_init(&s->src, m->dsos, strs);
}

void symbolizer_release(struct symbolizer *s)
{
	hashmap_release(&s->cache);
	hashmap_release(&s->demangled);
	hashmap_release(&s->srcline_texts);
	HVEC_FREE(&s->entries);
	HVEC_FREE(&s->entry_keys);
	VEC_FREE(&s->a2l_fails);
	VEC_FREE(&s->no_srcline);
	srclines_release(&s->src);
}

void symbolizer_forget(struct symbolizer *s)
{
	hashmap_release(&s->cache);
	hashmap_init(&s->cache);
	HVEC_FREE(&s->entries);
	HVEC_FREE(&s->entry_keys);
	VEC_FREE(&s->a2l_fails); /* by dso id: ids may be reused after this */
	VEC_FREE(&s->no_srcline);
	srclines_forget(&s->src);
}

/* A kernel address through /proc/kallsyms, when it may be used. */
static void resolve_kernel(struct symbolizer *s, uint64_t ip, struct sym *out)
{
	const struct kallsyms *ks = dso_kallsyms(s->m->dsos);
	uint64_t start, at = ip + s->m->dsos->ksyms_delta; /* relocated (dso.h) */
	const char *name = ks ? kallsyms_lookup(ks, at, &start, NULL) : NULL;
	if (name) {
		out->raw = out->name = strtab_intern_str(s->strs, name);
		out->symoff = at - start;
	}
}

/* Names longer than this after demangling are kept mangled. */
#define DEMANGLED_MAX 4096

/* The name perf would show for a user-space symbol: demangled when it is
 * a C++ (_Z) or Rust (_R, or legacy _ZN...17h<hash>E) name. */
uint32_t symbolize_display_name(struct symbolizer *s, uint32_t raw)
{
	const char *name = strtab_get(s->strs, raw);
	if (s->no_demangle || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return raw;
	uint64_t v;
	if (hashmap_get(&s->demangled, raw, &v))
		return (uint32_t)v;
	uint32_t id = raw;
	/* PLT stubs are "name@plt": perf demangles the name and puts the suffix back. */
	size_t len = strlen(name);
	bool plt = len > 4 && !strcmp(name + len - 4, "@plt");
	char *base = plt ? xstrndup(name, len - 4) : NULL;
	const char *mangled = plt ? base : name;
	char *d = name[1] == 'R' ? rust_demangle(mangled, DMGL_NO_OPTS)
				 : cplus_demangle_v3(mangled, DMGL_NO_OPTS);
	free(base);
	if (d && plt) {
		size_t dn = strlen(d);
		d = xrealloc(d, dn + 5);
		memcpy(d + dn, "@plt", 5);
	}
	size_t n = d ? strlen(d) : 0;
	/* Legacy Rust names are C++-mangled with a "::h<16 hex>" hash last. */
	if (n > 19 && !strncmp(d + n - 19, "::h", 3) &&
	    strspn(d + n - 16, "0123456789abcdef") == 16)
		d[n -= 19] = '\0';
	if (d && n <= DEMANGLED_MAX)
		id = strtab_intern_str(s->strs, d);
	free(d);
	hashmap_put(&s->demangled, raw, id);
	return id;
}

/* Anonymous code of process 'pid': its JIT map, by absolute address (perf
 * shows JIT names as the runtime wrote them, not demangled). */
static void resolve_jit(struct symbolizer *s, uint32_t pid, uint64_t ip, struct sym *out)
{
	struct dso_set *ds = s->m->dsos;
	out->dso = dso_set_jit(ds, pid);
	out->addr = ip;
	uint64_t start;
	const char *name = dso_jit_lookup(ds, dso_set_get(ds, out->dso), ip, &start);
	if (name) {
		out->raw = out->name = strtab_intern_str(s->strs, name);
		out->symoff = ip - start;
	}
}

static void resolve(struct symbolizer *s, const struct mapping *map, uint64_t ip, bool kernel,
		    struct sym *out)
{
	struct dso_set *ds = s->m->dsos;
	struct dso *d = dso_set_get(ds, map->dso);
	out->dso = map->dso;
	if (d->kind == DSO_KERNEL) {
		out->kernel = true;
		out->addr = ip;
		resolve_kernel(s, ip, out);
		return;
	}
	if (d->kind == DSO_KSYM) { /* one symbol over the mapping, named as the dso */
		out->kernel = true;
		out->addr = ip;
		out->raw = out->name = strtab_intern_str(s->strs, d->path);
		out->symoff = ip - map->start;
		return;
	}
	(void)kernel;
	uint64_t file_off = ip - map->start + map->pgoff;
	out->addr = file_off;
	const struct elf_image *img = dso_image(ds, d);
	if (!img)
		return;
	uint64_t vaddr;
	if (!elf_image_offset_to_vaddr(img, file_off, &vaddr))
		return;
	out->addr = vaddr;
	uint64_t start;
	const char *name = elf_image_lookup(dso_symbols(ds, d), vaddr, &start);
	if (name) {
		out->raw = strtab_intern_str(s->strs, name);
		out->name = symbolize_display_name(s, out->raw);
		out->symoff = vaddr - start;
	}
}

void symbolize(struct symbolizer *s, uint32_t pid, uint64_t ip, bool kernel, struct sym *out)
{
	out->name = out->raw = SYM_NONE;
	out->dso = SYM_NONE;
	out->symoff = 0;
	out->addr = ip;
	out->pc = ip;
	out->kernel = kernel;
	out->entry = SYM_NONE;
	s->lookups++;
	const struct mapping *map = machine_find(s->m, pid, ip, kernel);
	if (!map && kernel) {
		/* No kernel MMAP in the profile: kallsyms alone, if allowed. */
		resolve_kernel(s, ip, out);
		return;
	}
	if (!map)
		return;
	if (!kernel && dso_is_anon_code(dso_set_get(s->m->dsos, map->dso))) {
		resolve_jit(s, pid, ip, out); /* per process: not in the per-dso cache */
		return;
	}
	/* Cache by (dso, file offset): the same code mapped anywhere resolves alike. */
	uint64_t key_addr = ip - map->start + map->pgoff;
	uint64_t key = hash_mix2(((uint64_t)map->dso << 1) | kernel, key_addr), idx;
	if (hashmap_get(&s->cache, key, &idx)) {
		const struct sym *c = &s->entries.v[idx];
		if (c->dso == map->dso && s->entry_keys.v[idx] == key_addr && c->kernel == kernel) {
			*out = *c;
			return;
		}
	}
	s->misses++;
	resolve(s, map, ip, kernel, out);
	if (!out->kernel)
		out->pc = key_addr;
	out->entry = s->entries.n < SYM_NONE ? (uint32_t)s->entries.n : SYM_NONE;
	hashmap_put(&s->cache, key, s->entries.n);
	HVEC_PUSH(&s->entries, *out);
	HVEC_PUSH(&s->entry_keys, key_addr);
}

const char *sym_dso_basename(const struct symbolizer *s, const struct sym *sym)
{
	if (sym->dso == SYM_NONE)
		return NULL;
	const struct dso *d = dso_set_get(s->m->dsos, sym->dso);
	/* Kernel dsos keep their bracketed name whole: "[kernel.kallsyms]". */
	if (d->kind == DSO_KERNEL && d->path[0] == '[') {
		return strncmp(d->path, "[kernel.kallsyms]", 17) ? d->path : "[kernel.kallsyms]";
	}
	return d->base;
}

const char *sym_dso_path(const struct symbolizer *s, const struct sym *sym)
{
	if (sym->dso == SYM_NONE)
		return NULL;
	const struct dso *d = dso_set_get(s->m->dsos, sym->dso);
	if (d->kind == DSO_KERNEL && !strncmp(d->path, "[kernel.kallsyms]", 17))
		return "[kernel.kallsyms]";
	return d->path;
}

/* ---- inline frames and source lines, perf's way ---- */

/* perf's dso__name(): no addr2line for kernel names or perf maps. */
static bool a2l_dso(const struct symbolizer *s, uint32_t dso)
{
	if (dso == SYM_NONE)
		return false;
	const struct dso *d = dso_set_get(s->m->dsos, dso);
	return d->kind == DSO_FILE && d->path[0] != '[' && strncmp(d->path, "/tmp/perf-", 10);
}

/* srcline_from_fileline(): "basename:line". */
static uint32_t srcline_text(struct symbolizer *s, const struct a2l_rec *r)
{
	/* Cached by (file id, line): an exact key. */
	uint64_t key = ((uint64_t)r->file << 32) | r->line, v;
	if (hashmap_get(&s->srcline_texts, key, &v))
		return (uint32_t)v;
	char buf[4200];
	snprintf(buf, sizeof(buf), "%s:%u", r->file == SRCLINE_NONE ? "??" : strtab_get(s->strs, r->file),
		 r->line);
	uint32_t id = strtab_intern_str(s->strs, buf);
	hashmap_put(&s->srcline_texts, key, id);
	return id;
}

/* A record's function name as the binary spells it ("??" when unknown). */
static uint32_t rec_func(struct symbolizer *s, const struct a2l_rec *r)
{
	return r->func == SRCLINE_NONE ? strtab_intern_str(s->strs, "??") : r->func;
}

/* addr2line's records for a user frame (at most 'cap'); none for kernel
 * frames and dsos without source lines. */
static size_t frame_a2l(struct symbolizer *s, const struct sym *sym, const struct a2l_rec **r,
			size_t cap)
{
	if (sym->kernel || !a2l_dso(s, sym->dso))
		return 0;
	size_t n = srclines_a2l(&s->src, sym->dso, sym->addr, r);
	return n < cap ? n : cap;
}

size_t symbolize_inlines(struct symbolizer *s, const struct sym *sym, struct sym_inline *out,
			 size_t cap)
{
	const struct a2l_rec *r;
	size_t n = sym->name == SYM_NONE ? 0 : frame_a2l(s, sym, &r, cap);
	for (size_t i = 0; i < n; i++) {
		uint32_t name = symbolize_display_name(s, rec_func(s, &r[i]));
		out[i].name = name;
		out[i].inlined = name != sym->name;
		out[i].srcline = srcline_text(s, &r[i]);
	}
	return n;
}

#define A2L_FAIL_LIMIT 123 /* perf gives up on a dso's lines after this many misses in a row */

enum sym_srcline symbolize_srcline(struct symbolizer *s, const struct sym *sym, uint32_t *text)
{
	if (sym->dso == SYM_NONE)
		return SYM_SRCLINE_QUIET;
	while (s->a2l_fails.n <= sym->dso) {
		VEC_PUSH(&s->a2l_fails, 1);
		VEC_PUSH(&s->no_srcline, 0);
	}
	if (!s->no_srcline.v[sym->dso] && !sym->kernel && a2l_dso(s, sym->dso)) {
		const struct a2l_rec *r;
		if (srclines_a2l(&s->src, sym->dso, sym->addr, &r) > 0) {
			s->a2l_fails.v[sym->dso] = 0;
			if (r->file == SRCLINE_NONE && r->line == 0)
				return SYM_SRCLINE_QUIET; /* "??:0" */
			*text = srcline_text(s, r);
			return SYM_SRCLINE_TEXT;
		}
	}
	uint32_t *fails = &s->a2l_fails.v[sym->dso];
	if (*fails && ++*fails > A2L_FAIL_LIMIT)
		s->no_srcline.v[sym->dso] = 1;
	return SYM_SRCLINE_FAIL;
}

/* ---- source positions for the exports ---- */

size_t symbolize_lines(struct symbolizer *s, const struct sym *sym, bool inlines,
		       struct sym_line *out, size_t cap)
{
	/* No symbol: perf's "[unknown]", folded stacks' "[binary]"; addr2line
	 * would name it after the symbol before it, whatever that one's size. */
	if (sym->name == SYM_NONE || !cap)
		return 0;
	const struct a2l_rec *r;
	size_t n = frame_a2l(s, sym, &r, SRCLINE_MAX_INLINE);
	if (inlines && n) { /* symbolize_inlines' frames */
		size_t k = n < cap ? n : cap;
		for (size_t i = 0; i < k; i++) {
			uint32_t raw = rec_func(s, &r[i]);
			out[i] = (struct sym_line){ symbolize_display_name(s, raw), raw, r[i].file, r[i].line,
						    (uint16_t)i, (uint16_t)n };
		}
		return k;
	}
	/* The symbol, at the place of the function holding the address. */
	out[0] = (struct sym_line){ sym->name, sym->raw == SYM_NONE ? sym->name : sym->raw,
				    n ? r[n - 1].file : SRCLINE_NONE, n ? r[n - 1].line : 0,
				    (uint16_t)(n ? n - 1 : 0), (uint16_t)n };
	return 1;
}

size_t symbolize_decls(struct symbolizer *s, const struct sym *sym, struct srcline_decl *out,
		       size_t cap)
{
	if (sym->kernel || !a2l_dso(s, sym->dso))
		return 0;
	return srclines_decl(&s->src, sym->dso, sym->addr, out, cap);
}
