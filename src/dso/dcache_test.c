/*
 * dcache unit tests (dso, L2): entries kept and found again byte for
 * byte; keys that differ when the file changes; KILN_CACHE_DIR=off; a
 * damaged entry (cut, trailer or magic changed) refused and removed; a
 * directory that is a symbolic link or not this user's left alone; the
 * oldest entries evicted under KILN_CACHE_MAX_MB; a dead writer's
 * temporary file removed; an image over half the cap not kept; entries
 * 0600 in a 0700 directory whatever the umask, and an older kiln's open
 * entry and directory made private.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "dso/dcache.h"

static char dir[64];
static struct kiln_env env; /* what the tests hand the cache */

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kiln-dcache-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	env.cache_dir = dir;
	env.cache_max_mb = NULL;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* An ELF-looking image of n bytes. */
static uint8_t *image(size_t n, unsigned seed)
{
	uint8_t *p = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + seed);
	memcpy(p, "\177ELF", 4);
	return p;
}

static void key_for(struct dcache_key *k, off_t size, long nsec)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_dev = 1;
	st.st_ino = 2;
	st.st_size = size;
	st.st_mtim.tv_sec = 1700000000;
	st.st_mtim.tv_nsec = nsec;
	dcache_key(k, &st);
}

static char *entry_path(const struct dcache_key *k)
{
	char *p = xmalloc(4400);
	snprintf(p, 4400, "%s/expanded-v1/%s", dir, k->name);
	return p;
}

static void test_roundtrip(void **state)
{
	(void)state;
	struct dcache_key k, k2, k3;
	key_for(&k, 1000, 5);
	key_for(&k2, 1001, 5); /* the file grew */
	key_for(&k3, 1000, 6); /* touched */
	assert_string_not_equal(k.name, k2.name);
	assert_string_not_equal(k.name, k3.name);
	uint8_t *img = image(100000, 1), *m;
	size_t len;
	assert_int_equal(dcache_get(&env, &k, &m, &len), -ENOENT);
	dcache_put(&env, &k, img, 100000);
	assert_int_equal(dcache_get(&env, &k, &m, &len), 0);
	assert_int_equal(len, 100000);
	assert_memory_equal(m, img, len);
	m[10] ^= 1; /* private: the entry is not changed */
	dcache_unmap(m, len);
	assert_int_equal(dcache_get(&env, &k, &m, &len), 0);
	assert_memory_equal(m, img, len);
	dcache_unmap(m, len);
	assert_int_equal(dcache_get(&env, &k2, &m, &len), -ENOENT);
	assert_int_equal(dcache_get(&env, &k3, &m, &len), -ENOENT);
	struct stat st;
	char sub[128];
	snprintf(sub, sizeof(sub), "%s/expanded-v1", dir);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	free(img);
}

static void test_off(void **state)
{
	(void)state;
	struct dcache_key k;
	key_for(&k, 1, 1);
	uint8_t *img = image(5000, 2), *m;
	size_t len;
	env.cache_dir = "off";
	dcache_put(&env, &k, img, 5000);
	assert_int_equal(dcache_get(&env, &k, &m, &len), -ENOENT);
	env.cache_dir = dir;
	assert_int_equal(dcache_get(&env, &k, &m, &len), -ENOENT); /* nothing was written */
	free(img);
}

/* Writes 'img' as the entry for k, then changes it with 'damage'. */
static void damaged(unsigned how)
{
	struct dcache_key k;
	key_for(&k, 2000 + how, 0);
	uint8_t *img = image(20000, 3), *m;
	size_t len;
	dcache_put(&env, &k, img, 20000);
	char *path = entry_path(&k);
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	if (how == 0) {
		assert_int_equal(ftruncate(fd, 12345), 0); /* cut */
	} else if (how == 1) {
		assert_int_equal(pwrite(fd, "X", 1, 20000 + 3), 1); /* trailer's magic */
	} else if (how == 2) {
		uint8_t n = 7;
		assert_int_equal(pwrite(fd, &n, 1, 20000 + 8), 1); /* trailer's length */
	} else {
		assert_int_equal(pwrite(fd, "\0", 1, 1), 1); /* not ELF */
	}
	close(fd);
	assert_int_equal(dcache_get(&env, &k, &m, &len), -ENOENT);
	assert_int_equal(access(path, F_OK), -1); /* removed: made again next time */
	dcache_put(&env, &k, img, 20000);
	assert_int_equal(dcache_get(&env, &k, &m, &len), 0);
	assert_memory_equal(m, img, 20000);
	dcache_unmap(m, len);
	free(path);
	free(img);
}

static void test_damaged(void **state)
{
	(void)state;
	for (unsigned how = 0; how < 4; how++)
		damaged(how);
}

static void test_unsafe_dirs(void **state)
{
	(void)state;
	struct dcache_key k;
	key_for(&k, 3000, 0);
	uint8_t *img = image(4000, 4), *m;
	size_t len;
	char real[128], link[128];
	snprintf(real, sizeof(real), "%s/real", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(mkdir(real, 0700), 0);
	assert_int_equal(symlink(real, link), 0);
	env.cache_dir = link; /* a symbolic link: not used */
	dcache_put(&env, &k, img, 4000);
	assert_int_equal(dcache_get(&env, &k, &m, &len), -ENOENT);
	char sub[160];
	snprintf(sub, sizeof(sub), "%s/expanded-v1", real);
	assert_int_equal(access(sub, F_OK), -1);
	if (geteuid() == 0) { /* another user's directory: not used */
		char other[128];
		snprintf(other, sizeof(other), "%s/other", dir);
		assert_int_equal(mkdir(other, 0700), 0);
		assert_int_equal(chown(other, 65534, 65534), 0);
		env.cache_dir = other;
		dcache_put(&env, &k, img, 4000);
		assert_int_equal(dcache_get(&env, &k, &m, &len), -ENOENT);
		snprintf(sub, sizeof(sub), "%s/expanded-v1", other);
		assert_int_equal(access(sub, F_OK), -1);
	}
	env.cache_dir = dir;
	free(img);
}

static void test_evict(void **state)
{
	(void)state;
	char sub[128], cmd[256];
	snprintf(sub, sizeof(sub), "%s/expanded-v1", dir);
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/*", sub);
	assert_int_equal(system(cmd), 0);
	env.cache_max_mb = "2";
	assert_int_equal(dcache_max_bytes(&env), 2u << 20);
	size_t sz = 600000;
	uint8_t *img = image(sz, 5), *m;
	size_t len;
	struct dcache_key k[4];
	for (int i = 0; i < 4; i++) {
		key_for(&k[i], 4000 + i, 0);
		dcache_put(&env, &k[i], img, sz);
		struct timespec t = { 0, 20 * 1000 * 1000 };
		nanosleep(&t, NULL); /* distinct ages */
		if (i == 1) { /* the first one used again: the second is now the oldest */
			assert_int_equal(dcache_get(&env, &k[0], &m, &len), 0);
			dcache_unmap(m, len);
			nanosleep(&t, NULL);
		}
	}
	/* 4 x 600 kB > 2 MB: the least recently used (k[1]) went first. */
	assert_int_equal(dcache_get(&env, &k[1], &m, &len), -ENOENT);
	for (int i = 0; i < 4; i++) {
		if (i == 1)
			continue;
		assert_int_equal(dcache_get(&env, &k[i], &m, &len), 0);
		dcache_unmap(m, len);
	}
	/* A dead writer's temporary file goes; a live one's stays. */
	char old_tmp[256], new_tmp[256];
	snprintf(old_tmp, sizeof(old_tmp), "%s/.x.kiln-tmp-1", sub);
	snprintf(new_tmp, sizeof(new_tmp), "%s/.y.kiln-tmp-2", sub);
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(i ? new_tmp : old_tmp, "w");
		assert_non_null(f);
		fputs("partial", f);
		fclose(f);
	}
	struct timespec times[2] = { { time(NULL) - 7200, 0 }, { time(NULL) - 7200, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, old_tmp, times, 0), 0);
	struct dcache_key small;
	key_for(&small, 4500, 0);
	dcache_put(&env, &small, img, 1000);
	assert_int_equal(access(old_tmp, F_OK), -1);
	assert_int_equal(access(new_tmp, F_OK), 0);
	struct dcache_key big;
	key_for(&big, 5000, 0);
	uint8_t *huge = image(1100000, 6); /* over half the cap: not kept */
	dcache_put(&env, &big, huge, 1100000);
	assert_int_equal(dcache_get(&env, &big, &m, &len), -ENOENT);
	env.cache_max_mb = NULL;
	assert_int_equal(dcache_max_bytes(&env), DCACHE_MAX_BYTES);
	free(huge);
	free(img);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* Entries name other users' binaries: nobody else may read them. */
static void test_private(void **state)
{
	(void)state;
	char sub[128], cmd[256];
	snprintf(sub, sizeof(sub), "%s/expanded-v1", dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sub);
	assert_int_equal(system(cmd), 0);
	mode_t old = umask(0);
	struct dcache_key k;
	key_for(&k, 6000, 0);
	uint8_t *img = image(3000, 7), *m;
	size_t len;
	dcache_put(&env, &k, img, 3000);
	char *path = entry_path(&k);
	assert_int_equal(mode_of(path), 0600);
	assert_int_equal(mode_of(sub), 0700);
	/* As an older kiln left them: open to others. */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(chmod(sub, 0755), 0);
	assert_int_equal(dcache_get(&env, &k, &m, &len), 0);
	dcache_unmap(m, len);
	assert_int_equal(mode_of(path), 0600);
	assert_int_equal(mode_of(sub), 0700);
	/* The directory the user named is not the cache's to change. */
	assert_int_equal(chmod(dir, 0755), 0);
	dcache_put(&env, &k, img, 3000);
	assert_int_equal(mode_of(dir), 0755);
	assert_int_equal(chmod(dir, 0700), 0);
	umask(old);
	free(path);
	free(img);
}

/* One file, one entry: the key is the file's identity alone. */
static void test_one_entry(void **state)
{
	(void)state;
	char sub[128], cmd[256];
	snprintf(sub, sizeof(sub), "%s/expanded-v1", dir);
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/*", sub);
	assert_int_equal(system(cmd), 0);
	struct dcache_key a, b;
	key_for(&a, 7000, 1);
	key_for(&b, 7000, 1);
	assert_string_equal(a.name, b.name);
	uint8_t *img = image(3000, 8);
	dcache_put(&env, &a, img, 3000);
	dcache_put(&env, &b, img, 3000);
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) = 1", sub);
	assert_int_equal(system(cmd), 0);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_off),
		cmocka_unit_test(test_damaged),	  cmocka_unit_test(test_unsafe_dirs),
		cmocka_unit_test(test_evict),	  cmocka_unit_test(test_private),
		cmocka_unit_test(test_one_entry),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
