/*
 * print: one tracepoint payload as text, the way perf 6.1's libtraceevent
 * prints it (tracefmt, L1). Values are read only from inside the payload:
 * where libtraceevent would read past it, this reads 0 or stops.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tracefmt_int.h"

struct pctx {
	const struct tracefmt *t;
	struct tracefmt_event *e;
	const uint8_t *d;
	size_t size;
	struct buf *out;
};

void tracefmt_set_resolver(struct tracefmt *t, tracefmt_resolve_fn fn, void *arg)
{
	t->resolve = fn;
	t->resolve_arg = arg;
}

static uint64_t read_at(const struct pctx *x, uint64_t off, uint32_t size)
{
	if (off > x->size || size > x->size - off)
		return 0;
	return tf_read_num(x->t, x->d + off, size);
}

/* libtraceevent's dynamic_offset_field */
static void dyn(const struct pctx *x, const struct tf_field *f, uint32_t *offset, uint32_t *len)
{
	*offset = 0;
	*len = 0;
	if (!f || (uint64_t)f->offset + f->size > x->size)
		return;
	uint64_t v = tf_read_num(x->t, x->d + f->offset, f->size);
	uint32_t o = (uint32_t)(v & 0xffff), l;
	if (f->size == 2)
		l = (uint32_t)x->size - o;
	else
		l = (uint32_t)((v >> 16) & 0xffff);
	*offset = o > x->size ? 0 : o;
	*len = (uint64_t)o + l > x->size ? 0 : l;
	if (f->flags & TF_RELATIVE)
		*offset += f->offset + f->size;
}

static uint64_t eval_type(uint64_t val, const char *type, bool pointer)
{
	size_t len = strlen(type);
	if (pointer) {
		if (!len || type[len - 1] != '*' || len < 2)
			return val;
		char tmp[256];
		if (len - 2 >= sizeof(tmp))
			return val;
		memcpy(tmp, type, len - 2);
		tmp[len - 2] = '\0';
		return eval_type(val, tmp, false);
	}
	if (len && type[len - 1] == '*')
		return val;
	if (!strncmp(type, "struct", 6))
		return val;
	if (!strcmp(type, "u8"))
		return val & 0xff;
	if (!strcmp(type, "u16"))
		return val & 0xffff;
	if (!strcmp(type, "u32"))
		return val & 0xffffffff;
	if (!strcmp(type, "u64") || !strcmp(type, "s64"))
		return val;
	if (!strcmp(type, "s8"))
		return (uint64_t)(int8_t)val & 0xff;
	if (!strcmp(type, "s16"))
		return (uint64_t)(int16_t)val & 0xffff;
	if (!strcmp(type, "s32"))
		return (uint64_t)(int32_t)val & 0xffffffff;
	bool sign = true;
	if (!strncmp(type, "unsigned ", 9)) {
		sign = false;
		type += 9;
	}
	if (!strcmp(type, "char"))
		return sign ? (uint64_t)(int8_t)val & 0xff : val & 0xff;
	if (!strcmp(type, "short"))
		return sign ? (uint64_t)(int16_t)val & 0xffff : val & 0xffff;
	if (!strcmp(type, "int"))
		return sign ? (uint64_t)(int32_t)val & 0xffffffff : val & 0xffffffff;
	return val;
}

static uint64_t eval(const struct pctx *x, const struct tf_arg *a)
{
	uint64_t l, r;
	switch (a->type) {
	case TFA_ATOM:
		return strtoull(a->text, NULL, 0);
	case TFA_FIELD:
		if (!a->field)
			return 0;
		return read_at(x, a->field->offset, a->field->size);
	case TFA_TYPE:
		return eval_type(eval(x, a->a), a->text, false);
	case TFA_DYNARRAY_LEN: {
		uint32_t o, n;
		dyn(x, a->field, &o, &n);
		return n;
	}
	case TFA_OP:
		break;
	default:
		return 0;
	}
	const char *op = a->text;
	if (!strcmp(op, "[")) {
		uint64_t right = eval(x, a->b);
		const struct tf_arg *larg = a->a, *typearg = NULL;
		while (larg->type == TFA_TYPE) {
			if (!typearg)
				typearg = larg;
			larg = larg->a;
		}
		uint32_t fsize = x->t->long_size;
		uint64_t off;
		if (larg->type == TFA_DYNARRAY) {
			uint32_t o, n;
			dyn(x, larg->field, &o, &n);
			off = o + right;
			if (larg->field && larg->field->elementsize)
				fsize = larg->field->elementsize;
		} else if (larg->type == TFA_FIELD && larg->field) {
			fsize = larg->field->elementsize;
			off = larg->field->offset + right * larg->field->elementsize;
		} else {
			return 0; /* libtraceevent: "unknown op '['" */
		}
		uint64_t v = read_at(x, off, fsize);
		return typearg ? eval_type(v, typearg->text, true) : v;
	}
	if (!strcmp(op, "?")) {
		l = eval(x, a->a);
		return eval(x, l ? a->b->a : a->b->b);
	}
	l = eval(x, a->a);
	r = eval(x, a->b);
	switch (op[0]) {
	case '!':
		return op[1] == '=' ? l != r : !r;
	case '~':
		return ~r;
	case '|':
		return op[1] ? (l || r) : (l | r);
	case '&':
		return op[1] ? (l && r) : (l & r);
	case '<':
		return op[1] == '<' ? l << (r & 63) : op[1] == '=' ? l <= r : l < r;
	case '>':
		return op[1] == '>' ? l >> (r & 63) : op[1] == '=' ? l >= r : l > r;
	case '=':
		return op[1] == '=' ? l == r : 0;
	case '-':
		return l - r;
	case '+':
		return l + r;
	case '/':
		return r ? l / r : 0;
	case '%':
		return r ? l % r : 0;
	case '*':
		return l * r;
	default:
		return 0; /* libtraceevent: "unknown op" */
	}
}

/* ---- text ---- */

static void put_str(struct pctx *x, const char *fmt, int plen, const char *s)
{
	if (plen >= 0)
		buf_addf(x->out, fmt, plen, s);
	else
		buf_addf(x->out, fmt, s);
}

static long long eval_flag(const char *v)
{
	static const struct {
		const char *name;
		long long value;
	} tab[] = { { "HI_SOFTIRQ", 0 },	{ "TIMER_SOFTIRQ", 1 },	 { "NET_TX_SOFTIRQ", 2 },
		    { "NET_RX_SOFTIRQ", 3 },	{ "BLOCK_SOFTIRQ", 4 },	 { "IRQ_POLL_SOFTIRQ", 5 },
		    { "TASKLET_SOFTIRQ", 6 },	{ "SCHED_SOFTIRQ", 7 },	 { "HRTIMER_SOFTIRQ", 8 },
		    { "RCU_SOFTIRQ", 9 },	{ "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 } };
	if (isdigit((unsigned char)v[0]))
		return (long long)strtoull(v, NULL, 0);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].name, v))
			return tab[i].value;
	return -1;
}

/* A C string at payload offset 'off' (bounded by the payload), into tmp. */
static const char *cstr_at(const struct pctx *x, uint64_t off, size_t maxlen, struct buf *tmp)
{
	buf_reset(tmp);
	if (off >= x->size)
		return "";
	size_t n = x->size - off;
	if (n > maxlen)
		n = maxlen;
	const uint8_t *s = x->d + off;
	const uint8_t *nul = memchr(s, 0, n);
	buf_add(tmp, s, nul ? (size_t)(nul - s) : n);
	return buf_str(tmp);
}

static void print_bitmask(struct pctx *x, const char *fmt, int plen, uint32_t off, uint32_t size)
{
	struct buf s;
	buf_init(&s, 1u << 20);
	/* hex digits, most significant first, a comma every 32 bits */
	for (uint32_t i = size; i-- > 0;) {
		uint32_t idx = x->t->big_endian ? size - (i + 1) : i;
		buf_addf(&s, "%02x", x->d[off + idx]);
		if (i && !(i & 3))
			buf_addch(&s, ',');
	}
	put_str(x, fmt, plen, buf_str(&s));
	buf_release(&s);
}

static void print_str_arg(struct pctx *x, const char *fmt, int plen, const struct tf_arg *a);

static void print_flags_arg(struct pctx *x, const char *fmt, int plen, const struct tf_arg *a)
{
	long long val = (long long)eval(x, a->a);
	bool print = false;
	for (size_t i = 0; i < a->nsyms; i++) {
		long long fv = eval_flag(a->syms[i].value);
		if (!val && fv < 0) {
			put_str(x, fmt, plen, a->syms[i].str);
			break;
		}
		if (fv > 0 && (val & fv) == fv) {
			if (print && a->text)
				buf_addstr(x->out, a->text);
			put_str(x, fmt, plen, a->syms[i].str);
			print = true;
			val &= ~fv;
		}
	}
	if (val) {
		if (print && a->text)
			buf_addstr(x->out, a->text);
		buf_addf(x->out, "0x%llx", (unsigned long long)val);
	}
}

/* The bytes a hex / array helper prints: a dynamic array or a field. */
static bool helper_base(struct pctx *x, const struct tf_arg *f, uint32_t *off)
{
	if (f->type == TFA_DYNARRAY) {
		uint32_t n;
		dyn(x, f->field, off, &n);
		return true;
	}
	if (f->type == TFA_FIELD && f->field) {
		*off = f->field->offset;
		return true;
	}
	return false;
}

static void print_str_arg(struct pctx *x, const char *fmt, int plen, const struct tf_arg *a)
{
	struct buf tmp;
	uint32_t off, len;
	switch (a->type) {
	case TFA_ATOM:
	case TFA_BSTRING:
		put_str(x, fmt, plen, a->text);
		return;
	case TFA_FIELD: {
		const struct tf_field *f = a->field;
		if (!f)
			return;
		uint64_t n = f->size ? f->size : (x->size > f->offset ? x->size - f->offset : 0);
		if (!(f->flags & TF_ARRAY) && f->size == x->t->long_size) {
			uint64_t addr = read_at(x, f->offset, x->t->long_size);
			const struct tf_printk *pk = tf_find_printk(x->t, addr);
			if (pk)
				buf_addstr(x->out, pk->fmt);
			else
				buf_addf(x->out, "%llx", (unsigned long long)addr);
			return;
		}
		buf_init(&tmp, 1u << 20);
		put_str(x, fmt, plen, cstr_at(x, f->offset, (size_t)n, &tmp));
		buf_release(&tmp);
		return;
	}
	case TFA_FLAGS:
		print_flags_arg(x, fmt, plen, a);
		return;
	case TFA_SYMBOL: {
		long long val = (long long)eval(x, a->a);
		for (size_t i = 0; i < a->nsyms; i++) {
			if (val == eval_flag(a->syms[i].value)) {
				put_str(x, fmt, plen, a->syms[i].str);
				return;
			}
		}
		buf_addf(x->out, "0x%llx", (unsigned long long)val);
		return;
	}
	case TFA_HEX:
	case TFA_HEX_STR: {
		if (!helper_base(x, a->a, &off))
			return;
		uint64_t n = eval(x, a->b);
		for (uint64_t i = 0; i < n && off + i < x->size; i++) {
			if (i && a->type == TFA_HEX)
				buf_addch(x->out, ' ');
			buf_addf(x->out, "%02x", x->d[off + i]);
		}
		return;
	}
	case TFA_INT_ARRAY: {
		if (!helper_base(x, a->a, &off))
			return;
		uint64_t n = eval(x, a->b), el = eval(x, a->c);
		uint64_t at = off;
		buf_addch(x->out, '{');
		for (uint64_t i = 0; i < n && at < x->size; i++) {
			if (i)
				buf_addch(x->out, ',');
			if (el == 1 || el == 2 || el == 4 || el == 8) {
				uint64_t v = 0;
				if (at + el <= x->size)
					memcpy(&v, x->d + at, (size_t)el); /* host order, as perf */
				if (el == 8)
					buf_addf(x->out, "0x%" PRIx64, v);
				else
					buf_addf(x->out, "0x%x", (unsigned)v);
			} else {
				buf_addf(x->out, "BAD SIZE:%d 0x%x", (int)el, x->d[at]);
				el = 1;
			}
			at += el;
		}
		buf_addch(x->out, '}');
		return;
	}
	case TFA_STRING:
		dyn(x, a->field, &off, &len);
		if (!a->field || !len)
			return;
		buf_init(&tmp, 1u << 20);
		put_str(x, fmt, plen, cstr_at(x, off, x->size, &tmp));
		buf_release(&tmp);
		return;
	case TFA_BITMASK:
		if (!a->field)
			return;
		dyn(x, a->field, &off, &len);
		if ((uint64_t)off + len <= x->size)
			print_bitmask(x, fmt, plen, off, len);
		return;
	case TFA_OP:
		if (a->text[0] != '?')
			return;
		print_str_arg(x, fmt, plen, eval(x, a->a) ? a->b->a : a->b->b);
		return;
	default:
		return;
	}
}

/* Field widths and precisions (written or from '*') are capped, so a
 * hostile format cannot make one conversion print gigabytes of padding. */
#define TF_MAX_WIDTH 4096

static bool width_ok(const char *fmt)
{
	for (const char *p = fmt; *p;) {
		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		long v = 0;
		while (*p >= '0' && *p <= '9') {
			if (v <= TF_MAX_WIDTH)
				v = v * 10 + (*p - '0');
			p++;
		}
		if (v > TF_MAX_WIDTH)
			return false;
	}
	return true;
}

static void print_number(struct pctx *x, const char *fmt, int plen, int ls, uint64_t v)
{
#define P(cast)                                                         \
	do {                                                            \
		if (plen >= 0)                                          \
			buf_addf(x->out, fmt, plen, (cast)v);           \
		else                                                    \
			buf_addf(x->out, fmt, (cast)v);                 \
	} while (0)
	switch (ls) {
	case -2:
		P(char);
		break;
	case -1:
		P(short);
		break;
	case 0:
		P(int);
		break;
	case 1:
		P(long);
		break;
	case 2:
		P(long long);
		break;
	default:
		break;
	}
#undef P
}

static const uint8_t *field_bytes(const struct pctx *x, const struct tf_arg *a, uint32_t want)
{
	while (a->type == TFA_TYPE)
		a = a->a;
	if (a->type != TFA_FIELD || !a->field || a->field->size != want ||
	    (uint64_t)a->field->offset + want > x->size)
		return NULL;
	return x->d + a->field->offset;
}

static void print_ip4(struct pctx *x, char i, bool reverse, const uint8_t *b)
{
	const char *f = i == 'i' ? "%03d.%03d.%03d.%03d" : "%d.%d.%d.%d";
	if (reverse)
		buf_addf(x->out, f, b[3], b[2], b[1], b[0]);
	else
		buf_addf(x->out, f, b[0], b[1], b[2], b[3]);
}

static void print_ip6(struct pctx *x, char i, const uint8_t *b)
{
	for (int j = 0; j < 16; j += 2) {
		buf_addf(x->out, "%02x%02x", b[j], b[j + 1]);
		if (i == 'I' && j < 14)
			buf_addch(x->out, ':');
	}
}

static void print_ip6c(struct pctx *x, const uint8_t *a)
{
	uint16_t w[8];
	for (int i = 0; i < 8; i++)
		w[i] = (uint16_t)(a[2 * i] << 8 | a[2 * i + 1]);
	bool v4 = (!w[0] && !w[1] && !w[2] && !w[3] && !w[4] && w[5] == 0xffff) ||
		  ((w[4] | 0x0200) == 0x0200 && w[5] == 0x5efe);
	int range = v4 ? 6 : 8, longest = 1, colonpos = -1;
	for (int i = 0; i < range; i++) {
		int z = 0;
		for (int j = i; j < range && !w[j]; j++)
			z++;
		if (z > longest) {
			longest = z;
			colonpos = i;
		}
	}
	bool need = false;
	for (int i = 0; i < range; i++) {
		if (i == colonpos) {
			if (need || i == 0)
				buf_addch(x->out, ':');
			buf_addch(x->out, ':');
			need = false;
			i += longest - 1;
			continue;
		}
		if (need)
			buf_addch(x->out, ':');
		uint8_t hi = (uint8_t)(w[i] >> 8), lo = (uint8_t)w[i];
		if (hi)
			buf_addf(x->out, "%x%02x", hi, lo);
		else
			buf_addf(x->out, "%x", lo);
		need = true;
	}
	if (v4) {
		if (need)
			buf_addch(x->out, ':');
		print_ip4(x, 'I', false, a + 12);
	}
}

/* %p and its extensions; 'f' points just past the 'p'. */
static void print_pointer(struct pctx *x, const char *f, int plen, const struct tf_arg *a)
{
	if (a->type == TFA_BSTRING) {
		buf_addstr(x->out, a->text);
		return;
	}
	const uint8_t *b;
	switch (*f) {
	case 'F':
	case 'f':
	case 'S':
	case 's': {
		uint64_t v = eval(x, a), start = 0;
		const char *name = x->t->resolve ? x->t->resolve(x->t->resolve_arg, v, &start) : NULL;
		if (name) {
			buf_addstr(x->out, name);
			if (*f == 'F' || *f == 'S')
				buf_addf(x->out, "+0x%llx", (unsigned long long)(v - start));
		} else if (x->t->long_size == 4) {
			buf_addf(x->out, "0x%lx", (long)v);
		} else {
			buf_addf(x->out, "0x%llx", (long long)v);
		}
		return;
	}
	case 'M':
	case 'm': {
		const char *fmt = "%.2x:%.2x:%.2x:%.2x:%.2x:%.2x";
		if (f[0] == 'm')
			fmt = "%.2x%.2x%.2x%.2x%.2x%.2x";
		else if (f[1] == 'F')
			fmt = "%.2x-%.2x-%.2x-%.2x-%.2x-%.2x";
		if (!(b = field_bytes(x, a, 6))) {
			buf_addstr(x->out, "INVALIDMAC");
			return;
		}
		if (f[1] == 'R')
			buf_addf(x->out, fmt, b[5], b[4], b[3], b[2], b[1], b[0]);
		else
			buf_addf(x->out, fmt, b[0], b[1], b[2], b[3], b[4], b[5]);
		return;
	}
	case 'I':
	case 'i': {
		char i = f[0];
		if (f[1] == '4' || f[1] == '6') {
			bool reverse = f[2] == 'h' ? !x->t->big_endian : f[2] == 'l';
			if (!(b = field_bytes(x, a, f[1] == '4' ? 4 : 16))) {
				buf_addstr(x->out, f[1] == '4' ? "INVALIDIPv4" : "INVALIDIPv6");
				return;
			}
			if (f[1] == '4')
				print_ip4(x, i, reverse, b);
			else if (i == 'I' && f[2] == 'c')
				print_ip6c(x, b);
			else
				print_ip6(x, i, b);
			return;
		}
		if (f[1] == 'S') {
			const char *q = f + 2;
			bool have_p = false, have_c = false;
			if (i == 'I' && *q == 'p')
				have_p = true, q++;
			if (i == 'I' && *q == 'c')
				have_c = true, q++;
			bool reverse = *q == 'h' ? !x->t->big_endian : *q == 'l';
			uint32_t off, len;
			const struct tf_arg *s = a;
			while (s->type == TFA_TYPE)
				s = s->a;
			if (s->type == TFA_FIELD && s->field) {
				off = s->field->offset;
				len = s->field->size;
			} else if (s->type == TFA_DYNARRAY) {
				dyn(x, s->field, &off, &len);
			} else {
				buf_addf(x->out, "ARG NOT FIELD NOR DYNAMIC ARRAY BUT TYPE %d",
					 (int)s->type);
				return;
			}
			if ((uint64_t)off + 2 > x->size)
				return;
			const uint8_t *sa = x->d + off;
			uint16_t fam;
			memcpy(&fam, sa, 2);
			if (fam == 2) { /* AF_INET */
				if (len < 16 || (uint64_t)off + 16 > x->size) {
					buf_addstr(x->out, "INVALIDIPv4");
					return;
				}
				print_ip4(x, i, reverse, sa + 4);
				if (have_p)
					buf_addf(x->out, ":%d", sa[2] << 8 | sa[3]);
			} else if (fam == 10) { /* AF_INET6 */
				if (len < 28 || (uint64_t)off + 28 > x->size) {
					buf_addstr(x->out, "INVALIDIPv6");
					return;
				}
				if (have_p)
					buf_addch(x->out, '[');
				if (have_c)
					print_ip6c(x, sa + 8);
				else
					print_ip6(x, i, sa + 8);
				if (have_p)
					buf_addf(x->out, "]:%d", sa[2] << 8 | sa[3]);
			}
		}
		return;
	}
	case 'U': {
		static const int guid[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
		const char *fmt = (f[1] == 'L' || f[1] == 'B') ? "%02X" : "%02x";
		bool g = f[1] == 'L' || f[1] == 'l';
		if (!(b = field_bytes(x, a, 16))) {
			buf_addstr(x->out, "INVALIDUUID");
			return;
		}
		for (int i = 0; i < 16; i++) {
			buf_addf(x->out, fmt, b[g ? guid[i] : i]);
			if (i == 3 || i == 5 || i == 7 || i == 9)
				buf_addch(x->out, '-');
		}
		return;
	}
	case 'h': {
		const char *delim = f[1] == 'C' ? ":" : f[1] == 'D' ? "-" : f[1] == 'N' ? "" : " ";
		if (a->type != TFA_DYNARRAY) {
			buf_addf(x->out, "ARG TYPE NOT FIELD BUT %d", (int)a->type);
			return;
		}
		uint32_t off, len;
		dyn(x, a->field, &off, &len);
		int n = plen;
		if ((int64_t)len < n)
			n = (int)len;
		for (int i = 0; i < n && off + (uint32_t)i < x->size; i++)
			buf_addf(x->out, i ? "%s%02x" : "%.0s%02x", delim, x->d[off + (uint32_t)i]);
		return;
	}
	default:
		buf_addf(x->out, "%p", (void *)(uintptr_t)eval(x, a));
		return;
	}
}

/* libtraceevent's parse_arg_format_pointer: letters after 'p' that belong to it. */
static int pointer_suffix(const char *f)
{
	int ret = 0, index;
	switch (*f) {
	case 'F':
	case 'S':
	case 'f':
	case 's':
		return 1;
	case 'M':
	case 'm':
		return (f[1] == 'R' || f[1] == 'F') ? 2 : 1;
	case 'I':
	case 'i':
		index = 2;
		switch (f[1]) {
		case 'S':
			while (f[index] == 'p' || f[index] == 'f' || f[index] == 's')
				ret++, index++;
			/* fall through */
		case '4':
			if (f[index] == 'h' || f[index] == 'n' || f[index] == 'l' || f[index] == 'b')
				ret++, index++;
			if (f[1] == '4') {
				ret++;
				break;
			}
			/* fall through */
		case '6':
			if (f[index] == 'c')
				ret++;
			ret++;
			break;
		default:
			break;
		}
		return ret + 1;
	case 'U':
		return (f[1] == 'L' || f[1] == 'l' || f[1] == 'B' || f[1] == 'b') ? 2 : 1;
	case 'h':
		return (f[1] == 'C' || f[1] == 'D' || f[1] == 'N') ? 2 : 1;
	default:
		return 0;
	}
}

/*
 * Walk the format string against the arguments (perf's parse_args, then
 * print_event_cache). With x->out NULL only the walk is done: false when
 * perf would mark the event failed.
 */
static bool walk(struct pctx *x)
{
	const char *f = x->e->fmt;
	const struct tf_arg *arg = x->e->args;
	bool dry = x->out == NULL;
	while (*f) {
		if (!(*f == '%' && f[1] != '%')) {
			/* literal text, escapes resolved */
			for (; *f; f++) {
				char c = *f;
				if (c == '\\') {
					f++;
					c = *f == 'n' ? '\n' : *f == 't' ? '\t' : *f == 'r' ? '\r' : *f;
					if (!c)
						return true;
				} else if (c == '%') {
					if (f[1] != '%')
						break;
					f++;
				}
				if (!dry)
					buf_addch(x->out, c);
			}
			continue;
		}
		const char *start = f++;
		const struct tf_arg *len_arg = NULL;
		int ls = 0;
		for (;; f++) {
			char c = *f;
			if (!c)
				return true;
			if (c == '#' || c == '.' || c == '-' || c == '+' || (c >= '0' && c <= '9'))
				continue;
			if (c == 'h') {
				ls--;
				continue;
			}
			if (c == 'l') {
				ls++;
				continue;
			}
			if (c == 'L') {
				ls = 2;
				continue;
			}
			if (c == 'z' || c == 'Z') {
				ls = 1;
				continue;
			}
			if (c == '*') {
				if (!arg || len_arg)
					return false;
				len_arg = arg;
				arg = arg->next;
				continue;
			}
			break;
		}
		char c = *f;
		char fmt[32];
		size_t n;
		int plen = -1;
		if (c == 'p' || c == 'c' || c == 'd' || c == 'u' || c == 'i' || c == 'x' ||
		    c == 'X' || c == 'o' || c == 's') {
			if (!arg)
				return false;
			if (c == 'p')
				f += pointer_suffix(f + 1);
			n = (size_t)(f + 1 - start);
			if (n > 31)
				return false; /* "bad format!" */
			memcpy(fmt, start, n);
			fmt[n] = '\0';
			if (c != 'p' && c != 's' && (ls < -2 || ls > 2))
				return false;
			if (!width_ok(fmt))
				return false; /* a width or precision past TF_MAX_WIDTH */
			if (!dry) {
				if (len_arg) { /* a '*' width, clamped like a written one */
					int64_t w = (int64_t)eval(x, len_arg);
					plen = w < 0 ? 0 : w > TF_MAX_WIDTH ? TF_MAX_WIDTH : (int)w;
				}
				if (c == 'p')
					print_pointer(x, strchr(fmt, 'p') + 1, len_arg ? plen : 1, arg);
				else if (c == 's')
					print_str_arg(x, fmt, plen, arg);
				else
					print_number(x, fmt, plen, ls, eval(x, arg));
			}
			arg = arg->next;
			f++;
			continue;
		}
		if (!dry)
			buf_addf(x->out, ">%c<", c);
		f++;
	}
	return true;
}

bool tf_check_args(struct tracefmt_event *e)
{
	struct pctx x = { .e = e };
	return walk(&x);
}

static bool printable(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len && p[i]; i++)
		if (!isprint(p[i]) && !isspace(p[i]))
			return false;
	return true;
}

/* libtraceevent's raw field printing ("[FAILED TO PARSE]" events). */
static void print_field_raw(struct pctx *x, struct tf_field *f)
{
	if (f->flags & TF_ARRAY) {
		uint32_t off, len;
		if (f->flags & TF_DYNAMIC) {
			dyn(x, f, &off, &len);
		} else {
			off = f->offset;
			len = f->size;
		}
		if ((uint64_t)off > x->size)
			off = (uint32_t)x->size;
		size_t avail = x->size - off;
		if ((f->flags & TF_STRING) && printable(x->d + off, len < avail ? len : avail)) {
			struct buf tmp;
			buf_init(&tmp, 1u << 20);
			buf_addstr(x->out, cstr_at(x, off, avail, &tmp));
			buf_release(&tmp);
		} else {
			buf_addstr(x->out, "ARRAY[");
			for (uint32_t i = 0; i < len && i < avail; i++)
				buf_addf(x->out, i ? ", %02x" : "%02x", x->d[off + i]);
			buf_addch(x->out, ']');
			f->flags &= ~(unsigned)TF_STRING; /* perf's print forgets it for later events */
		}
		return;
	}
	uint64_t v = read_at(x, f->offset, f->size);
	if (f->flags & TF_POINTER) {
		buf_addf(x->out, "0x%llx", (unsigned long long)v);
	} else if (f->flags & TF_SIGNED) {
		switch (f->size) {
		case 4:
			buf_addf(x->out, (f->flags & TF_LONG) ? "0x%x" : "%d", (int)v);
			break;
		case 2:
			buf_addf(x->out, "%2d", (short)v);
			break;
		case 1:
			buf_addf(x->out, "%1d", (char)v);
			break;
		default:
			buf_addf(x->out, "%lld", (long long)v);
		}
	} else {
		buf_addf(x->out, (f->flags & TF_LONG) ? "0x%llx" : "%llu", (unsigned long long)v);
	}
}

int tracefmt_print(const struct tracefmt *t, const struct tracefmt_event *ce, const uint8_t *raw,
		   size_t len, struct buf *out)
{
	struct tracefmt_event *e = (struct tracefmt_event *)ce; /* raw printing updates field flags */
	struct pctx x = { .t = t, .e = e, .d = raw, .size = len, .out = out };
	size_t before = out->len;
	if (e->failed) {
		buf_addstr(out, "[FAILED TO PARSE]");
		for (size_t i = e->ncommon; i < e->nfields; i++) {
			buf_addf(out, " %s=", e->fields[i].name);
			print_field_raw(&x, &e->fields[i]);
		}
	} else {
		walk(&x);
	}
	(void)before;
	return out->len >= out->max ? -E2BIG : 0;
}
