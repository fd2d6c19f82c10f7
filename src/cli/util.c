/* util: messages and small parsers shared by the commands (cli, L9). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "cli/cli.h"

void cli_error_last(const char *file)
{
	const struct err_report *e = err_last();
	if (file && e->has_offset)
		fprintf(stderr, "error: %s: %s (at offset 0x%llx)\n", file, e->msg,
			(unsigned long long)e->offset);
	else if (file)
		fprintf(stderr, "error: %s: %s\n", file, e->msg[0] ? e->msg : "failed");
	else
		fprintf(stderr, "error: %s\n", e->msg[0] ? e->msg : "failed");
}

int cli_usage(FILE *f, const char *text, int code)
{
	fputs(text, f);
	return code;
}

int cli_parse_u64(const char *s, unsigned long long *v)
{
	char *end;
	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

int cli_check_owner(const char *path, bool force)
{
	struct stat st;
	if (force || !path || !strcmp(path, "-") || stat(path, &st))
		return 0;
	if (st.st_uid == 0 || st.st_uid == geteuid())
		return 0;
	fprintf(stderr, "error: %s: not owned by current user or root (use -f to override)\n", path);
	return KILN_EXIT_FAIL;
}

int cli_report_partial(const char *file)
{
	const struct err_report *e = err_last();
	fprintf(stderr, "warning: %s: input ended early: %s (at offset 0x%llx); results are partial\n",
		file, e->msg[0] ? e->msg : "truncated", (unsigned long long)e->offset);
	return KILN_EXIT_PARTIAL;
}
