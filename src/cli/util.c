/* util: messages and small parsers shared by the commands (cli, L9). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/sanitize.h"
#include "cli/cli.h"
#include "cli/opts.h"

/* ---- stderr through sanitize_term ---- */

#define MSG_MAX ((size_t)1 << 20) /* one message, formatted */

static void write_fd2(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(STDERR_FILENO, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* diagnostics are best effort */
		p += w;
		n -= (size_t)w;
	}
}

void cli_verr(const char *fmt, va_list ap)
{
	struct buf raw, out;
	buf_init(&raw, MSG_MAX);
	buf_vaddf(&raw, fmt, ap);
	buf_init(&out, 4 * raw.len + 16);
	sanitize_term(raw.p ? raw.p : "", raw.len, false, &out);
	/* One write per message: lines of concurrent writers do not mix. */
	write_fd2(out.p ? out.p : "", out.len);
	buf_release(&out);
	buf_release(&raw);
}

void cli_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_verr(fmt, ap);
	va_end(ap);
}

void cli_log_sink(enum log_level level, const char *msg)
{
	static const char *const prefix[] = { "error", "warning", "info", "debug" };
	cli_err("%s: %s\n", prefix[level], msg);
}

int cli_usage_error(const struct opts_parser *p)
{
	cli_err("error: %s\n", p->err);
	if (p->cmd && strcmp(p->cmd->name, "kiln"))
		cli_err("See 'kiln %s --help'.\n", p->cmd->name);
	else
		cli_err("See 'kiln --help'.\n");
	return KILN_EXIT_USAGE;
}

int cli_parse(struct opts_parser *p, const struct opts_cmd *cmd, int argc, char **argv,
	      void *base, int *code)
{
	int first = opts_parse(p, cmd, argc, argv, base);
	if (first == OPTS_HELP) {
		opts_help(stdout, cmd);
		*code = KILN_EXIT_OK;
		return -1;
	}
	if (first < 0) {
		*code = cli_usage_error(p);
		return -1;
	}
	return first;
}

/*
 * The reader's message often names the file already ("cannot open
 * 'perf.data': ..."): then it is the whole line, without the file in
 * front a second time.
 */
void cli_error_last(const char *file)
{
	const struct err_report *e = err_last();
	const char *msg = e->msg[0] ? e->msg : "failed";
	char quoted[512];
	snprintf(quoted, sizeof(quoted), "'%s'", file ? file : "");
	if (file && strstr(msg, quoted))
		file = NULL;
	if (file && e->has_offset)
		cli_err("error: %s: %s (at offset 0x%llx)\n", file, msg, (unsigned long long)e->offset);
	else if (file)
		cli_err("error: %s: %s\n", file, msg);
	else if (e->has_offset)
		cli_err("error: %s (at offset 0x%llx)\n", msg, (unsigned long long)e->offset);
	else
		cli_err("error: %s\n", msg);
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
	cli_err("error: %s: not owned by current user or root (use -f to override)\n", path);
	return KILN_EXIT_FAIL;
}

int cli_report_partial(const char *file)
{
	const struct err_report *e = err_last();
	cli_err("warning: %s: input ended early: %s (at offset 0x%llx); results are partial\n",
		file, e->msg[0] ? e->msg : "truncated", (unsigned long long)e->offset);
	return KILN_EXIT_PARTIAL;
}

int cli_status_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return KILN_EXIT_OK;
}

void cli_block_stops(sigset_t *old)
{
	sigset_t stops;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigprocmask(SIG_BLOCK, &stops, old);
}

int cli_die_of(int sig)
{
	fflush(stderr);
	signal(sig, SIG_DFL);
	raise(sig);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	return 128 + sig;
}

int cli_opt_mmap_pages(struct opts_parser *p, const struct opt *o, const char *arg, void *field)
{
	unsigned long long v;
	(void)o;
	if (cli_parse_u64(arg, &v) || v == 0 || (v & (v - 1)) || v > (1u << 20))
		return opts_error(p, "-m takes a power of two number of pages, not '%s'", arg);
	*(unsigned *)field = (unsigned)v;
	return 0;
}
