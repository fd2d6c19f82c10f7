/* probe_cli: probes made for one recording and removed after it (cli, L9). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/probe_cli.h"
#include "probe/probe.h"

/* The definitions of one spec, or an exit code with the error printed. */
static int resolve(const char *spec, const char *bin, struct probe_def **defs, size_t *n)
{
	struct probe_spec s;
	unsigned notes = 0;
	err_clear();
	int err = probe_spec_parse(spec, &s);
	if (!err && bin) {
		err = probe_resolve_user(bin, &s, defs, n, &notes);
	} else if (!err) {
		*defs = xcalloc(1, sizeof(**defs));
		*n = 1;
		err = probe_resolve_kernel(NULL, NULL, &s, *defs);
		if (err) {
			free(*defs);
			*defs = NULL;
			*n = 0;
		}
	}
	probe_spec_free(&s);
	if (err) {
		cli_err("error: --probe '%s': %s\n", spec, err_last()->msg);
		return KILN_EXIT_USAGE;
	}
	return 0;
}

int probe_tmp_create(struct probe_tmp *t, char *const *specs, const char *const *bins, size_t n,
		     char ***names, size_t *nnames)
{
	memset(t, 0, sizeof(*t));
	if (!n)
		return 0;
	t->tracefs = probe_tracefs();
	if (!t->tracefs) {
		cli_err("error: --probe: tracefs is not mounted or not readable (mount -t tracefs "
			"nodev /sys/kernel/tracing; probes need root)\n");
		return KILN_EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		struct probe_def *defs;
		size_t nd;
		int code = resolve(specs[i], bins[i], &defs, &nd);
		if (code) {
			probe_tmp_remove(t);
			return code;
		}
		if (!probe_tracefs_has(t->tracefs, bins[i] == NULL)) {
			cli_err("error: --probe '%s': this kernel has no %s events (%s)%s\n", specs[i],
				bins[i] ? "uprobe" : "kprobe",
				bins[i] ? "CONFIG_UPROBE_EVENTS" : "CONFIG_KPROBE_EVENTS",
				bins[i] ? "" : ": user-space probes with --probe-exec work");
			code = KILN_EXIT_FAIL;
		} else if (probe_event_exists(t->tracefs, defs[0].group, defs[0].event)) {
			cli_err("error: --probe '%s': the event %s:%s exists already: record it with "
				"-e %s:%s\n",
				specs[i], defs[0].group, defs[0].event, defs[0].group, defs[0].event);
			code = KILN_EXIT_FAIL;
		}
		size_t added = 0;
		for (size_t k = 0; k < nd && !code; k++) {
			if (probe_add(t->tracefs, &defs[k])) {
				cli_error_last(NULL);
				code = KILN_EXIT_FAIL;
			} else {
				added++;
			}
		}
		if (added) {
			XREALLOC_ARRAY(t->v, t->n + 1);
			t->v[t->n].kernel = defs[0].kernel;
			t->v[t->n].group = xstrdup(defs[0].group);
			t->v[t->n].event = xstrdup(defs[0].event);
			t->n++;
		}
		if (!code) {
			XREALLOC_ARRAY(*names, *nnames + 1);
			(*names)[(*nnames)++] = xasprintf("%s:%s", defs[0].group, defs[0].event);
		}
		probe_defs_free(defs, nd);
		if (code) {
			probe_tmp_remove(t);
			return code;
		}
	}
	return 0;
}

void probe_tmp_remove(struct probe_tmp *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (probe_del(t->tracefs, t->v[i].kernel, t->v[i].group, t->v[i].event))
			cli_error_last(NULL);
		free(t->v[i].group);
		free(t->v[i].event);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
