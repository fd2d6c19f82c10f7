/*
 * A perf.data that shrinks while the reader has it mapped (source/perffile,
 * L1): truncated by ftruncate after perf_reader_open, then read. Reads of
 * the lost pages raise SIGBUS; base/mapguard turns them into zeros and the
 * reader stops there with "file shrank while being read" at the new end,
 * partial, after delivering every whole record before it. A SIGBUS outside
 * any guarded mapping still ends the process.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/log.h"
#include "base/mapguard.h"
#include "base/xalloc.h"
#include "source/perffile/perffile.h"

#define SAMPLE_BYTES 64
#define NSAMPLES 8192 /* 512 KiB of records */

static void quiet(enum log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

static void sample(struct perf_writer *w, uint64_t ip, uint64_t time)
{
	uint64_t rec[8];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SAMPLE_BYTES };
	memcpy(&rec[0], &h, 8);
	rec[1] = ip;
	rec[2] = 7 | (uint64_t)7 << 32;
	rec[3] = time;
	rec[4] = 1000;
	rec[5] = 1;
	rec[6] = PERF_CONTEXT_USER;
	rec[7] = 0;
	assert_int_equal(perf_writer_write(w, rec, sizeof(rec)), 0);
}

/* NSAMPLES samples in time order, a FINISHED_ROUND after every 64; returns
 * the path (to free) and the data section's offset. */
static char *write_file(uint64_t *data_off)
{
	char *path = xasprintf("/tmp/kiln-shrink-%d.data", (int)getpid());
	struct perf_writer *w;
	assert_int_equal(perf_writer_open(&w, path), 0);
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
	struct perf_event_header fr = { 68, 0, 8 }; /* FINISHED_ROUND */
	for (size_t i = 0; i < NSAMPLES; i++) {
		sample(w, 0x1000 + i, 1000 + i);
		if (i % 64 == 63)
			assert_int_equal(perf_writer_write(w, &fr, sizeof(fr)), 0);
	}
	struct perf_header_info info;
	memset(&info, 0, sizeof(info));
	uint64_t kept;
	assert_int_equal(perf_writer_finish(w, &info, &kept), 0);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 40, SEEK_SET), 0);
	assert_int_equal(fread(data_off, 8, 1, f), 1);
	fclose(f);
	return path;
}

/* Records (samples and rounds) that lie whole before 'cut'. */
static size_t whole_samples_before(uint64_t data_off, uint64_t cut)
{
	size_t n = 0;
	uint64_t at = data_off;
	for (size_t i = 0; i < NSAMPLES; i++) {
		if (at + SAMPLE_BYTES > cut)
			break;
		at += SAMPLE_BYTES;
		n++;
		if (i % 64 == 63)
			at += 8;
	}
	return n;
}

/* Open, cut the file to 'cut' bytes, read to the end: the samples seen. */
static size_t read_cut(const char *path, uint64_t cut, int *rc, struct err_report *rep,
		       bool *partial)
{
	struct perf_reader *r;
	struct perf_reader_opts o = { 0 };
	assert_int_equal(perf_reader_open(&r, path, &o), 0);
	assert_int_equal(truncate(path, (off_t)cut), 0);
	struct event ev;
	size_t n = 0;
	while ((*rc = perf_reader_next(r, &ev)) == 1)
		n += ev.type == PERF_RECORD_SAMPLE;
	*rep = *perf_reader_error(r);
	*partial = perf_reader_partial(r);
	perf_reader_free(r);
	return n;
}

static void test_cut_at_page(void **state)
{
	(void)state;
	uint64_t data_off;
	char *path = write_file(&data_off);
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t cut = (data_off + 3000 * SAMPLE_BYTES) & ~(uint64_t)(ps - 1);
	int rc;
	struct err_report rep;
	bool partial;
	size_t n = read_cut(path, cut, &rc, &rep, &partial);
	assert_true(rc < 0);
	assert_true(partial);
	assert_string_equal(rep.msg, "file shrank while being read");
	assert_true(rep.has_offset);
	assert_int_equal(rep.offset, cut);
	/* Every whole sample before the cut, in order, and nothing after it. */
	assert_int_equal(n, whole_samples_before(data_off, cut));
	unlink(path);
	free(path);
}

/* Cut inside a page: the rest of that page reads as zeros without a
 * fault; the record broken there is still reported as the shrinking. */
static void test_cut_inside_page(void **state)
{
	(void)state;
	uint64_t data_off;
	char *path = write_file(&data_off);
	uint64_t cut = data_off + 1234 * SAMPLE_BYTES + 100;
	int rc;
	struct err_report rep;
	bool partial;
	size_t n = read_cut(path, cut, &rc, &rep, &partial);
	assert_true(rc < 0);
	assert_true(partial);
	assert_string_equal(rep.msg, "file shrank while being read");
	assert_int_equal(rep.offset, cut);
	size_t whole = whole_samples_before(data_off, cut);
	assert_true(n >= whole && n <= whole + 1); /* the broken one may be seen, zero-filled */
	unlink(path);
	free(path);
}

/* Emptied: nothing of the data is left. */
static void test_cut_to_zero(void **state)
{
	(void)state;
	uint64_t data_off;
	char *path = write_file(&data_off);
	int rc;
	struct err_report rep;
	bool partial;
	size_t n = read_cut(path, 0, &rc, &rep, &partial);
	assert_true(rc < 0);
	assert_true(partial);
	assert_string_equal(rep.msg, "file shrank while being read");
	assert_int_equal(rep.offset, 0);
	assert_int_equal(n, 0);
	unlink(path);
	free(path);
}

/* A file that does not shrink reads whole, as before. */
static void test_no_cut(void **state)
{
	(void)state;
	uint64_t data_off;
	char *path = write_file(&data_off);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	int rc;
	struct err_report rep;
	bool partial;
	assert_int_equal(read_cut(path, (uint64_t)st.st_size, &rc, &rep, &partial), NSAMPLES);
	assert_int_equal(rc, 0);
	assert_false(partial);
	unlink(path);
	free(path);
}

/* mapguard itself: the lowest faulting page is kept per slot; a fault
 * outside every guarded range is not swallowed. */
static void test_mapguard(void **state)
{
	(void)state;
	long ps = sysconf(_SC_PAGESIZE);
	char path[] = "/tmp/kiln-mapguard-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8 * ps), 0);
	const volatile uint8_t *a = mmap(NULL, 8 * (size_t)ps, PROT_READ, MAP_PRIVATE, fd, 0);
	const volatile uint8_t *b = mmap(NULL, 8 * (size_t)ps, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(a != MAP_FAILED && b != MAP_FAILED);
	int ga = mapguard_add((const void *)a, 8 * (size_t)ps);
	int gb = mapguard_add((const void *)b, 8 * (size_t)ps);
	assert_true(ga >= 0 && gb >= 0 && ga != gb);
	assert_int_equal(ftruncate(fd, 2 * ps), 0);
	assert_int_equal(a[1], 0);
	assert_false(mapguard_faulted(ga, NULL)); /* inside the file */
	assert_int_equal(a[6 * ps + 5], 0);
	assert_int_equal(a[4 * ps], 0);
	assert_int_equal(a[6 * ps + 6], 0); /* the zero page stays */
	uint64_t off;
	assert_true(mapguard_faulted(ga, &off));
	assert_int_equal(off, 4 * (uint64_t)ps);
	assert_false(mapguard_faulted(gb, NULL));
	mapguard_touch((const void *)b, 8 * (size_t)ps);
	assert_true(mapguard_faulted(gb, &off));
	assert_int_equal(off, 2 * (uint64_t)ps);
	mapguard_remove(ga);
	mapguard_remove(gb);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The handler before mapguard's is the default action (not
		 * cmocka's); b is guarded, a no longer: its fault must kill. */
		signal(SIGBUS, SIG_DFL);
		mapguard_add((const void *)b, 8 * (size_t)ps);
		_exit(a[5 * ps] + 10);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
	munmap((void *)a, 8 * (size_t)ps);
	munmap((void *)b, 8 * (size_t)ps);
	close(fd);
	unlink(path);
}

/* MAPGUARD_SLOTS ranges are guarded at once; one more is refused (-1)
 * and read unguarded; a freed slot is taken again. */
static void test_mapguard_slots(void **state)
{
	(void)state;
	int *slots = xmalloc(sizeof(int) * MAPGUARD_SLOTS);
	for (size_t i = 0; i < MAPGUARD_SLOTS; i++) {
		slots[i] = mapguard_add((const void *)(uintptr_t)(4096 * (i + 1)), 4096);
		assert_true(slots[i] >= 0);
	}
	assert_int_equal(mapguard_add((const void *)(uintptr_t)4096, 4096), -1);
	mapguard_remove(slots[100]);
	assert_int_equal(mapguard_add((const void *)(uintptr_t)4096, 4096), slots[100]);
	for (size_t i = 0; i < MAPGUARD_SLOTS; i++)
		mapguard_remove(slots[i]);
	free(slots);
}

int main(void)
{
	log_set_sink(quiet);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_at_page),
		cmocka_unit_test(test_cut_inside_page),
		cmocka_unit_test(test_cut_to_zero),
		cmocka_unit_test(test_no_cut),
		cmocka_unit_test(test_mapguard),
		cmocka_unit_test(test_mapguard_slots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
