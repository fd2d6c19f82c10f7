/* placeholder, replaced below */
#include <errno.h>
#include "base/err.h"
#include "trace/trace_int.h"
int bpfsrc_open(struct tr_source **out, struct tr_core *c, const struct tr_target *t)
{
	(void)out, (void)c, (void)t;
	return err_set(-ENOTSUP, "BPF support is not built in");
}
int bpfsrc_follow(struct tr_source *s, uint32_t pid)
{
	(void)s, (void)pid;
	return -ENOTSUP;
}
