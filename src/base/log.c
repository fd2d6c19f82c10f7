/* log: leveled diagnostics through a settable sink (base, L0). */
#include "base/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

static void default_sink(enum log_level level, const char *msg)
{
	static const char *const prefix[] = { "error", "warning", "info", "debug" };
	fprintf(stderr, "%s: %s\n", prefix[level], msg);
}

/* Process-wide diagnostics state: the sink (set once by the CLI before any
 * work starts) and the counts of repeated warnings. */
static log_sink_fn sink = default_sink;
static atomic_ulong repeats[LOG_REPEAT_KIND_COUNT];

static const char *const repeat_what[LOG_REPEAT_KIND_COUNT] = {
	[LOG_REPEAT_RECORD] = "records skipped",
	[LOG_REPEAT_FEATURE] = "header features skipped",
	[LOG_REPEAT_DSO] = "binaries without symbols",
};

void log_set_sink(log_sink_fn fn)
{
	sink = fn ? fn : default_sink;
}

static _Thread_local bool thread_quiet;

void log_set_thread_quiet(bool quiet)
{
	thread_quiet = quiet;
}

static void vlog(enum log_level level, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	sink(level, msg);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	if (level > LOG_WARN || thread_quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

void log_repeat(enum log_repeat_kind kind, const char *fmt, ...)
{
	if (thread_quiet || (unsigned)kind >= LOG_REPEAT_KIND_COUNT)
		return;
	if (atomic_fetch_add(&repeats[kind], 1) >= LOG_REPEAT_SHOWN)
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_WARN, fmt, ap);
	va_end(ap);
}

void log_repeat_flush(void)
{
	for (int k = 0; k < LOG_REPEAT_KIND_COUNT; k++) {
		unsigned long n = atomic_exchange(&repeats[k], 0);
		if (n > LOG_REPEAT_SHOWN)
			log_msg(LOG_WARN, "... and %lu more %s (not shown)", n - LOG_REPEAT_SHOWN,
				repeat_what[k]);
	}
}
