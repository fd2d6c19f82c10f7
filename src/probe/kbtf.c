/*
 * kbtf: kernel function arguments from BTF → kprobe fetch args (probe, L3).
 *
 * At a function's entry its arguments are where the x86-64 calling
 * convention puts them: %di %si %dx %cx %r8 %r9, then the stack from
 * +8(%sp). BTF gives each argument's name and type: signed integers are
 * read as sN, other integers, enums and bools as uN, pointers as x64, char
 * pointers with :string (:ustring when BTF tags the pointer __user), and
 * `p->field` as +OFF(fetch) with the member's offset.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "probe/probe.h"

#ifdef KILN_HAVE_LIBBPF
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static const char *const arg_regs[PROBE_MAX_REG_ARGS] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };

bool probe_have_btf(void)
{
	return true;
}

static int load_btf(const char *module, const char *path, struct btf **base, struct btf **out)
{
	*base = NULL;
	*out = NULL;
	const char *vp = path ? path : "/sys/kernel/btf/vmlinux";
	*base = btf__parse(vp, NULL);
	if (!*base) {
		int e = errno ? errno : ENOENT;
		return err_set(-e, "%s: %s: kernel function arguments are named from BTF "
				   "(CONFIG_DEBUG_INFO_BTF); without it, probe the function alone or "
				   "with raw fetch args (%%di, +0(%%si):string)",
			       vp, strerror(e));
	}
	if (!module) {
		*out = *base;
		return 0;
	}
	char mp[512];
	snprintf(mp, sizeof(mp), "/sys/kernel/btf/%s", module);
	*out = btf__parse_split(mp, *base);
	if (!*out) {
		int e = errno ? errno : ENOENT;
		btf__free(*base);
		*base = NULL;
		return err_set(-e, "%s: %s (is module '%s' loaded?)", mp, strerror(e), module);
	}
	return 0;
}

static void free_btf(struct btf *base, struct btf *b)
{
	if (b && b != base)
		btf__free(b);
	btf__free(base);
}

/* Skip typedefs, qualifiers and type tags; *user is set by a "user" tag. */
static const struct btf_type *strip(const struct btf *btf, uint32_t id, uint32_t *out_id, bool *user)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	for (int i = 0; t && i < 32; i++) {
		int k = btf_kind(t);
		if (k == BTF_KIND_TYPE_TAG && user && !strcmp(btf__name_by_offset(btf, t->name_off), "user"))
			*user = true;
		if (k != BTF_KIND_TYPEDEF && k != BTF_KIND_CONST && k != BTF_KIND_VOLATILE &&
		    k != BTF_KIND_RESTRICT && k != BTF_KIND_TYPE_TAG)
			break;
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (out_id)
		*out_id = id;
	return t;
}

static void type_name(const struct btf *btf, uint32_t id, struct buf *b, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	if (!t || id == 0 || depth > 16) {
		buf_addstr(b, "void");
		return;
	}
	const char *n = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		type_name(btf, t->type, b, depth + 1);
		buf_addch(b, '*');
		return;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		type_name(btf, t->type, b, depth + 1);
		return;
	case BTF_KIND_STRUCT:
		buf_addf(b, "struct %s", n && *n ? n : "(anon)");
		return;
	case BTF_KIND_UNION:
		buf_addf(b, "union %s", n && *n ? n : "(anon)");
		return;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		buf_addf(b, "enum %s", n && *n ? n : "(anon)");
		return;
	default:
		buf_addstr(b, n && *n ? n : "(unknown)");
	}
}

/* Member 'name' of struct/union t (anonymous members searched): type and byte offset. */
static bool find_member(const struct btf *btf, const struct btf_type *t, const char *name,
			uint32_t *type, uint32_t *off, int depth)
{
	if (depth > 8)
		return false;
	const struct btf_member *m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		uint32_t bits = btf_member_bit_offset(t, i);
		const char *n = btf__name_by_offset(btf, m->name_off);
		if (n && !strcmp(n, name)) {
			if (btf_member_bitfield_size(t, i) || bits % 8)
				return err_set(-EOPNOTSUPP, "'%s' is a bit-field: not supported", name), false;
			*type = m->type;
			*off = bits / 8;
			return true;
		}
		if (!n || !*n) {
			const struct btf_type *s = strip(btf, m->type, NULL, NULL);
			uint32_t inner;
			if (s && (btf_is_struct(s) || btf_is_union(s)) &&
			    find_member(btf, s, name, type, &inner, depth + 1)) {
				*off = bits / 8 + inner;
				return true;
			}
		}
	}
	return false;
}

/* The fetch arg of argument index i at function entry. */
static void arg_fetch(unsigned i, char *out, size_t len)
{
	if (i < PROBE_MAX_REG_ARGS)
		snprintf(out, len, "%s", arg_regs[i]);
	else
		snprintf(out, len, "+%u(%%sp)", 8 * (i - PROBE_MAX_REG_ARGS + 1));
}

/* One argument of function proto p by the user's spec a → "name=fetch:type". */
static int btf_arg(const struct btf *btf, const struct btf_type *proto, const struct probe_arg *a,
		   const char *func, char **out)
{
	const struct btf_param *p = btf_params(proto);
	unsigned np = btf_vlen(proto), idx = np;
	for (unsigned i = 0; i < np; i++)
		if (!strcmp(btf__name_by_offset(btf, p[i].name_off), a->var))
			idx = i;
	if (idx == np) {
		struct buf b;
		buf_init(&b, 4096);
		for (unsigned i = 0; i < np; i++)
			buf_addf(&b, "%s%s", i ? ", " : "", btf__name_by_offset(btf, p[i].name_off));
		int e = err_set(-ENOENT, "%s has no argument '%s' (BTF names its arguments: %s)", func,
				a->var, np ? buf_str(&b) : "none");
		buf_release(&b);
		return e;
	}
	struct probe_loc loc = { 0 };
	arg_fetch(idx, loc.base, sizeof(loc.base));
	if (idx >= PROBE_MAX_REG_ARGS) { /* on the stack: the value is in memory */
		loc.in_mem = true;
		snprintf(loc.base, sizeof(loc.base), "%%sp");
		loc.offset = 8 * (idx - PROBE_MAX_REG_ARGS + 1);
	}
	bool user = false;
	uint32_t tid;
	const struct btf_type *t = strip(btf, p[idx].type, &tid, &user);
	for (size_t i = 0; i < a->nfields; i++) {
		if (!t)
			return err_set(-EINVAL, "'%s' has no type", a->var);
		const struct btf_type *s = t;
		if (a->arrow[i]) {
			if (!btf_is_ptr(t))
				return err_set(-EINVAL, "'%s' is not a pointer: use '.%s'", a->var,
					       a->fields[i]);
			s = strip(btf, t->type, NULL, NULL);
		} else if (btf_is_ptr(t)) {
			return err_set(-EINVAL, "'%s' is a pointer: use '->%s'", a->var, a->fields[i]);
		}
		if (!s || !(btf_is_struct(s) || btf_is_union(s)))
			return err_set(-EINVAL, "'%s': no structure to take '%s' from", a->var,
				       a->fields[i]);
		uint32_t mt, moff;
		err_clear();
		if (!find_member(btf, s, a->fields[i], &mt, &moff, 0)) {
			if (err_last()->msg[0])
				return -EOPNOTSUPP;
			return err_set(-ENOENT, "'%s' has no member '%s'", a->var, a->fields[i]);
		}
		int err = probe_loc_member(&loc, a->arrow[i], moff);
		if (err)
			return err;
		user = false;
		t = strip(btf, mt, &tid, &user);
	}
	char fetch[300], type[32];
	probe_loc_text(&loc, fetch, sizeof(fetch));
	if (a->type && (!strcmp(a->type, "string") || !strcmp(a->type, "ustring"))) {
		const struct btf_type *e = NULL;
		if (t && btf_is_ptr(t)) {
			bool u2 = false;
			e = strip(btf, t->type, NULL, &u2);
			user |= u2;
			int e2 = probe_loc_member(&loc, true, 0);
			if (e2)
				return e2;
			probe_loc_text(&loc, fetch, sizeof(fetch));
		} else if (t && btf_is_array(t)) {
			e = strip(btf, btf_array(t)->type, NULL, NULL);
		}
		if (!e || !btf_is_int(e) || e->size != 1)
			return err_set(-EINVAL, "'%s' is not a char pointer or array: it cannot be read "
						"as a string",
				       a->var);
		snprintf(type, sizeof(type), "%s", user ? "ustring" : a->type);
	} else if (a->type) {
		snprintf(type, sizeof(type), "%s", a->type);
	} else if (t && (btf_is_int(t) || btf_is_any_enum(t))) {
		bool sign = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0
					  : (btf_is_enum(t) && btf_kflag(t));
		if (t->size == 0 || t->size > 8)
			return err_set(-EOPNOTSUPP, "'%s' is %u bytes wide: the most a fetch arg reads "
						    "is 8",
				       a->var, t->size);
		snprintf(type, sizeof(type), "%c%u", sign ? 's' : 'u', t->size * 8);
	} else if (t && btf_is_ptr(t)) {
		snprintf(type, sizeof(type), "x64");
	} else {
		return err_set(-EOPNOTSUPP, "'%s' is not a basic type (a structure, array or "
					    "function): name a member ('->field', '.field')",
			       a->var);
	}
	*out = probe_arg_text(a, fetch, type);
	return 0;
}

static const struct btf_type *find_func(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id <= 0)
		return NULL;
	const struct btf_type *f = btf__type_by_id(btf, (uint32_t)id);
	const struct btf_type *p = f ? btf__type_by_id(btf, f->type) : NULL;
	return p && btf_is_func_proto(p) ? p : NULL;
}

int probe_resolve_kernel(const char *module, const char *btf_path, const struct probe_spec *s,
			 struct probe_def *def)
{
	memset(def, 0, sizeof(*def));
	if (!s->func || s->has_line || s->file)
		return err_set(-EOPNOTSUPP, "kernel probes take a function (FUNC[+OFF][%%return]): "
					    "lines and source files need the kernel's debuginfo, "
					    "which kiln does not read");
	def->kernel = true;
	def->ret = s->retprobe;
	def->group = xstrdup(s->group ? s->group : "probe");
	def->event = probe_event_name(s, 0);
	struct buf tb;
	buf_init(&tb, 4096);
	if (module)
		buf_addf(&tb, "%s:", module);
	buf_addstr(&tb, s->func);
	if (s->offset)
		buf_addf(&tb, "+%" PRIu64, s->offset);
	def->target = buf_detach(&tb, NULL);
	bool named = false;
	for (size_t i = 0; i < s->nargs; i++)
		named |= !s->args[i].raw && strcmp(s->args[i].var, "$retval");
	int err = 0;
	struct btf *base = NULL, *btf = NULL;
	const struct btf_type *proto = NULL;
	if (named) {
		err = load_btf(module, btf_path, &base, &btf);
		if (!err && !(proto = find_func(btf, s->func)))
			err = err_set(-ENOENT, "no kernel function '%s' in BTF%s%s", s->func,
				      module ? " of module " : "", module ? module : "");
		if (!err && s->offset)
			err = err_set(-EOPNOTSUPP, "arguments by name are known only at the function's "
						   "entry, not at +%" PRIu64,
				      s->offset);
	}
	for (size_t i = 0; i < s->nargs && !err; i++) {
		const struct probe_arg *a = &s->args[i];
		if (a->raw || !strcmp(a->var, "$retval")) {
			err = probe_def_add_arg(def, probe_raw_arg_text(a, def->nargs + 1));
		} else if (!strcmp(a->var, "$params")) {
			const struct btf_param *p = btf_params(proto);
			for (unsigned k = 0; k < btf_vlen(proto) && !err; k++) {
				struct probe_arg pa = { .var = (char *)btf__name_by_offset(btf, p[k].name_off) };
				char *txt;
				if (btf_arg(btf, proto, &pa, s->func, &txt) == 0)
					err = probe_def_add_arg(def, txt);
			}
		} else {
			char *txt;
			err = btf_arg(btf, proto, a, s->func, &txt);
			if (!err)
				err = probe_def_add_arg(def, txt);
		}
	}
	if (base)
		free_btf(base, btf);
	if (err)
		probe_def_free(def);
	return err;
}

int probe_kernel_vars(const char *module, const char *btf_path, const struct probe_spec *s,
		      char ***lines, size_t *n)
{
	*lines = NULL;
	*n = 0;
	struct btf *base, *btf;
	int err = load_btf(module, btf_path, &base, &btf);
	if (err)
		return err;
	const struct btf_type *proto = find_func(btf, s->func);
	if (!proto) {
		free_btf(base, btf);
		return err_set(-ENOENT, "no kernel function '%s' in BTF", s->func);
	}
	XALLOC_ARRAY(*lines, btf_vlen(proto) + 2);
	struct buf b;
	buf_init(&b, 4096);
	buf_addf(&b, "Available variables at %s", s->func);
	(*lines)[(*n)++] = buf_detach(&b, NULL);
	buf_init(&b, 4096);
	buf_addf(&b, "\t@<%s+0>", s->func);
	(*lines)[(*n)++] = buf_detach(&b, NULL);
	const struct btf_param *p = btf_params(proto);
	size_t first = *n;
	for (unsigned i = 0; i < btf_vlen(proto); i++) {
		buf_init(&b, 4096);
		buf_addstr(&b, "\t\t");
		type_name(btf, p[i].type, &b, 0);
		buf_addf(&b, "\t%s", btf__name_by_offset(btf, p[i].name_off));
		(*lines)[(*n)++] = buf_detach(&b, NULL);
	}
	probe_lines_sort_vars(*lines, first, *n);
	free_btf(base, btf);
	return 0;
}

int probe_kernel_funcs(const char *btf_path, const char *glob, char ***lines, size_t *n)
{
	*lines = NULL;
	*n = 0;
	struct btf *base, *btf;
	int err = load_btf(NULL, btf_path, &base, &btf);
	if (err)
		return err;
	uint32_t cnt = btf__type_cnt(btf);
	for (uint32_t id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!t || !btf_is_func(t))
			continue;
		const char *name = btf__name_by_offset(btf, t->name_off);
		if (!name || !*name || (glob ? fnmatch(glob, name, 0) != 0 : name[0] == '_'))
			continue;
		probe_lines_add(lines, n, xstrdup(name));
	}
	free_btf(base, btf);
	probe_lines_sort_unique(*lines, n);
	return 0;
}

#else /* no libbpf */

bool probe_have_btf(void)
{
	return false;
}

static int no_btf(void)
{
	return err_set(-EOPNOTSUPP, "this kiln was built without libbpf: kernel function "
				    "arguments cannot be named from BTF (raw fetch args work)");
}

int probe_resolve_kernel(const char *module, const char *btf_path, const struct probe_spec *s,
			 struct probe_def *def)
{
	(void)module, (void)btf_path, (void)s, (void)def;
	return no_btf();
}

int probe_kernel_vars(const char *module, const char *btf_path, const struct probe_spec *s,
		      char ***lines, size_t *n)
{
	(void)module, (void)btf_path, (void)s, (void)lines, (void)n;
	return no_btf();
}

int probe_kernel_funcs(const char *btf_path, const char *glob, char ***lines, size_t *n)
{
	(void)btf_path, (void)glob, (void)lines, (void)n;
	return no_btf();
}
#endif
