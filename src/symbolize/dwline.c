/*
 * dwline: a DWARF 2-5 line program from the section bytes (symbolize, L5).
 * See dwline.h for the rules.
 */
#include "symbolize/dwline.h"

#include <dwarf.h>
#include <string.h>

#include "symbolize/dwbytes.h"

#define MAX_FILES 1000000 /* file table entries kept per program */

/* The NUL-terminated string at 'off' of a section, or NULL. */
static const char *sec_str(const uint8_t *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len || !memchr(sec + off, '\0', len - off))
		return NULL;
	return (const char *)sec + off;
}

static void add_file(struct dwline_prog *lp, const char *path)
{
	struct dwline_file f = { NULL, 0 };
	if (lp->files.n >= MAX_FILES)
		return;
	if (path) {
		const char *b = strrchr(path, '/');
		f.name = b ? b + 1 : path;
		f.len = strlen(f.name);
	}
	VEC_PUSH(&lp->files, f);
}

/* An inline string within [*p, end): returned and skipped, or NULL. */
static const char *inline_str(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *z = memchr(*p, '\0', (size_t)(end - *p));
	if (!z)
		return NULL;
	const char *s = (const char *)*p;
	*p = z + 1;
	return s;
}

/*
 * One DWARF 5 entry-format value: skipped, its string given for the path
 * forms kiln reads (string, line_strp, strp) and its number for the
 * constant forms. false: a form a line table may not use, or too short.
 */
static bool form_value(const struct dwline_secs *s, const struct dwline_prog *lp, unsigned form,
		       const uint8_t **p, const uint8_t *end, const char **str, uint64_t *num,
		       bool *is_num)
{
	uint64_t n = 0;
	*str = NULL;
	*is_num = false;
	switch (form) {
	case DW_FORM_string:
		*str = inline_str(p, end);
		return *str != NULL;
	case DW_FORM_line_strp:
	case DW_FORM_strp:
		if ((size_t)(end - *p) < lp->offsz)
			return false;
		n = dw_le(p, end, lp->offsz);
		*str = form == DW_FORM_strp ? sec_str(s->str, s->str_len, n) :
					      sec_str(s->line_str, s->line_str_len, n);
		return true;
	case DW_FORM_udata:
		*num = dw_uleb(p, end);
		*is_num = true;
		return true;
	case DW_FORM_sdata:
		*num = (uint64_t)dw_sleb(p, end);
		*is_num = true;
		return true;
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8: {
		unsigned k = form == DW_FORM_data1 ? 1 : form == DW_FORM_data2 ? 2 : form == DW_FORM_data4 ? 4 : 8;
		if ((size_t)(end - *p) < k)
			return false;
		*num = dw_le(p, end, k);
		*is_num = true;
		return true;
	}
	case DW_FORM_data16:
		n = 16;
		break;
	case DW_FORM_block:
		n = dw_uleb(p, end);
		break;
	case DW_FORM_block1:
		n = dw_le(p, end, 1);
		break;
	case DW_FORM_block2:
		n = dw_le(p, end, 2);
		break;
	case DW_FORM_block4:
		n = dw_le(p, end, 4);
		break;
	case DW_FORM_strx:
		dw_uleb(p, end);
		return *p <= end;
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
		n = form - DW_FORM_strx1 + 1;
		break;
	case DW_FORM_sec_offset:
		n = lp->offsz;
		break;
	case DW_FORM_flag:
		n = 1;
		break;
	default:
		return false;
	}
	if (n > (uint64_t)(end - *p))
		return false;
	*p += n;
	return true;
}

/* DWARF 5 directory or file entries: their count checked, each read. */
static bool read_entries(const struct dwline_secs *s, struct dwline_prog *lp, const uint8_t **p,
			 const uint8_t *end, bool files)
{
	unsigned nforms = (unsigned)dw_le(p, end, 1);
	uint64_t desc[256], form[256];
	int path = -1, dir = -1;
	for (unsigned i = 0; i < nforms; i++) {
		if (*p >= end)
			return false;
		desc[i] = dw_uleb(p, end);
		if (*p >= end)
			return false;
		form[i] = dw_uleb(p, end);
		if (desc[i] == DW_LNCT_path)
			path = (int)i;
		else if (desc[i] == DW_LNCT_directory_index)
			dir = (int)i;
	}
	if (nforms && (path < 0 || (files && dir < 0)))
		return false;
	uint64_t count = dw_uleb(p, end);
	if (!nforms && count)
		return false;
	if (nforms && count > (uint64_t)(end - *p) / nforms)
		return false;
	for (uint64_t k = 0; k < count; k++) {
		const char *name = NULL;
		uint64_t diridx = UINT64_MAX;
		for (unsigned i = 0; i < nforms; i++) {
			const char *str;
			uint64_t num = 0;
			bool is_num;
			if (!form_value(s, lp, (unsigned)form[i], p, end, &str, &num, &is_num))
				return false;
			if ((int)i == path)
				name = str;
			else if ((int)i == dir && is_num)
				diridx = num;
		}
		if (!name)
			return false;
		if (files) {
			if (diridx >= lp->ndirs)
				return false;
			add_file(lp, name);
		}
	}
	if (!files)
		lp->ndirs = count;
	return true;
}

/* Before DWARF 5: include directories, then file entries. */
static bool read_v4_tables(struct dwline_prog *lp, const uint8_t **p, const uint8_t *end)
{
	lp->ndirs = 1; /* the compilation directory */
	while (*p < end && **p) {
		if (!inline_str(p, end))
			return false;
		lp->ndirs++;
	}
	if (*p >= end)
		return false;
	(*p)++;
	add_file(lp, NULL); /* no file 0 */
	while (*p < end && **p) {
		const char *name = inline_str(p, end);
		if (!name || *p >= end)
			return false;
		if (dw_uleb(p, end) >= lp->ndirs || *p >= end)
			return false;
		dw_uleb(p, end); /* mtime */
		if (*p >= end)
			return false;
		dw_uleb(p, end); /* length */
		add_file(lp, name);
	}
	if (*p >= end)
		return false;
	(*p)++;
	return true;
}

bool dwline_open(const struct dwline_secs *s, uint64_t off, unsigned cu_asize, bool files,
		 struct dwline_prog *lp)
{
	memset(lp, 0, sizeof(*lp));
	if (!s->line || off >= s->line_len || (cu_asize != 4 && cu_asize != 8))
		return false;
	const uint8_t *p = s->line + off, *end = s->line + s->line_len;
	if (end - p < 4)
		return false;
	uint64_t len = dw_le(&p, end, 4);
	lp->offsz = 4;
	if (len == 0xffffffff) {
		if (end - p < 8)
			return false;
		len = dw_le(&p, end, 8);
		lp->offsz = 8;
	}
	if (len > (uint64_t)(end - p))
		return false;
	end = p + len;
	if (end - p < 2)
		return false;
	lp->version = (unsigned)dw_le(&p, end, 2);
	if (lp->version < 2 || lp->version > 5)
		return false;
	lp->asize = cu_asize;
	if (lp->version >= 5) {
		if (end - p < 2)
			return false;
		unsigned asize = (unsigned)dw_le(&p, end, 1);
		unsigned segsz = (unsigned)dw_le(&p, end, 1);
		if (asize != cu_asize || segsz)
			return false;
	}
	if ((size_t)(end - p) < lp->offsz)
		return false;
	uint64_t hlen = dw_le(&p, end, lp->offsz);
	if (hlen > (uint64_t)(end - p))
		return false;
	const uint8_t *prog = p + hlen;
	if (end - p < (lp->version >= 4 ? 5 : 4) + 1)
		return false;
	lp->min_inst = (unsigned)dw_le(&p, end, 1);
	lp->max_ops = lp->version >= 4 ? (unsigned)dw_le(&p, end, 1) : 1;
	if (!lp->max_ops)
		return false;
	lp->default_is_stmt = dw_le(&p, end, 1) != 0;
	lp->line_base = (int8_t)dw_le(&p, end, 1);
	lp->line_range = (unsigned)dw_le(&p, end, 1);
	lp->opcode_base = (unsigned)dw_le(&p, end, 1);
	if (!lp->opcode_base || (size_t)(end - p) < lp->opcode_base - 1)
		return false;
	for (unsigned i = 1; i < lp->opcode_base; i++)
		lp->oplen[i] = *p++;
	lp->p = prog;
	lp->end = end;
	if (!files)
		return true;
	bool ok = lp->version >= 5 ? read_entries(s, lp, &p, prog, false) &&
					     read_entries(s, lp, &p, prog, true) :
				     read_v4_tables(lp, &p, prog);
	return ok && p == prog; /* the header holds exactly what it says */
}

void dwline_close(struct dwline_prog *lp)
{
	VEC_FREE(&lp->files);
}

struct lstate {
	uint64_t addr, file;
	int64_t line;
	unsigned op_index;
	bool file_set;
};

static void lstate_reset(struct lstate *st)
{
	st->addr = 0;
	st->file = 1;
	st->line = 1;
	st->op_index = 0;
	st->file_set = false;
}

/* The line register wraps as the unsigned arithmetic of other readers does. */
static void line_add(struct lstate *st, int64_t d)
{
	st->line = (int64_t)((uint64_t)st->line + (uint64_t)d);
}

static void advance(const struct dwline_prog *lp, struct lstate *st, uint64_t adv)
{
	if (lp->max_ops == 1) {
		st->addr += lp->min_inst * adv;
		return;
	}
	uint64_t ops = st->op_index + adv;
	st->addr += lp->min_inst * (ops / lp->max_ops);
	st->op_index = (unsigned)(ops % lp->max_ops);
}

static void emit(dwline_row_fn fn, void *arg, const struct lstate *st, bool end)
{
	struct dwline_row r = { st->addr, st->line, st->file, end, st->file_set };
	fn(arg, &r);
}

/* DW_LNE_define_file: a file entry in the program (before DWARF 5). */
static bool define_file(struct dwline_prog *lp, const uint8_t *p, const uint8_t *end)
{
	const char *name = inline_str(&p, end);
	if (!name || p >= end || dw_uleb(&p, end) >= lp->ndirs || p >= end)
		return false;
	add_file(lp, name);
	return true;
}

/* An extended opcode at *p (past its 0 byte). */
static bool extended(struct dwline_prog *lp, struct lstate *st, const uint8_t **pp,
		     dwline_row_fn fn, void *arg)
{
	const uint8_t *p = *pp, *end = lp->end;
	uint64_t n = dw_uleb(&p, end);
	if (!n || n > (uint64_t)(end - p))
		return false;
	const uint8_t *next = p + n;
	unsigned sub = *p++;
	switch (sub) {
	case DW_LNE_end_sequence:
		emit(fn, arg, st, true);
		lstate_reset(st);
		break;
	case DW_LNE_set_address:
		if ((size_t)(next - p) < lp->asize)
			return false;
		st->addr = dw_le(&p, next, lp->asize);
		st->op_index = 0;
		break;
	case DW_LNE_define_file:
		if (lp->version >= 5 || !define_file(lp, p, next))
			return false;
		break;
	default: /* DW_LNE_set_discriminator and unknown ones: skipped */
		break;
	}
	*pp = next;
	return true;
}

/* The standard opcodes' operand counts, as the header must give them. */
static const uint8_t std_len[13] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };

bool dwline_run(struct dwline_prog *lp, dwline_row_fn fn, void *arg)
{
	const uint8_t *p = lp->p, *end = lp->end;
	struct lstate st;
	lstate_reset(&st);
	while (p < end) {
		unsigned op = *p++;
		if (op >= lp->opcode_base) {
			if (!lp->line_range)
				return false;
			unsigned adj = op - lp->opcode_base;
			line_add(&st, lp->line_base + (int64_t)(adj % lp->line_range));
			advance(lp, &st, adj / lp->line_range);
			emit(fn, arg, &st, false);
			continue;
		}
		if (op == 0) {
			if (!extended(lp, &st, &p, fn, arg))
				return false;
			continue;
		}
		if (op < sizeof(std_len) && lp->oplen[op] != std_len[op])
			return false;
		switch (op) {
		case DW_LNS_copy:
			emit(fn, arg, &st, false);
			break;
		case DW_LNS_advance_pc:
			if (p >= end)
				return false;
			advance(lp, &st, dw_uleb(&p, end));
			break;
		case DW_LNS_advance_line:
			if (p >= end)
				return false;
			line_add(&st, dw_sleb(&p, end));
			break;
		case DW_LNS_set_file:
			if (p >= end)
				return false;
			st.file = dw_uleb(&p, end);
			st.file_set = true;
			break;
		case DW_LNS_const_add_pc:
			if (!lp->line_range)
				return false;
			advance(lp, &st, (255 - lp->opcode_base) / lp->line_range);
			break;
		case DW_LNS_fixed_advance_pc:
			if (end - p < 2)
				return false;
			st.addr += dw_le(&p, end, 2);
			st.op_index = 0;
			break;
		case DW_LNS_set_column:
		case DW_LNS_set_isa:
			if (p >= end)
				return false;
			dw_uleb(&p, end);
			break;
		case DW_LNS_negate_stmt:
		case DW_LNS_set_basic_block:
		case DW_LNS_set_prologue_end:
		case DW_LNS_set_epilogue_begin:
			break;
		default: /* an opcode this reader does not know: its operands skipped */
			for (unsigned i = 0; i < lp->oplen[op]; i++) {
				if (p >= end)
					return false;
				dw_uleb(&p, end);
			}
		}
	}
	return true;
}
