/* err: the per-thread corrupt-input report (base, L0). */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local struct err_report last;

int err_corrupt_at(uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last.msg, sizeof(last.msg), fmt, ap);
	va_end(ap);
	last.offset = offset;
	last.has_offset = 1;
	return -EBADMSG;
}

int err_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last.msg, sizeof(last.msg), fmt, ap);
	va_end(ap);
	last.has_offset = 0;
	last.offset = 0;
	return code;
}

const struct err_report *err_last(void)
{
	return &last;
}

void err_clear(void)
{
	memset(&last, 0, sizeof(last));
}

void kiln_bug(const char *file, int line, const char *msg)
{
	fprintf(stderr, "BUG: %s:%d: %s\n", file, line, msg);
	abort();
}

void err_restore(const struct err_report *rep)
{
	last = *rep;
}
