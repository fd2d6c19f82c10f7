/* util: messages and small parsers shared by the commands (cli, L9). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/sanitize.h"
#include "cli/cli.h"

/* ---- stderr through sanitize_term ---- */

struct tty_state {
	char pend[4]; /* an incomplete UTF-8 sequence from the last write */
	size_t npend;
};

static ssize_t stderr_write(void *cookie, const char *p, size_t n)
{
	struct tty_state *s = cookie;
	size_t total = s->npend + n;
	char *in = malloc(total ? total : 1);
	if (!in)
		return -1;
	memcpy(in, s->pend, s->npend);
	memcpy(in + s->npend, p, n);
	struct buf out;
	buf_init(&out, 4 * total + 16);
	size_t used = sanitize_term(in, total, true, &out);
	s->npend = total - used; /* at most 3 bytes */
	memcpy(s->pend, in + used, s->npend);
	for (size_t off = 0; off < out.len;) {
		ssize_t w = write(STDERR_FILENO, out.p + off, out.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* diagnostics are best effort */
		off += (size_t)w;
	}
	buf_release(&out);
	free(in);
	return (ssize_t)n;
}

void cli_sanitize_stderr(void)
{
	static struct tty_state state;
	static char line[4096];
	cookie_io_functions_t io = { .write = stderr_write };
	FILE *f = fopencookie(&state, "w", io);
	if (!f)
		return; /* keep the plain stream */
	setvbuf(f, line, _IOLBF, sizeof(line));
	stderr = f;
}

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
