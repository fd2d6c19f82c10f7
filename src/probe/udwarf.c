/*
 * udwarf: user functions of a binary → uprobe definitions (probe, L3).
 *
 * The binary is opened with libdwfl (offline), which finds its DWARF in
 * the binary or a separate debug file (build-id, .gnu_debuglink) as gdb
 * and perf do. Functions come from the ELF symbols (a probe without
 * arguments needs nothing more) and the DWARF subprograms (out-of-line
 * instances only: a function inlined everywhere has no address to probe);
 * probe addresses become file offsets through the PT_LOAD headers.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "probe/probe.h"
#include "probe/udwarf_int.h"


static const Dwfl_Callbacks offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

void ud_ubin_close(struct ubin *b)
{
	if (b->dwfl)
		dwfl_end(b->dwfl);
	memset(b, 0, sizeof(*b));
}

int ud_ubin_open(const char *path, struct ubin *b)
{
	memset(b, 0, sizeof(*b));
	b->path = path;
	struct stat st;
	if (stat(path, &st) < 0)
		return err_set(-errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(-EINVAL, "%s: not a regular file", path);
	b->dwfl = dwfl_begin(&offline_cb);
	if (!b->dwfl)
		return err_set(-ENOMEM, "%s: libdwfl: %s", path, dwfl_errmsg(-1));
	dwfl_report_begin(b->dwfl);
	b->mod = dwfl_report_offline(b->dwfl, "", path, -1);
	dwfl_report_end(b->dwfl, NULL, NULL);
	if (!b->mod) {
		int e = err_set(-EINVAL, "%s: not an ELF binary (%s)", path, dwfl_errmsg(-1));
		ud_ubin_close(b);
		return e;
	}
	b->elf = dwfl_module_getelf(b->mod, &b->ebias);
	if (!b->elf) {
		int e = err_set(-EINVAL, "%s: not an ELF binary (%s)", path, dwfl_errmsg(-1));
		ud_ubin_close(b);
		return e;
	}
	b->dw = dwfl_module_getdwarf(b->mod, &b->dbias);
	return 0;
}

/* The file offset of module address a, in an executable PT_LOAD. */
static int file_offset(const struct ubin *b, GElf_Addr a, uint64_t *off)
{
	GElf_Addr v = a - b->ebias;
	size_t n;
	if (elf_getphdrnum(b->elf, &n) < 0)
		return err_set(-EINVAL, "%s: no program headers", b->path);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v < ph.p_vaddr || v >= ph.p_vaddr + ph.p_filesz)
			continue;
		if (!(ph.p_flags & PF_X))
			return err_set(-EOPNOTSUPP, "%s: address 0x%" PRIx64 " is not in executable "
						    "code: uprobes cannot be placed there",
				       b->path, (uint64_t)v);
		*off = ph.p_offset + (v - ph.p_vaddr);
		return 0;
	}
	return err_set(-EOPNOTSUPP, "%s: address 0x%" PRIx64 " is in no loaded segment", b->path,
		       (uint64_t)v);
}

/* The module address of file offset off, or false. */
bool ud_offset_addr(const struct ubin *b, uint64_t off, GElf_Addr *a)
{
	size_t n;
	if (elf_getphdrnum(b->elf, &n) < 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*a = ph.p_vaddr + (off - ph.p_offset) + b->ebias;
			return true;
		}
	}
	return false;
}

/* The defined function symbol 'name': its module address and size. */
static bool sym_find(const struct ubin *b, const char *name, GElf_Addr *addr, GElf_Word *size)
{
	int n = dwfl_module_getsymtab(b->mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(b->mod, i, &sym, &a, NULL, NULL, NULL);
		if (!s || sym.st_shndx == SHN_UNDEF || strcmp(s, name))
			continue;
		int t = GELF_ST_TYPE(sym.st_info);
		if (t != STT_FUNC && t != STT_GNU_IFUNC)
			continue;
		*addr = a;
		*size = (GElf_Word)sym.st_size;
		return true;
	}
	return false;
}

/* ---- DWARF functions ---- */



static bool file_matches(const char *cuname, const char *want)
{
	if (!want)
		return true;
	if (!cuname)
		return false;
	size_t a = strlen(cuname), b = strlen(want);
	return a >= b && !strcmp(cuname + a - b, want) && (a == b || cuname[a - b - 1] == '/');
}

static int func_cb(Dwarf_Die *die, void *arg)
{
	struct func_search *fs = arg;
	const char *n = dwarf_diename(die);
	if (!n || strcmp(n, fs->name))
		return DWARF_CB_OK;
	Dwarf_Addr entry;
	if (dwarf_func_inline(die) || dwarf_entrypc(die, &entry) != 0) {
		fs->inlined = true;
		return DWARF_CB_OK;
	}
	if (fs->n == PROBE_MAX_POINTS)
		return DWARF_CB_ABORT;
	XREALLOC_ARRAY(fs->v, fs->n + 1);
	fs->v[fs->n].die = *die;
	fs->v[fs->n].cu = fs->cu;
	fs->v[fs->n].entry = entry;
	fs->n++;
	return DWARF_CB_OK;
}

/* Every out-of-line DWARF instance of function 'name' (in a CU named like 'file'). */
void ud_funcs_find(const struct ubin *b, const char *name, const char *file,
		       struct func_search *fs)
{
	memset(fs, 0, sizeof(*fs));
	fs->name = name;
	fs->file = file;
	if (!b->dw)
		return;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(b->dw, off + hsize, &fs->cu) &&
		    file_matches(dwarf_diename(&fs->cu), file))
			dwarf_getfuncs(&fs->cu, func_cb, fs, 0);
		off = next;
	}
}

/* Whether the CU was built with optimization (perf's rule: -O<n>, n > 0, in DW_AT_producer). */
static bool cu_optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute at;
	const char *p = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &at));
	if (!p)
		return true;
	const char *o = strstr(p, " -O");
	return o && o[3] != '0';
}

/* The first line-table address after the function's entry line (perf's prologue skip). */
static Dwarf_Addr skip_prologue(struct func *f)
{
	Dwarf_Lines *lines;
	size_t nl;
	if (dwarf_getsrclines(&f->cu, &lines, &nl) != 0)
		return f->entry;
	int entry_line = -1;
	Dwarf_Addr best = f->entry;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		bool stmt;
		if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || dwarf_linebeginstatement(l, &stmt))
			continue;
		if (a == f->entry && entry_line < 0)
			entry_line = ln;
		else if (entry_line >= 0 && a > f->entry && stmt && ln != entry_line &&
			 dwarf_haspc(&f->die, a) > 0) {
			best = a;
			break;
		}
	}
	return best;
}

/* ---- types ---- */

Dwarf_Die *ud_die_type(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	if (!dwarf_attr_integrate(d, DW_AT_type, &at))
		return NULL;
	return dwarf_formref_die(&at, out);
}

/* Skip typedefs and qualifiers. */
static Dwarf_Die *strip_type(Dwarf_Die *t)
{
	for (int i = 0; t && i < 32; i++) {
		int tag = dwarf_tag(t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return t;
		if (!ud_die_type(t, t))
			return NULL; /* const void */
	}
	return t;
}

/* perf -V's name of a type: "long unsigned int", "struct pt*", "char*". */
void ud_type_name(Dwarf_Die *t, struct buf *b, int depth)
{
	if (!t || depth > 16) {
		buf_addstr(b, "void");
		return;
	}
	Dwarf_Die next;
	int tag = dwarf_tag(t);
	const char *n = dwarf_diename(t);
	switch (tag) {
	case DW_TAG_pointer_type:
		ud_type_name(ud_die_type(t, &next), b, depth + 1);
		buf_addch(b, '*');
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		ud_type_name(ud_die_type(t, &next), b, depth + 1);
		return;
	case DW_TAG_structure_type:
		buf_addf(b, "struct %s", n ? n : "(anon)");
		return;
	case DW_TAG_union_type:
		buf_addf(b, "union %s", n ? n : "(anon)");
		return;
	case DW_TAG_enumeration_type:
		buf_addf(b, "enum %s", n ? n : "(anon)");
		return;
	case DW_TAG_array_type:
		ud_type_name(ud_die_type(t, &next), b, depth + 1);
		buf_addstr(b, "[]");
		return;
	default:
		buf_addstr(b, n ? n : "(unknown)");
	}
}

/* A member 'name' of struct/union t (anonymous members searched too): its offset. */
static bool find_member(Dwarf_Die *t, const char *name, Dwarf_Die *out, int64_t *off, int depth)
{
	Dwarf_Die c;
	if (depth > 8 || dwarf_child(t, &c) != 0)
		return false;
	do {
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		Dwarf_Attribute at;
		Dwarf_Word moff = 0;
		if (dwarf_attr(&c, DW_AT_data_member_location, &at))
			dwarf_formudata(&at, &moff);
		const char *n = dwarf_diename(&c);
		if (n && !strcmp(n, name)) {
			*out = c;
			*off = (int64_t)moff;
			return true;
		}
		if (!n) {
			Dwarf_Die mt, *s = strip_type(ud_die_type(&c, &mt));
			int64_t inner;
			if (s && (dwarf_tag(s) == DW_TAG_structure_type || dwarf_tag(s) == DW_TAG_union_type) &&
			    find_member(s, name, out, &inner, depth + 1)) {
				*off = (int64_t)moff + inner;
				return true;
			}
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static bool is_char(Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0, size = 0;
	if (!t || dwarf_tag(t) != DW_TAG_base_type)
		return false;
	dwarf_formudata(dwarf_attr(t, DW_AT_encoding, &at), &enc);
	dwarf_formudata(dwarf_attr(t, DW_AT_byte_size, &at), &size);
	return size == 1 && (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
			     enc == DW_ATE_signed || enc == DW_ATE_unsigned);
}

/* ---- arguments ---- */


static size_t conv_ops(const Dwarf_Op *in, size_t n, struct probe_op *out, size_t max)
{
	size_t k = n < max ? n : max;
	for (size_t i = 0; i < k; i++) {
		out[i].atom = in[i].atom;
		out[i].number = in[i].number;
		out[i].number2 = in[i].number2;
	}
	return n;
}

/* Where variable die v is at the place. */
int ud_var_loc(struct place *pl, Dwarf_Die *v, const char *name, struct probe_loc *loc)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;
	if (!dwarf_attr_integrate(v, DW_AT_location, &at))
		return err_set(-EOPNOTSUPP, "'%s' is optimized out (no location)", name);
	int r = dwarf_getlocation_addr(&at, pl->pc, &ops, &nops, 1);
	if (r <= 0)
		return err_set(-EOPNOTSUPP, "'%s' is not available at this place (optimized out "
					    "here; see -V for what is)",
			       name);
	struct probe_op o[8], fb[8], cfa[8];
	size_t no = conv_ops(ops, nops, o, 8), nfb = 0, ncfa = 0;
	if (no > 8)
		no = 8;
	if (nops == 1 && ops[0].atom == DW_OP_fbreg) {
		Dwarf_Die *sp = NULL;
		for (int i = 0; i < pl->nscopes; i++)
			if (dwarf_tag(&pl->scopes[i]) == DW_TAG_subprogram) {
				sp = &pl->scopes[i];
				break;
			}
		Dwarf_Attribute fat;
		Dwarf_Op *fops;
		size_t nf;
		if (sp && dwarf_attr_integrate(sp, DW_AT_frame_base, &fat) &&
		    dwarf_getlocation_addr(&fat, pl->pc, &fops, &nf, 1) > 0) {
			nfb = conv_ops(fops, nf, fb, 8);
			if (nf == 1 && fops[0].atom == DW_OP_call_frame_cfa) {
				Dwarf_Addr bias;
				Dwarf_CFI *cfi = dwfl_module_dwarf_cfi(pl->b->mod, &bias);
				Dwarf_Addr at_pc = pl->pc + pl->b->dbias - bias;
				Dwarf_Frame *fr = NULL;
				if (!cfi || dwarf_cfi_addrframe(cfi, at_pc, &fr) != 0) {
					cfi = dwfl_module_eh_cfi(pl->b->mod, &bias);
					at_pc = pl->pc + pl->b->dbias - bias;
					if (cfi && dwarf_cfi_addrframe(cfi, at_pc, &fr) != 0)
						fr = NULL;
				}
				Dwarf_Op *cops;
				size_t nc;
				if (fr && dwarf_frame_cfa(fr, &cops, &nc) == 0)
					ncfa = conv_ops(cops, nc, cfa, 8);
				free(fr);
			}
		}
	}
	r = probe_loc_fetch(o, no, fb, nfb > 8 ? 8 : nfb, cfa, ncfa > 8 ? 8 : ncfa, loc);
	if (r) {
		char why[sizeof(err_last()->msg)];
		snprintf(why, sizeof(why), "%s", err_last()->msg);
		return err_set(r, "'%s' cannot be read at this place: %s", name, why);
	}
	return 0;
}

/* One named argument → "name=fetch:type". */
static int named_arg(struct place *pl, const struct probe_arg *a, char **out)
{
	Dwarf_Die var;
	const char *whole = a->var;
	int r = dwarf_getscopevar(pl->scopes, pl->nscopes, a->var, 0, NULL, 0, 0, &var);
	if (r < 0)
		return err_set(-ENOENT, "no variable '%s' at this place (see -V for what is)", a->var);
	struct probe_loc loc;
	int err = ud_var_loc(pl, &var, a->var, &loc);
	if (err)
		return err;
	Dwarf_Die tbuf, *t = strip_type(ud_die_type(&var, &tbuf));
	for (size_t i = 0; i < a->nfields; i++) {
		if (!t)
			return err_set(-EINVAL, "'%s' has no type", whole);
		int tag = dwarf_tag(t);
		Dwarf_Die st, *s = t;
		if (a->arrow[i]) {
			if (tag != DW_TAG_pointer_type)
				return err_set(-EINVAL, "'%s' is not a pointer: use '.%s'", a->var,
					       a->fields[i]);
			s = strip_type(ud_die_type(t, &st));
		} else if (tag == DW_TAG_pointer_type) {
			return err_set(-EINVAL, "'%s' is a pointer: use '->%s'", a->var, a->fields[i]);
		}
		if (!s || (dwarf_tag(s) != DW_TAG_structure_type && dwarf_tag(s) != DW_TAG_union_type))
			return err_set(-EINVAL, "'%s': no structure to take '%s' from", a->var,
				       a->fields[i]);
		Dwarf_Die m;
		int64_t moff;
		if (!find_member(s, a->fields[i], &m, &moff, 0))
			return err_set(-ENOENT, "'%s' has no member '%s'", a->var, a->fields[i]);
		Dwarf_Attribute bat;
		if (dwarf_attr(&m, DW_AT_bit_size, &bat))
			return err_set(-EOPNOTSUPP, "'%s' is a bit-field: not supported", a->fields[i]);
		err = probe_loc_member(&loc, a->arrow[i], moff);
		if (err)
			return err;
		tbuf = m;
		t = strip_type(ud_die_type(&tbuf, &tbuf));
	}
	char fetch[300], type[32];
	probe_loc_text(&loc, fetch, sizeof(fetch));
	int tag = t ? dwarf_tag(t) : -1;
	if (a->type && (!strcmp(a->type, "string") || !strcmp(a->type, "ustring"))) {
		Dwarf_Die et, *e = NULL;
		if (tag == DW_TAG_pointer_type) {
			e = strip_type(ud_die_type(t, &et));
			int e2 = probe_loc_member(&loc, true, 0);
			if (e2)
				return e2;
			probe_loc_text(&loc, fetch, sizeof(fetch));
		} else if (tag == DW_TAG_array_type) {
			e = strip_type(ud_die_type(t, &et));
			if (!loc.in_mem)
				return err_set(-EOPNOTSUPP, "'%s': an array not in memory", a->var);
		}
		if (!is_char(e))
			return err_set(-EINVAL, "'%s' is not a char pointer or array: it cannot be "
						"read as a string",
				       a->var);
		snprintf(type, sizeof(type), "%s", a->type);
	} else if (a->type) {
		snprintf(type, sizeof(type), "%s", a->type);
	} else if (tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type ||
		   tag == DW_TAG_pointer_type) {
		Dwarf_Attribute at;
		Dwarf_Word size = 8, enc = 0;
		dwarf_formudata(dwarf_attr(t, DW_AT_byte_size, &at), &size);
		dwarf_formudata(dwarf_attr(t, DW_AT_encoding, &at), &enc);
		if (size == 0 || size > 8)
			return err_set(-EOPNOTSUPP, "'%s' is %u bytes wide: the most a fetch arg "
						    "reads is 8",
				       a->var, (unsigned)size);
		bool sign = tag == DW_TAG_base_type &&
			    (enc == DW_ATE_signed || enc == DW_ATE_signed_char);
		snprintf(type, sizeof(type), "%c%u", sign ? 's' : 'x', (unsigned)size * 8);
	} else {
		return err_set(-EOPNOTSUPP, "'%s' is not a basic type (a structure or array): name a "
					    "member ('->field', '.field')",
			       a->var);
	}
	*out = probe_arg_text(a, fetch, type);
	return 0;
}

/* The subprogram's formal parameters' names (for $params), in order. */
static size_t param_names(Dwarf_Die *sp, const char **v, size_t max)
{
	Dwarf_Die c;
	size_t n = 0;
	if (dwarf_child(sp, &c) != 0)
		return 0;
	do {
		if (dwarf_tag(&c) == DW_TAG_formal_parameter && dwarf_diename(&c) && n < max)
			v[n++] = dwarf_diename(&c);
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

static int fill_args(struct place *pl, const struct probe_spec *s, struct probe_def *d)
{
	for (size_t i = 0; i < s->nargs; i++) {
		const struct probe_arg *a = &s->args[i];
		char *txt = NULL;
		int err;
		if (a->raw || !strcmp(a->var, "$retval")) {
			err = probe_def_add_arg(d, probe_raw_arg_text(a, d->nargs + 1));
		} else if (!pl) {
			err = err_set(-ENODATA, "'%s' is named by debug information", a->var);
		} else if (!strcmp(a->var, "$params")) {
			const char *names[PROBE_MAX_ARGS];
			size_t np = param_names(&pl->f->die, names, PROBE_MAX_ARGS);
			err = 0;
			for (size_t k = 0; k < np && !err; k++) {
				struct probe_arg pa = { .var = (char *)names[k] };
				if (named_arg(pl, &pa, &txt) == 0)
					err = probe_def_add_arg(d, txt);
			}
		} else {
			err = named_arg(pl, a, &txt);
			if (!err)
				err = probe_def_add_arg(d, txt);
		}
		if (err)
			return err;
	}
	return 0;
}

static bool spec_needs_dwarf(const struct probe_spec *s)
{
	if (s->has_line || s->file)
		return true;
	for (size_t i = 0; i < s->nargs; i++)
		if (!s->args[i].raw && strcmp(s->args[i].var, "$retval"))
			return true;
	return false;
}


const char *ud_cu_file(Dwarf_Die *cu)
{
	const char *n = dwarf_diename(cu);
	return n ? n : "?";
}

/* The addresses of line 'line' (absolute) of file 'want' in f. */
static size_t line_addrs(struct ubin *b, struct func *f, const char *want_file, int line,
			 struct point *pts, size_t max)
{
	Dwarf_Lines *lines;
	size_t nl, n = 0;
	if (dwarf_getsrclines(&f->cu, &lines, &nl) != 0)
		return 0;
	for (size_t i = 0; i < nl && n < max; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		bool stmt, end;
		if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) || dwarf_linebeginstatement(l, &stmt) ||
		    dwarf_lineendsequence(l, &end))
			continue;
		const char *src = dwarf_linesrc(l, NULL, NULL);
		bool hit = !end && stmt && ln == line && file_matches(src, want_file) &&
			   dwarf_haspc(&f->die, a) > 0;
		if (hit) {
			bool dup = false;
			for (size_t k = 0; k < n; k++)
				dup |= pts[k].addr == a + b->dbias;
			if (!dup) {
				pts[n].f = f;
				pts[n].addr = a + b->dbias;
				n++;
			}
		}
	}
	return n;
}

int ud_decl_line(Dwarf_Die *d)
{
	int l = 0;
	dwarf_decl_line(d, &l);
	return l;
}

/* The function DIE containing DWARF address pc in cu. */
static bool func_at(Dwarf_Die *cu, Dwarf_Addr pc, struct func *out)
{
	Dwarf_Die *scopes;
	int n = dwarf_getscopes(cu, pc, &scopes);
	bool ok = false;
	for (int i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			out->die = scopes[i];
			out->cu = *cu;
			ok = dwarf_entrypc(&scopes[i], &out->entry) == 0;
			break;
		}
	free(n > 0 ? scopes : NULL);
	return ok;
}

/* The probe points of spec s in b (*fs owns the func array). */
int ud_find_points(struct ubin *b, const struct probe_spec *s, struct func_search *fs,
		       struct point **out, size_t *n, unsigned *notes)
{
	struct point *pts = xcalloc(PROBE_MAX_POINTS, sizeof(*pts));
	*n = 0;
	*out = pts;
	if (!s->func) { /* SRC:ALN */
		memset(fs, 0, sizeof(*fs));
		Dwarf_Off off = 0, next;
		size_t hsize;
		while (dwarf_nextcu(b->dw, off, &next, &hsize, NULL, NULL, NULL) == 0 &&
		       *n < PROBE_MAX_POINTS) {
			Dwarf_Die cu;
			if (!dwarf_offdie(b->dw, off + hsize, &cu)) {
				off = next;
				continue;
			}
			off = next;
			Dwarf_Lines *lines;
			size_t nl;
			if (dwarf_getsrclines(&cu, &lines, &nl) != 0)
				continue;
			for (size_t i = 0; i < nl && *n < PROBE_MAX_POINTS; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr a;
				int ln;
				bool stmt;
				if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) ||
				    dwarf_linebeginstatement(l, &stmt) || ln != s->line || !stmt ||
				    !file_matches(dwarf_linesrc(l, NULL, NULL), s->file))
					continue;
				struct func f;
				if (!func_at(&cu, a, &f))
					continue;
				XREALLOC_ARRAY(fs->v, fs->n + 1);
				fs->v[fs->n++] = f;
				size_t got = line_addrs(b, &fs->v[fs->n - 1], s->file, s->line, pts + *n,
							PROBE_MAX_POINTS - *n);
				for (size_t k = 0; k < got; k++)
					pts[*n + k].rel_line = s->line - ud_decl_line(&f.die);
				*n += got;
				break;
			}
		}
		if (*n == 0)
			return err_set(-ENOENT, "%s: no code for line %s:%d (see -L FUNC for the "
						"lines that have code)",
				       b->path, s->file, s->line);
		return 0;
	}
	ud_funcs_find(b, s->func, s->file, fs);
	GElf_Addr saddr = 0;
	GElf_Word ssize = 0;
	bool have_sym = sym_find(b, s->func, &saddr, &ssize);
	if (fs->n == 0 && have_sym && b->dw && !s->file) {
		/* an alias (glibc's malloc is __libc_malloc in DWARF): the subprogram at its address */
		Dwarf_Addr bias;
		Dwarf_Die *cu = dwfl_module_addrdie(b->mod, saddr, &bias);
		struct func f;
		if (cu && func_at(cu, saddr - bias, &f) && f.entry == saddr - bias) {
			fs->v = xmalloc(sizeof(*fs->v));
			fs->v[0] = f;
			fs->n = 1;
		}
	}
	if (fs->n == 0) {
		if (fs->inlined && !have_sym)
			return err_set(-EOPNOTSUPP, "%s: '%s' is inlined everywhere: it has no address "
						    "of its own to probe (probe its callers, or a "
						    "line of it with FUNC:LINE in a caller)",
				       b->path, s->func);
		if (!have_sym)
			return err_set(-ENOENT, "%s: no function '%s'%s%s (see -F for the binary's "
						"functions)",
				       b->path, s->func, s->file ? " in " : "", s->file ? s->file : "");
		if (b->dw && spec_needs_dwarf(s))
			return err_set(-ENODATA, "%s: '%s' has no debug information: a probe without "
						 "arguments works",
				       b->path, s->func);
		if (s->offset && ssize && s->offset >= ssize)
			return err_set(-EINVAL, "%s: offset %" PRIu64 " is past the end of '%s' (%u "
						"bytes)",
				       b->path, s->offset, s->func, (unsigned)ssize);
		pts[0].addr = saddr + s->offset;
		*n = 1;
		return 0;
	}
	for (size_t i = 0; i < fs->n && *n < PROBE_MAX_POINTS; i++) {
		struct func *f = &fs->v[i];
		if (s->has_line) {
			int dl = ud_decl_line(&f->die);
			size_t got = line_addrs(b, f, NULL, dl + s->line, pts + *n, PROBE_MAX_POINTS - *n);
			/* only the lines of the function's own file */
			for (size_t k = 0; k < got; k++)
				pts[*n + k].rel_line = s->line;
			*n += got;
			continue;
		}
		Dwarf_Addr a = f->entry;
		if (s->offset) {
			Dwarf_Addr hi = 0, lo = 0;
			if (dwarf_highpc(&f->die, &hi) == 0 && dwarf_lowpc(&f->die, &lo) == 0 &&
			    f->entry + s->offset >= hi)
				return err_set(-EINVAL, "%s: offset %" PRIu64 " is past the end of '%s' "
							"(%u bytes)",
					       b->path, s->offset, s->func, (unsigned)(hi - lo));
			a += s->offset;
		} else if (!s->retprobe && !cu_optimized(&f->cu)) {
			Dwarf_Addr sk = skip_prologue(f);
			if (sk != a)
				*notes |= PROBE_NOTE_PROLOGUE;
			a = sk;
		}
		pts[*n].f = f;
		pts[*n].addr = a + b->dbias;
		(*n)++;
	}
	if (*n == 0)
		return err_set(-ENOENT, "%s: line %d of '%s' has no code (see -L %s for the lines "
					"that have)",
			       b->path, s->line, s->func, s->func);
	return 0;
}

int probe_resolve_user(const char *binary, const struct probe_spec *s, struct probe_def **defs,
		       size_t *n, unsigned *notes)
{
	struct ubin b;
	*defs = NULL;
	*n = 0;
	*notes = 0;
	int err = ud_ubin_open(binary, &b);
	if (err)
		return err;
	if (!b.dw) {
		*notes |= PROBE_NOTE_NO_DEBUGINFO;
		if (spec_needs_dwarf(s)) {
			err = err_set(-ENODATA, "%s has no debug information (DWARF): arguments by "
						"name and lines need it; a probe without arguments "
						"(or with raw fetch args like %%di) works",
				      binary);
			ud_ubin_close(&b);
			return err;
		}
	}
	struct func_search fs;
	struct point *pts;
	size_t np;
	err = ud_find_points(&b, s, &fs, &pts, &np, notes);
	char *group = s->group ? xstrdup(s->group) : probe_group_of(binary);
	char *abs = realpath(binary, NULL); /* the kernel resolves the path when it is added */
	if (!err && strpbrk(abs ? abs : binary, " \t\n"))
		err = err_set(-EINVAL, "%s: a path with white space cannot be written to "
				       "uprobe_events (use a link without it)",
			      abs ? abs : binary);
	struct probe_def *d = err ? NULL : xcalloc(np, sizeof(*d));
	for (size_t i = 0; i < np && !err; i++) {
		uint64_t off = 0;
		err = file_offset(&b, pts[i].addr, &off);
		if (err)
			break;
		d[i].ret = s->retprobe;
		d[i].group = xstrdup(group);
		d[i].event = probe_event_name(s, pts[i].rel_line);
		struct buf tb;
		buf_init(&tb, 8192);
		buf_addf(&tb, "%s:0x%016" PRIx64, abs ? abs : binary, off);
		d[i].target = buf_detach(&tb, NULL);
		struct place pl = { .b = &b, .f = pts[i].f, .pc = pts[i].addr - b.dbias };
		if (pts[i].f) {
			pl.nscopes = dwarf_getscopes(&pts[i].f->cu, pl.pc, &pl.scopes);
			if (pl.nscopes <= 0) {
				pl.nscopes = 1;
				pl.scopes = xmalloc(sizeof(Dwarf_Die));
				pl.scopes[0] = pts[i].f->die;
			}
		}
		err = fill_args(pts[i].f ? &pl : NULL, s, &d[i]);
		free(pl.scopes);
		if (err) {
			char why[sizeof(err_last()->msg)];
			snprintf(why, sizeof(why), "%s", err_last()->msg);
			err_set(err, "%s: %s", s->func ? s->func : s->file, why);
		}
		*n = i + 1;
	}
	free(group);
	free(abs);
	free(pts);
	free(fs.v);
	ud_ubin_close(&b);
	if (err) {
		probe_defs_free(d, *n);
		*n = 0;
		return err;
	}
	*defs = d;
	return 0;
}

