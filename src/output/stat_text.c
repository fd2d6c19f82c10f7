/* stat_text: perf stat's text, CSV and JSON layouts (output, L7). */
#include "output/stat_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define METRIC_LEN 35
#define UNIT_WIDTH 4

struct metric {
	const char *fmt;  /* NULL: no figure */
	const char *unit; /* NULL: none at all */
	double val;
};

double stat_text_unit(double v, char *unit)
{
	*unit = ' ';
	if (v > 1e9) {
		*unit = 'G';
		return v / 1e9;
	}
	if (v > 1e6) {
		*unit = 'M';
		return v / 1e6;
	}
	if (v > 1e3) {
		*unit = 'K';
		return v / 1e3;
	}
	return v;
}

int stat_text_precision(double sd)
{
	if (sd > 1 || sd <= 0)
		return 0;
	return (int)lround(ceil(-log10(sd)));
}

void stat_text_number(char *out, size_t len, double v, int width, int prec,
		      const char *thousands)
{
	char digits[128];
	snprintf(digits, sizeof(digits), "%.*f", prec, v);
	if (!thousands || !*thousands || !isfinite(v)) {
		snprintf(out, len, "%*s", width, digits);
		return;
	}
	/* group the integer part's digits by three */
	char grouped[256];
	size_t g = 0, tl = strlen(thousands);
	const char *p = digits;
	if (*p == '-')
		grouped[g++] = *p++;
	size_t intlen = strcspn(p, ".");
	for (size_t i = 0; i < intlen && g + tl + 2 < sizeof(grouped); i++) {
		grouped[g++] = p[i];
		size_t left = intlen - i - 1;
		if (left && left % 3 == 0) {
			memcpy(grouped + g, thousands, tl);
			g += tl;
		}
	}
	snprintf(grouped + g, sizeof(grouped) - g, "%s", p + intlen);
	snprintf(out, len, "%*s", width, grouped);
}

static bool same_aggr(const struct stat_row *a, const struct stat_row *b)
{
	return a->cpu == b->cpu && a->socket == b->socket && a->die == b->die &&
	       a->core == b->core && a->tid == b->tid;
}

/* The value of the first counted row of 'kind' in r's aggregate, or -1. */
static double find(const struct stat_row *rows, size_t n, const struct stat_row *r,
		   enum stat_kind kind)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].kind == kind && rows[i].state == STAT_COUNTED && same_aggr(&rows[i], r))
			return rows[i].value;
	return -1;
}

static struct metric ratio_metric(double part, double whole, const char *fmt, const char *unit)
{
	if (whole < 0)
		return (struct metric){ NULL, unit, 0 };
	return (struct metric){ fmt, unit, whole > 0 ? 100.0 * part / whole : 0 };
}

/* Miss ratios: a count over its base count of the same aggregate, in %. */
static const struct {
	enum stat_kind kind, base;
	const char *fmt, *unit;
} ratios[] = {
	{ STAT_K_BRANCH_MISSES, STAT_K_BRANCHES, "%7.2f%%", "of all branches" },
	{ STAT_K_CACHE_MISSES, STAT_K_CACHE_REFS, "%8.3f %%", "of all cache refs" },
	{ STAT_K_L1D_LOAD_MISSES, STAT_K_L1D_LOADS, "%7.2f%%", "of all L1-dcache accesses" },
	{ STAT_K_L1I_LOAD_MISSES, STAT_K_L1I_LOADS, "%7.2f%%", "of all L1-icache accesses" },
	{ STAT_K_LLC_LOAD_MISSES, STAT_K_LLC_LOADS, "%7.2f%%", "of all LL-cache accesses" },
	{ STAT_K_DTLB_LOAD_MISSES, STAT_K_DTLB_LOADS, "%7.2f%%", "of all dTLB cache accesses" },
	{ STAT_K_ITLB_LOAD_MISSES, STAT_K_ITLB_LOADS, "%7.2f%%", "of all iTLB cache accesses" },
};

static struct metric metric_of(const struct stat_row *rows, size_t n, const struct stat_row *r,
			       double elapsed_ns)
{
	double task_ms = find(rows, n, r, STAT_K_TASK_CLOCK);
	double v = r->value;
	switch (r->kind) {
	case STAT_K_TASK_CLOCK:
		return (struct metric){ "%8.3f", "CPUs utilized",
					elapsed_ns > 0 ? v * 1e6 / elapsed_ns : 0 };
	case STAT_K_CYCLES:
		if (task_ms <= 0)
			return (struct metric){ NULL, "Ghz", 0 };
		return (struct metric){ "%8.3f", "GHz", v / (task_ms * 1e6) };
	case STAT_K_INSTRUCTIONS: {
		double cyc = find(rows, n, r, STAT_K_CYCLES);
		if (cyc <= 0)
			return (struct metric){ NULL, "insn per cycle", 0 };
		return (struct metric){ "%7.2f ", "insn per cycle", v / cyc };
	}
	case STAT_K_NONE:
		return (struct metric){ NULL, NULL, 0 };
	default:
		break;
	}
	for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++)
		if (ratios[i].kind == r->kind)
			return ratio_metric(v, find(rows, n, r, ratios[i].base), ratios[i].fmt,
					    ratios[i].unit);
	if (task_ms < 0)
		return (struct metric){ NULL, NULL, 0 };
	char u;
	double rate = stat_text_unit(task_ms > 0 ? 1e9 * v / (task_ms * 1e6) : 0, &u);
	static const char *const units[] = { "/sec", "K/sec", "M/sec", "G/sec" };
	return (struct metric){ "%8.3f", units[u == 'K' ? 1 : u == 'M' ? 2 : u == 'G' ? 3 : 0],
				rate };
}

/* s as a JSON string's content (a thread's comm may hold anything). */
static void json_text(struct buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			buf_addf(out, "\\%c", c);
		else if (c < 0x20)
			buf_addf(out, "\\u%04x", c);
		else
			buf_addch(out, (char)c);
	}
}

/* perf's aggr_printout: where a row was counted. */
static void where(struct buf *out, const struct stat_opts *o, const struct stat_row *r)
{
	bool csv = o->fmt == STAT_CSV, json = o->fmt == STAT_JSON;
	const char *sep = csv ? o->sep : " ";
	switch (o->aggr) {
	case STAT_AGGR_CPU:
		if (json)
			buf_addf(out, "\"cpu\" : \"%d\", ", r->cpu);
		else
			buf_addf(out, "CPU%*d%s", csv ? 0 : -7, r->cpu, sep);
		break;
	case STAT_AGGR_THREAD:
		if (json) {
			buf_addstr(out, "\"thread\" : \"");
			json_text(out, r->comm ? r->comm : "");
			buf_addf(out, "-%d\", ", r->tid);
		} else {
			buf_addf(out, "%*s-%*d%s", csv ? 0 : 16, r->comm ? r->comm : "",
				 csv ? 0 : -8, r->tid, sep);
		}
		break;
	case STAT_AGGR_CORE:
		if (json)
			buf_addf(out, "\"core\" : \"S%d-D%d-C%d\", \"aggregate-number\" : %d, ",
				 r->socket, r->die, r->core, r->nr);
		else
			buf_addf(out, "S%d-D%d-C%*d%s%*d%s", r->socket, r->die, csv ? 0 : -8,
				 r->core, sep, csv ? 0 : 4, r->nr, sep);
		break;
	case STAT_AGGR_SOCKET:
		if (json)
			buf_addf(out, "\"socket\" : \"S%d\", \"aggregate-number\" : %d, ", r->socket,
				 r->nr);
		else
			buf_addf(out, "S%*d%s%*d%s", csv ? 0 : -5, r->socket, sep, csv ? 0 : 4, r->nr,
				 sep);
		break;
	case STAT_AGGR_GLOBAL:
		break;
	}
}

static void metric_text(struct buf *out, const struct metric *m)
{
	if (!m->fmt) {
		buf_addf(out, "%-*s", METRIC_LEN, "");
		return;
	}
	char v[64];
	snprintf(v, sizeof(v), m->fmt, m->val);
	int n = 3 + (int)strlen(v);
	buf_addf(out, " # %s %-*s", v, METRIC_LEN - n - 1, m->unit);
}

static void metric_csv(struct buf *out, const struct stat_opts *o, const struct metric *m)
{
	if (!m->fmt) {
		buf_addf(out, "%s%s", o->sep, o->sep);
		return;
	}
	char v[64];
	snprintf(v, sizeof(v), m->fmt, m->val);
	char *s = v + strspn(v, " ");
	s[strspn(s, "0123456789.")] = '\0';
	buf_addf(out, "%s%s%s%s", o->sep, s, o->sep, m->unit + strspn(m->unit, " "));
}

static double running_pct(const struct stat_row *r)
{
	/* perf divides in integers here */
	return r->run != r->ena && r->ena ? (double)(100 * r->run / r->ena) : 100.0;
}

static void one_row(struct buf *out, const struct stat_opts *o, const struct stat_row *rows,
		    size_t n, const struct stat_row *r, const char *prefix, double elapsed_ns)
{
	bool clock = r->kind == STAT_K_TASK_CLOCK;
	const char *unit = clock ? "msec" : r->kind == STAT_K_TOOL ? "ns" : "";
	bool ok = r->state == STAT_COUNTED;
	const char *state = r->state == STAT_NOT_SUPPORTED ? "<not supported>" : "<not counted>";
	struct metric m = ok ? metric_of(rows, n, r, elapsed_ns)
			     : (struct metric){ NULL, "", 0 };
	buf_addstr(out, prefix);
	if (o->fmt == STAT_JSON) {
		if (!*prefix)
			buf_addch(out, '{');
		where(out, o, r);
		if (ok)
			buf_addf(out, "\"counter-value\" : \"%f\", ", r->value);
		else
			buf_addf(out, "\"counter-value\" : \"%s\", ", state);
		buf_addf(out, "\"unit\" : \"%s\", \"event\" : \"%s\", ", unit, r->event);
		if (o->runs > 1)
			buf_addf(out, "\"variance\" : %.2f, ", r->noise);
		buf_addf(out, "\"event-runtime\" : %llu, \"pcnt-running\" : %.2f, ",
			 (unsigned long long)r->run, running_pct(r));
		buf_addf(out, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}\n", m.fmt ? m.val : 0,
			 m.unit ? m.unit : "(null)");
		return;
	}
	bool csv = o->fmt == STAT_CSV;
	const char *sep = csv ? o->sep : " ";
	where(out, o, r);
	if (ok) {
		char num[128];
		if (csv)
			snprintf(num, sizeof(num), "%.*f", clock ? 2 : 0, r->value);
		else
			stat_text_number(num, sizeof(num), r->value, 18, clock ? 2 : 0, o->thousands);
		buf_addf(out, "%s%s%-*s%s%-*s", num, sep, csv ? 0 : UNIT_WIDTH, unit, sep,
			 csv ? 0 : 32, r->event);
	} else {
		buf_addf(out, "%*s%s%-*s%s%-*s", csv ? 0 : 18, state, sep, csv ? 0 : UNIT_WIDTH, unit,
			 sep, csv ? 0 : 25, r->event);
	}
	if (csv) {
		if (o->runs > 1)
			buf_addf(out, "%s%.2f%%", o->sep, r->noise);
		buf_addf(out, "%s%llu%s%.2f", o->sep, (unsigned long long)r->run, o->sep,
			 running_pct(r));
		metric_csv(out, o, &m);
	} else {
		metric_text(out, &m);
		if (o->runs > 1 && r->noise != 0)
			buf_addf(out, "  ( +-%6.2f%% )", r->noise);
		if (r->run != r->ena)
			buf_addf(out, "  (%.2f%%)", 100.0 * (double)r->run / (double)r->ena);
	}
	buf_addch(out, '\n');
}

void stat_text_rows(struct buf *out, const struct stat_opts *o, const struct stat_row *rows,
		    size_t n, double ts, double elapsed_ns)
{
	char prefix[64] = "";
	if (ts >= 0) {
		unsigned long sec = (unsigned long)ts;
		unsigned long ns = (unsigned long)llround((ts - (double)sec) * 1e9);
		if (ns >= 1000000000UL) {
			sec++;
			ns -= 1000000000UL;
		}
		if (o->fmt == STAT_JSON)
			snprintf(prefix, sizeof(prefix), "{\"interval\" : %lu.%09lu, ", sec, ns);
		else
			snprintf(prefix, sizeof(prefix), "%6lu.%09lu%s", sec, ns,
				 o->fmt == STAT_CSV ? o->sep : " ");
	}
	for (size_t i = 0; i < n; i++)
		one_row(out, o, rows, n, &rows[i], prefix, elapsed_ns);
}

void stat_text_interval_header(struct buf *out, const struct stat_opts *o)
{
	if (o->fmt != STAT_TEXT)
		return;
	switch (o->aggr) {
	case STAT_AGGR_CPU:
		buf_addf(out, "#           time CPU                    counts %*s events\n",
			 UNIT_WIDTH, "unit");
		break;
	case STAT_AGGR_THREAD:
		buf_addf(out, "#           time             comm-pid                  counts %*s "
			      "events\n",
			 UNIT_WIDTH, "unit");
		break;
	case STAT_AGGR_CORE:
		buf_addf(out, "#           time core            cpus             counts %*s events\n",
			 UNIT_WIDTH, "unit");
		break;
	case STAT_AGGR_SOCKET:
		buf_addf(out, "#           time socket cpus             counts %*s events\n",
			 UNIT_WIDTH, "unit");
		break;
	case STAT_AGGR_GLOBAL:
		buf_addf(out, "#           time             counts %*s events\n", UNIT_WIDTH, "unit");
		break;
	}
}

void stat_text_header(struct buf *out, const struct stat_opts *o, const char *kind,
		      const char *what)
{
	if (o->fmt != STAT_TEXT)
		return;
	buf_addf(out, "\n Performance counter stats for %s'%s'", kind, what);
	if (o->runs > 1)
		buf_addf(out, " (%u runs)", o->runs);
	buf_addstr(out, ":\n\n");
}

void stat_text_footer(struct buf *out, const struct stat_opts *o, double elapsed_s,
		      double sd_s, bool rusage, double user_s, double sys_s)
{
	if (o->fmt != STAT_TEXT)
		return;
	buf_addch(out, '\n');
	if (o->runs <= 1) {
		buf_addf(out, " %17.9f seconds time elapsed", elapsed_s);
		if (rusage) {
			buf_addstr(out, "\n\n");
			buf_addf(out, " %17.9f seconds user\n", user_s);
			buf_addf(out, " %17.9f seconds sys\n", sys_s);
		}
	} else {
		int prec = stat_text_precision(sd_s) + 2;
		buf_addf(out, " %17.*f +- %.*f seconds time elapsed", prec, elapsed_s, prec, sd_s);
		double pct = elapsed_s > 0 ? 100.0 * sd_s / elapsed_s : 0;
		if (pct != 0)
			buf_addf(out, "  ( +-%6.2f%% )", pct);
	}
	buf_addstr(out, "\n\n");
}
