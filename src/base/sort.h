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
 */
#ifndef KILN_BASE_SORT_H
#define KILN_BASE_SORT_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define SORT_RUN 16

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
		T *src_ = v, *dst_ = xmalloc(n * sizeof(T)), *tmp_ = dst_;                    \
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
			T *t_ = src_;                                                         \
			src_ = dst_;                                                          \
			dst_ = t_;                                                            \
		}                                                                             \
		if (src_ != v)                                                                \
			memcpy(v, src_, n * sizeof(T));                                       \
		free(tmp_);                                                                   \
	}

#endif
