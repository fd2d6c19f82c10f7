/*
 * tracefmt_int: what the tracefmt files share (tracefmt, L1).
 *
 * tracedata.c reads the blob, the format files, kallsyms and printk
 * formats; printfmt.c parses a print fmt into an argument tree; print.c
 * evaluates the tree against a payload.
 */
#ifndef KILN_TRACEFMT_TRACEFMT_INT_H
#define KILN_TRACEFMT_TRACEFMT_INT_H

#include "tracefmt/tracefmt.h"

#define TF_MAX_DEPTH 200    /* nesting of print fmt expressions */
#define TF_MAX_ARGS 4096    /* argument nodes per print fmt */
#define TF_MAX_FIELDS 1024  /* fields per event */

enum tf_field_flags {
	TF_SIGNED = 1,
	TF_ARRAY = 2,
	TF_STRING = 4,
	TF_DYNAMIC = 8,
	TF_RELATIVE = 16,
	TF_POINTER = 32,
	TF_LONG = 64,
};

struct tf_field {
	char *type, *name;
	uint32_t offset, size, arraylen, elementsize;
	unsigned flags;
};

enum tf_arg_type {
	TFA_NULL,
	TFA_ATOM,     /* a number or name, as text */
	TFA_FIELD,    /* REC->name */
	TFA_FLAGS,    /* __print_flags(field, delim, {v, "s"}...) */
	TFA_SYMBOL,   /* __print_symbolic(field, {v, "s"}...) */
	TFA_HEX,      /* __print_hex(field, len) */
	TFA_HEX_STR,  /* __print_hex_str(field, len) */
	TFA_INT_ARRAY,/* __print_array(field, count, el_size) */
	TFA_TYPE,     /* (type)item */
	TFA_STRING,   /* __get_str(field) */
	TFA_BSTRING,  /* "literal" */
	TFA_BITMASK,  /* __get_bitmask(field) */
	TFA_CPUMASK,  /* __get_cpumask(field) */
	TFA_DYNARRAY, /* __get_dynamic_array(field) */
	TFA_DYNARRAY_LEN, /* __get_dynamic_array_len(field) */
	TFA_OP,       /* binary, unary (left TFA_NULL), '?' (right is ':'), '[' */
};

struct tf_sym { /* one { value, "string" } pair */
	char *value, *str;
};

struct tf_arg {
	enum tf_arg_type type;
	char *text;              /* ATOM text, TYPE type, STRING/BSTRING/BITMASK name, OP op, FLAGS delim */
	const struct tf_field *field; /* FIELD, STRING, BITMASK, CPUMASK, DYNARRAY(_LEN); NULL: not found */
	struct tf_arg *a, *b, *c; /* OP: left, right; TYPE: item in a; FLAGS/SYMBOL: field in a;
				      HEX: field a, size b; INT_ARRAY: field a, count b, el_size c */
	struct tf_sym *syms;
	size_t nsyms;
	int prio;                /* OP: libtraceevent's operator priority (0: unary, [, ?) */
	struct tf_arg *next;     /* the next print argument */
};

struct tracefmt_event {
	uint32_t id;
	char *system, *name;
	struct tf_field *fields; /* common fields first */
	size_t nfields, ncommon;
	char *fmt;               /* the format string, escapes kept as in the file */
	struct tf_arg *args;     /* the arguments, in order */
	bool failed;
	struct tf_arg **pool;    /* all argument nodes (freed together) */
	size_t npool, poolcap;
};

struct tf_printk {
	uint64_t addr;
	char *fmt;
};

struct tracefmt {
	bool big_endian, swap;
	unsigned long_size;
	uint32_t page_size;
	struct tracefmt_event **events; /* sorted by id */
	size_t nevents;
	tracefmt_resolve_fn resolve; /* kernel symbols for %ps / %pS, or NULL */
	void *resolve_arg;
	struct tf_printk *printks; /* sorted by address */
	size_t nprintks;
};

/* Parse one format file's text; NULL on a field parse error (err_last() says why). */
struct tracefmt_event *tf_parse_event(const struct tracefmt *t, const char *system,
				      const char *text, size_t len);
void tf_event_free(struct tracefmt_event *e);
/* Parse e->fmt's argument list text into e->args; false when perf's parser would fail. */
bool tf_parse_print_args(struct tracefmt_event *e, const char *text, size_t len);
/* Walk the format against the arguments as perf's parse_args does; false: perf marks it failed. */
bool tf_check_args(struct tracefmt_event *e);
/* A field by name: common fields first, as tep_find_any_field. */
const struct tf_field *tf_find_field(const struct tracefmt_event *e, const char *name);
const struct tf_printk *tf_find_printk(const struct tracefmt *t, uint64_t addr);
uint64_t tf_read_num(const struct tracefmt *t, const uint8_t *p, uint32_t size);

#endif
