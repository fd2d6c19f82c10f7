/* script: perf.data → perf script text, or record statistics (pipeline, L8). */
#include "pipeline/script.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "dso/dso.h"
#include "output/script.h"
#include "proc/proc.h"
#include "source/perffile/perffile.h"
#include "symbolize/symbolize.h"
#include "unwind/unwind.h"

/* Fields a sample_type makes printable; asking for others is an error, as in perf. */
static const struct {
	uint64_t field, sample_bit;
	const char *attr;
} needs[] = {
	{ SF_CPU, PERF_SAMPLE_CPU, "CPU" },
	{ SF_TIME, PERF_SAMPLE_TIME, "TIME" },
	{ SF_PERIOD, PERF_SAMPLE_PERIOD, "PERIOD" },
	{ SF_ADDR, PERF_SAMPLE_ADDR, "ADDR" },
	{ SF_IP, PERF_SAMPLE_IP, "IP" },
	{ SF_TID, PERF_SAMPLE_TID, "TID" },
	{ SF_PID, PERF_SAMPLE_TID, "TID" },
};

static int fields_for(const struct script_run_opts *o, const struct ev_attr *a, uint64_t *fields)
{
	bool tp = a->attr.type == PERF_TYPE_TRACEPOINT;
	*fields = script_default_fields(a->attr.sample_type, tp);
	if (o->fields) {
		int err = script_fields_parse(o->fields, fields);
		if (err)
			return err;
		for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
			if ((*fields & needs[i].field) && !(a->attr.sample_type & needs[i].sample_bit))
				return err_set(-ENOTSUP, "Samples for '%s' event do not have %s attribute set. Cannot print '%s' field.",
					       a->name, needs[i].attr,
					       needs[i].field == SF_PID ? "pid" : needs[i].field == SF_TID ? "tid" :
					       needs[i].field == SF_CPU ? "cpu" : needs[i].field == SF_TIME ? "time" :
					       needs[i].field == SF_PERIOD ? "period" : needs[i].field == SF_ADDR ? "addr" : "ip");
	}
	return 0;
}

static void print_stats(FILE *out, const struct perf_reader_stats *rs)
{
	uint64_t total = rs->unknown_records;
	for (unsigned t = 0; t < EV_TYPE_MAX; t++)
		total += rs->records[t];
	fprintf(out, "\nAggregated stats:\n");
	fprintf(out, "%20s events: %10llu\n", "TOTAL", (unsigned long long)total);
	for (unsigned t = 0; t < EV_TYPE_MAX; t++) {
		if (!rs->records[t])
			continue;
		fprintf(out, "%20s events: %10llu  (%4.1f%%)\n", ev_type_name(t),
			(unsigned long long)rs->records[t], 100.0 * (double)rs->records[t] / (double)total);
	}
	if (rs->unknown_records)
		fprintf(out, "%20s events: %10llu  (%4.1f%%)\n", "UNKNOWN",
			(unsigned long long)rs->unknown_records,
			100.0 * (double)rs->unknown_records / (double)total);
	if (rs->out_of_order)
		fprintf(out, "%20s events: %10llu\n", "out of order", (unsigned long long)rs->out_of_order);
}

int script_run(const struct script_run_opts *o, struct script_run_result *res)
{
	memset(res, 0, sizeof(*res));
	struct perf_reader *r;
	int err = perf_reader_open(&r, o->input, NULL);
	if (err)
		return err;
	const struct ev_attrs *attrs = perf_reader_attrs(r);
	struct strtab strs;
	struct dso_set dsos;
	struct machine m;
	struct symbolizer sz;
	strtab_init(&strs);
	dso_set_init(&dsos);
	dsos.symfs = o->symfs;
	const struct perf_header_info *h = perf_reader_info(r);
	dso_set_use_kallsyms(&dsos, !h->hostname || !h->osrelease); /* refined below */
	for (size_t i = 0; i < h->nbuild_ids; i++)
		if (h->build_ids[i].filename[0] == '/')
			dso_set_expect_build_id(&dsos, h->build_ids[i].filename, h->build_ids[i].id,
						h->build_ids[i].size);
	machine_init(&m, &strs, &dsos);
	symbolizer_init(&sz, &m, &strs);
	struct unwind_stack *stack = xmalloc(sizeof(*stack));
	struct script_frame *frames;
	XALLOC_ARRAY(frames, UNWIND_MAX_FRAMES);
	uint64_t *fields = NULL;
	size_t nfields = 0;

	struct event ev;
	int rc;
	while ((rc = perf_reader_next(r, &ev)) == 1) {
		if (ev.type != PERF_RECORD_SAMPLE) {
			machine_apply(&m, &ev);
			continue;
		}
		res->samples++;
		if (o->stats)
			continue;
		/* Attrs can arrive late in pipe mode: size the field table lazily. */
		if (nfields < attrs->v.n) {
			XREALLOC_ARRAY(fields, attrs->v.n);
			for (size_t i = nfields; i < attrs->v.n; i++) {
				err = fields_for(o, &attrs->v.v[i], &fields[i]);
				if (err) {
					res->field_error = err == -ENOTSUP;
					goto out;
				}
			}
			nfields = attrs->v.n;
		}
		const struct ev_attr *a = ev.attr;
		struct script_opts so = { .fields = fields[a - attrs->v.v], .fields_explicit = o->fields };
		const struct thread *th = machine_thread(&m, ev.sid.pid, ev.sid.tid);
		unwind_sample(&ev, stack);
		for (size_t i = 0; i < stack->n; i++) {
			struct sym sym;
			symbolize(&sz, ev.sid.pid, stack->frames[i].ip, stack->frames[i].kernel, &sym);
			frames[i] = (struct script_frame){
				.ip = stack->frames[i].ip,
				.rel = sym.addr,
				.sym = sym.name == SYM_NONE ? NULL : strtab_get(&strs, sym.name),
				.symoff = sym.symoff,
				.dso = sym_dso_path(&sz, &sym),
				.kernel = stack->frames[i].kernel,
			};
		}
		struct script_sample s = {
			.comm = strtab_get(&strs, th->comm),
			.pid = ev.sid.pid,
			.tid = ev.sid.tid,
			.cpu = ev.sid.cpu,
			.time = ev.sid.time,
			.period = ev.u.sample.period,
			.addr = ev.u.sample.addr,
			.event = a->name,
			.sample_type = a->attr.sample_type,
			.has_callchain = (a->attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0,
			.frames = frames,
			.nframes = stack->n,
		};
		if (script_write_sample(o->out, &so, &s)) {
			err = err_set(-EIO, "cannot write the output");
			goto out;
		}
	}
	res->partial = perf_reader_partial(r) || rc < 0;
	if (o->stats)
		print_stats(o->out, perf_reader_stats(r));
out:
	free(fields);
	free(frames);
	free(stack);
	symbolizer_release(&sz);
	machine_release(&m);
	dso_set_release(&dsos);
	strtab_release(&strs);
	perf_reader_free(r);
	return err;
}
