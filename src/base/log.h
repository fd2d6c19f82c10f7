/*
 * log: leveled diagnostics through a settable sink (base, L0).
 *
 * Modules never print; they call log_warn() and friends, and the CLI
 * installs the sink that decides where the text goes (like
 * libbpf_set_print). The default sink writes "warning: ..." lines to
 * stderr. log_warn_once() keys on a caller-chosen string so a repeated
 * problem (one DSO without symbols) is said once.
 */
#ifndef KILN_BASE_LOG_H
#define KILN_BASE_LOG_H

#include <stdbool.h>

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

typedef void (*log_sink_fn)(enum log_level level, const char *msg);

void log_set_sink(log_sink_fn fn);
void log_set_level(enum log_level max);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Drop this thread's messages while 'quiet' (for a helper thread that
 * repeats work whose problems another thread reports). */
void log_set_thread_quiet(bool quiet);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
