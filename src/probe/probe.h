/*
 * probe: dynamic probe events, as perf probe makes them (probe, L3).
 *
 * A probe spec is perf probe's text:
 *   [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFF][%return] [ARG ...]
 *   [[GROUP:]EVENT=]SRC:ALN [ARG ...]
 * with ARG [NAME=]VAR[->FIELD|.FIELD ...][:TYPE], $retval, $params, or a
 * fetch arg in the kernel's own syntax (%di, +8(%sp), $stack0, @sym ...).
 *
 * `spec.c` parses it and writes the probe_events lines; `udwarf.c` turns a
 * user function of a binary into uprobe definitions: the function from the
 * ELF symbols, lines and variables from DWARF (libdw; a separate debug file
 * found as libdwfl finds it), variable locations at the probe address into
 * fetch args (`probe_loc_fetch`, registers by the x86-64 DWARF numbering);
 * `kbtf.c` does the same for kernel functions from BTF (libbpf): argument
 * registers by the x86-64 calling convention, types and member offsets from
 * BTF; `tracefs.c` adds, lists and deletes the events in tracefs
 * (uprobe_events, kprobe_events), with the kernel's error_log line when it
 * refuses one.
 *
 * Probes are named as perf names them: `probe_BIN:FUNC` for a binary (BIN
 * its base name cut at the first character that is not a letter or digit),
 * `probe:FUNC` in the kernel, `FUNC__return` for %return, `FUNC_L<RLN>` for
 * a line, `FUNC_<OFF>` for an offset. Arguments are typed as perf types
 * them from DWARF: signed integers sN, others xN (hex), char pointers with
 * :string; from BTF, unsigned integers are uN.
 */
#ifndef KILN_PROBE_PROBE_H
#define KILN_PROBE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many arguments, member accesses per argument, probe points. */
#define PROBE_MAX_ARGS 128
#define PROBE_MAX_FIELDS 16
#define PROBE_MAX_POINTS 256
/* -L: the most source lines shown after a function's first, and bytes per line. */
#define PROBE_MAX_SRC_LINES 65536
#define PROBE_SRC_LINE_MAX 4096

/* x86-64 calling convention: the registers of arguments 1..6. */
#define PROBE_MAX_REG_ARGS 6

struct probe_arg {
	char *name;   /* NAME= given, or NULL */
	char *var;    /* a variable, "$retval", "$params", or a raw fetch arg */
	char *fields[PROBE_MAX_FIELDS];
	bool arrow[PROBE_MAX_FIELDS]; /* '->' (true) or '.' before fields[i] */
	size_t nfields;
	char *type;   /* after ':' ("string", "u32"...), or NULL */
	bool raw;     /* var is in the kernel's fetch syntax: passed through */
};

struct probe_spec {
	char *group, *event; /* from [GROUP:]EVENT=, or NULL */
	char *func;          /* the function, or NULL for SRC:ALN */
	char *file;          /* @SRC, or the SRC of SRC:ALN, or NULL */
	int line;            /* RLN (with func) or ALN; valid when has_line */
	bool has_line;
	uint64_t offset;     /* +OFF */
	bool retprobe;       /* %return */
	struct probe_arg args[PROBE_MAX_ARGS];
	size_t nargs;
};

/* Parse perf probe's text. 0, or -EINVAL with err_last() saying what is wrong. */
int probe_spec_parse(const char *text, struct probe_spec *s);
void probe_spec_free(struct probe_spec *s);

/* One probe_events line, resolved. */
struct probe_def {
	bool kernel;   /* kprobe_events, else uprobe_events */
	bool ret;      /* r: a return probe */
	char *group, *event;
	char *target;  /* uprobe: "PATH:0xOFFSET"; kprobe: "[MOD:]FUNC[+OFF]" */
	char *args[PROBE_MAX_ARGS]; /* "name=fetch[:type]" */
	size_t nargs;
	char *where;   /* how perf probe -l shows the place: "work@t.c", "work:4@t.c" */
};

void probe_def_free(struct probe_def *d);
void probe_defs_free(struct probe_def *d, size_t n);
/* "NAME=FETCH:TYPE" for argument a, named as perf names it: NAME= if given,
 * else the last member, else VAR_TYPE with a type, else VAR. Heap. */
char *probe_arg_text(const struct probe_arg *a, const char *fetch, const char *type);
/* A raw fetch arg or $retval: "NAME=FETCH[:TYPE]", NAME argPOS by default (the
 * name the kernel would give). Heap. */
char *probe_raw_arg_text(const struct probe_arg *a, size_t pos);
/* Append arg (heap, taken) to d. 0, or -EINVAL past PROBE_MAX_ARGS. */
int probe_def_add_arg(struct probe_def *d, char *arg);
/* The line written to tracefs: "p:GROUP/EVENT TARGET ARGS...". Heap. */
char *probe_def_line(const struct probe_def *d);

/* perf's group for a binary: "probe_" + its base name cut at the first
 * character that is not a letter or digit ("wl-fp" → "probe_wl"). Heap. */
char *probe_group_of(const char *binary);
/* perf's event name for the spec: EVENT=, FUNC, FUNC__return, FUNC_L<n>, FUNC_<off>. Heap. */
char *probe_event_name(const struct probe_spec *s, int rel_line);
/* A name the kernel accepts for an event or argument: [A-Za-z_][A-Za-z0-9_]*. */
bool probe_good_name(const char *s);

/* ---- DWARF locations → fetch args (udwarf.c) ---- */

/* A DWARF expression operation, as libdw gives it. */
struct probe_op {
	uint8_t atom;
	uint64_t number, number2;
};

/* Where a variable is at the probe address. */
struct probe_loc {
	bool in_mem;     /* the value is in memory at base + offset ... */
	char base[256];  /* ... (base is a fetch of an address: "%bp", "+8(%di)"); else base
			  * is the fetch of the value itself ("%di") */
	int64_t offset;
};

/* The x86-64 register name (without '%') of DWARF register 'r', or NULL. */
const char *probe_dwarf_reg(unsigned r);
/*
 * Translate a location expression into *loc. 'fb' is the function's frame
 * base expression (DW_OP_call_frame_cfa, DW_OP_bregN) with cfa/ncfa the CFA
 * rule at the address (DW_OP_bregN off, from CFI), both only needed for
 * DW_OP_fbreg. 0, or -EOPNOTSUPP/-ENOENT with err_last() saying why
 * (optimized out, a computed value, a register kiln cannot name).
 */
int probe_loc_fetch(const struct probe_op *ops, size_t n, const struct probe_op *fb, size_t nfb,
		    const struct probe_op *cfa, size_t ncfa, struct probe_loc *loc);
/* Member access: '->' (arrow) reads the pointer first; '.' adds to a
 * memory location. 0 or -EINVAL (a '.' on a value in a register). */
int probe_loc_member(struct probe_loc *loc, bool arrow, int64_t off);
/* The fetch text of loc's value into out: "%di", "+8(%sp)". */
void probe_loc_text(const struct probe_loc *loc, char *out, size_t len);

enum probe_note {
	PROBE_NOTE_NO_DEBUGINFO = 1 << 0, /* the binary has no DWARF: no args by name, no lines */
	PROBE_NOTE_PROLOGUE = 1 << 1,     /* unoptimized code: the prologue was skipped */
};

/*
 * The uprobe definitions for spec 's' in 'binary' (one per address: a
 * line can have several). *notes gets enum probe_note bits. 0, or -errno
 * with err_last() naming what is missing: -ENOENT (no such function or
 * line), -EOPNOTSUPP (inlined everywhere, not in a section probes can use,
 * an argument not available there), -ENODATA (arguments or lines asked
 * without debug info).
 */
int probe_resolve_user(const char *binary, const struct probe_spec *s, struct probe_def **defs,
		       size_t *n, unsigned *notes);

/* Text lines for -V (variables at FUNC), -L (source lines of FUNC), -F
 * (functions matching glob, or all). Each call fills a heap array of heap
 * strings; 0 or -errno with err_last(). */
int probe_user_vars(const char *binary, const struct probe_spec *s, char ***lines, size_t *n);
int probe_user_lines(const char *binary, const struct probe_spec *s, char ***lines, size_t *n);
int probe_user_funcs(const char *binary, const char *glob, char ***lines, size_t *n);
/* "work@t.c" or "work+4@t.c" for a file offset of binary (for -l); heap, or NULL. */
char *probe_user_where(const char *binary, uint64_t offset, bool ret);
void probe_lines_free(char **lines, size_t n);
/* Append s (heap, taken) to *v. */
void probe_lines_add(char ***v, size_t *n, char *s);
/* Sort v bytewise and drop repeats (freed). */
void probe_lines_sort_unique(char **v, size_t *n);
/* Sort v[first..n) ("\t\tTYPE\tNAME" lines of -V) by NAME, as perf does. */
void probe_lines_sort_vars(char **v, size_t first, size_t n);

/* ---- BTF (kbtf.c) ---- */

/* Whether this build reads BTF (libbpf). */
bool probe_have_btf(void);
/*
 * The kprobe definition for spec 's' (a kernel function, or one of
 * 'module' when not NULL), its arguments from BTF: /sys/kernel/btf/vmlinux
 * (and /sys/kernel/btf/MODULE), or the file 'btf_path' when not NULL.
 * 0, or -errno with err_last().
 */
int probe_resolve_kernel(const char *module, const char *btf_path, const struct probe_spec *s,
			 struct probe_def *def);
/* -V for a kernel function: its arguments and their types. */
int probe_kernel_vars(const char *module, const char *btf_path, const struct probe_spec *s,
		      char ***lines, size_t *n);
/* -F for the kernel: function names from BTF matching glob (or all), sorted. */
int probe_kernel_funcs(const char *btf_path, const char *glob, char ***lines, size_t *n);

/* ---- tracefs (tracefs.c) ---- */

/* The tracefs directory (/sys/kernel/tracing, else under debugfs), or NULL. */
const char *probe_tracefs(void);
/* Whether tracefs has kprobe_events (CONFIG_KPROBE_EVENTS) / uprobe_events. */
bool probe_tracefs_has(const char *tracefs, bool kernel);
/* Whether the event GROUP:EVENT exists. */
bool probe_event_exists(const char *tracefs, const char *group, const char *event);
/*
 * Add one definition. 0, or -errno with err_last() giving the kernel's
 * reason (its error_log line) when it refused the line, -ENOENT when
 * tracefs has no such file (no kprobe or uprobe events in this kernel).
 */
int probe_add(const char *tracefs, const struct probe_def *d);

struct probe_entry {
	bool kernel, ret;
	char *group, *event;
	char *target; /* as in probe_def */
	char *argnames; /* "n x msg_string", or "" */
};
/* The probes in uprobe_events and kprobe_events (one per line; a multi-
 * address event appears once per address), sorted by group and event as
 * perf probe -l sorts them. 0 or -errno. */
int probe_list(const char *tracefs, struct probe_entry **v, size_t *n);
void probe_entries_free(struct probe_entry *v, size_t n);
/* Whether GROUP:EVENT matches pattern "[GROUP_GLOB:]EVENT_GLOB" (no group: any). */
bool probe_glob_match(const char *pattern, const char *group, const char *event);
/* Delete one event (every address of it). 0 or -errno with err_last()
 * (-EBUSY: in use by a running perf_event). */
int probe_del(const char *tracefs, bool kernel, const char *group, const char *event);

#endif
