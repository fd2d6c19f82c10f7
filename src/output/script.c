/*
 * script: perf script's text format (output, L7). Field tables, -F
 * parsing, the sample_type check and the line layout follow perf 6.1's
 * builtin-script.c and evsel_fprintf.c, verified against its output.
 */
#include "output/script.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/err.h"
#include "base/wbuf.h"
#include "base/xalloc.h"

#define DEFAULT_CODE_FIELDS \
	(SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVENT | SF_IP | SF_SYM | SF_SYMOFF | SF_DSO)

/* perf's output[] table: the defaults and the fields a type can never print. */
static const struct {
	uint64_t fields, invalid;
	const char *name; /* for messages, as perf's event_type() names it */
} type_defaults[SCRIPT_T_MAX] = {
	[SCRIPT_T_HW] = { DEFAULT_CODE_FIELDS | SF_PERIOD, SF_TRACE | SF_BPF_OUTPUT, "hardware" },
	[SCRIPT_T_SW] = { DEFAULT_CODE_FIELDS | SF_PERIOD | SF_BPF_OUTPUT, SF_TRACE, "software" },
	[SCRIPT_T_TRACEPOINT] = { SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVENT | SF_TRACE, 0,
				  "tracepoint" },
	[SCRIPT_T_HW_CACHE] = { DEFAULT_CODE_FIELDS | SF_PERIOD, SF_TRACE | SF_BPF_OUTPUT,
				"hardware-cache" },
	[SCRIPT_T_RAW] = { DEFAULT_CODE_FIELDS | SF_PERIOD | SF_ADDR, SF_TRACE | SF_BPF_OUTPUT,
			   "raw" },
	[SCRIPT_T_BREAKPOINT] = { DEFAULT_CODE_FIELDS | SF_PERIOD, SF_TRACE | SF_BPF_OUTPUT,
				  "breakpoint" },
	[SCRIPT_T_SYNTH] = { DEFAULT_CODE_FIELDS, SF_TRACE | SF_BPF_OUTPUT, "synth" },
	[SCRIPT_T_OTHER] = { DEFAULT_CODE_FIELDS | SF_PERIOD, SF_TRACE | SF_BPF_OUTPUT, "unknown" },
};

/* The field names kiln prints, in perf's order (perf's messages use the first match). */
static const struct {
	const char *name;
	uint64_t bit;
} field_names[] = {
	{ "comm", SF_COMM },   { "tid", SF_TID },     { "pid", SF_PID },
	{ "time", SF_TIME },   { "cpu", SF_CPU },     { "event", SF_EVENT },
	{ "trace", SF_TRACE }, { "ip", SF_IP },	      { "sym", SF_SYM },
	{ "dso", SF_DSO },     { "addr", SF_ADDR },   { "symoff", SF_SYMOFF },
	{ "srcline", SF_SRCLINE },
	{ "period", SF_PERIOD }, { "bpf-output", SF_BPF_OUTPUT },
};

/* Fields perf knows and kiln does not print yet: named so the error says so. */
static const char *const perf_only_fields[] = {
	"iregs",   "uregs",	    "brstack",	       "brstacksym",
	"data_src",	   "weight",  "callindent", "insn",	       "insnlen",
	"brstackinsn",	   "brstackoff", "synth",   "phys_addr",       "metric",
	"misc",		   "srccode", "ipc",	    "tod",	       "data_page_size",
	"code_page_size",  "ins_lat", "brstackinsnlen", "machine_pid", "vcpu",
	"cgroup",	   "retire_lat", "flags",
};

static const char *field_str(uint64_t bit)
{
	for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
		if (field_names[i].bit == bit)
			return field_names[i].name;
	return ""; /* perf prints '' for combined bits (pid|tid) */
}

void script_fields_init(struct script_fields *f)
{
	memset(f, 0, sizeof(*f));
	for (int t = 0; t < SCRIPT_T_MAX; t++)
		f->fields[t] = type_defaults[t].fields;
}

enum script_out_type script_out_type(uint32_t attr_type)
{
	if (attr_type == (uint32_t)1 << 31) /* PERF_TYPE_SYNTH */
		return SCRIPT_T_SYNTH;
	if (attr_type < PERF_TYPE_MAX)
		return (enum script_out_type)attr_type;
	return SCRIPT_T_OTHER;
}

const char *script_type_name(enum script_out_type t)
{
	return t < SCRIPT_T_MAX ? type_defaults[t].name : "unknown";
}

void script_fields_add_default(struct script_fields *f, enum script_out_type t, uint64_t bits)
{
	f->fields[t] |= bits & ~f->user_unset_fields[t];
}

void script_fields_tracepoint_callchain(struct script_fields *f)
{
	if (!f->user_set[SCRIPT_T_TRACEPOINT])
		f->fields[SCRIPT_T_TRACEPOINT] |= SF_IP | SF_SYM | SF_SYMOFF | SF_DSO;
}

static int type_prefix(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int type;
	} prefixes[] = {
		{ "hw", SCRIPT_T_HW },		 { "sw", SCRIPT_T_SW },
		{ "trace", SCRIPT_T_TRACEPOINT }, { "raw", SCRIPT_T_RAW },
		{ "break", SCRIPT_T_BREAKPOINT }, { "synth", SCRIPT_T_SYNTH },
	};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strlen(prefixes[i].name) == n && !strncmp(prefixes[i].name, s, n))
			return prefixes[i].type;
	return -1;
}

static int lookup_field(const char *tok, uint64_t *bit)
{
	for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++) {
		if (!strcmp(field_names[i].name, tok)) {
			*bit = field_names[i].bit;
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(perf_only_fields) / sizeof(perf_only_fields[0]); i++)
		if (!strcmp(perf_only_fields[i], tok))
			return err_set(-EINVAL, "field '%s' is not supported by kiln script", tok);
	return err_set(-EINVAL, "Invalid field requested.");
}

/* One token's edit on one type. */
static void apply(struct script_fields *f, int t, uint64_t bit, bool remove)
{
	if (remove) {
		f->fields[t] &= ~bit;
		f->user_set_fields[t] &= ~bit;
		f->user_unset_fields[t] |= bit;
	} else {
		f->fields[t] |= bit;
		f->user_set_fields[t] |= bit;
		f->user_unset_fields[t] &= ~bit;
	}
	f->user_set[t] = true;
	f->wildcard_set[t] = true;
}

int script_fields_parse(struct script_fields *f, const char *spec)
{
	int type = -1;
	const char *list = spec;
	const char *colon = strchr(spec, ':');
	if (colon) {
		type = type_prefix(spec, (size_t)(colon - spec));
		if (type < 0)
			return err_set(-EINVAL, "Invalid event type in field string.");
		list = colon + 1;
	} else if (!*spec) {
		return err_set(-EINVAL, "Cannot set fields to 'none' for all event types.");
	}
	/* A list with a '+' or '-' anywhere edits the defaults; otherwise it replaces them. */
	bool edit = strchr(list, '+') || strchr(list, '-');
	if (!edit) {
		for (int t = 0; t < SCRIPT_T_MAX; t++) {
			if (type >= 0 && t != type)
				continue;
			f->fields[t] = 0;
			f->user_set[t] = true;
			f->wildcard_set[t] = type < 0;
		}
	}

	char *copy = xstrdup(list);
	int err = 0;
	enum { CHANGE_DEFAULT, CHANGE_SET, CHANGE_ADD, CHANGE_REMOVE } change = CHANGE_DEFAULT;
	char *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*tok == '+' || *tok == '-') {
			if (change == CHANGE_SET)
				goto badmix;
			change = *tok == '+' ? CHANGE_ADD : CHANGE_REMOVE;
			tok++;
		} else {
			if (change != CHANGE_SET && change != CHANGE_DEFAULT)
				goto badmix;
			change = CHANGE_SET;
		}
		uint64_t bit = 0;
		err = lookup_field(tok, &bit);
		if (err)
			goto out;
		if (type < 0) {
			/* Every type for which the field is valid; the others ignore it. */
			for (int t = 0; t < SCRIPT_T_MAX; t++)
				if (!(type_defaults[t].invalid & bit))
					apply(f, t, bit, change == CHANGE_REMOVE);
		} else {
			if (type_defaults[type].invalid & bit) {
				err = err_set(-EINVAL, "'%s' not valid for %s events.", tok,
					      type_defaults[type].name);
				goto out;
			}
			/* perf tracks explicit requests only for wildcard lists. */
			if (change == CHANGE_REMOVE)
				f->fields[type] &= ~bit;
			else
				f->fields[type] |= bit;
			f->user_set[type] = true;
			f->wildcard_set[type] = true;
		}
	}
	goto out;
badmix:
	err = err_set(-EINVAL, "Cannot mix +-field with overridden fields");
out:
	free(copy);
	return err;
}

static int missing(const char *evname, const char *what, const char *field)
{
	return err_set(-EINVAL,
		       "Samples for '%s' event do not have %s attribute set. "
		       "Cannot print '%s' field.",
		       evname, what, field);
}

/* A field the samples cannot fill: dropped if defaulted, an error if requested. */
static int check_stype(struct script_fields *f, int t, const struct perf_event_attr *attr,
		       const char *evname, uint64_t sample_bit, const char *what, uint64_t field)
{
	if (attr->sample_type & sample_bit)
		return 0;
	if (f->user_set_fields[t] & field)
		return missing(evname, what, field_str(field));
	f->fields[t] &= ~field;
	return 0;
}

int script_fields_check(struct script_fields *f, const struct perf_event_attr *attr,
			const char *evname)
{
	int t = script_out_type(attr->type);
	uint64_t st = attr->sample_type;
	int err;
	if (attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_DUMMY)
		return 0;
	if (!f->fields[t])
		return 0;
#define FIELD(x) (f->fields[t] & (x))
	if (FIELD(SF_IP) && (err = check_stype(f, t, attr, evname, PERF_SAMPLE_IP, "IP", SF_IP)))
		return err;
	if (FIELD(SF_ADDR) &&
	    (err = check_stype(f, t, attr, evname, PERF_SAMPLE_ADDR, "ADDR", SF_ADDR)))
		return err;
	if (FIELD(SF_SYM) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)))
		return err_set(-EINVAL, "Display of symbols requested but neither sample IP nor "
					"sample address\navailable. Hence, no addresses to convert "
					"to symbols.");
	if (FIELD(SF_SYMOFF) && !FIELD(SF_SYM))
		return err_set(-EINVAL, "Display of offsets requested but symbol is notselected.");
	if (FIELD(SF_DSO) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)))
		return err_set(-EINVAL, "Display of DSO requested but no address to convert.");
	if (FIELD(SF_SRCLINE) && !FIELD(SF_IP))
		return err_set(-EINVAL, "Display of source line number requested but sample IP is "
					"not\nselected. Hence, no address to lookup the source line "
					"number.");
	if (FIELD(SF_PID | SF_TID) &&
	    (err = check_stype(f, t, attr, evname, PERF_SAMPLE_TID, "TID", SF_PID | SF_TID)))
		return err;
	if (FIELD(SF_TIME) &&
	    (err = check_stype(f, t, attr, evname, PERF_SAMPLE_TIME, "TIME", SF_TIME)))
		return err;
	if (FIELD(SF_CPU) &&
	    (err = check_stype(f, t, attr, evname, PERF_SAMPLE_CPU, "CPU", SF_CPU)))
		return err;
#undef FIELD
	return 0;
}

/* ---- event names ---- */

static const char *const hw_names[] = {
	"cycles",
	"instructions",
	"cache-references",
	"cache-misses",
	"branches",
	"branch-misses",
	"bus-cycles",
	"stalled-cycles-frontend",
	"stalled-cycles-backend",
	"ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock",	    "task-clock",   "page-faults",	"context-switches",
	"cpu-migrations",   "minor-faults", "major-faults",	"alignment-faults",
	"emulation-faults", "dummy",	    "bpf-output",	"cgroup-switches",
};
static const char *const cache_names[] = { "L1-dcache", "L1-icache", "LLC",  "dTLB",
					   "iTLB",	"branch",    "node" };
static const char *const cache_ops[][2] = { { "load", "loads" },
					    { "store", "stores" },
					    { "prefetch", "prefetches" } };
static const char *const cache_results[] = { "refs", "misses" };
/* Which ops each cache supports (bit per op: read, write, prefetch). */
static const uint8_t cache_ops_valid[] = { 7, 5, 7, 7, 1, 1, 7 };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	if (at >= len)
		return at;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	if (n < 0)
		return at;
	return (size_t)n >= len - at ? len - 1 : at + (size_t)n;
}

/* perf's evsel__add_modifiers: ":" then k/u/h for the rings counted when
 * some are excluded, p's for precise_ip, H/G for host/guest when they
 * differ from the default. */
static size_t modifiers(const struct perf_event_attr *a, char *buf, size_t len, size_t at)
{
	size_t colon = 0;
	bool guest_default = false;
#define MOD(excluded, c)                                      \
	do {                                                  \
		if (!(excluded)) {                            \
			if (!colon)                           \
				colon = at = put(buf, len, at, ":"); \
			at = put(buf, len, at, "%c", c);      \
		}                                             \
	} while (0)
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		guest_default = true;
	}
	if (a->precise_ip) {
		if (!colon)
			colon = at = put(buf, len, at, ":");
		at = put(buf, len, at, "%.*s", (int)a->precise_ip, "ppp");
		guest_default = true;
	}
	if (a->exclude_host || (bool)a->exclude_guest == guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	return at;
}

static size_t cache_name(uint64_t config, char *buf, size_t len)
{
	unsigned type = config & 0xff, op = (config >> 8) & 0xff, res = (config >> 16) & 0xff;
	if (type >= NELEM(cache_names))
		return put(buf, len, 0, "unknown-ext-hardware-cache-type");
	if (op >= NELEM(cache_ops))
		return put(buf, len, 0, "unknown-ext-hardware-cache-op");
	if (res >= NELEM(cache_results))
		return put(buf, len, 0, "unknown-ext-hardware-cache-result");
	if (!(cache_ops_valid[type] & (1u << op)))
		return put(buf, len, 0, "invalid-cache");
	/* perf names a (cache, op) pair it lists as valid as cache-op-result. */
	return put(buf, len, 0, "%s-%s-%s", cache_names[type], cache_ops[op][0],
		   cache_results[res]);
}

const char *script_event_name(const struct perf_event_attr *a, char *buf, size_t len)
{
	size_t at = 0;
	if (!len)
		return buf;
	buf[0] = '\0';
	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		at = put(buf, len, 0, "%s",
			 a->config < NELEM(hw_names) ? hw_names[a->config] : "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
		at = put(buf, len, 0, "%s",
			 a->config < NELEM(sw_names) ? sw_names[a->config] : "unknown-software");
		break;
	case PERF_TYPE_HW_CACHE:
		at = cache_name(a->config, buf, len);
		break;
	case PERF_TYPE_RAW:
		at = put(buf, len, 0, "raw 0x%" PRIx64, (uint64_t)a->config);
		break;
	case PERF_TYPE_BREAKPOINT:
		at = put(buf, len, 0, "mem:0x%" PRIx64 ":", (uint64_t)a->bp_addr);
		if (a->bp_type & 1) /* HW_BREAKPOINT_R */
			at = put(buf, len, at, "r");
		if (a->bp_type & 2) /* HW_BREAKPOINT_W */
			at = put(buf, len, at, "w");
		if (a->bp_type & 4) /* HW_BREAKPOINT_X */
			at = put(buf, len, at, "x");
		break;
	case PERF_TYPE_TRACEPOINT:
		put(buf, len, 0, "unknown tracepoint");
		return buf;
	default:
		put(buf, len, 0, "unknown attr type: %d", (int)a->type);
		return buf;
	}
	modifiers(a, buf, len, at);
	return buf;
}

/* ---- the text ---- */

/*
 * A sample's text is put together in a buffer on the stack by the small
 * formatters below (the few conversions perf's layout needs, byte for
 * byte as printf makes them) and handed to stdio in large pieces: one
 * fwrite per sample rather than a printf call per field of every frame
 * (base/wbuf.h; the formatters below are perf's printf conversions).
 */

/* printf's "%*s": right-aligned in 'width', left-aligned if negative. */
static void tb_field(struct wbuf *t, const char *s, size_t n, int width)
{
	size_t w = width < 0 ? (size_t)-(int64_t)width : (size_t)width;
	size_t pad = n < w ? w - n : 0;

	if (width >= 0)
		wbuf_pad(t, pad);
	wbuf_mem(t, s, n);
	if (width < 0)
		wbuf_pad(t, pad);
}

/* printf's "%*" PRIx64. */
static void tb_hex(struct wbuf *t, uint64_t v, int width)
{
	char d[24], *e = d + sizeof(d), *p = digits_hex(e, v, 1);
	tb_field(t, p, (size_t)(e - p), width);
}

/* printf's "%*" PRIu64 and, for a negative 'v' (if 'neg'), "%*d"; with
 * 'zero', "%0*d": zeros between the sign and the digits (widths up to 24). */
static void tb_dec(struct wbuf *t, uint64_t v, bool neg, int width, bool zero)
{
	char d[32], *e = d + sizeof(d), *p;
	uint64_t mag = neg ? (uint64_t)0 - v : v;
	int w = width < 0 ? -width : width;

	p = digits_dec(e, mag, zero && width > 0 && w <= 24 ? w - neg : 1);
	if (neg)
		*--p = '-';
	tb_field(t, p, (size_t)(e - p), width);
}

static void tb_int(struct wbuf *t, int v, int width)
{
	tb_dec(t, (uint64_t)(int64_t)v, v < 0, width, false);
}

static void put_sym(struct wbuf *t, uint64_t fl, const struct script_frame *fr)
{
	if (fl & SF_SYM) {
		wbuf_char(t, ' ');
		if (!fr->sym) {
			wbuf_mem(t, "[unknown]", 9);
		} else {
			wbuf_str(t, fr->sym);
			if (fl & SF_SYMOFF) {
				wbuf_mem(t, "+0x", 3);
				tb_hex(t, fr->symoff, 0);
			}
		}
	}
	if ((fl & SF_DSO) && !fr->inlined) {
		wbuf_mem(t, " (", 2);
		wbuf_str(t, fr->dso ? fr->dso : "[unknown]");
		wbuf_char(t, ')');
	}
	if ((fl & SF_SRCLINE) && fr->srcline) {
		wbuf_mem(t, "\n  ", 3);
		wbuf_str(t, fr->srcline);
	}
	if (fr->inlined)
		wbuf_mem(t, " (inlined)", 10);
}

int script_write_sample(FILE *f, const struct script_opts *o, const struct script_sample *s)
{
	uint64_t fl = o->fields;
	bool stack = (fl & SF_IP) && s->has_callchain && o->use_callchain;
	struct wbuf t;
	if (!fl)
		return 0;
	t.f = f;
	t.n = 0;
	if (fl & SF_COMM) {
		const char *comm = s->comm ? s->comm : "(null)";
		tb_field(&t, comm, strlen(comm), stack ? 0 : 16);
		wbuf_char(&t, ' ');
	}
	if ((fl & SF_PID) && (fl & SF_TID)) {
		tb_int(&t, s->pid, 5);
		wbuf_char(&t, '/');
		tb_int(&t, s->tid, -5);
		wbuf_char(&t, ' ');
	} else if (fl & (SF_PID | SF_TID)) {
		tb_int(&t, fl & SF_PID ? s->pid : s->tid, 5);
		wbuf_char(&t, ' ');
	}
	if (fl & SF_CPU) {
		int cpu = (int)s->cpu;
		wbuf_char(&t, '[');
		tb_dec(&t, (uint64_t)(int64_t)cpu, cpu < 0, 3, true);
		wbuf_mem(&t, "] ", 2);
	}
	if (fl & SF_TIME) {
		char d[48], *e = d + sizeof(d), *p;
		p = digits_dec(e, s->time % 1000000000u / 1000u, 6);
		*--p = '.';
		p = digits_dec(p, s->time / 1000000000u, 1);
		tb_field(&t, p, (size_t)(e - p), 12);
		wbuf_mem(&t, ": ", 2);
	}
	if (fl & SF_PERIOD) {
		tb_dec(&t, s->period, false, 10, false);
		wbuf_char(&t, ' ');
	}
	if (fl & SF_EVENT) {
		const char *ev = s->event ? s->event : "[unknown]";
		tb_field(&t, ev, strlen(ev), o->name_width);
		wbuf_mem(&t, ": ", 2);
	}
	if ((fl & SF_TRACE) && s->trace)
		wbuf_str(&t, s->trace);
	if (fl & SF_ADDR) {
		tb_hex(&t, s->addr, 16);
		if (s->addr_resolved)
			put_sym(&t, fl, &s->addr_at);
	}
	if (fl & SF_IP) {
		if (stack) {
			wbuf_char(&t, '\n');
			for (size_t i = 0; i < s->nframes; i++) {
				wbuf_char(&t, '\t');
				tb_hex(&t, s->frames[i].addr, 16);
				put_sym(&t, fl, &s->frames[i]);
				wbuf_char(&t, '\n');
			}
		} else {
			wbuf_char(&t, ' ');
			tb_hex(&t, s->ip, 16);
			put_sym(&t, fl, &s->at);
		}
	}
	if ((fl & SF_BPF_OUTPUT) && s->bpf_output)
		wbuf_char(&t, '\n');
	wbuf_char(&t, '\n');
	wbuf_flush(&t);
	return ferror(f) ? -EIO : 0;
}
