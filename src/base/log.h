/*
 * log: leveled diagnostics through a settable sink (base, L0).
 *
 * Modules never print; they call log_warn() and friends, and the CLI
 * installs the sink that decides where the text goes (like
 * libbpf_set_print). The default sink writes "warning: ..." lines to
 * stderr.
 *
 * A warning about one record, line or file of a bad input repeats as
 * often as the input is bad. Such warnings go through log_repeat() with
 * their kind: the first LOG_REPEAT_SHOWN of a kind are printed, the rest
 * only counted, and log_repeat_flush() (the CLI calls it once, at the
 * end) prints one line for each kind that had more:
 *   warning: ... and 1758 more records skipped (not shown)
 * The sink and these counts are the process's diagnostics state, set up
 * by the CLI; counting is atomic (a helper thread may warn).
 */
#ifndef KILN_BASE_LOG_H
#define KILN_BASE_LOG_H

#include <stdbool.h>

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

typedef void (*log_sink_fn)(enum log_level level, const char *msg);

void log_set_sink(log_sink_fn fn);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Drop this thread's messages while 'quiet' (for a helper thread that
 * repeats work whose problems another thread reports). */
void log_set_thread_quiet(bool quiet);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#define LOG_REPEAT_SHOWN 10u

/* Kinds of warnings that repeat with the input (see log_repeat). */
enum log_repeat_kind {
	LOG_REPEAT_RECORD,  /* a perf.data record skipped */
	LOG_REPEAT_FEATURE, /* a perf.data header feature skipped */
	LOG_REPEAT_DSO,     /* a binary without symbols */
	LOG_REPEAT_KIND_COUNT
};

/* A warning of 'kind': printed if fewer than LOG_REPEAT_SHOWN of that kind were. */
void log_repeat(enum log_repeat_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* One warning per kind that had more than LOG_REPEAT_SHOWN: how many more. */
void log_repeat_flush(void);

#endif
