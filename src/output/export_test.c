/*
 * Tests for the export writers and the palette map: JSON escaping of
 * hostile names (valid JSON, valid UTF-8, no "</script>"), speedscope's
 * profiles and weights, pprof's protobuf read back by a small decoder
 * here (gunzip with zlib, then fields), deterministic bytes, and
 * palette.map parsing and writing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "output/export.h"
#include "output/palmap.h"

struct fx {
	struct strtab names;
	struct trie t;
};

static void fx_init(struct fx *x)
{
	strtab_init(&x->names);
	trie_init(&x->t, &x->names);
}

static void fx_release(struct fx *x)
{
	trie_release(&x->t);
	strtab_release(&x->names);
}

static void add(struct fx *x, uint64_t w, int n, const char *const *names, const uint8_t *kinds)
{
	struct trie_frame f[8];
	for (int i = 0; i < n; i++) {
		f[i].name = strtab_intern_str(&x->names, names[i]);
		f[i].kind = kinds ? kinds[i] : (i == 0 ? FRAME_PROCESS : FRAME_USER);
	}
	trie_add(&x->t, f, (size_t)n, w);
}

static char *capture(int (*fn)(FILE *, const struct trie *, const struct export_opts *),
		     const struct trie *t, const struct export_opts *o, size_t *len)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	assert_non_null(f);
	assert_int_equal(fn(f, t, o), 0);
	fclose(f);
	*len = n;
	return p;
}

static void test_json_escape(void **state)
{
	(void)state;
	const char hostile[] = "a\"b\\c</script><&>\x01\t\n\xff\xc0\xafok\xe2\x80\xa8\xc3\xa9";
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	json_put_escaped(f, hostile, sizeof(hostile) - 1);
	fclose(f);
	assert_string_equal(p, "a\\\"b\\\\c\\u003c/script\\u003e\\u003c\\u0026\\u003e\\u0001\\u0009"
			       "\\u000a\\ufffd\\ufffd\\ufffdok\\u2028\xc3\xa9");
	free(p);
}

static void test_speedscope(void **state)
{
	(void)state;
	struct fx x;
	fx_init(&x);
	const char *s1[] = { "app-1/1", "main", "std::vector<int>::operator<<" };
	const char *s2[] = { "app-1/1", "main", "work" };
	const char *s3[] = { "app-1/2", "main" };
	add(&x, 3, 3, s1, NULL);
	add(&x, 2, 3, s2, NULL);
	add(&x, 4, 2, s3, NULL);
	trie_sort(&x.t);
	struct export_opts o = { .name = "t\"1" };
	size_t len, len2;
	char *j = capture(speedscope_write, &x.t, &o, &len);
	char *j2 = capture(speedscope_write, &x.t, &o, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(j, j2, len);
	assert_non_null(strstr(j, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""));
	assert_non_null(strstr(j, "\"name\":\"t\\\"1\""));
	assert_non_null(strstr(j, "{\"name\":\"std::vector\\u003cint\\u003e::operator\\u003c\\u003c\"}"));
	/* one profile per thread; frames 0 main, 1 operator<<, 2 work */
	assert_non_null(strstr(j, "\"name\":\"app-1/1\",\"unit\":\"none\",\"startValue\":0,"
				  "\"endValue\":5,\"samples\":[[0,1],[0,2]],\"weights\":[3,2]}"));
	assert_non_null(strstr(j, "\"name\":\"app-1/2\",\"unit\":\"none\",\"startValue\":0,"
				  "\"endValue\":4,\"samples\":[[0]],\"weights\":[4]}"));
	free(j);
	free(j2);
	o.merge = true;
	j = capture(speedscope_write, &x.t, &o, &len);
	assert_non_null(strstr(j, "\"endValue\":9,"));
	free(j);
	fx_release(&x);
}

/* Gunzip into a heap buffer. */
static uint8_t *gunzip(const char *gz, size_t n, size_t *out_len)
{
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = cap - z.avail_out;
	inflateEnd(&z);
	return out;
}

static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	for (int sh = 0; *p < end; sh += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
	fail_msg("truncated varint");
	return 0;
}

struct decoded {
	char strings[32][64];
	int nstrings, nsamples, nlocations, nfunctions, nmappings, max_lines, nlabels;
	uint64_t addr_sum; /* the locations' addresses */
	uint64_t value_sum;
};

static void decode(const uint8_t *p, size_t n, struct decoded *d)
{
	const uint8_t *end = p + n;
	memset(d, 0, sizeof(*d));
	while (p < end) {
		uint64_t key = varint(&p, end);
		unsigned field = (unsigned)(key >> 3), wire = key & 7;
		if (wire == 0) {
			varint(&p, end);
			continue;
		}
		assert_int_equal(wire, 2);
		uint64_t len = varint(&p, end);
		assert_true(len <= (uint64_t)(end - p));
		const uint8_t *m = p, *mend = p + len;
		p += len;
		if (field == 6) {
			assert_true(d->nstrings < 32);
			snprintf(d->strings[d->nstrings++], 64, "%.*s", (int)len, (const char *)m);
		} else if (field == 2) {
			d->nsamples++;
			while (m < mend) {
				uint64_t k = varint(&m, mend), l = varint(&m, mend);
				const uint8_t *v = m;
				m += l;
				if ((k >> 3) == 2)
					d->value_sum += varint(&v, m);
				d->nlabels += (k >> 3) == 3;
			}
		} else if (field == 4) {
			int lines = 0;
			d->nlocations++;
			while (m < mend) {
				uint64_t k = varint(&m, mend);
				if ((k & 7) == 0) {
					uint64_t v = varint(&m, mend);
					if ((k >> 3) == 3)
						d->addr_sum += v;
					continue;
				}
				uint64_t l = varint(&m, mend);
				m += l;
				lines += (k >> 3) == 4;
			}
			if (lines > d->max_lines)
				d->max_lines = lines;
		} else if (field == 5) {
			d->nfunctions++;
		} else if (field == 3) {
			d->nmappings++;
		}
	}
}

static void test_pprof(void **state)
{
	(void)state;
	struct fx x;
	fx_init(&x);
	const char *s1[] = { "app", "main", "caller", "inlined", "leaf" };
	const uint8_t k1[] = { FRAME_PROCESS, FRAME_USER, FRAME_USER, FRAME_INLINE, FRAME_USER };
	const char *s2[] = { "app", "main", "bad\xff name" };
	add(&x, 5, 5, s1, k1);
	add(&x, 2, 3, s2, NULL);
	trie_sort(&x.t);
	struct export_opts o = { 0 };
	size_t len, len2, plen;
	char *gz = capture(pprof_write, &x.t, &o, &len);
	char *gz2 = capture(pprof_write, &x.t, &o, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(gz, gz2, len);
	assert_true(len > 18 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);
	assert_int_equal(gz[4] | gz[5] | gz[6] | gz[7], 0); /* no time in the header */
	uint8_t *pb = gunzip(gz, len, &plen);
	struct decoded d;
	decode(pb, plen, &d);
	assert_string_equal(d.strings[0], "");
	assert_int_equal(d.nsamples, 2);
	assert_int_equal(d.value_sum, 7);
	assert_int_equal(d.nfunctions, 6); /* app main caller inlined leaf bad-name */
	assert_int_equal(d.nlocations, 5); /* "inlined" joins "caller"'s location */
	assert_int_equal(d.max_lines, 2);
	bool samples = false, count = false, bad = false;
	for (int i = 0; i < d.nstrings; i++) {
		samples |= !strcmp(d.strings[i], "samples");
		count |= !strcmp(d.strings[i], "count");
		bad |= !strcmp(d.strings[i], "bad\xef\xbf\xbd name");
	}
	assert_true(samples && count && bad);
	free(pb);
	free(gz);
	free(gz2);
	fx_release(&x);
}

static char *capture_lp(const struct locprof *lp, const struct export_opts *o, size_t *len)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	assert_non_null(f);
	assert_int_equal(pprof_write_locprof(f, lp, o), 0);
	fclose(f);
	*len = n;
	return p;
}

/* pprof from a profile by address: mappings, locations with addresses and
 * inline lines, functions by (name, system name, file, start line), samples
 * with two values and three labels each. */
static void test_pprof_locprof(void **state)
{
	(void)state;
	struct strtab names;
	struct locprof lp;
	strtab_init(&names);
	locprof_init(&lp, &names);
	uint32_t m1 = locprof_mapping(&lp, 3, 0x1000, 0x2000, 0);
	uint32_t m2 = locprof_mapping(&lp, 1, 0x5000, 0x9000, 0x1000);
	assert_int_equal(locprof_mapping(&lp, 3, 0x1000, 0x2000, 0), m1); /* the same */
	assert_int_not_equal(locprof_mapping(&lp, 3, 0x1000, 0x2000, 0x1000), m1);
	for (size_t i = 0; i < lp.maps.n; i++) {
		lp.maps.v[i].file = strtab_intern_str(&names, i == 1 ? "/bin/app" : "/lib/libx.so");
		lp.maps.v[i].build_id = LOCPROF_NONE;
		lp.maps.v[i].is_file = true;
	}
	uint32_t f = strtab_intern_str(&names, "/src/a.c");
	struct lp_line lines[] = {
		{ strtab_intern_str(&names, "leaf"), strtab_intern_str(&names, "leaf"), f, 12, 10 },
		{ strtab_intern_str(&names, "caller"), strtab_intern_str(&names, "_Z6callerv"), f, 30, 28 },
		{ strtab_intern_str(&names, "main"), strtab_intern_str(&names, "main"), f, 40, 38 },
	};
	for (size_t i = 0; i < 3; i++)
		VEC_PUSH(&lp.lines, lines[i]);
	/* location 1: leaf inlined into caller at 0x5010; location 2: main at 0x5100 */
	VEC_PUSH(&lp.locs, ((struct lp_location){ 0x5010, m2, 0, 2 }));
	VEC_PUSH(&lp.locs, ((struct lp_location){ 0x5100, m2, 2, 1 }));
	uint32_t comm = strtab_intern_str(&names, "app");
	uint32_t st[] = { 1, 2 };
	locprof_sample(&lp, comm, 7, 7, st, 2, 100);
	locprof_sample(&lp, comm, 7, 7, st, 2, 50);
	locprof_sample(&lp, comm, 7, 8, st, 2, 25); /* another thread: another sample */
	locprof_sample(&lp, comm, 7, 7, st + 1, 1, UINT64_MAX);
	locprof_sample(&lp, comm, 7, 7, st + 1, 1, 5); /* saturates */
	assert_int_equal(lp.samples.n, 3);
	assert_int_equal(lp.samples.v[0].count, 2);
	assert_int_equal(lp.samples.v[0].period, 150);
	assert_true(lp.samples.v[2].period == UINT64_MAX);

	struct export_opts o = { .type2 = "cpu-clock", .unit2 = "nanoseconds" };
	size_t len, len2, plen;
	char *gz = capture_lp(&lp, &o, &len);
	char *gz2 = capture_lp(&lp, &o, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(gz, gz2, len);
	uint8_t *pb = gunzip(gz, len, &plen);
	struct decoded d;
	decode(pb, plen, &d);
	assert_int_equal(d.nmappings, 3);
	assert_int_equal(d.nlocations, 2);
	assert_int_equal(d.addr_sum, 0x5010 + 0x5100);
	assert_int_equal(d.max_lines, 2);
	assert_int_equal(d.nfunctions, 3);
	assert_int_equal(d.nsamples, 3);
	assert_int_equal(d.nlabels, 9);
	bool clock = false, raw = false, file = false;
	for (int i = 0; i < d.nstrings; i++) {
		clock |= !strcmp(d.strings[i], "cpu-clock");
		raw |= !strcmp(d.strings[i], "_Z6callerv");
		file |= !strcmp(d.strings[i], "/src/a.c");
	}
	assert_true(clock && raw && file);
	free(pb);
	free(gz);
	free(gz2);
	locprof_release(&lp);
	strtab_release(&names);
}

static void test_palmap(void **state)
{
	(void)state;
	const char text[] = "operator->->rgb(1,2,3)\n"
			    "foo->rgb(255,255,255)\r\n"
			    "bad->rgb(256,0,0)\n"
			    "x->#ffffff\n"
			    "inject->rgb(1,2,3)\" onload=\"x\n"
			    "\n"
			    "->rgb(0,0,0)\n";
	struct palmap *m = palmap_new();
	assert_int_equal(palmap_parse(m, text, sizeof(text) - 1), 3);
	assert_int_equal(palmap_count(m), 3);
	uint8_t c[3];
	assert_true(palmap_get(m, "operator->", 10, c));
	assert_int_equal(c[0] * 10000 + c[1] * 100 + c[2], 10203);
	assert_false(palmap_get(m, "bad", 3, c));
	uint8_t nc[3] = { 9, 8, 7 };
	palmap_put(m, "a\nb", 3, nc); /* not kept: it would break the line format */
	palmap_put(m, "zeta", 4, nc);
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	assert_int_equal(palmap_write(m, f), 0);
	fclose(f);
	assert_string_equal(p, "->rgb(0,0,0)\n"
			       "foo->rgb(255,255,255)\n"
			       "operator->->rgb(1,2,3)\n"
			       "zeta->rgb(9,8,7)\n");
	free(p);
	palmap_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_speedscope),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_pprof_locprof),
		cmocka_unit_test(test_palmap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
