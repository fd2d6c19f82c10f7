/*
 * ksym_bpf: the record the kernel-symbol iterator writes (source/live/bpf,
 * shared by ksym.bpf.c and source/live/ksymbpf.c; dso/kallsyms.h's
 * kallsyms_load_records() parses the records, with the same numbers as
 * its KALLSYMS_REC_*: pipeline/session_kernel.c asserts they agree).
 *
 * One record per line /proc/kallsyms would show, in its order: the
 * 12-byte header below (host byte order, no padding), then the name's
 * bytes, then the module's (none for the core kernel), neither with a
 * NUL. The value is 0 where /proc/kallsyms would print zeros (the
 * reader may not see addresses: kptr_restrict); the type is the letter
 * it would print (a module symbol's upper case if exported).
 */
#ifndef KILN_SOURCE_LIVE_BPF_KSYM_BPF_H
#define KILN_SOURCE_LIVE_BPF_KSYM_BPF_H

#define KSYM_REC_HEADER 12 /* value (8), name length (2), module length (1), type (1) */
#define KSYM_REC_NAME 512  /* KSYM_NAME_LEN: a name is shorter */
#define KSYM_REC_MODULE 64 /* MODULE_NAME_LEN (56) and slack: a module name is shorter */
/* The program's function name: its own symbol ("bpf_prog_<tag>_kiln_ksym",
 * module "bpf") is in the list it reads, and is left out by the reader. */
#define KSYM_PROG_NAME "kiln_ksym"

#endif
