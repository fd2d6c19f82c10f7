/* log: leveled diagnostics through a settable sink (base, L0). */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>

static void default_sink(enum log_level level, const char *msg)
{
	static const char *const prefix[] = { "error", "warning", "info", "debug" };
	fprintf(stderr, "%s: %s\n", prefix[level], msg);
}

/* Process-wide configuration set once by the CLI before any work starts. */
static log_sink_fn sink = default_sink;
static enum log_level max_level = LOG_WARN;

void log_set_sink(log_sink_fn fn)
{
	sink = fn ? fn : default_sink;
}

void log_set_level(enum log_level max)
{
	max_level = max;
}

static _Thread_local bool thread_quiet;

void log_set_thread_quiet(bool quiet)
{
	thread_quiet = quiet;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	if (level > max_level || thread_quiet)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sink(level, msg);
}
