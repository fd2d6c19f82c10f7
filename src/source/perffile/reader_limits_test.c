/*
 * perffile reader limits (source/perffile, L1), each hit exactly: the
 * reorder window (records past it are delivered early and counted, none
 * is lost) and the cap on what one COMPRESSED record may expand to (64
 * MiB: exactly that much is read; one record more is an error naming the
 * record, and the result is partial); and a record queued far behind
 * the read position, copied out of the file mapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "source/perffile/perffile.h"

#define SAMPLE_BYTES 64 /* the size of one record sample() writes */

static void quiet(enum log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

static void sample(struct perf_writer *w, uint64_t ip, uint32_t pid, uint64_t time)
{
	uint64_t rec[8];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SAMPLE_BYTES };
	memcpy(&rec[0], &h, 8);
	rec[1] = ip;
	rec[2] = (uint64_t)pid | (uint64_t)pid << 32;
	rec[3] = time;
	rec[4] = 1000;             /* period */
	rec[5] = 1;                /* callchain nr */
	rec[6] = PERF_CONTEXT_USER;
	rec[7] = 0;
	assert_int_equal(perf_writer_write(w, rec, sizeof(rec)), 0);
}

/* A writer on 'dir'/t.data ('dir' made from its template) with one
 * cpu-clock attr recording ip, tid, time, period and callchain; *path
 * (to free) names the file. */
static struct perf_writer *new_file(char *dir, char **path)
{
	assert_non_null(mkdtemp(dir));
	*path = xasprintf("%s/t.data", dir);
	struct perf_writer *w;
	assert_int_equal(perf_writer_open(&w, *path), 0);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN;
	a.sample_id_all = 1;
	uint64_t id = 1;
	perf_writer_add_attr(w, &a, "cpu-clock:u", &id, 1);
	return w;
}

/* A perf.data with 'n' samples in decreasing time order and no
 * FINISHED_ROUND, so only the window bounds the queue. */
static char *write_reversed(size_t n, size_t *len)
{
	char dir[] = "/tmp/kiln-rlimits-XXXXXX";
	char *path;
	struct perf_writer *w = new_file(dir, &path);
	for (size_t i = 0; i < n; i++)
		sample(w, 0x1000 + i, 7, 1000 - i);
	struct perf_header_info info;
	memset(&info, 0, sizeof(info));
	uint64_t kept;
	assert_int_equal(perf_writer_finish(w, &info, &kept), 0);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *data = xmalloc(1 << 20);
	*len = fread(data, 1, 1 << 20, f);
	fclose(f);
	unlink(path);
	rmdir(dir);
	free(path);
	return data;
}

/* Read everything with a window of 'window' bytes; count the samples. */
static size_t read_all(const char *data, size_t len, size_t window, uint64_t *overflows,
		       bool *sorted)
{
	struct perf_reader_opts o = { .reorder_window = window };
	struct perf_reader *r;
	assert_int_equal(perf_reader_open_mem(&r, data, len, "t", &o), 0);
	struct event ev;
	size_t n = 0;
	uint64_t last = 0;
	*sorted = true;
	int rc;
	while ((rc = perf_reader_next(r, &ev)) == 1) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		if (ev.sid.time < last)
			*sorted = false;
		last = ev.sid.time;
		n++;
	}
	assert_int_equal(rc, 0);
	*overflows = perf_reader_stats(r)->reorder_overflows;
	perf_reader_free(r);
	return n;
}

static void test_reorder_window(void **state)
{
	(void)state;
	size_t len;
	char *data = write_reversed(8, &len);
	uint64_t over;
	bool sorted;
	/* Room for all 8 records: no overflow, full time order. */
	assert_int_equal(read_all(data, len, 8 * SAMPLE_BYTES, &over, &sorted), 8);
	assert_int_equal(over, 0);
	assert_true(sorted);
	/* Room for 4: each record past the 4th pushes the oldest-queued out
	 * early; all 8 still arrive. */
	assert_int_equal(read_all(data, len, 4 * SAMPLE_BYTES, &over, &sorted), 8);
	assert_int_equal(over, 4);
	assert_false(sorted);
	free(data);
}

/* A file whose data is one COMPRESSED record expanding to 'bytes' (a
 * multiple of 8) of records: 65528-byte ones of an unknown type (skipped
 * by size: cheap to read back, even under ASan), then FINISHED_ROUNDs. */
static void compressed_file(size_t bytes, struct buf *f)
{
	size_t len;
	char *plain = write_reversed(1, &len);
	uint64_t doff;
	memcpy(&doff, plain + 40, 8);
	uint8_t *raw = xcalloc(1, bytes);
	struct perf_event_header big = { 200, 0, 65528 }, fr = { 68, 0, 8 };
	size_t p = 0;
	for (; bytes - p >= 65528 + 8 * 1024; p += 65528)
		memcpy(raw + p, &big, 8);
	for (; p < bytes; p += 8)
		memcpy(raw + p, &fr, 8);
	size_t zcap = ZSTD_compressBound(bytes);
	uint8_t *z = xmalloc(zcap);
	size_t zn = ZSTD_compress(z, zcap, raw, bytes, 1);
	assert_false(ZSTD_isError(zn));
	assert_true(zn + 8 < 65536);
	free(raw);
	buf_init(f, 1 << 20);
	buf_add(f, plain, doff);
	struct perf_event_header h = { 81, 0, (uint16_t)(8 + zn) };
	buf_add(f, &h, 8);
	buf_add(f, z, zn);
	uint64_t dsize = 8 + zn, zero4[4] = { 0 };
	memcpy(f->p + 48, &dsize, 8);
	memcpy(f->p + 72, zero4, sizeof(zero4)); /* no feature sections */
	free(z);
	free(plain);
}

static void test_zstd_record_cap(void **state)
{
	(void)state;
	log_set_sink(quiet);
	struct buf f;
	struct perf_reader *r;
	struct event ev;
	int rc;

	compressed_file(64u << 20, &f);
	assert_int_equal(perf_reader_open_mem(&r, f.p, f.len, "z", NULL), 0);
	while ((rc = perf_reader_next(r, &ev)) == 1)
		;
	assert_int_equal(rc, 0);
	assert_false(perf_reader_partial(r));
	assert_int_equal(perf_reader_stats(r)->records[EV_COMPRESSED], 1);
	perf_reader_free(r);
	buf_release(&f);

	compressed_file((64u << 20) + 8, &f);
	assert_int_equal(perf_reader_open_mem(&r, f.p, f.len, "z", NULL), 0);
	while ((rc = perf_reader_next(r, &ev)) == 1)
		;
	assert_true(rc < 0);
	assert_true(perf_reader_partial(r));
	assert_non_null(strstr(err_last()->msg, "COMPRESSED (81) record expands past 64 MiB"));
	perf_reader_free(r);
	buf_release(&f);
}

/* A sample of 'nr' callchain entries, entry k being ip + k. */
static void big_sample(struct perf_writer *w, uint64_t ip, uint64_t time, size_t nr)
{
	size_t words = 6 + nr;
	uint64_t *rec = xcalloc(words, 8);
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				       (uint16_t)(words * 8) };
	memcpy(&rec[0], &h, 8);
	rec[1] = ip;
	rec[2] = 7 | (uint64_t)7 << 32;
	rec[3] = time;
	rec[4] = 1000;
	rec[5] = nr;
	for (size_t k = 0; k < nr; k++)
		rec[6 + k] = ip + k;
	assert_int_equal(perf_writer_write(w, rec, words * 8), 0);
	free(rec);
}

/*
 * Queued records stay in the file mapping, whose pages behind them are
 * handed back as the reader goes on; one that waits while more than 64
 * MiB are read after it is copied out of the mapping. Without
 * FINISHED_ROUND every record waits for the end (the window is 256 MiB):
 * the first 8 MB are copied out, and every record, the first one with its
 * time far ahead of the others', arrives whole and in time order.
 */
static void test_straggler_far_behind(void **state)
{
	(void)state;
	char dir[] = "/tmp/kiln-rlimits-XXXXXX";
	char *path;
	struct perf_writer *w = new_file(dir, &path);
	const size_t nr = 1000, n = 9000; /* 8 KiB a record, 72 MB in all */
	big_sample(w, 0xdead0000, (uint64_t)1 << 40, nr);
	for (size_t i = 0; i < n; i++)
		big_sample(w, 0x100000 + i * 0x10000, 1000 + i, nr);
	struct perf_header_info info;
	memset(&info, 0, sizeof(info));
	uint64_t kept;
	assert_int_equal(perf_writer_finish(w, &info, &kept), 0);

	struct perf_reader *r;
	assert_int_equal(perf_reader_open(&r, path, NULL), 0);
	struct event ev;
	size_t seen = 0;
	uint64_t last = 0;
	int rc;
	while ((rc = perf_reader_next(r, &ev)) == 1) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		assert_true(ev.sid.time >= last);
		last = ev.sid.time;
		uint64_t want = seen < n ? 0x100000 + seen * 0x10000 : 0xdead0000;
		assert_int_equal(ev.u.sample.ip, want);
		assert_int_equal(ev.u.sample.callchain_nr, nr);
		uint64_t first, end;
		memcpy(&first, ev.u.sample.callchain, 8);
		memcpy(&end, ev.u.sample.callchain + (nr - 1) * 8, 8);
		assert_int_equal(first, want);
		assert_int_equal(end, want + nr - 1);
		seen++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(seen, n + 1);
	assert_int_equal(last, (uint64_t)1 << 40);
	perf_reader_free(r);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reorder_window),
		cmocka_unit_test(test_zstd_record_cap),
		cmocka_unit_test(test_straggler_far_behind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
