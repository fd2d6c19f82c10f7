/*
 * script: perf.data → perf script text, or record statistics (pipeline, L8).
 *
 * Per sample, as perf 6.1's process_sample_event does it: the thread, the
 * map and symbol of the sample ip (in the sample's cpumode), then the
 * callchain walked entry by entry (context markers switch the cpumode,
 * 127 entries at most), user stacks from DWARF unwinding when the event
 * recorded registers and stack, and the addr field resolved for
 * page-fault events. output/script lays the text out.
 */
#include "pipeline/script.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/digits.h"
#include "base/err.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "base/vec.h"
#include "base/xalloc.h"
#include "dso/dso.h"
#include "dso/kallsyms.h"
#include "output/script.h"
#include "pipeline/script_int.h"
#include "pipeline/session.h"
#include "proc/proc.h"
#include "source/perffile/perffile.h"
#include "symbolize/symbolize.h"
#include "tracefmt/tracefmt.h"
#include "unwind/dwarf.h"
#include "unwind/unwind.h"

#define MAX_STACK 127 /* perf script's default --max-stack (PERF_MAX_STACK_DEPTH) */
#define KERNEL_MMAP_PREFIX "[kernel.kallsyms]"

struct attr_info {
	char *name; /* perf's name for the event */
	enum script_out_type type;
	bool callchain; /* PERF_SAMPLE_CALLCHAIN */
	bool dwarf;     /* user registers and stack: user frames come from unwinding */
	bool addr_sym;  /* the addr field is a code address (page faults) */
};

/* A user frame's inline frames, as printed (strings borrowed from 'strs'). */
struct inl_frame {
	const char *sym, *srcline;
	bool inlined;
};

/* Where the inline frames of one symbolizer cache entry are in 'inl'. */
struct inl_slot {
	uint32_t at, n;
	bool done;
};

struct script_ctx {
	const struct script_run_opts *o;
	struct script_run_result *res;
	struct session *s;
	const struct perf_header_info *h;
	const struct ev_attrs *attrs;
	struct strtab *strs;  /* the session's */
	struct dso_set *dsos; /* the session's */
	struct machine *m;    /* the session's */
	struct symbolizer *sz; /* the session's */
	struct script_fields fields;
	VEC(struct attr_info) info;
	bool type_seen[SCRIPT_T_MAX];
	bool use_callchain;
	int name_width;
	/* Once perf loads the kernel's symbols, its kernel map spans them all. */
	bool kspan_on;
	uint64_t kspan_start, kspan_end;
	uint64_t kdelta; /* local address - recorded address (mod 2^64): session_kallsyms */
	VEC(uint32_t) dso_names; /* dso id -> strtab id + 1 of its perf name (0: not yet) */
	struct script_frame *frames;
	/* tracepoint formats, parsed from the tracing data when first needed */
	struct tracefmt *tf;
	bool tf_tried;
	struct buf trace;
	size_t frames_cap;
	bool want_srcline; /* the current sample prints source lines */
	/* Inline frames per symbolizer cache entry (an entry's answer never
	 * changes): worked out once, then copied for every later frame. */
	VEC(struct inl_slot) inl_slots; /* by entry */
	VEC(struct inl_frame) inl;
	struct inl_frame inl_tmp[SRCLINE_MAX_INLINE]; /* uncached answers */
};

/* Callchain frames kiln can print per sample: perf's 127 kernel and 127
 * user entries, the user ones expanded by their inline frames. */
#define FRAMES_CAP (MAX_STACK * 2 + 1 + MAX_STACK * SRCLINE_MAX_INLINE)

/* ---- events and fields ---- */

static bool has_feature(const struct perf_header_info *h, unsigned feat)
{
	return feat < 256 && (h->features[feat / 64] >> (feat % 64)) & 1;
}

static char *perf_name(const struct script_ctx *x, const struct ev_attr *a)
{
	char tmp[64], buf[256];
	/* A name the file recorded is perf's name; a defaulted one is re-derived as perf does.
	 * (A pipe's event_desc feature comes before its attrs, so it names none.) */
	if ((!x->h->pipe_mode && has_feature(x->h, PERF_FEAT_EVENT_DESC)) ||
	    strcmp(a->name, ev_default_name(&a->attr, tmp, sizeof(tmp))))
		return xstrdup(a->name);
	return xstrdup(script_event_name(&a->attr, buf, sizeof(buf)));
}

static bool is_page_fault(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/* perf's process_attr (pipe mode): the first event of each type is checked when it arrives. */
static int check_pipe_attr(struct script_ctx *x, size_t i)
{
	const struct ev_attrs *as = x->attrs;
	const struct ev_attr *a = &as->v.v[i];
	const struct attr_info *ai = &x->info.v[i];
	if (a->attr.type >= PERF_TYPE_MAX || x->type_seen[ai->type])
		return 0;
	x->type_seen[ai->type] = true;
	if (a->attr.sample_type) {
		int err = script_fields_check(&x->fields, &a->attr, ai->name);
		if (err)
			return err;
	}
	/* Callchains in any event so far add ip and sym to this type. */
	uint64_t st = 0;
	for (size_t j = 0; j <= i; j++)
		st |= as->v.v[j].attr.sample_type;
	if ((st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)) ||
	    ((st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER)))
		script_fields_add_default(&x->fields, ai->type, SF_IP | SF_SYM);
	return 0;
}

/* perf's check_output_opt (file mode): every attr is known up front. */
static int check_file_attrs(struct script_ctx *x)
{
	const struct ev_attrs *as = x->attrs;
	bool any_callchain = false, tp_callchain = false;
	for (size_t i = 0; i < x->info.n; i++) {
		any_callchain |= x->info.v[i].callchain;
		tp_callchain |= x->info.v[i].callchain && x->info.v[i].type == SCRIPT_T_TRACEPOINT;
	}
	for (int t = 0; t < SCRIPT_T_MAX; t++) {
		size_t i = 0;
		while (i < x->info.n && x->info.v[i].type != (enum script_out_type)t)
			i++;
		if (i == x->info.n) {
			if (x->fields.user_set[t] && !x->fields.wildcard_set[t] &&
			    t != SCRIPT_T_SYNTH)
				return err_set(-EINVAL,
					       "%s events do not exist. Remove corresponding -F "
					       "option to proceed.",
					       script_type_name(t));
			continue;
		}
		int err = script_fields_check(&x->fields, &as->v.v[i].attr, x->info.v[i].name);
		if (err)
			return err;
	}
	/* Callchains print when some event records them; tracepoints that do
	 * then print their stacks too, unless -F set their fields. */
	x->use_callchain = any_callchain && !x->o->hide_callchain;
	if (x->use_callchain && tp_callchain)
		script_fields_tracepoint_callchain(&x->fields);
	return 0;
}

/* Name and classify new attrs (all at once in file mode, one by one in a pipe), then check them. */
static int add_attrs(struct script_ctx *x)
{
	const struct ev_attrs *as = x->attrs;
	size_t first = x->info.n;
	for (size_t i = first; i < as->v.n; i++) {
		const struct ev_attr *a = &as->v.v[i];
		struct attr_info *ai = VEC_PUSH_ZERO(&x->info);
		uint64_t st = a->attr.sample_type;
		ai->name = perf_name(x, a);
		ai->type = script_out_type(a->attr.type);
		ai->callchain = (st & PERF_SAMPLE_CALLCHAIN) != 0;
		ai->dwarf = (st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER);
		ai->addr_sym = is_page_fault(&a->attr);
	}
	if (!x->h->pipe_mode)
		return first == 0 ? check_file_attrs(x) : 0;
	/* A pipe has no evlist when perf checks: callchains stay on. */
	x->use_callchain = !x->o->hide_callchain;
	for (size_t i = first; i < x->info.n; i++) {
		int err = check_pipe_attr(x, i);
		if (err)
			return err;
	}
	return 0;
}

static int name_width(struct script_ctx *x)
{
	if (!x->name_width) {
		for (size_t i = 0; i < x->info.n; i++) {
			int n = (int)strlen(x->info.v[i].name);
			if (n > x->name_width)
				x->name_width = n;
		}
	}
	return x->name_width;
}

/* ---- kernel symbols ---- */

/* The kernel's symbols as perf reads them, relocated by x->kdelta (the
 * session's rules: pipeline/session.h), or NULL. */
static const struct kallsyms *kernel_syms(struct script_ctx *x)
{
	return session_kallsyms(x->s, &x->kdelta);
}

/* ---- dsos, as perf names them ---- */

/* perf's short name of a kernel module (dso_module_name), interned. */
static uint32_t module_name(struct script_ctx *x, const char *path)
{
	char buf[512];
	return strtab_intern_str(x->strs, dso_module_name(path, buf, sizeof(buf)));
}

/* A module keeps its path when the build-id table lists it (perf finds that dso first). */
static bool module_in_build_ids(struct script_ctx *x, const char *path, uint32_t short_name)
{
	for (size_t i = 0; i < x->h->nbuild_ids; i++) {
		const struct perf_build_id *b = &x->h->build_ids[i];
		if (b->cpumode == PERF_RECORD_MISC_KERNEL && b->filename[0] == '/' &&
		    (!strcmp(b->filename, path) || module_name(x, b->filename) == short_name))
			return true;
	}
	return false;
}

static const char *kernel_dso_name(struct script_ctx *x, uint32_t id)
{
	while (x->dso_names.n <= id)
		VEC_PUSH(&x->dso_names, 0);
	if (!x->dso_names.v[id]) {
		const struct dso *d = dso_set_get(x->dsos, id);
		uint32_t name;
		if (!strncmp(d->path, KERNEL_MMAP_PREFIX, strlen(KERNEL_MMAP_PREFIX))) {
			name = strtab_intern_str(x->strs, KERNEL_MMAP_PREFIX);
		} else {
			name = module_name(x, d->path);
			if (d->path[0] == '/' && module_in_build_ids(x, d->path, name))
				name = strtab_intern_str(x->strs, d->path);
		}
		x->dso_names.v[id] = name + 1;
	}
	return strtab_get(x->strs, x->dso_names.v[id] - 1);
}

/* ---- addresses ---- */

/* A core kernel address through kallsyms, relocated to the recorded kernel. */
static void kernel_sym(struct script_ctx *x, uint64_t ip, struct script_frame *out)
{
	const struct kallsyms *ks = kernel_syms(x);
	uint64_t start;
	const char *mod = NULL;
	const char *name = ks ? kallsyms_lookup(ks, ip + x->kdelta, &start, &mod) : NULL;
	if (name && !mod) {
		out->sym = name;
		out->symoff = ip + x->kdelta - start;
	}
}

static bool is_core_kernel(const struct script_ctx *x, uint32_t dso)
{
	return !strncmp(dso_set_get(x->dsos, dso)->path, KERNEL_MMAP_PREFIX,
			strlen(KERNEL_MMAP_PREFIX));
}

/*
 * perf loads kernel symbols at the first address its kernel map holds,
 * then stretches the map over all of them (map__fixup_start/end): later
 * addresses past the recorded map (.init.text, ...) still resolve.
 */
static void widen_kernel_map(struct script_ctx *x)
{
	const struct kallsyms *ks = kernel_syms(x);
	uint64_t start, end;
	if (!ks || !kallsyms_core_span(ks, &start, &end))
		return;
	x->kspan_on = true;
	x->kspan_start = start - x->kdelta;
	x->kspan_end = end - x->kdelta;
}

/*
 * One address in one cpumode, as perf's thread__find_symbol resolves it
 * and sample__fprintf_callchain prints it: user files print the
 * dso-relative address (ip - map start + pgoff); the kernel, modules,
 * anonymous memory and unmapped addresses print the address itself.
 */
/* perf's text for a source line it could not find: "<dso short name>[<addr>]". */
static const char *srcline_fail(struct script_ctx *x, const char *short_name, uint64_t addr)
{
	/* snprintf(buf, 600, "%s[%" PRIx64 "]") without printf: once per kernel frame */
	char buf[600], hex[20], *h = hex + sizeof(hex);
	size_t n = strlen(short_name), at;
	*--h = ']';
	h = digits_hex(h, addr, 1);
	*--h = '[';
	if (n > sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	memcpy(buf, short_name, n);
	at = (size_t)(hex + sizeof(hex) - h);
	if (at > sizeof(buf) - 1 - n)
		at = sizeof(buf) - 1 - n;
	memcpy(buf + n, h, at);
	return strtab_get(x->strs, strtab_intern(x->strs, buf, n + at));
}

static void resolve_sym(struct script_ctx *x, uint32_t pid, unsigned cpumode, uint64_t ip,
			struct script_frame *out, struct sym *sy);

static void resolve(struct script_ctx *x, uint32_t pid, unsigned cpumode, uint64_t ip,
		    struct script_frame *out)
{
	struct sym sy;
	resolve_sym(x, pid, cpumode, ip, out, &sy);
}

/* resolve(), also giving the user symbol ('sy->dso' SYM_NONE when none was looked up). */
static void resolve_sym(struct script_ctx *x, uint32_t pid, unsigned cpumode, uint64_t ip,
			struct script_frame *out, struct sym *sy)
{
	*out = (struct script_frame){ .addr = ip };
	sy->dso = SYM_NONE;
	sy->name = SYM_NONE;
	bool kernel;
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		kernel = true;
	else if (cpumode == PERF_RECORD_MISC_USER)
		kernel = false;
	else
		return; /* hypervisor: perf finds no map */
	const struct mapping *map = machine_find(x->m, pid, ip, kernel);
	if (kernel) {
		bool core = map && is_core_kernel(x, map->dso);
		if (core && !x->kspan_on)
			widen_kernel_map(x);
		if (!core && x->kspan_on && !map && ip >= x->kspan_start && ip < x->kspan_end)
			core = true;
		if (!core && !map)
			return;
		out->dso = core ? KERNEL_MMAP_PREFIX : kernel_dso_name(x, map->dso);
		if (core) {
			kernel_sym(x, ip, out);
		} else if (map && dso_set_get(x->dsos, map->dso)->kind == DSO_KSYM) {
			struct sym ks; /* a BPF program: its KSYMBOL's name, as symbolize gives it */
			symbolize(x->sz, pid, ip, true, &ks);
			out->sym = strtab_get(x->strs, ks.name);
			out->symoff = ks.symoff;
		}
		if (x->want_srcline)
			out->srcline = srcline_fail(
				x,
				core ? KERNEL_MMAP_PREFIX
				     : strtab_get(x->strs,
						  module_name(x, dso_set_get(x->dsos, map->dso)->path)),
				ip);
		return; /* modules: no symbols (kallsyms has none of the recorded ones) */
	}
	if (!map)
		return;
	const struct dso *d = dso_set_get(x->dsos, map->dso);
	if (dso_is_anon_code(d)) { /* perf's anonymous maps */
		char buf[64];
		snprintf(buf, sizeof(buf), "/tmp/perf-%u.map", pid);
		out->dso = strtab_get(x->strs, strtab_intern_str(x->strs, buf));
		struct sym js;
		symbolize(x->sz, pid, ip, false, &js); /* the JIT map's name, if any */
		if (js.name != SYM_NONE) {
			out->sym = strtab_get(x->strs, js.name);
			out->symoff = js.symoff;
		}
		if (x->want_srcline)
			out->srcline = srcline_fail(x, buf + 5, ip);
		return;
	}
	out->addr = ip - map->start + map->pgoff;
	out->dso = d->path;
	symbolize(x->sz, pid, ip, false, sy);
	if (sy->name != SYM_NONE) {
		out->sym = strtab_get(x->strs, sy->name);
		out->symoff = sy->symoff;
	}
	if (x->want_srcline) {
		uint32_t text;
		switch (symbolize_srcline(x->sz, sy, &text)) {
		case SYM_SRCLINE_TEXT:
			out->srcline = strtab_get(x->strs, text);
			break;
		case SYM_SRCLINE_FAIL:
			out->srcline = srcline_fail(x, d->base, sy->addr);
			break;
		case SYM_SRCLINE_QUIET:
			break;
		}
	}
}

/* symbolize_inlines() into 'out' (at most 'cap'), as strings. */
static size_t inlines_text(struct script_ctx *x, const struct sym *sy, size_t cap,
			   struct inl_frame *out)
{
	struct sym_inline inl[SRCLINE_MAX_INLINE];
	size_t n = symbolize_inlines(x->sz, sy, inl, cap);
	for (size_t i = 0; i < n; i++) {
		out[i].sym = strtab_get(x->strs, inl[i].name);
		out[i].inlined = inl[i].inlined;
		out[i].srcline = strtab_get(x->strs, inl[i].srcline);
	}
	return n;
}

/*
 * A user frame's inline frames (at most 'cap'), from the cache of its
 * symbolizer entry when it has one. *out is valid until the next call.
 * symbolize_inlines() answers with a prefix of its full answer when
 * 'cap' is smaller, so only full answers are cached.
 */
static size_t frame_inlines(struct script_ctx *x, const struct sym *sy, size_t cap,
			    const struct inl_frame **out)
{
	if (sy->entry == SYM_NONE || cap < SRCLINE_MAX_INLINE) {
		*out = x->inl_tmp;
		return inlines_text(x, sy, cap, x->inl_tmp);
	}
	while (x->inl_slots.n <= sy->entry)
		(void)VEC_PUSH_ZERO(&x->inl_slots);
	struct inl_slot *sl = &x->inl_slots.v[sy->entry];
	if (!sl->done) {
		VEC_RESERVE(&x->inl, x->inl.n + SRCLINE_MAX_INLINE);
		sl->at = (uint32_t)x->inl.n;
		sl->n = (uint32_t)inlines_text(x, sy, cap, x->inl.v + x->inl.n);
		sl->done = true;
		x->inl.n += sl->n;
	}
	*out = x->inl.v + sl->at;
	return sl->n;
}

/*
 * A DWARF-unwound user frame, as perf's unwind_entry appends it: replaced
 * by its inline frames (innermost first; each prints its own source line)
 * when addr2line knows the address, else the frame itself.
 */
static size_t resolve_unwound(struct script_ctx *x, uint32_t pid, uint64_t ip,
			      struct script_frame *out, size_t room)
{
	struct sym sy;
	bool want = x->want_srcline;
	x->want_srcline = false;
	resolve_sym(x, pid, PERF_RECORD_MISC_USER, ip, out, &sy);
	x->want_srcline = want;
	const struct inl_frame *inl = NULL;
	size_t n = 0;
	if (!x->o->no_inline && sy.dso != SYM_NONE)
		n = frame_inlines(x, &sy, room < SRCLINE_MAX_INLINE ? room : SRCLINE_MAX_INLINE, &inl);
	if (!n) {
		if (want)
			resolve_sym(x, pid, PERF_RECORD_MISC_USER, ip, out, &sy);
		return 1;
	}
	struct script_frame base = *out;
	for (size_t i = 0; i < n; i++) {
		out[i] = base;
		out[i].sym = inl[i].sym;
		out[i].inlined = inl[i].inlined;
		out[i].srcline = inl[i].srcline;
	}
	return n;
}

static bool kernel_ip(struct script_ctx *x, uint64_t ip)
{
	/* perf's machine__kernel_ip: 2^63 and up on x86_64 (and whenever the
	 * kernel map cannot be loaded), else from the kernel map's start. */
	uint64_t start = 1ULL << 63;
	bool x86_64 = x->h->arch && !strcmp(x->h->arch, "x86_64");
	if (!x86_64 && kernel_syms(x)) {
		for (size_t i = 0; i < x->m->kernel.maps.n; i++) {
			const struct mapping *mp = &x->m->kernel.maps.v[i];
			if (!strncmp(dso_set_get(x->dsos, mp->dso)->path, KERNEL_MMAP_PREFIX,
				     strlen(KERNEL_MMAP_PREFIX))) {
				start = mp->start;
				break;
			}
		}
	}
	return ip >= start;
}

/* perf's thread__find_map_fb: the sample's cpumode, then the other one. */
static void resolve_fb(struct script_ctx *x, uint32_t pid, unsigned cpumode, uint64_t ip,
		       struct script_frame *out)
{
	resolve(x, pid, cpumode, ip, out);
	if (out->dso || (cpumode != PERF_RECORD_MISC_KERNEL && cpumode != PERF_RECORD_MISC_USER))
		return;
	unsigned other = kernel_ip(x, ip) ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	if (other != cpumode)
		resolve(x, pid, other, ip, out);
}

/*
 * The callchain as perf's thread__resolve_callchain_sample walks it
 * (callee first): entries start in user mode, PERF_CONTEXT_* markers
 * switch the mode, an unknown marker drops the whole chain, and 127
 * entries at most are kept. DWARF samples add the unwound user frames.
 */
static size_t build_callchain(struct script_ctx *x, const struct session_sample *smp,
			      const struct attr_info *ai)
{
	const struct event *ev = smp->ev;
	const struct ev_sample *s = &ev->u.sample;
	uint32_t pid = ev->sid.pid;
	unsigned cpumode = PERF_RECORD_MISC_USER;
	size_t n = 0, entries = 0;
	for (uint64_t i = 0; i < s->callchain_nr && entries < MAX_STACK; i++) {
		uint64_t ip = ev_u64(s->callchain, (size_t)i);
		if (ev_is_context(ip)) {
			if (ip == PERF_CONTEXT_HV)
				cpumode = PERF_RECORD_MISC_HYPERVISOR;
			else if (ip == PERF_CONTEXT_KERNEL)
				cpumode = PERF_RECORD_MISC_KERNEL;
			else if (ip == PERF_CONTEXT_USER)
				cpumode = PERF_RECORD_MISC_USER;
			else
				return 0; /* perf: "invalid callchain context", chain discarded */
			continue;
		}
		entries++;
		resolve(x, pid, cpumode, ip, &x->frames[n++]);
	}
	if (ai->dwarf) {
		const struct unwind_stack *st = session_stack(x->s, smp);
		size_t k = 0, users = 0;
		while (k < st->n && st->frames[k].kernel)
			k++;
		for (; k < st->n && users < MAX_STACK && n < x->frames_cap; k++, users++)
			n += resolve_unwound(x, pid, st->frames[k].ip, &x->frames[n],
					     x->frames_cap - n);
		/* A stack cut short ends, as perf ends it, in an address of -1. */
		if (st->truncated && users < MAX_STACK && n < x->frames_cap)
			resolve(x, pid, PERF_RECORD_MISC_USER, UINT64_MAX, &x->frames[n++]);
	}
	return n;
}

/* ---- the header listing ---- */

/* The session's events as perf names them, for group descriptions; free with free(). */
static const char **event_names(const struct script_ctx *x, struct script_header_events *ev)
{
	const char **names;
	XALLOC_ARRAY(names, x->attrs->v.n ? x->attrs->v.n : 1);
	for (size_t i = 0; i < x->attrs->v.n; i++)
		names[i] = perf_name(x, &x->attrs->v.v[i]);
	ev->names = names;
	ev->n = x->attrs->v.n;
	return names;
}

static void free_names(const char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)names[i]);
	free(names);
}

/* perf dates the listing by the input's modification time. */
static time_t input_mtime(const char *input)
{
	struct stat st;
	int rc = strcmp(input, "-") ? stat(input, &st) : fstat(0, &st);
	return rc ? 0 : st.st_mtime;
}

static void print_header(struct script_ctx *x)
{
	struct script_header_events ev;
	const char **names = event_names(x, &ev);
	script_header_print(x->o->out, x->h, input_mtime(x->o->input), &ev);
	free_names(names, ev.n);
}

/* A pipe's feature, printed as perf prints it: when its record is read. */
static void print_pipe_feature(void *arg, unsigned feat, bool ok)
{
	struct script_ctx *x = arg;
	if (!ok)
		return;
	struct script_header_events ev;
	const char **names = event_names(x, &ev);
	script_header_feature(x->o->out, x->h, feat, true, &ev);
	free_names(names, ev.n);
}

/* ---- the loop ---- */

static void print_stats(FILE *out, const struct perf_reader_stats *rs)
{
	uint64_t total = rs->unknown_records;
	for (unsigned t = 0; t < EV_TYPE_MAX; t++)
		total += rs->records[t];
	fprintf(out, "\nAggregated stats:\n");
	fprintf(out, "%20s events: %10llu\n", "TOTAL", (unsigned long long)total);
	for (unsigned t = 0; t < EV_TYPE_MAX; t++) {
		if (!rs->records[t])
			continue;
		fprintf(out, "%20s events: %10llu  (%4.1f%%)\n", ev_type_name(t),
			(unsigned long long)rs->records[t],
			100.0 * (double)rs->records[t] / (double)total);
	}
	if (rs->unknown_records)
		fprintf(out, "%20s events: %10llu  (%4.1f%%)\n", "UNKNOWN",
			(unsigned long long)rs->unknown_records,
			100.0 * (double)rs->unknown_records / (double)total);
	if (rs->out_of_order)
		fprintf(out, "%20s events: %10llu\n", "out of order",
			(unsigned long long)rs->out_of_order);
}

static const char *thread_comm(struct script_ctx *x, const struct thread *th)
{
	const char *comm = strtab_get(x->strs, th->comm);
	/* perf names the idle thread before any COMM does. */
	if (th->tid == 0 && !strcmp(comm, ":0"))
		return "swapper";
	return comm;
}

/* %ps in a print fmt: perf resolves through its kernel map, as for sample ips. */
static const char *trace_resolve(void *arg, uint64_t addr, uint64_t *start)
{
	struct script_ctx *x = arg;
	struct script_frame fr;
	resolve(x, 0, PERF_RECORD_MISC_KERNEL, addr, &fr);
	if (!fr.sym)
		return NULL;
	*start = addr - fr.symoff;
	return fr.sym;
}

/* The tracepoint payload's text, as perf's event_format__fprintf prints it; NULL: none. */
static const char *trace_text(struct script_ctx *x, const struct event *ev)
{
	const struct ev_sample *s = &ev->u.sample;
	if (!(ev->attr->attr.sample_type & PERF_SAMPLE_RAW) || !s->raw)
		return NULL;
	if (!x->tf_tried) {
		x->tf_tried = true;
		const struct perf_header_info *h = x->h;
		if (!h->tracing_data) {
			log_warn("%s: tracepoint samples but no tracing data: no trace text",
				 x->o->input);
		} else if (tracefmt_parse(&x->tf, h->tracing_data, h->tracing_data_len,
					  h->tracing_data_off)) {
			log_warn("%s: %s at offset 0x%llx: no trace text", x->o->input,
				 err_last()->msg, (unsigned long long)err_last()->offset);
		} else if (!h->pipe_mode) {
			/* perf sets its resolver before a pipe's tracing data exists:
			 * in pipe mode %ps prints the bare address */
			tracefmt_set_resolver(x->tf, trace_resolve, x);
		}
	}
	const struct tracefmt_event *te = x->tf ? tracefmt_find(x->tf, ev->attr->attr.config) : NULL;
	if (!te)
		return NULL;
	buf_reset(&x->trace);
	tracefmt_print(x->tf, te, s->raw, s->raw_size, &x->trace);
	return buf_str(&x->trace);
}

static int print_sample(struct script_ctx *x, const struct session_sample *smp)
{
	const struct event *ev = smp->ev;
	const struct ev_attr *a = ev->attr;
	const struct attr_info *ai = &x->info.v[a - x->attrs->v.v];
	struct script_opts so = {
		.fields = x->fields.fields[ai->type],
		.use_callchain = x->use_callchain,
	};
	if (!so.fields)
		return 0;
	unsigned cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (cpumode == PERF_RECORD_MISC_GUEST_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_USER)
		return 0; /* perf filters guest samples out unless asked for them */
	if (so.fields & SF_EVENT)
		so.name_width = name_width(x);
	struct script_sample s = {
		.comm = thread_comm(x, smp->th),
		.pid = (int32_t)ev->sid.pid,
		.tid = (int32_t)ev->sid.tid,
		.cpu = ev->sid.cpu,
		.time = ev->sid.time,
		.period = (a->attr.sample_type & PERF_SAMPLE_PERIOD) ? ev->u.sample.period
								      : a->attr.sample_period,
		.ip = ev->u.sample.ip,
		.addr = ev->u.sample.addr,
		.event = ai->name,
		.has_callchain = ai->callchain,
		.frames = x->frames,
		.bpf_output = a->attr.type == PERF_TYPE_SOFTWARE &&
			      a->attr.config == PERF_COUNT_SW_BPF_OUTPUT &&
			      !(a->attr.sample_type & PERF_SAMPLE_RAW),
	};
	x->want_srcline = (so.fields & SF_SRCLINE) != 0;
	if (so.fields & SF_IP) {
		if (ai->callchain && x->use_callchain)
			s.nframes = build_callchain(x, smp, ai);
		else
			resolve(x, ev->sid.pid, cpumode, s.ip, &s.at);
	}
	if ((so.fields & SF_TRACE) && ai->type == SCRIPT_T_TRACEPOINT)
		s.trace = trace_text(x, ev);
	x->want_srcline = false;
	if ((so.fields & SF_ADDR) && ai->addr_sym) {
		s.addr_resolved = true;
		resolve_fb(x, ev->sid.pid, cpumode, s.addr, &s.addr_at);
	}
	if (script_write_sample(x->o->out, &so, &s))
		return err_set(-EIO, "cannot write the output");
	return 0;
}

static void ctx_release(struct script_ctx *x)
{
	for (size_t i = 0; i < x->info.n; i++)
		free(x->info.v[i].name);
	VEC_FREE(&x->info);
	VEC_FREE(&x->dso_names);
	VEC_FREE(&x->inl_slots);
	VEC_FREE(&x->inl);
	tracefmt_free(x->tf);
	buf_release(&x->trace);
	free(x->frames);
}

/* A pipe's events are not known yet when perf checks a typed -F: it finds none. */
static int check_pipe_fields(struct script_ctx *x)
{
	for (int t = 0; t < SCRIPT_T_MAX; t++)
		if (x->fields.user_set[t] && !x->fields.wildcard_set[t] && t != SCRIPT_T_SYNTH)
			return err_set(-EINVAL,
				       "%s events do not exist. Remove corresponding -F option "
				       "to proceed.",
				       script_type_name(t));
	return 0;
}

static int on_sample(void *ctx, struct session *s, const struct session_sample *smp)
{
	struct script_ctx *x = ctx;
	(void)s;
	x->res->samples++;
	if (x->o->stats)
		return 0;
	if (x->info.n < x->attrs->v.n) { /* pipe mode: attrs arrive in the stream */
		int err = add_attrs(x);
		if (err) {
			x->res->field_error = true;
			return err;
		}
	}
	return print_sample(x, smp);
}

static int on_end(void *ctx, struct session *s)
{
	struct script_ctx *x = ctx;
	x->res->partial = s->partial;
	if (x->o->stats)
		print_stats(x->o->out, perf_reader_stats(s->r));
	return 0;
}

/* The samples as perf script prints them (or the record statistics). */
static int run_samples(struct script_ctx *x)
{
	const struct script_run_opts *o = x->o;
	x->frames_cap = FRAMES_CAP;
	XALLOC_ARRAY(x->frames, x->frames_cap);
	int err = 0;
	if (x->h->pipe_mode && !o->stats)
		err = check_pipe_fields(x);
	if (!err && !o->stats && x->attrs->v.n)
		err = add_attrs(x);
	if (err) {
		x->res->field_error = true;
		return err;
	}
	/* Stacks are unwound on demand, on this thread: only DWARF samples
	 * whose callchain prints need it, and the reading stays in step with
	 * the output (a reader ahead would hold the input's records). */
	struct session_consumer c = {
		.ctx = x,
		.on_sample = on_sample,
		.on_end = on_end,
	};
	return session_run(x->s, &c);
}

int script_run(const struct script_run_opts *o, struct script_run_result *res)
{
	memset(res, 0, sizeof(*res));
	struct script_ctx x = { .o = o, .res = res };
	buf_init(&x.trace, 1u << 20);
	script_fields_init(&x.fields);
	for (size_t i = 0; i < o->nfields; i++) {
		int err = script_fields_parse(&x.fields, o->fields[i]);
		if (err) {
			res->field_error = true;
			buf_release(&x.trace);
			return err;
		}
	}
	struct perf_reader_opts ro = { 0 };
	if (o->header) {
		ro.on_feature = print_pipe_feature;
		ro.on_feature_arg = &x;
	}
	struct session s;
	struct session_opts so = {
		.input = o->input,
		.env = o->env,
		.accept = SESSION_ACCEPT_PERFDATA,
		.symfs = o->symfs,
		.debug_dir = o->debug_dir,
		.no_demangle = o->no_demangle,
		.perf_kallsyms = !o->stats,
		.reader = &ro,
	};
	int err = session_open(&s, &so);
	if (err) {
		buf_release(&x.trace);
		return err;
	}
	x.s = &s;
	x.h = s.h;
	x.attrs = s.attrs;
	x.strs = s.strs;
	x.dsos = &s.dsos;
	x.m = &s.m;
	x.sz = &s.sz;
	if (o->header || o->header_only)
		print_header(&x);
	if (!o->header_only)
		err = run_samples(&x);
	ctx_release(&x);
	session_close(&s);
	return err;
}
