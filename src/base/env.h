/*
 * env: the environment variables kiln reads, read once (base, L0).
 *
 * cli/main.c calls kiln_env_read() before anything else and passes the
 * struct down (commands, pipeline options, dso_set). No other module
 * calls getenv(): what a run sees of its environment is decided in one
 * place, and tests can hand a module any environment they like.
 */
#ifndef KILN_BASE_ENV_H
#define KILN_BASE_ENV_H

#include <stdbool.h>

struct kiln_env {
	const char *home;           /* $HOME, or NULL when unset or empty */
	const char *cache_dir;      /* $KILN_CACHE_DIR (may be "off" or ""), or NULL when unset */
	const char *xdg_cache_home; /* $XDG_CACHE_HOME, or NULL when unset or empty */
	const char *cache_max_mb;   /* $KILN_CACHE_MAX_MB as given, or NULL when unset */
	/* $KILN_THREADS: 0 unset (kiln decides), 1 never a second thread, 2 always one. */
	int threads;
	const char *term;           /* $TERM (the terminal browser's type), or NULL when unset or empty */
	/* $KILN_KALLSYMS=proc: the running kernel's symbols read from
	 * /proc/kallsyms, never through the BPF symbol iterator. */
	bool kallsyms_proc;
};

/* Fill 'e' from the process environment (the strings are getenv's). */
void kiln_env_read(struct kiln_env *e);

#endif
