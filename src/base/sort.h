/*
 * sort: a stable merge sort made for one element type, its comparison
 * inline (base, L0).
 *
 * SORT_DEFINE(name, T, less) defines `static void name(T *v, size_t n)`,
 * sorting v by `less(const T *a, const T *b)` (a strict weak order;
 * elements equal under it keep their order, as glibc's qsort keeps them):
 * runs of SORT_RUN insertion-sorted, then merged pairwise bottom-up
 * through one scratch array. For the big tables built at load time (a
 * binary's FDEs and symbols), where qsort's indirect call per comparison
 * was most of the cost.
 *
 * RADIX_DEFINE(name, T, key) defines `static void name(T *v, size_t n)`,
 * sorting v stably by the uint64_t `key(const T *)`: least significant
 * byte first, one counting pass per byte that is not the same in every
 * key (addresses in one binary differ in 3-4 bytes), through one scratch
 * array. The scratch array is hugebuf_alloc's: a large one is a few huge
 * page faults, not one fault per 4 KiB. Sorting by a minor key and then by a major one with it orders
 * by both.
 */
#ifndef KILN_BASE_SORT_H
#define KILN_BASE_SORT_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/hugebuf.h"

#define SORT_RUN 16

/* Both sorts pass between v and one scratch array: the two swapped after
 * a pass; at the end the result copied back to v if it is in the
 * scratch array, which goes. */
#define SORT_SWAP_(T, a, b)                                                                   \
	do {                                                                                  \
		T *t_ = (a);                                                                  \
		(a) = (b);                                                                    \
		(b) = t_;                                                                     \
	} while (0)

static inline void sort_done_(void *v, const void *src, void *tmp, size_t bytes, size_t mapped)
{
	if (src != v)
		memcpy(v, src, bytes);
	hugebuf_free(tmp, mapped);
}

#define SORT_DEFINE(name, T, less)                                                            \
	static void name(T *v, size_t n)                                                      \
	{                                                                                     \
		for (size_t lo_ = 0; lo_ < n; lo_ += SORT_RUN) {                              \
			size_t hi_ = lo_ + SORT_RUN < n ? lo_ + SORT_RUN : n;                 \
			for (size_t i_ = lo_ + 1; i_ < hi_; i_++) {                           \
				T x_ = v[i_];                                                 \
				size_t j_ = i_;                                               \
				for (; j_ > lo_ && less(&x_, &v[j_ - 1]); j_--)               \
					v[j_] = v[j_ - 1];                                    \
				v[j_] = x_;                                                   \
			}                                                                     \
		}                                                                             \
		if (n <= SORT_RUN)                                                            \
			return;                                                               \
		size_t m_;                                                                    \
		T *src_ = v, *dst_ = hugebuf_alloc(n * sizeof(T), &m_), *tmp_ = dst_;        \
		for (size_t w_ = SORT_RUN; w_ < n; w_ *= 2) {                                 \
			for (size_t lo_ = 0; lo_ < n; lo_ += 2 * w_) {                        \
				size_t mid_ = lo_ + w_ < n ? lo_ + w_ : n;                    \
				size_t hi_ = lo_ + 2 * w_ < n ? lo_ + 2 * w_ : n;             \
				size_t a_ = lo_, b_ = mid_, k_ = lo_;                         \
				while (a_ < mid_ && b_ < hi_)                                 \
					dst_[k_++] = less(&src_[b_], &src_[a_]) ? src_[b_++]  \
										 : src_[a_++];  \
				while (a_ < mid_)                                             \
					dst_[k_++] = src_[a_++];                              \
				while (b_ < hi_)                                              \
					dst_[k_++] = src_[b_++];                              \
			}                                                                     \
			SORT_SWAP_(T, src_, dst_);                                            \
		}                                                                             \
		sort_done_(v, src_, tmp_, n * sizeof(T), m_);                                 \
	}

#define RADIX_DEFINE(name, T, key)                                                            \
	static void name(T *v, size_t n)                                                      \
	{                                                                                     \
		uint64_t d_ = 0;                                                              \
		for (size_t i_ = 1; i_ < n; i_++)                                             \
			d_ |= key(&v[i_]) ^ key(&v[0]);                                       \
		if (!d_)                                                                      \
			return;                                                               \
		size_t m_;                                                                    \
		T *src_ = v, *dst_ = hugebuf_alloc(n * sizeof(T), &m_), *tmp_ = dst_;        \
		for (unsigned s_ = 0; s_ < 64 && d_ >> s_; s_ += 8) {                         \
			if (!((d_ >> s_) & 0xff))                                             \
				continue;                                                     \
			size_t at_[256] = { 0 };                                              \
			for (size_t i_ = 0; i_ < n; i_++)                                     \
				at_[(key(&src_[i_]) >> s_) & 0xff]++;                         \
			for (size_t b_ = 0, sum_ = 0; b_ < 256; b_++) {                       \
				size_t c_ = at_[b_];                                          \
				at_[b_] = sum_;                                               \
				sum_ += c_;                                                   \
			}                                                                     \
			for (size_t i_ = 0; i_ < n; i_++)                                     \
				dst_[at_[(key(&src_[i_]) >> s_) & 0xff]++] = src_[i_];        \
			SORT_SWAP_(T, src_, dst_);                                            \
		}                                                                             \
		sort_done_(v, src_, tmp_, n * sizeof(T), m_);                                 \
	}

#endif
