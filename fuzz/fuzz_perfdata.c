/*
 * fuzz_perfdata: a whole perf.data (file or pipe mode) through the reader
 * (source/perffile): perf_reader_open_mem, then perf_reader_next until the
 * end or an error. Beyond "no crash" it checks that
 *   1. every event's variable parts (callchain, raw, branches, regs, stack,
 *      strings) lie inside its record, and the record is read in full, so
 *      ASan sees any pointer that strays;
 *   2. the event count is bounded by the bytes: each record takes at least
 *      8 bytes of the input or of what zstd expanded;
 *   3. after the end or an error, further calls keep returning the same
 *      result (perffile.h's contract);
 *   4. a pipe-mode input read as a stream from standard input gives the
 *      same events, in the same order, as the same bytes read from memory.
 * Odd-length inputs use a 4 KiB reorder window so its overflow path is
 * fuzzed too.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "source/perffile/perffile.h"

/* The reader's cap on what one COMPRESSED record may expand to is 64 MiB;
 * allow for one more zstd output chunk past it. */
#define FUZZ_ZSTD_RECORD_MAX ((uint64_t)65 << 20)

struct seen {
	uint32_t type;
	uint64_t offset;
};

struct run {
	struct seen *v;
	size_t n, cap;
	int rc; /* perf_reader_next's final result: 0 or -errno */
	int opened;
	uint64_t compressed; /* COMPRESSED and COMPRESSED2 records */
};

/* Read everything; record each event's type and offset. */
static void drain(struct perf_reader *r, struct run *out)
{
	struct event ev;
	int rc;
	volatile uint64_t sink = 0;

	while ((rc = perf_reader_next(r, &ev)) > 0) {
		sink += fuzz_touch_event(&ev);
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 64;
			out->v = realloc(out->v, out->cap * sizeof(*out->v));
			if (!out->v)
				abort();
		}
		out->v[out->n++] = (struct seen){ ev.type, ev.offset };
	}
	out->rc = rc;
	/* The end, or the error, is sticky. */
	fuzz_check(perf_reader_next(r, &ev) == rc);
	if (rc < 0)
		fuzz_check(perf_reader_error(r)->msg[0] != '\0');
	const struct perf_reader_stats *st = perf_reader_stats(r);
	out->compressed = st->records[EV_COMPRESSED] + st->records[EV_COMPRESSED2];
	(void)sink;
}

/* Make standard input read 'data' from its start (a memfd, reused). */
static int stdin_holds(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0) {
		fd = memfd_create("fuzz-stdin", MFD_CLOEXEC);
		if (fd < 0)
			return -1;
	}
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	for (size_t done = 0; done < size;) {
		ssize_t k = write(fd, data + done, size - done);
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	if (lseek(fd, 0, SEEK_SET) < 0 || dup2(fd, 0) < 0)
		return -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_reader_opts o = { .reorder_window = (size & 1) ? 4096 : 0 };
	struct perf_reader *r;
	struct run mem = { 0 }, stream = { 0 };
	uint8_t *buf;

	fuzz_quiet();
	buf = fuzz_copy(data, size);
	if (perf_reader_open_mem(&r, buf, size, "fuzz", &o) == 0) {
		mem.opened = 1;
		drain(r, &mem);
		perf_reader_free(r);
		/* Each event took >= 8 bytes of the input or of zstd's output. */
		fuzz_check(mem.n <= (size + mem.compressed * FUZZ_ZSTD_RECORD_MAX) / 8 + 2);
		if (!mem.compressed)
			fuzz_check(mem.n <= size / 8);
	}

	/* A pipe-mode stream read from standard input, record by record. */
	if (mem.opened && size >= 16 && fuzz_u64(buf + 8, 8) == 16 && stdin_holds(buf, size) == 0) {
		if (perf_reader_open(&r, "-", &o) == 0) {
			stream.opened = 1;
			drain(r, &stream);
			perf_reader_free(r);
		}
		fuzz_check(stream.opened);
		fuzz_check(stream.n == mem.n);
		for (size_t i = 0; i < mem.n; i++) {
			fuzz_check(stream.v[i].type == mem.v[i].type);
			fuzz_check(stream.v[i].offset == mem.v[i].offset);
		}
		fuzz_check((stream.rc < 0) == (mem.rc < 0));
	}
	free(mem.v);
	free(stream.v);
	free(buf);
	return 0;
}
