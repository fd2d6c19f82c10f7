/*
 * session_int: what the session's files share with each other and with
 * the readahead thread (pipeline, L8). Not for consumers.
 */
#ifndef KILN_PIPELINE_SESSION_INT_H
#define KILN_PIPELINE_SESSION_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/env.h"
#include "dso/dso.h"
#include "proc/proc.h"
#include "source/perffile/perffile.h"

/* An input as session_input_open() found it (session_input.c). */
struct session_input {
	char *data; /* text: heap, or the file mapped (map_len > 0) */
	size_t len;
	size_t map_len; /* the mapping's length, 0 when data is heap */
	int guard;      /* the mapping's base/mapguard slot, or -1 */
	bool perfdata;  /* a perf.data: the reader opens the path ("-": the relayed stdin) */
	pid_t relay;    /* the child replaying a piped standard input, or 0 */
};

/*
 * Open 'path' and decide what it is from its first bytes. With
 * 'perfdata_only' nothing is read: the perf.data reader opens it and says
 * what is wrong. 'folded_ok': folded stacks are an expected text (a
 * pipe's first bytes are judged by scripttext_sniff). 'hint' names how to
 * stream a perf.data ("kiln collapse -"). 0 or -errno (err_last says why;
 * nothing left open).
 */
int session_input_open(const char *path, const char *hint, bool perfdata_only, bool folded_ok,
		       struct session_input *in);
bool session_input_faulted(const struct session_input *in, uint64_t *offset);
void session_input_close(struct session_input *in);

/* Where binaries and debug files are found (the session's options). */
struct session_files {
	const char *symfs, *debug_dir;
	const struct kiln_env *env;
};

/* A dso set under the session's rules (session.h): the build-id table,
 * kallsyms allowed or not, the vDSO. */
void session_dsos_init(struct dso_set *d, const struct perf_header_info *h,
		       const struct session_files *f, bool kallsyms);
/* A machine under the session's rules (mappings kept across exec). */
void session_machine_init(struct machine *m, struct strtab *strs, struct dso_set *d);

/* The kernel's rules (session_kernel.c). */
bool session_kallsyms_usable(const struct perf_header_info *h);
struct session;
void session_kernel_note(struct session *s, const struct event *ev);
void session_kernel_start(struct session *s);
void session_kernel_release(struct session *s);

#endif
