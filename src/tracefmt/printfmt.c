/*
 * printfmt: a print fmt's argument list → an argument tree (tracefmt, L1).
 *
 * The tokens are libtraceevent's (items, quoted strings, delimiters,
 * operators); the grammar is C's expression grammar restricted to what
 * event formats use: REC->field, numbers and names, casts, unary and
 * binary operators with C precedence, a ? b : c, array indexing, and the
 * helpers libtraceevent knows. Anything else makes the parse fail, and
 * the event then prints as perf prints an event it could not parse.
 * Bounded: TF_MAX_ARGS nodes, TF_MAX_DEPTH nesting.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "tracefmt/tracefmt_int.h"

enum tok_type { T_END, T_ITEM, T_DQUOTE, T_SQUOTE, T_DELIM, T_OP, T_BAD };

struct tok {
	enum tok_type type;
	const char *s; /* points into the text (quotes stripped for strings) */
	size_t n;
};

struct parser {
	struct tracefmt_event *e;
	const char *text;
	size_t len, pos;
	struct tok cur;
	int depth;
	bool bad;
	char **owned; /* joined string tokens ("APIC_" "ID"), freed with the parser */
	size_t nowned;
};

static void next(struct parser *p)
{
	const char *t = p->text;
	while (p->pos < p->len && isspace((unsigned char)t[p->pos]))
		p->pos++;
	struct tok k = { T_END, t + p->pos, 0 };
	if (p->pos >= p->len) {
		p->cur = k;
		return;
	}
	char c = t[p->pos];
	size_t s = p->pos;
	if (isalnum((unsigned char)c) || c == '_') {
		while (p->pos < p->len &&
		       (isalnum((unsigned char)t[p->pos]) || t[p->pos] == '_'))
			p->pos++;
		k.type = T_ITEM;
	} else if (c == '"' || c == '\'') {
		/* a quoted string; adjacent double-quoted strings join, as libtraceevent's */
		struct buf joined;
		bool multi = false;
		buf_init(&joined, 1u << 20);
		for (;;) {
			char last = 0;
			p->pos++;
			s = p->pos;
			for (;;) {
				if (p->pos >= p->len) {
					buf_release(&joined);
					k.type = T_BAD;
					p->cur = k;
					return;
				}
				char ch = t[p->pos++];
				if (ch == c && last != '\\')
					break;
				last = (ch == '\\' && last == '\\') ? 0 : ch;
			}
			buf_add(&joined, t + s, p->pos - 1 - s);
			if (c != '"')
				break;
			size_t q = p->pos;
			while (q < p->len && isspace((unsigned char)t[q]))
				q++;
			if (q >= p->len || t[q] != '"')
				break;
			p->pos = q;
			multi = true;
		}
		k.type = c == '"' ? T_DQUOTE : T_SQUOTE;
		if (multi) {
			p->owned = xreallocarray(p->owned, p->nowned + 1, sizeof(*p->owned));
			k.n = joined.len;
			k.s = p->owned[p->nowned++] = buf_detach(&joined, NULL);
		} else {
			k.s = t + s;
			k.n = p->pos - 1 - s;
			buf_release(&joined);
		}
		p->cur = k;
		return;
	} else if (c == '(' || c == ')' || c == ',') {
		p->pos++;
		k.type = T_DELIM;
	} else if (isprint((unsigned char)c)) {
		/* libtraceevent's operators: "->", doubled + | & > <, then an optional '=' */
		char nc = p->pos + 1 < p->len ? t[p->pos + 1] : 0;
		k.type = T_OP;
		p->pos++;
		bool eq = false;
		if (c == '-' && nc == '>') {
			p->pos++;
		} else if (strchr("+|&><", c)) {
			if (nc == c) {
				p->pos++;
				eq = c == '>' || c == '<';
			} else {
				eq = true;
			}
		} else if (c == '!' || c == '=') {
			eq = true;
		}
		if (eq && p->pos < p->len && t[p->pos] == '=')
			p->pos++;
	} else {
		k.type = T_BAD;
		p->pos++;
	}
	k.s = t + s;
	k.n = p->pos - s;
	p->cur = k;
}

static bool is(const struct parser *p, enum tok_type type, const char *s)
{
	return p->cur.type == type && p->cur.n == strlen(s) && !memcmp(p->cur.s, s, p->cur.n);
}

static struct tf_arg *node(struct parser *p, enum tf_arg_type type)
{
	struct tracefmt_event *e = p->e;
	if (e->npool >= TF_MAX_ARGS) {
		p->bad = true;
		return NULL;
	}
	if (e->npool == e->poolcap) {
		e->poolcap = e->poolcap ? e->poolcap * 2 : 16;
		e->pool = xreallocarray(e->pool, e->poolcap, sizeof(*e->pool));
	}
	struct tf_arg *a = xcalloc(1, sizeof(*a));
	e->pool[e->npool++] = a;
	a->type = type;
	return a;
}

static char *tokstr(const struct tok *k)
{
	return xstrndup(k->s, k->n);
}

/*
 * The parser follows libtraceevent's process_arg / process_op step by
 * step, quirks included, because perf prints what that parser builds: a
 * binary operator takes only a primary as its right operand, then
 * "rotates" when that operand is itself an operator of lower priority
 * (a parenthesised one too); operators of equal priority group to the
 * right; the else branch of a ?: is a primary. p->cur is always the next
 * token not yet taken.
 */

static struct tok take(struct parser *p)
{
	struct tok k = p->cur;
	next(p);
	return k;
}

static bool tok_is(const struct tok *k, enum tok_type type, const char *s)
{
	return k->type == type && k->n == strlen(s) && !memcmp(k->s, s, k->n);
}

static bool item_type(const struct tok *k)
{
	return k->type == T_ITEM || k->type == T_DQUOTE || k->type == T_SQUOTE;
}

static int op_prio(const char *op)
{
	if (!op[0])
		return -1;
	if (!op[1]) {
		switch (op[0]) {
		case '~':
		case '!':
			return 4;
		case '*':
		case '/':
		case '%':
			return 6;
		case '+':
		case '-':
			return 7;
		case '<':
		case '>':
			return 9;
		case '&':
			return 11;
		case '^':
			return 12;
		case '|':
			return 13;
		case '?':
			return 16;
		default:
			return -1;
		}
	}
	if (!strcmp(op, "++") || !strcmp(op, "--"))
		return 3;
	if (!strcmp(op, ">>") || !strcmp(op, "<<"))
		return 8;
	if (!strcmp(op, ">=") || !strcmp(op, "<="))
		return 9;
	if (!strcmp(op, "==") || !strcmp(op, "!="))
		return 10;
	if (!strcmp(op, "&&"))
		return 14;
	if (!strcmp(op, "||"))
		return 15;
	return -1;
}

/* Move a node's content into a fresh node (libtraceevent's "*left = *arg"). */
static struct tf_arg *move_out(struct parser *p, struct tf_arg *arg)
{
	struct tf_arg *n = node(p, TFA_NULL);
	if (!n)
		return NULL;
	struct tf_arg *keep_next = arg->next;
	*n = *arg;
	n->next = NULL;
	memset(arg, 0, sizeof(*arg));
	arg->next = keep_next;
	return n;
}

static bool arg_token(struct parser *p, struct tf_arg *arg, struct tok k);
static bool op(struct parser *p, struct tf_arg *arg, struct tok optok);

static bool deeper(struct parser *p)
{
	if (++p->depth > TF_MAX_DEPTH || p->bad) {
		p->bad = true;
		return false;
	}
	return true;
}

static bool parg(struct parser *p, struct tf_arg *arg)
{
	return arg_token(p, arg, take(p));
}

/* libtraceevent's arg_num_eval (flag and symbol values) */
static bool num_eval(const struct tf_arg *a, long long *v, int depth)
{
	long long l = 0, r = 0;
	if (depth > TF_MAX_DEPTH)
		return false;
	switch (a->type) {
	case TFA_ATOM:
		*v = strtoll(a->text, NULL, 0);
		return true;
	case TFA_TYPE: {
		if (!num_eval(a->a, v, depth + 1))
			return false;
		return true; /* eval_type of a constant: masks only for small types */
	}
	case TFA_OP:
		break;
	default:
		return false;
	}
	const char *o = a->text;
	bool unary_ok = (o[0] == '-' || o[0] == '+') && !o[1];
	if (o[0] != '~') {
		if (unary_ok && a->a->type == TFA_NULL)
			l = 0;
		else if (!num_eval(a->a, &l, depth + 1))
			return false;
	}
	if (!num_eval(a->b, &r, depth + 1))
		return false;
	switch (o[0]) {
	case '|':
		*v = o[1] ? (l || r) : (l | r);
		return true;
	case '&':
		*v = o[1] ? (l && r) : (l & r);
		return true;
	case '<':
		if (!o[1])
			*v = l < r;
		else if (o[1] == '<')
			*v = (long long)((unsigned long long)l << (r & 63));
		else if (o[1] == '=')
			*v = l <= r;
		else
			return false;
		return true;
	case '>':
		if (!o[1])
			*v = l > r;
		else if (o[1] == '>')
			*v = l >> (r & 63);
		else if (o[1] == '=')
			*v = l >= r;
		else
			return false;
		return true;
	case '=':
		if (o[1] != '=')
			return false;
		*v = l == r;
		return true;
	case '!':
		if (o[1] != '=')
			return false;
		*v = l != r;
		return true;
	case '-':
		*v = (long long)((unsigned long long)l - (unsigned long long)r);
		return true;
	case '+':
		*v = (long long)((unsigned long long)l + (unsigned long long)r);
		return true;
	case '~':
		*v = ~r;
		return true;
	default:
		return false;
	}
}

/* libtraceevent's arg_eval: a flag / symbol value or string as text; NULL: fails. */
static char *arg_text(const struct tf_arg *a)
{
	while (a->type == TFA_TYPE)
		a = a->a;
	if (a->type == TFA_ATOM)
		return xstrdup(a->text);
	long long v;
	if (a->type != TFA_OP || !num_eval(a, &v, 0))
		return NULL;
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	return xstrdup(buf);
}

static bool fields_list(struct parser *p, struct tf_arg *a)
{
	size_t cap = 0;
	do {
		take(p); /* the ',' before this entry */
		if (!is(p, T_OP, "{"))
			break;
		take(p);
		struct tf_arg *v = node(p, TFA_NULL), *str = node(p, TFA_NULL);
		if (!v || !str || !parg(p, v))
			return false;
		if (p->cur.type == T_OP && !op(p, v, take(p)))
			return false;
		if (!is(p, T_DELIM, ","))
			return false;
		char *val = arg_text(v);
		if (!val)
			return false;
		take(p);
		if (!parg(p, str) || !is(p, T_OP, "}")) {
			free(val);
			return false;
		}
		char *sv = arg_text(str);
		if (!sv) {
			free(val);
			return false;
		}
		if (a->nsyms == cap) {
			cap = cap ? cap * 2 : 8;
			a->syms = xreallocarray(a->syms, cap, sizeof(*a->syms));
		}
		a->syms[a->nsyms].value = val;
		a->syms[a->nsyms].str = sv;
		a->nsyms++;
		take(p); /* '}' */
	} while (is(p, T_DELIM, ","));
	return true;
}

static bool field_arg(struct parser *p, struct tf_arg *f)
{
	if (!parg(p, f))
		return false;
	while (!p->bad && p->cur.type == T_OP)
		if (!op(p, f, take(p)))
			return false;
	return !p->bad;
}

/* process_hex_common / process_int_array: n arguments, each a primary. */
static bool delim_args(struct parser *p, struct tf_arg **slots, int n)
{
	for (int i = 0; i < n; i++) {
		struct tf_arg *a = node(p, TFA_NULL);
		if (!a || !parg(p, a) || !is(p, T_DELIM, i == n - 1 ? ")" : ","))
			return false;
		take(p);
		slots[i] = a;
	}
	return true;
}

/* helper(item) forms */
static bool named_item(struct parser *p, struct tf_arg *arg, enum tf_arg_type type, bool any,
		       bool need)
{
	struct tok k = take(p);
	if (k.type != T_ITEM)
		return false;
	arg->type = type;
	arg->text = tokstr(&k);
	if (any) {
		arg->field = tf_find_field(p->e, arg->text);
	} else {
		for (size_t i = p->e->ncommon; i < p->e->nfields; i++)
			if (!strcmp(p->e->fields[i].name, arg->text))
				arg->field = &p->e->fields[i];
	}
	if (need && !arg->field)
		return false;
	struct tok c = take(p);
	return tok_is(&c, T_DELIM, ")");
}

static bool function(struct parser *p, struct tf_arg *arg, const struct tok *name)
{
	char fn[64];
	if (name->n >= sizeof(fn))
		return false;
	memcpy(fn, name->s, name->n);
	fn[name->n] = '\0';
	if (!strcmp(fn, "__print_flags") || !strcmp(fn, "__print_symbolic")) {
		bool flags = fn[8] == 'f';
		arg->type = flags ? TFA_FLAGS : TFA_SYMBOL;
		struct tf_arg *f = node(p, TFA_NULL);
		if (!f || !field_arg(p, f))
			return false;
		if (flags)
			while (p->cur.type == T_OP)
				if (!op(p, f, take(p)))
					return false;
		if (!is(p, T_DELIM, ","))
			return false;
		arg->a = f;
		if (flags) {
			take(p);
			if (item_type(&p->cur))
				arg->text = tokstr(&p->cur), take(p);
			if (!is(p, T_DELIM, ","))
				return false;
		}
		if (!fields_list(p, arg) || !is(p, T_DELIM, ")"))
			return false;
		take(p);
		return true;
	}
	if (!strcmp(fn, "__print_hex") || !strcmp(fn, "__print_hex_str")) {
		struct tf_arg *s2[2];
		arg->type = fn[11] ? TFA_HEX_STR : TFA_HEX;
		if (!delim_args(p, s2, 2))
			return false;
		arg->a = s2[0];
		arg->b = s2[1];
		return true;
	}
	if (!strcmp(fn, "__print_array")) {
		struct tf_arg *s3[3];
		arg->type = TFA_INT_ARRAY;
		if (!delim_args(p, s3, 3))
			return false;
		arg->a = s3[0];
		arg->b = s3[1];
		arg->c = s3[2];
		return true;
	}
	if (!strcmp(fn, "__get_str") || !strcmp(fn, "__get_rel_str"))
		return named_item(p, arg, TFA_STRING, true, false);
	if (!strcmp(fn, "__get_bitmask") || !strcmp(fn, "__get_rel_bitmask"))
		return named_item(p, arg, TFA_BITMASK, true, false);
	if (!strcmp(fn, "__get_dynamic_array") || !strcmp(fn, "__get_rel_dynamic_array")) {
		if (!named_item(p, arg, TFA_DYNARRAY, false, true))
			return false;
		/* libtraceevent rejects an index after it */
		return !is(p, T_OP, "[");
	}
	if (!strcmp(fn, "__get_dynamic_array_len") || !strcmp(fn, "__get_rel_dynamic_array_len"))
		return named_item(p, arg, TFA_DYNARRAY_LEN, false, true);
	if (!strcmp(fn, "__builtin_expect")) {
		if (!parg(p, arg) || !(p->cur.type == T_DELIM && p->cur.s[0] == ','))
			return false;
		take(p);
		struct tok k = take(p);
		struct tok c = take(p);
		return k.type == T_ITEM && tok_is(&c, T_DELIM, ")");
	}
	return false; /* "function ... not defined" */
}

static bool paren(struct parser *p, struct tf_arg *arg)
{
	if (!parg(p, arg))
		return false;
	if (p->cur.type == T_OP && !op(p, arg, take(p)))
		return false;
	if (!is(p, T_DELIM, ")"))
		return false;
	take(p);
	if (item_type(&p->cur) || is(p, T_DELIM, "(")) {
		if (arg->type != TFA_ATOM)
			return false;
		struct tf_arg *item = node(p, TFA_NULL);
		if (!item)
			return false;
		arg->type = TFA_TYPE; /* the atom's text becomes the type */
		arg->a = item;
		return arg_token(p, item, take(p));
	}
	return true;
}

static bool arg_token(struct parser *p, struct tf_arg *arg, struct tok k)
{
	if (!deeper(p))
		return false;
	bool ok = false;
	switch (k.type) {
	case T_ITEM:
		if (k.n == 3 && !memcmp(k.s, "REC", 3)) {
			struct tok arrow = take(p), name = take(p);
			if (!tok_is(&arrow, T_OP, "->") || name.type != T_ITEM)
				break;
			arg->type = TFA_FIELD;
			arg->text = tokstr(&name);
			arg->field = tf_find_field(p->e, arg->text);
			ok = true;
			break;
		}
		if (is(p, T_DELIM, "(")) {
			take(p);
			ok = function(p, arg, &k);
			break;
		}
		{
			struct buf b;
			buf_init(&b, 4096);
			buf_add(&b, k.s, k.n);
			while (p->cur.type == T_ITEM) {
				buf_addch(&b, ' ');
				buf_add(&b, p->cur.s, p->cur.n);
				take(p);
			}
			arg->type = TFA_ATOM;
			arg->text = buf_detach(&b, NULL);
			ok = true;
		}
		break;
	case T_DQUOTE:
	case T_SQUOTE:
		arg->type = TFA_ATOM;
		arg->text = tokstr(&k);
		ok = true;
		break;
	case T_DELIM:
		if (tok_is(&k, T_DELIM, "(")) {
			ok = paren(p, arg);
			break;
		}
		/* a stray delimiter is a bad single op */
		/* fall through */
	case T_OP:
		arg->type = TFA_OP;
		arg->text = tokstr(&k);
		arg->a = NULL;
		ok = op(p, arg, k);
		break;
	default:
		break;
	}
	p->depth--;
	if (!ok)
		p->bad = true;
	return ok;
}

static bool is_binary(const char *t)
{
	static const char *const ops[] = { ">>", "<<", "&",  "|",  "&&", "||", "-",  "+", "*",
					   "^",  "/",  "%",  "<",  ">",  "<=", ">=", "==", "!=" };
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(t, ops[i]))
			return true;
	return false;
}

static bool op(struct parser *p, struct tf_arg *arg, struct tok optok)
{
	char t[4];
	struct tf_arg *right = NULL;
	if (!deeper(p))
		return false;
	bool ok = false;
	if (optok.n >= sizeof(t))
		goto out;
	memcpy(t, optok.s, optok.n);
	t[optok.n] = '\0';
	if (arg->type == TFA_OP && !arg->a) {
		/* a single op */
		if (t[1] || !strchr("~!+-", t[0]))
			goto out;
		arg->a = node(p, TFA_NULL);
		right = node(p, TFA_NULL);
		if (!arg->a || !right)
			goto out;
		arg->b = right;
		if (!parg(p, right))
			goto out;
	} else if (!strcmp(t, "?")) {
		struct tf_arg *left = move_out(p, arg);
		struct tf_arg *cond = node(p, TFA_OP), *l = node(p, TFA_NULL), *r = node(p, TFA_NULL);
		if (!left || !cond || !l || !r)
			goto out;
		arg->type = TFA_OP;
		arg->text = xstrdup("?");
		arg->a = left;
		arg->prio = 0;
		cond->a = l;
		cond->b = r;
		if (!parg(p, l))
			goto out;
		while (p->cur.type == T_OP && !is(p, T_OP, ":"))
			if (!op(p, l, take(p)))
				goto out;
		if (!is(p, T_OP, ":"))
			goto out;
		take(p);
		cond->text = xstrdup(":");
		if (!parg(p, r))
			goto out;
		arg->b = cond;
	} else if (is_binary(t)) {
		struct tf_arg *left = move_out(p, arg);
		if (!left)
			goto out;
		arg->type = TFA_OP;
		arg->text = xstrdup(t);
		arg->a = left;
		arg->b = NULL;
		arg->prio = left->type == TFA_NULL ? 0 : op_prio(t);
		if (arg->prio == -1)
			goto out;
		if (!strcmp(t, "*") && is(p, T_DELIM, ")")) {
			/* a type pointer: "(void *)" */
			if (left->type != TFA_ATOM)
				goto out;
			size_t L = strlen(left->text);
			left->text = xrealloc(left->text, L + 3);
			memcpy(left->text + L, " *", 3);
			free(arg->text);
			struct tf_arg *keep_next = arg->next;
			*arg = *left;
			arg->next = keep_next;
			memset(left, 0, sizeof(*left));
			ok = true;
			goto done;
		}
		right = node(p, TFA_NULL);
		if (!right || !parg(p, right))
			goto out;
		if (right->type == TFA_OP && op_prio(arg->text) < op_prio(right->text)) {
			/* rotate ops according to the priority */
			struct tf_arg tmp;
			arg->b = right->a;
			tmp = *arg;
			*arg = *right;
			*right = tmp;
			struct tf_arg *n1 = arg->next;
			arg->next = right->next;
			right->next = n1;
			arg->a = right;
		} else {
			arg->b = right;
		}
	} else if (!strcmp(t, "[")) {
		struct tf_arg *left = move_out(p, arg);
		struct tf_arg *idx = node(p, TFA_NULL);
		if (!left || !idx)
			goto out;
		arg->type = TFA_OP;
		arg->text = xstrdup("[");
		arg->a = left;
		arg->prio = 0;
		if (!parg(p, idx) || !is(p, T_OP, "]"))
			goto out;
		take(p);
		arg->b = idx;
	} else {
		goto out; /* unknown op */
	}
	if (p->cur.type == T_OP && !is(p, T_OP, ":")) {
		char nt[4];
		if (p->cur.n >= sizeof(nt))
			goto out;
		memcpy(nt, p->cur.s, p->cur.n);
		nt[p->cur.n] = '\0';
		struct tok nk = take(p);
		if (op_prio(nt) > arg->prio || !right)
			ok = op(p, arg, nk);
		else
			ok = op(p, right, nk);
		goto done;
	}
	ok = true;
done:
out:
	p->depth--;
	if (!ok)
		p->bad = true;
	return ok;
}

static bool parse_args(struct parser *p);

bool tf_parse_print_args(struct tracefmt_event *e, const char *text, size_t len)
{
	struct parser p = { .e = e, .text = text, .len = len };
	bool ok = parse_args(&p);
	for (size_t i = 0; i < p.nowned; i++)
		free(p.owned[i]);
	free(p.owned);
	return ok;
}

static bool parse_args(struct parser *p)
{
	struct tracefmt_event *e = p->e;
	next(p);
	if (p->cur.type == T_END)
		return tf_check_args(e);
	if (!is(p, T_DELIM, ","))
		return false;
	take(p);
	struct tf_arg **tail = &e->args;
	for (;;) {
		struct tf_arg *a = node(p, TFA_NULL);
		if (!a || !parg(p, a))
			return false;
		*tail = a;
		tail = &a->next;
		if (p->cur.type == T_OP) {
			if (!op(p, a, take(p)))
				return false;
			/* libtraceevent drops the token after an operator expression */
			struct tok k = take(p);
			if (k.type == T_END)
				break;
			continue;
		}
		if (is(p, T_DELIM, ",")) {
			take(p);
			continue;
		}
		break;
	}
	return tf_check_args(e);
}
