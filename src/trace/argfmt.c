/*
 * argfmt: a system call's arguments and result as text (trace, L7).
 *
 * As perf trace shows them: "name: value" pairs, zero values left out
 * except where zero means something (fds, open flags, access modes),
 * flags by their names without the prefix (RDONLY|CLOEXEC, READ|WRITE,
 * PRIVATE|ANONYMOUS), fds followed by what they are (3<pipe:[42477]>),
 * dfd -100 as CWD, modes in octal, signals by name, strings quoted as
 * strace quotes them; failed calls as "-1 ENOENT (No such file or
 * directory)".
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "trace/trace_int.h"

struct flagname {
	uint64_t bit;
	const char *name;
};

static const struct flagname open_flags[] = {
	{ O_CREAT, "CREAT" },       { O_EXCL, "EXCL" },         { O_NOCTTY, "NOCTTY" },
	{ O_TRUNC, "TRUNC" },       { O_APPEND, "APPEND" },     { O_NONBLOCK, "NONBLOCK" },
	{ 04010000, "SYNC" },       { O_DSYNC, "DSYNC" },       { O_ASYNC, "ASYNC" },
	{ O_DIRECT, "DIRECT" },     { 0100000, "LARGEFILE" },   { 020200000, "TMPFILE" },
	{ O_DIRECTORY, "DIRECTORY" }, { O_NOFOLLOW, "NOFOLLOW" }, { O_NOATIME, "NOATIME" },
	{ O_CLOEXEC, "CLOEXEC" },   { O_PATH, "PATH" },         { 0, NULL },
};

static const struct flagname prot_flags[] = {
	{ PROT_READ, "READ" }, { PROT_WRITE, "WRITE" }, { PROT_EXEC, "EXEC" },
	{ 0x8, "SEM" }, { PROT_GROWSDOWN, "GROWSDOWN" }, { PROT_GROWSUP, "GROWSUP" }, { 0, NULL },
};

static const struct flagname mmap_flags[] = {
	{ MAP_FIXED, "FIXED" },         { MAP_ANONYMOUS, "ANONYMOUS" },
	{ MAP_GROWSDOWN, "GROWSDOWN" }, { MAP_DENYWRITE, "DENYWRITE" },
	{ MAP_EXECUTABLE, "EXECUTABLE" }, { MAP_LOCKED, "LOCKED" },
	{ MAP_NORESERVE, "NORESERVE" }, { MAP_POPULATE, "POPULATE" },
	{ MAP_NONBLOCK, "NONBLOCK" },   { MAP_STACK, "STACK" },
	{ MAP_HUGETLB, "HUGETLB" },     { 0x80000, "SYNC" },
	{ 0x100000, "FIXED_NOREPLACE" }, { 0, NULL },
};

/* Flag names joined by '|', leftover bits in hex. */
static void add_flags(struct buf *out, uint64_t v, const struct flagname *t, bool first)
{
	for (; t->name; t++) {
		if ((v & t->bit) == t->bit && t->bit) {
			buf_addf(out, "%s%s", first ? "" : "|", t->name);
			v &= ~t->bit;
			first = false;
		}
	}
	if (v)
		buf_addf(out, "%s%#llx", first ? "" : "|", (unsigned long long)v);
	else if (first)
		buf_addstr(out, "0");
}

void argfmt_string(struct buf *out, const char *s, size_t len, bool truncated)
{
	buf_addch(out, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': buf_addstr(out, "\\\""); break;
		case '\\': buf_addstr(out, "\\\\"); break;
		case '\n': buf_addstr(out, "\\n"); break;
		case '\t': buf_addstr(out, "\\t"); break;
		case '\r': buf_addstr(out, "\\r"); break;
		case '\v': buf_addstr(out, "\\v"); break;
		case '\f': buf_addstr(out, "\\f"); break;
		default:
			if (c < 0x20 || c >= 0x7f) {
				/* strace: the shortest octal unless a digit follows. */
				bool digit = i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7';
				if (digit)
					buf_addf(out, "\\%03o", c);
				else
					buf_addf(out, "\\%o", c);
			} else {
				buf_addch(out, (char)c);
			}
		}
	}
	buf_addch(out, '"');
	if (truncated)
		buf_addstr(out, "...");
}

static void add_fd(struct buf *out, struct tr_fdcache *fds, uint32_t pid, int64_t fd)
{
	buf_addf(out, "%lld", (long long)fd);
	const char *what = fd >= 0 ? fdcache_get(fds, pid, fd) : NULL;
	if (what)
		buf_addf(out, "<%s>", what);
}

static void add_signal(struct buf *out, int64_t sig)
{
	const char *ab = sig > 0 && sig < 65 ? sigabbrev_np((int)sig) : NULL;
	if (ab)
		buf_addf(out, "SIG%s", ab);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		buf_addf(out, "SIGRT_%d", (int)(sig - SIGRTMIN));
	else
		buf_addf(out, "%lld", (long long)sig);
}

static bool shows_zero(enum tr_argkind k)
{
	return k == AK_FD || k == AK_DFD || k == AK_OPEN_FLAGS || k == AK_ACCESS_MODE ||
	       k == AK_PROT;
}

void argfmt_argv(struct buf *out, const struct tr_exec_args *x)
{
	buf_addch(out, '[');
	for (unsigned i = 0; i < x->argc && i < TR_ARGMAX; i++) {
		if (i)
			buf_addstr(out, ", ");
		if (x->arg[i])
			argfmt_string(out, x->arg[i], x->len[i], x->trunc[i]);
		else
			buf_addf(out, "%#llx", (unsigned long long)x->ptr[i]);
	}
	if (x->more)
		buf_addstr(out, x->argc ? ", ..." : "...");
	buf_addch(out, ']');
}

void argfmt_entry(struct buf *out, const struct tr_systab *t, const struct tr_event *e,
		  struct tr_fdcache *fds)
{
	char nb[24];
	const struct tr_syscall *sc = systab_get(t, e->nr);
	buf_addf(out, "%s(", systab_name(t, e->nr, nb));
	if (!sc || !sc->fmt) {
		/* No format: the six raw registers, as the tracepoint has them. */
		for (unsigned a = 0; a < TR_MAXARGS; a++)
			buf_addf(out, "%s%#llx", a ? ", " : "", (unsigned long long)e->args[a]);
		return;
	}
	bool first = true;
	for (unsigned a = 0; a < sc->nargs; a++) {
		uint64_t v = e->args[a];
		enum tr_argkind k = sc->kind[a];
		if (sc->int32[a])
			v = (uint64_t)(int64_t)(int32_t)v;
		if (v == 0 && !shows_zero(k))
			continue;
		if (k == AK_FD && (int32_t)v == -1 && strcmp(sc->name, "mmap") == 0)
			continue; /* anonymous */
		buf_addf(out, "%s%s: ", first ? "" : ", ", sc->argname[a]);
		first = false;
		if (e->text[a]) {
			buf_addstr(out, e->text[a]);
			continue;
		}
		switch (k) {
		case AK_STR:
			if (e->str[a])
				argfmt_string(out, e->str[a], e->slen[a], e->strunc[a]);
			else
				buf_addf(out, "%#llx", (unsigned long long)v);
			break;
		case AK_DFD:
			if ((int32_t)v == AT_FDCWD)
				buf_addstr(out, "CWD");
			else
				add_fd(out, fds, e->pid, (int32_t)v);
			break;
		case AK_FD:
			add_fd(out, fds, e->pid, (int32_t)v);
			break;
		case AK_OPEN_FLAGS: {
			unsigned acc = (unsigned)v & O_ACCMODE;
			buf_addstr(out, acc == O_RDONLY ? "RDONLY" : acc == O_WRONLY ? "WRONLY"
							   : acc == O_RDWR ? "RDWR" : "ACCMODE3");
			uint64_t rest = v & ~(uint64_t)O_ACCMODE;
			if ((rest & 020000000) && (rest & O_DIRECTORY))
				rest &= ~(uint64_t)O_DIRECTORY; /* part of TMPFILE's bits */
			if (rest)
				add_flags(out, rest, open_flags, false);
			break;
		}
		case AK_MODE:
			buf_addf(out, "0%llo", (unsigned long long)v);
			break;
		case AK_ACCESS_MODE:
			if (v == 0) {
				buf_addstr(out, "F");
			} else {
				if (v & 4)
					buf_addch(out, 'R');
				if (v & 2)
					buf_addch(out, 'W');
				if (v & 1)
					buf_addch(out, 'X');
				if (v & ~7ull)
					buf_addf(out, "|%#llx", (unsigned long long)(v & ~7ull));
			}
			break;
		case AK_SIG:
			add_signal(out, (int64_t)v);
			break;
		case AK_PROT:
			if (v == 0)
				buf_addstr(out, "NONE");
			else
				add_flags(out, v, prot_flags, true);
			break;
		case AK_MMAP_FLAGS: {
			unsigned type = (unsigned)v & 0xf;
			buf_addstr(out, type == 1 ? "SHARED" : type == 2 ? "PRIVATE"
						 : type == 3 ? "SHARED_VALIDATE" : "");
			if (type > 3)
				buf_addf(out, "%#x", type);
			if (v & ~0xfull)
				add_flags(out, v & ~0xfull, mmap_flags, false);
			break;
		}
		case AK_PTR:
		case AK_HEX:
			buf_addf(out, "%#llx", (unsigned long long)v);
			break;
		case AK_UINT:
			buf_addf(out, "%llu", (unsigned long long)v);
			break;
		case AK_PID:
		case AK_INT:
		case AK_SKIP:
			buf_addf(out, "%lld", (long long)(int64_t)v);
			break;
		}
	}
}

bool argfmt_is_error(const struct tr_syscall *sc, int64_t ret)
{
	if (ret >= 0 || ret < -4095)
		return false;
	/* mmap's results are addresses: only -4095..-1 are errors, as for all. */
	(void)sc;
	return true;
}

void argfmt_result(struct buf *out, const struct tr_syscall *sc, int64_t ret)
{
	if (sc && sc->ret == RK_NONE) {
		buf_addch(out, '?');
		return;
	}
	if (argfmt_is_error(sc, ret)) {
		int e = (int)-ret;
		/* The kernel's own, seen when a signal interrupts a call (as strace names them). */
		static const char *const restart[][2] = {
			{ "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
			{ "ERESTARTNOINTR", "To be restarted" },
			{ "ERESTARTNOHAND", "To be restarted if no handler" },
			{ "ENOIOCTLCMD", "No ioctl command" },
			{ "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
		};
		const char *name = strerrorname_np(e);
		if (name)
			buf_addf(out, "-1 %s (%s)", name, strerror(e));
		else if (e >= 512 && e <= 516)
			buf_addf(out, "-1 %s (%s)", restart[e - 512][0], restart[e - 512][1]);
		else
			buf_addf(out, "-1 errno %d", e);
		return;
	}
	if (sc && sc->ret == RK_HEX)
		buf_addf(out, "%#llx", (unsigned long long)ret);
	else
		buf_addf(out, "%lld", (long long)ret);
}
