/*
 * probe_cli: probes made for one recording (cli, L9). `kiln record --probe
 * SPEC` (with --probe-exec BINARY for a uprobe) creates the probe as kiln
 * probe would, records it like an -e event, and removes it when the
 * recording ends, also when a signal ended it (record runs with the stop
 * signals blocked, so the removal happens before kiln dies of the signal).
 */
#ifndef KILN_CLI_PROBE_CLI_H
#define KILN_CLI_PROBE_CLI_H

#include <stdbool.h>
#include <stddef.h>

struct probe_tmp {
	const char *tracefs;
	struct probe_tmp_event {
		bool kernel;
		char *group, *event;
	} *v;
	size_t n;
};

/*
 * Create the probes specs[0..n) (bins[i]: the -x binary, or NULL for the
 * kernel) and append their "GROUP:EVENT" names to *names (heap strings).
 * An event that exists already is refused (it would be removed at the
 * end). 0, or an exit code with the error printed (what was created is
 * removed again).
 */
int probe_tmp_create(struct probe_tmp *t, char *const *specs, const char *const *bins, size_t n,
		     char ***names, size_t *nnames);
/* Remove the probes created, and free t. */
void probe_tmp_remove(struct probe_tmp *t);

#endif
