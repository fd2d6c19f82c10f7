/*
 * script: perf script's text format (output, L7). Widths and spacing
 * follow perf 6.1's builtin-script.c output.
 */
#include "output/script.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "base/err.h"

static const struct {
	const char *name;
	uint64_t bit;
} field_names[] = {
	{ "comm", SF_COMM }, { "pid", SF_PID },       { "tid", SF_TID },   { "cpu", SF_CPU },
	{ "time", SF_TIME }, { "event", SF_EVENT },   { "period", SF_PERIOD }, { "ip", SF_IP },
	{ "sym", SF_SYM },   { "symoff", SF_SYMOFF }, { "dso", SF_DSO },   { "addr", SF_ADDR },
	{ "trace", SF_TRACE }, { "srcline", SF_SRCLINE },
};

static int field_bit(const char *name, size_t n, uint64_t *bit)
{
	for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++) {
		if (strlen(field_names[i].name) == n && !strncmp(field_names[i].name, name, n)) {
			*bit = field_names[i].bit;
			return 0;
		}
	}
	return err_set(-EINVAL, "unknown field '%.*s'", (int)n, name);
}

int script_fields_parse(const char *spec, uint64_t *fields)
{
	const char *p = spec;
	/* "+a,-b" edits the current set; a plain list replaces it. */
	bool edit = *p == '+' || *p == '-';
	if (!edit)
		*fields = 0;
	while (*p) {
		char op = '=';
		if (*p == '+' || *p == '-')
			op = *p++;
		size_t n = strcspn(p, ",");
		uint64_t bit;
		int err = field_bit(p, n, &bit);
		if (err)
			return err;
		if (op == '-')
			*fields &= ~bit;
		else
			*fields |= bit;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

uint64_t script_default_fields(uint64_t st, bool is_tracepoint)
{
	uint64_t f = SF_COMM | SF_TID | SF_TIME | SF_EVENT;
	if (st & PERF_SAMPLE_CPU)
		f |= SF_CPU;
	if (is_tracepoint)
		return f | SF_TRACE;
	if (st & PERF_SAMPLE_PERIOD)
		f |= SF_PERIOD;
	f |= SF_IP | SF_SYM | SF_SYMOFF | SF_DSO;
	return f;
}

static void print_frame_tail(FILE *f, uint64_t fields, const struct script_frame *fr)
{
	if (fields & SF_SYM) {
		fputs(fr->sym ? fr->sym : "[unknown]", f);
		if ((fields & SF_SYMOFF) && fr->sym)
			fprintf(f, "+0x%llx", (unsigned long long)fr->symoff);
	}
	if (fields & SF_DSO)
		fprintf(f, "%s(%s)", (fields & SF_SYM) ? " " : "", fr->dso ? fr->dso : "[unknown]");
}

int script_write_sample(FILE *f, const struct script_opts *o, const struct script_sample *s)
{
	uint64_t fl = o->fields;
	if (fl & SF_COMM)
		fprintf(f, "%16s ", s->comm);
	if ((fl & SF_PID) && (fl & SF_TID))
		fprintf(f, "%7u/%-7u ", s->pid, s->tid);
	else if (fl & SF_PID)
		fprintf(f, "%7u ", s->pid);
	else if (fl & SF_TID)
		fprintf(f, "%7u ", s->tid);
	if (fl & SF_CPU)
		fprintf(f, "[%03u] ", s->cpu);
	if (fl & SF_TIME)
		fprintf(f, "%5llu.%06llu: ", (unsigned long long)(s->time / 1000000000ULL),
			(unsigned long long)(s->time % 1000000000ULL / 1000));
	if (fl & SF_PERIOD)
		fprintf(f, "%10llu ", (unsigned long long)s->period);
	if (fl & SF_EVENT)
		fprintf(f, "%s: ", s->event);
	if (fl & SF_ADDR)
		fprintf(f, "%16llx ", (unsigned long long)s->addr);
	bool stack = s->has_callchain && (fl & (SF_IP | SF_SYM | SF_DSO));
	if (stack) {
		fputc('\n', f);
		for (size_t i = 0; i < s->nframes; i++) {
			const struct script_frame *fr = &s->frames[i];
			fputc('\t', f);
			if (fl & SF_IP)
				fprintf(f, "%16llx ", (unsigned long long)(fr->kernel ? fr->ip : fr->rel));
			print_frame_tail(f, fl, fr);
			fputc('\n', f);
		}
		fputc('\n', f);
	} else {
		if (s->nframes) {
			const struct script_frame *fr = &s->frames[0];
			if (fl & SF_IP)
				fprintf(f, "%16llx ", (unsigned long long)fr->ip);
			print_frame_tail(f, fl, fr);
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}
