/* env: the environment, read once (base, L0). */
#include "base/env.h"

#include <stdlib.h>
#include <string.h>

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

void kiln_env_read(struct kiln_env *e)
{
	const char *t = getenv("KILN_THREADS"), *k = getenv("KILN_KALLSYMS");
	e->home = nonempty(getenv("HOME"));
	e->cache_dir = getenv("KILN_CACHE_DIR");
	e->xdg_cache_home = nonempty(getenv("XDG_CACHE_HOME"));
	e->cache_max_mb = getenv("KILN_CACHE_MAX_MB");
	e->term = nonempty(getenv("TERM"));
	e->threads = t && !strcmp(t, "1") ? 1 : t && !strcmp(t, "2") ? 2 : 0;
	e->kallsyms_proc = k && !strcmp(k, "proc");
}
