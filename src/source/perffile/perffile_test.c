/*
 * Unit tests for perffile: what the writer writes, the reader reads back
 * (attrs, names, features, records in time order); every truncation of a
 * written file is handled; bad headers are refused with a message.
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

static struct perf_event_attr test_attr(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN;
	a.sample_id_all = 1;
	a.mmap = a.comm = a.task = a.mmap2 = 1;
	return a;
}

static void put_hdr(struct buf *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };
	buf_reset(b);
	buf_add(b, &h, sizeof(h));
}

static void finish_rec(struct buf *b)
{
	uint16_t size = (uint16_t)b->len;
	memcpy(b->p + 6, &size, 2);
}

static void sample(struct perf_writer *w, uint64_t ip, uint32_t pid, uint64_t time)
{
	struct buf b;
	buf_init(&b, 4096);
	put_hdr(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	uint64_t period = 1000, nr = 2, ctx = PERF_CONTEXT_USER;
	buf_add(&b, &ip, 8);
	buf_add(&b, &pid, 4);
	buf_add(&b, &pid, 4);
	buf_add(&b, &time, 8);
	buf_add(&b, &period, 8);
	buf_add(&b, &nr, 8);
	buf_add(&b, &ctx, 8);
	buf_add(&b, &ip, 8);
	finish_rec(&b);
	assert_int_equal(perf_writer_write(w, b.p, b.len), 0);
	buf_release(&b);
}

static void comm(struct perf_writer *w, uint32_t pid, const char *name)
{
	struct buf b;
	buf_init(&b, 4096);
	put_hdr(&b, PERF_RECORD_COMM, 0);
	buf_add(&b, &pid, 4);
	buf_add(&b, &pid, 4);
	char padded[16] = { 0 };
	memcpy(padded, name, strlen(name));
	buf_add(&b, padded, 16);
	uint64_t trailer[2] = { (uint64_t)pid | ((uint64_t)pid << 32), 0 }; /* tid pid, time 0 */
	buf_add(&b, trailer, sizeof(trailer));
	finish_rec(&b);
	assert_int_equal(perf_writer_write(w, b.p, b.len), 0);
	buf_release(&b);
}

static void round_end(struct perf_writer *w)
{
	struct perf_event_header h = { 68, 0, 8 };
	assert_int_equal(perf_writer_write(w, &h, sizeof(h)), 0);
}

static char *write_fixture(size_t *len)
{
	char dir[] = "/tmp/kiln-perffile-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = xasprintf("%s/t.data", dir);
	struct perf_writer *w;
	assert_int_equal(perf_writer_open(&w, path), 0);
	struct perf_event_attr a = test_attr();
	uint64_t ids[2] = { 11, 12 };
	perf_writer_add_attr(w, &a, "cpu-clock:u", ids, 2);
	comm(w, 42, "worker");
	/* Out of order within and across rounds. */
	sample(w, 0x1000, 42, 30);
	sample(w, 0x2000, 42, 10);
	round_end(w);
	sample(w, 0x3000, 42, 40);
	sample(w, 0x4000, 42, 20);
	round_end(w);
	sample(w, 0x5000, 42, 35);
	struct perf_header_info info;
	memset(&info, 0, sizeof(info));
	info.hostname = (char *)"testhost";
	info.arch = (char *)"x86_64";
	info.nr_cpus_avail = 4;
	info.nr_cpus_online = 2;
	char *cmd[] = { (char *)"/usr/bin/kiln", (char *)"record", (char *)"-g" };
	info.cmdline = cmd;
	info.cmdline_n = 3;
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

static void test_round_trip(void **state)
{
	(void)state;
	size_t len;
	char *data = write_fixture(&len);
	struct perf_reader *r;
	assert_int_equal(perf_reader_open_mem(&r, data, len, "t.data", NULL), 0);
	const struct ev_attrs *attrs = perf_reader_attrs(r);
	assert_int_equal(attrs->v.n, 1);
	assert_string_equal(attrs->v.v[0].name, "cpu-clock:u");
	assert_int_equal(attrs->v.v[0].nids, 2);
	assert_int_equal(attrs->v.v[0].ids[1], 12);
	const struct perf_header_info *h = perf_reader_info(r);
	assert_string_equal(h->hostname, "testhost");
	assert_string_equal(h->arch, "x86_64");
	assert_int_equal(h->nr_cpus_avail, 4);
	assert_int_equal(h->nr_cpus_online, 2);
	assert_int_equal(h->cmdline_n, 3);
	assert_string_equal(h->cmdline[2], "-g");
	/* EVENT_DESC is kept whole for the header listing. */
	assert_true(h->parsed[0] & (1ULL << PERF_FEAT_EVENT_DESC));
	assert_int_equal(h->nevent_desc, 1);
	assert_string_equal(h->event_desc[0].name, "cpu-clock:u");
	assert_int_equal(h->event_desc[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(h->event_desc[0].nids, 2);
	assert_int_equal(h->event_desc[0].ids[1], 12);

	struct event ev;
	uint64_t times[8], ips[8];
	size_t n = 0;
	assert_int_equal(perf_reader_next(r, &ev), 1);
	assert_int_equal(ev.type, PERF_RECORD_COMM); /* time 0: first */
	assert_string_equal(ev.u.comm.comm, "worker");
	while (perf_reader_next(r, &ev) == 1) {
		assert_int_equal(ev.type, PERF_RECORD_SAMPLE);
		assert_true(n < 8);
		assert_int_equal(ev.sid.pid, 42);
		assert_int_equal(ev.u.sample.period, 1000);
		assert_int_equal(ev.u.sample.callchain_nr, 2);
		assert_int_equal(ev_u64(ev.u.sample.callchain, 1), ev.u.sample.ip);
		times[n] = ev.sid.time;
		ips[n++] = ev.u.sample.ip;
	}
	assert_int_equal(n, 5);
	const uint64_t want_t[] = { 10, 20, 30, 35, 40 };
	const uint64_t want_ip[] = { 0x2000, 0x4000, 0x1000, 0x5000, 0x3000 };
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(times[i], want_t[i]);
		assert_int_equal(ips[i], want_ip[i]);
	}
	assert_false(perf_reader_partial(r));
	assert_int_equal(perf_reader_stats(r)->records[EV_FINISHED_ROUND], 2);
	perf_reader_free(r);
	free(data);
}

static int warnings;

static void quiet_sink(enum log_level level, const char *msg)
{
	(void)level;
	(void)msg;
	warnings++;
}

/* Every prefix of a good file: an error at open, or a partial read; never a crash. */
static void test_every_truncation(void **state)
{
	(void)state;
	size_t len;
	char *data = write_fixture(&len);
	uint64_t doff, dsize;
	memcpy(&doff, data + 40, 8);
	memcpy(&dsize, data + 40 + 8, 8);
	size_t opened = 0, partial = 0, whole = 0;
	log_set_sink(quiet_sink);
	for (size_t cut = 0; cut < len; cut++) {
		char *copy = xmalloc(cut ? cut : 1); /* exact size: ASan sees any over-read */
		memcpy(copy, data, cut);
		struct perf_reader *r;
		int err = perf_reader_open_mem(&r, copy, cut, "cut", NULL);
		if (err) {
			assert_true(err < 0);
			assert_true(err_last()->msg[0] != '\0');
		} else {
			opened++;
			struct event ev;
			int rc;
			size_t guard = 0;
			while ((rc = perf_reader_next(r, &ev)) == 1)
				assert_true(++guard < 100);
			if (cut < doff + dsize) {
				/* Data cut short: must say so. */
				assert_true(rc < 0 || perf_reader_partial(r));
				partial++;
			} else {
				/* Only features lost: every record was read. */
				assert_int_equal(rc, 0);
				assert_int_equal(guard, 6);
				whole++;
			}
			perf_reader_free(r);
		}
		free(copy);
	}
	log_set_sink(NULL);
	assert_int_equal(partial + whole, opened);
	assert_true(partial > 0 && whole > 0);
	assert_true(warnings > 0);
	free(data);
}

static void test_bad_headers(void **state)
{
	(void)state;
	struct perf_reader *r;
	/* samply #870: a header whose attr size is 0. */
	uint8_t zero[104] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 104 };
	assert_int_equal(perf_reader_open_mem(&r, zero, sizeof(zero), "z", NULL), -EBADMSG);
	assert_non_null(strstr(err_last()->msg, "attr size"));
	const char elf[] = "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0";
	assert_int_equal(perf_reader_open_mem(&r, elf, 16, "e", NULL), -EBADMSG);
	assert_non_null(strstr(err_last()->msg, "not a perf.data file"));
	assert_non_null(strstr(err_last()->msg, "7f 45 4c 46"));
	const char v1[] = "PERFFILE\150\0\0\0\0\0\0\0";
	assert_int_equal(perf_reader_open_mem(&r, v1, 16, "v1", NULL), -EBADMSG);
	assert_non_null(strstr(err_last()->msg, "legacy"));
	const char be[] = "2ELIFREP\0\0\0\0\0\0\0\150";
	assert_int_equal(perf_reader_open_mem(&r, be, 16, "be", NULL), -EBADMSG);
	assert_non_null(strstr(err_last()->msg, "big-endian"));
	assert_int_equal(perf_reader_open_mem(&r, "", 0, "empty", NULL), -EBADMSG);
	assert_string_equal(err_last()->msg, "empty file");
}

/* Records compressed as perf -z writes them: one unterminated zstd stream,
 * cut into a COMPRESSED and a COMPRESSED2 record, with a record straddling
 * the cut and a FINISHED_ROUND between them. */
static void test_compressed(void **state)
{
	(void)state;
	size_t len;
	char *plain = write_fixture(&len);
	uint64_t doff, dsize;
	memcpy(&doff, plain + 40, 8);
	memcpy(&dsize, plain + 48, 8);
	/* Drop FINISHED_ROUNDs from the plain records: we add our own. */
	struct buf recs;
	buf_init(&recs, 1 << 20);
	for (uint64_t p = doff; p < doff + dsize;) {
		uint16_t size;
		uint32_t type;
		memcpy(&type, plain + p, 4);
		memcpy(&size, plain + p + 6, 2);
		if (type != 68)
			buf_add(&recs, plain + p, size);
		p += size;
	}
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cut = recs.len / 2 + 3; /* not on a record boundary */
	uint8_t z1[4096], z2[4096];
	ZSTD_outBuffer o1 = { z1, sizeof(z1), 0 }, o2 = { z2, sizeof(z2), 0 };
	ZSTD_inBuffer i1 = { recs.p, cut, 0 }, i2 = { recs.p + cut, recs.len - cut, 0 };
	assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &o1, &i1, ZSTD_e_flush)));
	assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &o2, &i2, ZSTD_e_flush)));
	ZSTD_freeCCtx(cc);

	/* Rebuild the file: same header and attrs, new data section, no features. */
	struct buf f;
	buf_init(&f, 1 << 20);
	buf_add(&f, plain, doff);
	struct perf_event_header h1 = { 81, 0, (uint16_t)(8 + o1.pos) };
	buf_add(&f, &h1, 8);
	buf_add(&f, z1, o1.pos); /* unpadded, as perf writes it */
	struct perf_event_header fr = { 68, 0, 8 };
	buf_add(&f, &fr, 8);
	size_t padded = (o2.pos + 7) & ~(size_t)7;
	struct perf_event_header h2 = { 83, 0, (uint16_t)(16 + padded) };
	uint64_t dlen = o2.pos;
	buf_add(&f, &h2, 8);
	buf_add(&f, &dlen, 8);
	buf_add(&f, z2, o2.pos);
	buf_add(&f, "\0\0\0\0\0\0\0", padded - o2.pos);
	uint64_t newsize = f.len - doff, zero4[4] = { 0 };
	memcpy(f.p + 48, &newsize, 8);
	memcpy(f.p + 72, zero4, sizeof(zero4));

	struct perf_reader *r;
	assert_int_equal(perf_reader_open_mem(&r, f.p, f.len, "z", NULL), 0);
	struct event ev;
	size_t comms = 0, samples = 0;
	uint64_t last = 0;
	int rc;
	while ((rc = perf_reader_next(r, &ev)) == 1) {
		if (ev.type == PERF_RECORD_COMM) {
			assert_string_equal(ev.u.comm.comm, "worker");
			comms++;
		} else {
			assert_int_equal(ev.type, PERF_RECORD_SAMPLE);
			assert_true(ev.sid.time >= last);
			last = ev.sid.time;
			samples++;
		}
	}
	assert_int_equal(rc, 0);
	assert_int_equal(comms, 1);
	assert_int_equal(samples, 5);
	assert_int_equal(perf_reader_stats(r)->records[EV_COMPRESSED], 1);
	assert_int_equal(perf_reader_stats(r)->records[EV_COMPRESSED2], 1);
	perf_reader_free(r);

	/* Corrupt the zstd bytes: an error naming the record, no crash. */
	f.p[doff + 8 + 4] ^= 0xff;
	assert_int_equal(perf_reader_open_mem(&r, f.p, f.len, "z", NULL), 0);
	while ((rc = perf_reader_next(r, &ev)) == 1)
		;
	assert_true(rc < 0);
	assert_non_null(strstr(err_last()->msg, "COMPRESSED"));
	assert_true(perf_reader_partial(r));
	perf_reader_free(r);
	buf_release(&f);
	buf_release(&recs);
	free(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_compressed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
