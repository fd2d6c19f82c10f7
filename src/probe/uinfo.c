/*
 * uinfo: what kiln probe -V, -L, -F and -l show of a binary (probe, L3):
 * the variables readable at a probe point, a function's source lines
 * numbered where a probe can go, the function symbols, and the place of a
 * uprobe's file offset.
 */
#include <dwarf.h>
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
#include "probe/udwarf_int.h"

/* ---- -V, -L, -F ---- */

/* The function symbol containing module address a: its name and start. */
static const char *sym_at(const struct ubin *b, GElf_Addr a, GElf_Addr *start)
{
	GElf_Sym sym;
	GElf_Off off;
	const char *s = dwfl_module_addrinfo(b->mod, a, &off, &sym, NULL, NULL, NULL);
	if (s)
		*start = a - off;
	return s;
}

/* Variables of one scope list that have a location at pc, as "\t\tTYPE\tNAME". */
static void scope_vars(struct place *pl, char ***v, size_t *n)
{
	size_t first = *n;
	for (int i = 0; i < pl->nscopes; i++) {
		Dwarf_Die c;
		if (dwarf_child(&pl->scopes[i], &c) != 0)
			continue;
		do {
			int tag = dwarf_tag(&c);
			if (tag != DW_TAG_formal_parameter && tag != DW_TAG_variable)
				continue;
			const char *name = dwarf_diename(&c);
			struct probe_loc loc;
			if (!name || ud_var_loc(pl, &c, name, &loc) != 0)
				continue;
			bool dup = false;
			for (size_t k = first; k < *n; k++) {
				const char *t = strrchr((*v)[k], '\t');
				dup |= t && !strcmp(t + 1, name);
			}
			if (dup)
				continue;
			struct buf b;
			buf_init(&b, 4096);
			buf_addstr(&b, "\t\t");
			Dwarf_Die t;
			ud_type_name(ud_die_type(&c, &t), &b, 0);
			buf_addf(&b, "\t%s", name);
			probe_lines_add(v, n, buf_detach(&b, NULL));
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	probe_lines_sort_vars(*v, first, *n);
	err_clear();
}

int probe_user_vars(const char *binary, const struct probe_spec *s, char ***lines, size_t *n)
{
	struct ubin b;
	*lines = NULL;
	*n = 0;
	int err = ud_ubin_open(binary, &b);
	if (err)
		return err;
	if (!b.dw) {
		ud_ubin_close(&b);
		return err_set(-ENODATA, "%s has no debug information (DWARF): no variables to list",
			       binary);
	}
	struct func_search fs;
	struct point *pts;
	size_t np;
	unsigned notes = 0;
	err = ud_find_points(&b, s, &fs, &pts, &np, &notes);
	if (!err && np && !pts[0].f)
		err = err_set(-ENODATA, "%s: '%s' has no debug information: no variables to list",
			      binary, s->func);
	for (size_t i = 0; i < np && !err; i++) {
		GElf_Addr start = 0;
		const char *sym = sym_at(&b, pts[i].addr, &start);
		if (i == 0)
			probe_lines_add(lines, n, xasprintf("Available variables at %s",
							     s->func ? s->func : s->file));
		probe_lines_add(lines, n, xasprintf("\t@<%s+%" PRIu64 ">", sym ? sym : "?",
						     (uint64_t)(pts[i].addr - start)));
		struct place pl = { .b = &b, .f = pts[i].f, .pc = pts[i].addr - b.dbias };
		pl.nscopes = dwarf_getscopes(&pts[i].f->cu, pl.pc, &pl.scopes);
		if (pl.nscopes > 0)
			scope_vars(&pl, lines, n);
		free(pl.nscopes > 0 ? pl.scopes : NULL);
	}
	free(pts);
	free(fs.v);
	ud_ubin_close(&b);
	return err;
}

int probe_user_lines(const char *binary, const struct probe_spec *s, char ***lines, size_t *n)
{
	struct ubin b;
	*lines = NULL;
	*n = 0;
	if (!s->func)
		return err_set(-EINVAL, "-L takes a function (FUNC or FUNC@SRC)");
	int err = ud_ubin_open(binary, &b);
	if (err)
		return err;
	struct func_search fs;
	ud_funcs_find(&b, s->func, s->file, &fs);
	if (!b.dw)
		err = err_set(-ENODATA, "%s has no debug information (DWARF): no lines to show", binary);
	else if (fs.n == 0)
		err = err_set(-ENOENT, "%s: no function '%s' with debug information%s", binary,
			      s->func, fs.inlined ? " (it is inlined everywhere)" : "");
	if (err) {
		free(fs.v);
		ud_ubin_close(&b);
		return err;
	}
	struct func *f = &fs.v[0];
	int dl = ud_decl_line(&f->die);
	const char *dfile = dwarf_decl_file(&f->die);
	/* the lines that have code, and the last one */
	Dwarf_Lines *ls;
	size_t nl;
	int maxl = dl;
	char *has = xcalloc(1, PROBE_MAX_SRC_LINES);
	if (dwarf_getsrclines(&f->cu, &ls, &nl) == 0)
		for (size_t i = 0; i < nl; i++) {
			Dwarf_Line *l = dwarf_onesrcline(ls, i);
			Dwarf_Addr a;
			int ln;
			bool stmt;
			if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) ||
			    dwarf_linebeginstatement(l, &stmt) || !stmt || dwarf_haspc(&f->die, a) <= 0)
				continue;
			const char *src = dwarf_linesrc(l, NULL, NULL);
			if (!src || !dfile || strcmp(src, dfile) || ln < dl || ln - dl >= PROBE_MAX_SRC_LINES)
				continue;
			has[ln - dl] = 1;
			if (a == f->entry) /* the entry is line 0, as perf numbers it */
				has[0] = 1;
			if (ln > maxl)
				maxl = ln;
		}
	struct buf hb;
	buf_init(&hb, 8192);
	buf_addf(&hb, "<%s@%s:0>", s->func, dfile ? dfile : "?");
	probe_lines_add(lines, n, buf_detach(&hb, NULL));
	FILE *src = dfile ? fopen(dfile, "re") : NULL;
	if (!src) {
		err = err_set(-errno ? -errno : -ENOENT, "cannot read the source file %s: %s",
			      dfile ? dfile : "(unknown)", strerror(errno ? errno : ENOENT));
		free(has);
		free(fs.v);
		ud_ubin_close(&b);
		return err;
	}
	char line[PROBE_SRC_LINE_MAX];
	for (int ln = 1; fgets(line, sizeof(line), src) && ln <= maxl + 1; ln++) {
		if (!strchr(line, '\n')) { /* a line over PROBE_SRC_LINE_MAX: the rest is dropped */
			int ch;
			while ((ch = fgetc(src)) != EOF && ch != '\n')
				;
		}
		if (ln < dl)
			continue;
		line[strcspn(line, "\n")] = '\0';
		buf_init(&hb, 8192);
		if (ln <= maxl && has[ln - dl])
			buf_addf(&hb, "%7d  %s", ln - dl, line);
		else
			buf_addf(&hb, "         %s", line);
		probe_lines_add(lines, n, buf_detach(&hb, NULL));
	}
	fclose(src);
	free(has);
	free(fs.v);
	ud_ubin_close(&b);
	return 0;
}

int probe_user_funcs(const char *binary, const char *glob, char ***lines, size_t *n)
{
	struct ubin b;
	*lines = NULL;
	*n = 0;
	int err = ud_ubin_open(binary, &b);
	if (err)
		return err;
	int ns = dwfl_module_getsymtab(b.mod);
	for (int i = 1; i < ns; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(b.mod, i, &sym, &a, NULL, NULL, NULL);
		int t = GELF_ST_TYPE(sym.st_info);
		if (!s || !*s || sym.st_shndx == SHN_UNDEF || (t != STT_FUNC && t != STT_GNU_IFUNC))
			continue;
		if (glob ? fnmatch(glob, s, 0) != 0 : s[0] == '_')
			continue;
		probe_lines_add(lines, n, xstrdup(s));
	}
	probe_lines_sort_unique(*lines, n);
	ud_ubin_close(&b);
	return 0;
}

/* The line of a line-table row starting exactly at DWARF address pc, or -1. */
static int row_line_at(Dwarf_Die *cu, Dwarf_Addr pc)
{
	Dwarf_Lines *lines;
	size_t nl;
	if (dwarf_getsrclines(cu, &lines, &nl) != 0)
		return -1;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		bool stmt;
		if (!dwarf_lineaddr(l, &a) && a == pc && !dwarf_lineno(l, &ln) &&
		    !dwarf_linebeginstatement(l, &stmt) && stmt)
			return ln;
	}
	return -1;
}

/* The CU's file as perf prints it: its name, under its compilation directory when relative. */
static void cu_path(Dwarf_Die *cu, struct buf *o)
{
	const char *n = ud_cu_file(cu);
	Dwarf_Attribute at;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	if (n[0] != '/' && dir)
		buf_addf(o, "%s/%s", dir, n);
	else
		buf_addstr(o, n);
}

char *probe_user_where(const char *binary, uint64_t offset, bool ret)
{
	struct ubin b;
	err_clear();
	if (ud_ubin_open(binary, &b))
		return NULL;
	GElf_Addr a, start = 0;
	char *r = NULL;
	if (ud_offset_addr(&b, offset, &a)) {
		const char *sym = sym_at(&b, a, &start);
		struct buf o;
		buf_init(&o, 8192);
		Dwarf_Addr bias;
		Dwarf_Die *cu = dwfl_module_addrdie(b.mod, a, &bias);
		/* perf's place: FUNC at the entry, FUNC:RLN where a line starts, else FUNC+OFF */
		int rel = -1;
		if (cu && sym && a != start) {
			int ln = row_line_at(cu, a - bias);
			Dwarf_Die *scopes;
			int ns = ln >= 0 ? dwarf_getscopes(cu, a - bias, &scopes) : 0;
			for (int i = 0; i < ns; i++)
				if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
					rel = ln - ud_decl_line(&scopes[i]);
					break;
				}
			if (ns > 0)
				free(scopes);
		}
		if (!sym)
			buf_addf(&o, "0x%" PRIx64, offset);
		else if (a == start)
			buf_addf(&o, "%s", sym);
		else if (rel >= 0)
			buf_addf(&o, "%s:%d", sym, rel);
		else
			buf_addf(&o, "%s+%" PRIu64, sym, (uint64_t)(a - start));
		if (ret)
			buf_addstr(&o, "%return");
		if (cu) {
			buf_addch(&o, '@');
			cu_path(cu, &o);
		}
		r = buf_detach(&o, NULL);
	}
	ud_ubin_close(&b);
	err_clear();
	return r;
}
