/*
 * script_int: what pipeline/script.c shares with its helpers (pipeline, L8).
 *
 * script_header.c lists a perf.data header as perf 6.1's `perf script
 * --header` does (perf_header__fprintf_info): the frame, the file header
 * fields, one block per feature section in feature order, and the missing
 * features. Everything comes from what the reader parsed
 * (struct perf_header_info); nothing here reads the file.
 */
#ifndef KILN_PIPELINE_SCRIPT_INT_H
#define KILN_PIPELINE_SCRIPT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "source/perffile/perffile.h"

/*
 * The session's events as perf names them (evsel__name), in attr order:
 * group descriptions list them. Borrowed for the call.
 */
struct script_header_events {
	const char *const *names;
	size_t n;
};

/*
 * The whole listing, from "# ========" to the closing "#": 'mtime' is the
 * input's modification time ("captured on"). A pipe's header has no
 * feature sections yet: its features come as records (see below).
 */
void script_header_print(FILE *f, const struct perf_header_info *h, time_t mtime,
			 const struct script_header_events *ev);

/*
 * One feature's lines, as perf prints feature 'feat' from 'h': in a file's
 * listing, or (pipe) when its HEADER_FEATURE record has just been read.
 * Features perf does not print, or prints only with -I, get perf's
 * one-line placeholder or nothing.
 */
void script_header_feature(FILE *f, const struct perf_header_info *h, unsigned feat, bool pipe,
			   const struct script_header_events *ev);

#endif
