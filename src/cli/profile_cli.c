/* profile_cli: shared perf.data → trie options and loading (cli, L9). */
#include "cli/profile_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aggregate/foldedtext.h"
#include "aggregate/scripttext.h"
#include "base/err.h"
#include "base/mapguard.h"
#include "base/xalloc.h"
#include "cli/cli.h"

enum {
	OPT_PID = 2000,
	OPT_TID,
	OPT_KERNEL,
	OPT_JIT,
	OPT_ALL,
	OPT_SYMFS,
	OPT_DEBUG_DIR,
	OPT_NO_DEMANGLE,
	OPT_FORCE,
	OPT_INLINE,
	OPT_NO_INLINE,
	OPT_MARK_INLINE
};
enum { OPT_ADDRS = 2100, OPT_EVENT_FILTER };

#define PERF_MAGIC_LEN 8
#define TEXT_INPUT_MAX ((size_t)4 << 30) /* perf script text read into memory */

const struct option profile_cli_frame_options[] = {
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "mark-inline", no_argument, NULL, OPT_MARK_INLINE },
	{ NULL, 0, NULL, 0 },
};

void profile_cli_init(struct profile_cli *pc, const struct kiln_env *env)
{
	memset(pc, 0, sizeof(*pc));
	pc->po.input = "perf.data";
	pc->po.env = env;
}

int profile_cli_frame_option(struct profile_cli *pc, int c, const char *arg)
{
	struct frame_opts *f = &pc->po.frames;
	switch (c) {
	case OPT_PID:
		f->with_pid = true;
		return 0;
	case OPT_TID:
		f->with_tid = true;
		return 0;
	case OPT_KERNEL:
		f->annotate_kernel = true;
		return 0;
	case OPT_JIT:
		f->annotate_jit = true;
		return 0;
	case OPT_ALL:
		f->annotate_kernel = f->annotate_jit = true;
		return 0;
	case OPT_SYMFS:
		pc->po.symfs = arg;
		return 0;
	case OPT_DEBUG_DIR:
		pc->po.debug_dir = arg;
		return 0;
	case OPT_NO_DEMANGLE:
		pc->po.no_demangle = true;
		return 0;
	case OPT_INLINE:
		pc->po.inline_mode = PROFILE_INLINE_ALL;
		return 0;
	case OPT_NO_INLINE:
		pc->po.inline_mode = PROFILE_INLINE_NONE;
		return 0;
	case OPT_MARK_INLINE:
		f->annotate_inline = true;
		return 0;
	case 'f':
	case OPT_FORCE:
		pc->force = true;
		return 0;
	default:
		return -1;
	}
}

int profile_cli_parse(int argc, char **argv, struct profile_cli *pc, const char **output,
		      const char *usage_text)
{
	struct option longopts[32]; /* the frame options, these five, the end */
	size_t n = 0;
	for (; profile_cli_frame_options[n].name; n++)
		longopts[n] = profile_cli_frame_options[n];
	longopts[n++] = (struct option){ "addrs", no_argument, NULL, OPT_ADDRS };
	longopts[n++] = (struct option){ "event-filter", required_argument, NULL, OPT_EVENT_FILTER };
	longopts[n++] = (struct option){ "output", required_argument, NULL, 'o' };
	longopts[n++] = (struct option){ "input", required_argument, NULL, 'i' };
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:i:hf", longopts, NULL)) != -1) {
		if (c == 'o') {
			*output = optarg;
		} else if (c == 'i') {
			pc->po.input = optarg;
		} else if (c == OPT_ADDRS) {
			pc->addrs = true;
		} else if (c == OPT_EVENT_FILTER) {
			pc->event_filter = optarg;
		} else if (c == 'h') {
			return cli_usage(stdout, usage_text, KILN_EXIT_OK);
		} else if (profile_cli_frame_option(pc, c, optarg)) {
			fprintf(stderr, "See '%s --help'.\n", argv[0]);
			return KILN_EXIT_USAGE;
		}
	}
	if (optind < argc)
		pc->po.input = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n", argv[optind]);
		return KILN_EXIT_USAGE;
	}
	return -1;
}

int profile_cli_load(struct profile_cli *pc, struct strtab *strs, struct trie *t)
{
	strtab_init(strs);
	trie_init(t, strs);
	if (cli_check_owner(pc->po.input, pc->force))
		return KILN_EXIT_FAIL;
	struct profile_stats st;
	err_clear();
	int err = profile_load(&pc->po, strs, t, &st);
	if (err) {
		cli_error_last(pc->po.input);
		return err == -EBADMSG || err == -EINVAL ? KILN_EXIT_BADINPUT : KILN_EXIT_FAIL;
	}
	if (st.lost)
		fprintf(stderr, "warning: %s: lost %llu samples while recording\n", pc->po.input,
			(unsigned long long)st.lost);
	if (st.truncated)
		fprintf(stderr,
			"warning: %s: %llu of %llu stacks were cut short (the recorded stack copy "
			"ended before the outermost caller): shown under " PROFILE_TRUNCATED_FRAME
			"; record with a larger --call-graph dwarf,SIZE\n",
			pc->po.input, (unsigned long long)st.truncated,
			(unsigned long long)st.samples);
	if (st.unknown_records)
		fprintf(stderr, "warning: %s: skipped %llu records of unknown type\n",
			pc->po.input, (unsigned long long)st.unknown_records);
	pc->st = st;
	if (st.mixed_events)
		fprintf(stderr, "note: %s: periods are summed for '%s' only; %llu samples of other "
				"events are counted, not weighted\n",
			pc->po.input, st.event, (unsigned long long)st.mixed_events);
	if (!pc->po.chart)
		trie_sort(t);
	if (st.partial)
		return cli_report_partial(pc->po.input);
	if (st.samples == 0) {
		fprintf(stderr, "error: %s: no samples\n", pc->po.input);
		return KILN_EXIT_BADINPUT;
	}
	return KILN_EXIT_OK;
}

/*
 * Input detection for collapse. The first bytes decide; they are peeked
 * with pread() where the input can seek. A pipe cannot give bytes back,
 * so when a perf.data arrives on a piped standard input, a child process
 * replays the bytes already read and then copies the rest, and the
 * perf.data reader streams from that pipe as it would from the original.
 */
struct input {
	char *data; /* text: heap, or the file mapped (map_len > 0) */
	size_t len;
	size_t map_len; /* the mapping's length, 0 when data is heap */
	int guard;      /* the mapping's base/mapguard slot, or -1 */
	bool perfdata;
	pid_t relay; /* the replaying child, or 0 */
};

/*
 * Done with the text: 'code', or, when the file shrank while it was read
 * (its lost pages read as zeros), a warning naming the offset (as for a
 * perf.data) and KILN_EXIT_PARTIAL in place of a success.
 */
static int input_close(struct input *in, const char *name, int code)
{
	uint64_t off;
	if (in->map_len) {
		if (mapguard_faulted(in->guard, &off)) {
			fprintf(stderr, "warning: %s: input ended early: file shrank while being read "
					"(at offset 0x%llx); results are partial\n",
				name, (unsigned long long)off);
			if (code == KILN_EXIT_OK)
				code = KILN_EXIT_PARTIAL;
		}
		mapguard_remove(in->guard);
		munmap(in->data, in->map_len);
	} else {
		free(in->data);
	}
	in->data = NULL;
	in->len = in->map_len = 0;
	return code;
}

/*
 * "PERFILE2" starts a perf.data; its byte-swapped form and version 1's
 * "PERFFILE" go to the perf.data reader too, which says why it cannot
 * read them. Anything else is text.
 */
static bool is_perf_magic(const char *b)
{
	return !memcmp(b, "PERFILE2", PERF_MAGIC_LEN) || !memcmp(b, "2ELIFREP", PERF_MAGIC_LEN) ||
	       !memcmp(b, "PERFFILE", PERF_MAGIC_LEN);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static _Noreturn void relay_child(int out, const char *prefix, size_t n)
{
	char chunk[16384];
	if (write_all(out, prefix, n))
		_exit(1);
	for (;;) {
		ssize_t k = read(0, chunk, sizeof(chunk));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(k < 0);
		if (write_all(out, chunk, (size_t)k))
			_exit(1);
	}
}

/* Make standard input read 'prefix' and then the rest of the original. */
static int relay_stdin(const char *prefix, size_t n, pid_t *child)
{
	int p[2];
	if (pipe(p) < 0)
		return err_set(-errno, "cannot create a pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return err_set(-e, "cannot fork: %s", strerror(e));
	}
	if (pid == 0) {
		close(p[0]);
		relay_child(p[1], prefix, n);
	}
	close(p[1]);
	if (dup2(p[0], 0) < 0) {
		int e = errno;
		close(p[0]);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return err_set(-e, "cannot redirect standard input: %s", strerror(e));
	}
	close(p[0]);
	*child = pid;
	return 0;
}

static void relay_finish(pid_t child)
{
	/* The reader may have stopped early: detach it, then stop the copier. */
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 0);
		close(nul);
	}
	kill(child, SIGTERM);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Read fd to its end into in->data, which holds in->len bytes already. */
static int read_rest(int fd, struct input *in, size_t cap, const char *name)
{
	for (;;) {
		if (in->len == cap) {
			if (cap >= TEXT_INPUT_MAX) {
				char probe;
				ssize_t k;
				while ((k = read(fd, &probe, 1)) < 0 && errno == EINTR)
					;
				if (k <= 0)
					return 0;
				return err_set(-EFBIG, "text input larger than %zu GiB",
					       TEXT_INPUT_MAX >> 30);
			}
			cap = cap > TEXT_INPUT_MAX / 2 ? TEXT_INPUT_MAX : cap * 2;
			in->data = xrealloc(in->data, cap);
		}
		ssize_t k = read(fd, in->data + in->len, cap - in->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(-errno, "cannot read '%s': %s", name, strerror(errno));
		if (k == 0)
			return 0;
		in->len += (size_t)k;
	}
}

/* Read fd into in->data (room for 'want' bytes) until it holds 'want' or fd ends. */
static int read_upto(int fd, struct input *in, size_t want, const char *name)
{
	while (in->len < want) {
		ssize_t k = read(fd, in->data + in->len, want - in->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(-errno, "cannot read '%s': %s", name, strerror(errno));
		if (k == 0)
			break;
		in->len += (size_t)k;
	}
	return 0;
}

/* Text never starts with NUL bytes: stop at once (stdin from /dev/zero)
 * instead of reading up to TEXT_INPUT_MAX. */
static int not_text(const char *name)
{
	return err_set(-EINVAL, "%s: not a perf.data file, nor perf script output (NUL bytes in its first 8)",
		       name);
}

/*
 * The first bytes of a text on a pipe decide whether to read the rest
 * (up to TEXT_INPUT_MAX): what cannot start perf script text (nor, if
 * 'folded_ok', folded stacks) is refused after SCRIPTTEXT_SNIFF_BYTES.
 */
static int sniff_text(int fd, struct input *in, size_t *cap, const char *name, bool folded_ok)
{
	if (*cap < SCRIPTTEXT_SNIFF_BYTES) {
		*cap = SCRIPTTEXT_SNIFF_BYTES;
		in->data = xrealloc(in->data, *cap);
	}
	int err = read_upto(fd, in, SCRIPTTEXT_SNIFF_BYTES, name);
	if (err || in->len < SCRIPTTEXT_SNIFF_BYTES)
		return err; /* all of it read: the parser says what it is */
	if (scripttext_sniff(in->data, in->len, folded_ok) < 0)
		return err_set(-EINVAL,
			       "%s: not a perf.data file, nor perf script output%s (judged by its "
			       "first %u lines or %zu KiB)",
			       name, folded_ok ? ", nor folded stacks" : "", SCRIPTTEXT_SNIFF_LINES,
			       SCRIPTTEXT_SNIFF_BYTES >> 10);
	return 0;
}

static int input_open(const char *path, struct input *in, bool folded_ok)
{
	memset(in, 0, sizeof(*in));
	in->guard = -1;
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	int fd = 0;
	if (!is_stdin) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return err_set(-errno, "cannot open '%s': %s", path, strerror(errno));
	}
	int err = 0;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		err = err_set(-errno, "cannot stat '%s': %s", name, strerror(errno));
		goto out;
	}
	size_t cap = 1 << 20;
	if (!is_stdin && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		/* /dev/zero or /dev/urandom would be read as text without end. */
		err = err_set(-EINVAL, "'%s' is a device, not a perf.data or perf script text", path);
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		off_t off = is_stdin ? lseek(0, 0, SEEK_CUR) : 0;
		char magic[PERF_MAGIC_LEN];
		ssize_t k = off < 0 ? -1 : pread(fd, magic, sizeof(magic), off);
		if (k == (ssize_t)sizeof(magic) && is_perf_magic(magic)) {
			in->perfdata = true;
			goto out;
		}
		if (k > 0 && memchr(magic, 0, (size_t)k)) {
			err = not_text(name);
			goto out;
		}
		if (off >= 0 && st.st_size > off) {
			if ((uint64_t)(st.st_size - off) > TEXT_INPUT_MAX) {
				err = err_set(-EFBIG, "text input larger than %zu GiB",
					      TEXT_INPUT_MAX >> 30);
				goto out;
			}
			cap = (size_t)(st.st_size - off) + 1;
		}
		/* A named regular file is mapped, not copied (guarded: it may shrink). */
		void *map = !is_stdin && st.st_size > 0
				    ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
				    : MAP_FAILED;
		if (map != MAP_FAILED) {
			in->data = map;
			in->len = in->map_len = (size_t)st.st_size;
			in->guard = mapguard_add(map, in->map_len);
			goto out;
		}
		in->data = xmalloc(cap);
	} else {
		/* A pipe or device: what is read is gone, so read the magic for real. */
		in->data = xmalloc(cap);
		err = read_upto(fd, in, PERF_MAGIC_LEN, name);
		if (err)
			goto out;
		if (in->len == PERF_MAGIC_LEN && is_perf_magic(in->data)) {
			if (!is_stdin) {
				err = err_set(-EINVAL,
					      "'%s' is a perf.data but not a regular file; "
					      "pipe it into 'kiln collapse -'",
					      path);
				goto out;
			}
			err = relay_stdin(in->data, in->len, &in->relay);
			if (!err)
				in->perfdata = true;
			goto out;
		}
		if (memchr(in->data, 0, in->len)) {
			err = not_text(name);
			goto out;
		}
		err = sniff_text(fd, in, &cap, name, folded_ok);
		if (err)
			goto out;
	}
	err = read_rest(fd, in, cap, name);
out:
	if (!is_stdin)
		close(fd);
	if (err || in->perfdata)
		input_close(in, name, 0);
	return err;
}

static int load_text(struct profile_cli *pc, const struct input *in, struct strtab *strs,
		     struct trie *t)
{
	const char *name = strcmp(pc->po.input, "-") ? pc->po.input : "<stdin>";
	const struct frame_opts *f = &pc->po.frames;
	struct scripttext_opts so = {
		.with_pid = f->with_pid,
		.with_tid = f->with_tid,
		.annotate_kernel = f->annotate_kernel,
		.annotate_jit = f->annotate_jit,
		.addrs = pc->addrs,
		.event_filter = pc->event_filter,
	};
	struct scripttext_stats st;
	scripttext_parse(in->data, in->len, &so, strs, t, &st);
	trie_sort(t);
	/* Inputs that are not perf script text at all: one error, no warnings. */
	if (in->len == 0) {
		fprintf(stderr, "error: %s: empty file\n", name);
		return KILN_EXIT_BADINPUT;
	}
	if (st.headers == 0) {
		fprintf(stderr, "error: %s: not a perf.data file, nor perf script output\n", name);
		if (st.frame_lines && st.frame_lines >= st.unrecognized)
			fprintf(stderr, "hint: it has frame lines but no sample headers (\"comm pid "
					"... event:\" from the first column), which perf script "
					"prints for recordings with call chains (perf record -g)\n");
		return KILN_EXIT_BADINPUT;
	}
	if (pc->po.symfs || pc->po.debug_dir || pc->po.no_demangle)
		fprintf(stderr, "warning: --symfs, --debug-dir and --no-demangle have no effect "
				"on perf script text\n");
	if (st.long_lines)
		fprintf(stderr, "warning: %s: skipped %llu lines longer than %u KiB\n", name,
			(unsigned long long)st.long_lines, SCRIPTTEXT_MAX_LINE >> 10);
	if (st.unrecognized)
		fprintf(stderr, "warning: %s: skipped %llu lines that are not perf script output\n",
			name, (unsigned long long)st.unrecognized);
	if (st.truncated)
		fprintf(stderr,
			"warning: %s: %llu stacks deeper than %u frames lost their %llu outermost "
			"frames\n",
			name, (unsigned long long)st.truncated, SCRIPTTEXT_MAX_FRAMES,
			(unsigned long long)st.dropped_frames);
	if (st.filtered && st.event_defaulted)
		fprintf(stderr,
			"note: %s: only '%s' samples are folded; %llu samples of other events "
			"skipped (choose with --event-filter)\n",
			name, strtab_get(strs, st.event), (unsigned long long)st.filtered);
	if (st.unterminated && st.samples)
		fprintf(stderr,
			"warning: %s: the last sample has no blank line after it and is left out, "
			"as stackcollapse-perf.pl does\n",
			name);
	if (st.samples == 0) {
		if (pc->event_filter && pc->event_filter[0] && st.filtered)
			fprintf(stderr, "error: %s: no samples of event '%s'\n", name,
				pc->event_filter);
		else
			fprintf(stderr, "error: %s: no samples\n", name);
		if (st.unterminated)
			fprintf(stderr, "hint: a sample counts at the blank line after its stack, "
					"which perf script prints for recordings with call "
					"chains (perf record -g)\n");
		return KILN_EXIT_BADINPUT;
	}
	return KILN_EXIT_OK;
}

int profile_cli_load_any(struct profile_cli *pc, struct strtab *strs, struct trie *t)
{
	struct input in;
	err_clear();
	int err = input_open(pc->po.input, &in, false);
	if (err) {
		strtab_init(strs);
		trie_init(t, strs);
		cli_error_last(NULL);
		return err == -EINVAL || err == -EFBIG ? KILN_EXIT_BADINPUT : KILN_EXIT_FAIL;
	}
	if (in.perfdata) {
		int code;
		if (pc->event_filter) {
			strtab_init(strs);
			trie_init(t, strs);
			fprintf(stderr, "error: --event-filter applies to perf script "
					"text, and '%s' is a perf.data\n",
				pc->po.input);
			code = KILN_EXIT_USAGE;
		} else {
			pc->po.frames.addrs = pc->addrs;
			code = profile_cli_load(pc, strs, t);
		}
		if (in.relay)
			relay_finish(in.relay);
		return code;
	}
	strtab_init(strs);
	trie_init(t, strs);
	int code = load_text(pc, &in, strs, t);
	return input_close(&in, strcmp(pc->po.input, "-") ? pc->po.input : "<stdin>", code);
}

static int load_folded(struct profile_cli *pc, const struct input *in, struct strtab *strs,
		       struct trie *t, struct graph_input *gi)
{
	const char *name = strcmp(pc->po.input, "-") ? pc->po.input : "<stdin>";
	struct foldedtext_opts fo = {
		.frac_digits = foldedtext_frac_digits(in->data, in->len),
		.reverse = pc->po.reverse,
		.chart = pc->po.chart,
	};
	struct foldedtext_stats st;
	foldedtext_parse(in->data, in->len, &fo, strs, t, &gi->first, &st);
	gi->divisor = 1;
	for (unsigned i = 0; i < fo.frac_digits; i++)
		gi->divisor *= 10;
	if (st.ignored)
		fprintf(stderr, "warning: %s: ignored %llu lines with invalid format\n", name,
			(unsigned long long)st.ignored);
	if (st.long_lines)
		fprintf(stderr, "warning: %s: skipped %llu lines longer than %u MiB\n", name,
			(unsigned long long)st.long_lines, FOLDEDTEXT_MAX_LINE >> 20);
	if (st.truncated)
		fprintf(stderr, "warning: %s: %llu stacks cut to their first %u frames\n", name,
			(unsigned long long)st.truncated, FOLDEDTEXT_MAX_FRAMES);
	if (st.saturated)
		fprintf(stderr, "warning: %s: %llu counts too large, clamped\n", name,
			(unsigned long long)st.saturated);
	if (trie_node(t, 0)->total == 0 && !gi->first) {
		fprintf(stderr, "error: %s: no stack counts found\n", name);
		return KILN_EXIT_BADINPUT;
	}
	return KILN_EXIT_OK;
}

int profile_cli_load_graph(struct profile_cli *pc, struct strtab *strs, struct trie *t,
			   struct graph_input *gi)
{
	struct input in;
	memset(gi, 0, sizeof(*gi));
	gi->divisor = 1;
	err_clear();
	int err = input_open(pc->po.input, &in, true);
	if (err) {
		strtab_init(strs);
		trie_init(t, strs);
		cli_error_last(NULL);
		return err == -EINVAL || err == -EFBIG ? KILN_EXIT_BADINPUT : KILN_EXIT_FAIL;
	}
	if (in.perfdata) {
		gi->kind = GRAPH_INPUT_PERFDATA;
		int code = profile_cli_load(pc, strs, t);
		if (in.relay)
			relay_finish(in.relay);
		return code;
	}
	strtab_init(strs);
	trie_init(t, strs);
	int code;
	if (foldedtext_detect(in.data, in.len)) {
		gi->kind = GRAPH_INPUT_FOLDED;
		code = load_folded(pc, &in, strs, t, gi);
	} else if (pc->po.chart) {
		fprintf(stderr, "error: --flamechart needs a perf.data or folded stacks, and '%s' "
				"is perf script text (its samples are not in time order once folded)\n",
			pc->po.input);
		code = KILN_EXIT_USAGE;
	} else {
		gi->kind = GRAPH_INPUT_SCRIPT;
		code = load_text(pc, &in, strs, t);
		if (pc->po.reverse && (code == KILN_EXIT_OK || code == KILN_EXIT_PARTIAL)) {
			struct trie r;
			trie_init(&r, strs);
			trie_reverse(t, &r);
			trie_sort(&r);
			trie_release(t);
			*t = r;
		}
	}
	return input_close(&in, strcmp(pc->po.input, "-") ? pc->po.input : "<stdin>", code);
}
