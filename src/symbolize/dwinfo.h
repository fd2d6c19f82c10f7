/*
 * dwinfo: DWARF 2-5 debugging information entries, read from the
 * section bytes (symbolize, L5).
 *
 * dwinfo_open() reads every unit header of .debug_info (compile, partial,
 * type and skeleton units of any version, 32- and 64-bit); nothing else
 * is read until asked. A DIE is read at an offset (dwinfo_die) and its
 * attributes are handed, in the order the abbreviation lists them, to a
 * callback (dwinfo_attrs), which decodes the ones it wants: constants,
 * strings (inline, .debug_str, .debug_line_str, .debug_str_offsets),
 * addresses (.debug_addr), references (within the unit or the section)
 * and the address ranges of a DIE (DW_AT_low_pc/high_pc, .debug_ranges,
 * .debug_rnglists).
 *
 * The decoding rules are libdw's, which kiln used before: a unit's base
 * address is its DW_AT_low_pc, else DW_AT_entry_pc, else 0; a DIE's
 * ranges are low_pc..high_pc when it has both, else its DW_AT_ranges
 * list. References to a supplementary file (DW_FORM_GNU_ref_alt,
 * ref_sup) and to type units (ref_sig8) are not followed.
 *
 * Every read is bounded by its unit or section; a malformed DIE or
 * attribute makes the call fail, never read past the bytes. Abbreviation
 * tables are parsed as far as the codes asked for, once, and kept.
 */
#ifndef KILN_SYMBOLIZE_DWINFO_H
#define KILN_SYMBOLIZE_DWINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/vec.h"

struct dwinfo_sec {
	const uint8_t *p;
	size_t n;
};

struct dwinfo_secs {
	struct dwinfo_sec info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists;
};

struct dwabbrev {
	uint64_t code;
	uint32_t tag;
	bool children;
	uint32_t attr, nattr; /* in the table's attribute array */
	int32_t fixed;        /* the attributes' total size when every form has one, else -1 */
};

struct dwabbrev_attr {
	uint32_t at, form;
	/* DW_FORM_implicit_const: its value; any other form: the size of its
	 * values in the units that read the table when fixed, else -1 */
	int64_t aux;
};

struct dwabbrev_table {
	VEC(struct dwabbrev) v;       /* in code order when dense */
	VEC(struct dwabbrev_attr) attrs;
	struct hashmap codes;         /* code -> index, once not dense */
	bool dense;                   /* v.v[code - 1] is code's */
	bool done;                    /* parsed to its end (or to a fault) */
	uint64_t pos;                 /* where parsing goes on in .debug_abbrev */
	unsigned version, asize, offsz; /* of the units that read it: sizes of forms */
};

struct dwunit {
	uint64_t off, end; /* the unit's first and one-past-last byte in .debug_info */
	uint64_t die;      /* its unit DIE */
	uint64_t abbrev_off;
	unsigned version, asize, offsz, type;
	uint32_t table;   /* abbreviation table index; UINT32_MAX: not yet parsed */
	bool bases_read;  /* the unit DIE's bases below have been read */
	uint64_t str_offsets_base, addr_base, rnglists_base, base_addr;
};

struct dwinfo {
	struct dwinfo_secs s;
	VEC(struct dwunit) units; /* in section order */
	VEC(struct dwabbrev_table) tables;
	struct hashmap table_at; /* abbreviation offset -> table index */
};

/* A DIE read by dwinfo_die. */
struct dwdie {
	uint64_t off;
	uint32_t unit;
	bool null;                 /* a null entry (end of siblings): no 'ab' */
	struct dwabbrev ab;        /* its abbreviation (a copy) */
	uint64_t attrs;            /* offset of its first attribute */
	bool raw;                  /* read by dwinfo_unit_die without its table: */
	uint64_t rawattrs;         /* the attribute list's offset in .debug_abbrev */
};

/* One attribute, for the decoders below. */
struct dwattr {
	uint32_t at, form;
	uint64_t off;     /* of its value in .debug_info */
	int64_t implicit; /* DW_FORM_implicit_const */
};

/* Reads the unit headers (as many as are well-formed, in order). */
void dwinfo_open(struct dwinfo *di, const struct dwinfo_secs *s);
void dwinfo_close(struct dwinfo *di);

/* The unit holding offset 'off' of .debug_info, or UINT32_MAX. */
uint32_t dwinfo_unit_at(const struct dwinfo *di, uint64_t off);
/* The DIE at 'off' of unit 'unit'. false: not a readable DIE. */
bool dwinfo_die(struct dwinfo *di, uint32_t unit, uint64_t off, struct dwdie *d);
/*
 * The unit DIE of 'unit', like dwinfo_die, but when the unit's
 * abbreviation table has not been parsed yet its entry is found by
 * skimming the table (nothing kept): reading the unit DIEs of a file
 * with an abbreviation table per unit then does not parse every table as
 * far as the (often late) unit entry. The table is parsed when a DIE
 * under the unit is read.
 */
bool dwinfo_unit_die(struct dwinfo *di, uint32_t unit, struct dwdie *d);
/*
 * Hands each attribute of 'd' to 'fn' in order until fn returns false.
 * Returns true when every attribute was read and handed over (and sets
 * *next, if given, to the offset after the DIE); false on a malformed
 * attribute or when fn stopped.
 */
typedef bool (*dwattr_fn)(void *arg, const struct dwattr *a);
bool dwinfo_attrs(struct dwinfo *di, const struct dwdie *d, dwattr_fn fn, void *arg, uint64_t *next);
/* The offset after 'd' (its attributes skipped). false: malformed. */
bool dwinfo_skip(struct dwinfo *di, const struct dwdie *d, uint64_t *next);

/* Decoders; each false when the form is not of the class or the value is bad. */
bool dwinfo_udata(const struct dwinfo *di, const struct dwdie *d, const struct dwattr *a, uint64_t *v);
const char *dwinfo_str(struct dwinfo *di, const struct dwdie *d, const struct dwattr *a);
bool dwinfo_ref(const struct dwinfo *di, const struct dwdie *d, const struct dwattr *a, uint64_t *off);
bool dwinfo_addr(struct dwinfo *di, const struct dwdie *d, const struct dwattr *a, uint64_t *v);

/* The PC attributes of a DIE, gathered while its attributes are read. */
struct dwpc {
	bool has_low, has_high, high_is_addr, has_ranges, has_entry;
	struct dwattr low, high, ranges, entry;
};
/* Notes 'a' in pc if it is one of the PC attributes. */
void dwpc_note(struct dwpc *pc, const struct dwattr *a);
/*
 * The DIE's ranges [lo, hi), each handed to fn (at most 'max'); returns
 * how many, or -1 when the range list cannot be read (those before the
 * fault were handed over).
 */
typedef void (*dwrange_fn)(void *arg, uint64_t lo, uint64_t hi);
long dwinfo_ranges(struct dwinfo *di, const struct dwdie *d, const struct dwpc *pc, size_t max,
		   dwrange_fn fn, void *arg);

#endif
