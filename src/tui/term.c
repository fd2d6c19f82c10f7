/*
 * term: curses mode in and out, the restore on signals and exit, and
 * drawing untrusted text cut to a width (tui, L8). See term.h.
 */
#define NCURSES_WIDECHAR 1
#define NCURSES_NOMACROS 1 /* refresh(), erase() as functions: the model has a refresh member */
#include "tui/term.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "base/buf.h"
#include "base/sanitize.h"
#include "base/utf8.h"
#include "base/vec.h"
#include "base/xalloc.h"

/* The signals whose default action ends the process and that we catch. */
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT,
				    SIGSEGV, SIGBUS, SIGFPE, SIGILL};
/* From here on: a crash, caught only when nothing else handles it (a sanitizer's report). */
#define FIRST_CRASH 5
#define N_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
/* Handlers ncurses may install in newterm, put back as found by tui_close. */
static const int curses_signals[] = {SIGTSTP, SIGWINCH};
#define N_CURSES (sizeof(curses_signals) / sizeof(curses_signals[0]))

/*
 * The restore record (the one file-scope state, see term.h): written by
 * tui_open before the handlers are installed, read by them and by the
 * atexit hook. 'active' is cleared by whoever restores first.
 */
static struct {
	volatile sig_atomic_t active;
	int fd;
	struct termios tio;
	char seq[256];
	size_t len;
	bool atexit_set;
} restore;

struct tui {
	SCREEN *screen;
	FILE *in, *out;
	bool utf8, colors;
	char *old_locale;
	struct sigaction old_fatal[N_FATAL], old_curses[N_CURSES];
	struct buf scratch;
	VEC(wchar_t) wide;
};

static void on_fatal(int sig)
{
	int e = errno;

	if (restore.active) {
		restore.active = 0;
		ssize_t w = write(restore.fd, restore.seq, restore.len);
		(void)w;
		tcsetattr(restore.fd, TCSANOW, &restore.tio);
	}
	signal(sig, SIG_DFL);
	raise(sig); /* pending until this handler returns, then the default action */
	errno = e;
}

static void on_exit_hook(void)
{
	if (restore.active) {
		restore.active = 0;
		endwin();
	}
}

static void add_cap(const char *name)
{
	char *s = tigetstr(name);

	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (n > sizeof(restore.seq) - restore.len)
		return;
	memcpy(restore.seq + restore.len, s, n);
	restore.len += n;
}

static void setup_colors(struct tui *t)
{
	t->colors = has_colors() && start_color() == OK;
	if (!t->colors)
		return;
	int bg = use_default_colors() == OK ? -1 : COLOR_BLACK;
	init_pair(TUI_TITLE, COLOR_WHITE, COLOR_BLUE);
	init_pair(TUI_HOT, COLOR_RED, bg);
	init_pair(TUI_WARM, COLOR_GREEN, bg);
	init_pair(TUI_STATUS, COLOR_WHITE, COLOR_BLUE);
	init_pair(TUI_MATCH, COLOR_YELLOW, bg);
}

int tui_attr(const struct tui *t, enum tui_attr a)
{
	switch (a) {
	case TUI_NORMAL:
		return (int)A_NORMAL;
	case TUI_SELECTED:
		return (int)A_REVERSE;
	case TUI_TITLE:
	case TUI_STATUS:
		return t->colors ? (int)COLOR_PAIR(a) : (int)A_REVERSE;
	case TUI_HOT:
		return t->colors ? (int)(COLOR_PAIR(a) | A_BOLD) : (int)A_BOLD;
	case TUI_WARM:
		return t->colors ? (int)COLOR_PAIR(a) : (int)A_NORMAL;
	case TUI_MATCH:
		return t->colors ? (int)(COLOR_PAIR(a) | A_BOLD) : (int)A_BOLD;
	}
	return (int)A_NORMAL;
}

int tui_pct_attr(const struct tui *t, double p)
{
	return p >= 5.0 ? tui_attr(t, TUI_HOT) : p >= 0.5 ? tui_attr(t, TUI_WARM) : (int)A_NORMAL;
}

int tui_open(struct tui **out, const struct tui_opts *o)
{
	FILE *in = o && o->in ? o->in : stdin, *outf = o && o->out ? o->out : stdout;

	*out = NULL;
	if (restore.active)
		return -EBUSY;
	if (!isatty(fileno(in)) || !isatty(fileno(outf)))
		return -ENOTTY;

	struct tui *t = xcalloc(1, sizeof(*t));
	t->in = in;
	t->out = outf;
	buf_init(&t->scratch, 1 << 20);
	const char *loc = setlocale(LC_CTYPE, NULL);
	t->old_locale = xstrdup(loc ? loc : "C");
	setlocale(LC_CTYPE, "");
	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;

	restore.fd = fileno(outf);
	if (tcgetattr(restore.fd, &restore.tio) != 0) {
		tui_close(t);
		return -ENOTTY;
	}
	for (size_t i = 0; i < N_FATAL; i++)
		sigaction(fatal_signals[i], NULL, &t->old_fatal[i]);
	for (size_t i = 0; i < N_CURSES; i++)
		sigaction(curses_signals[i], NULL, &t->old_curses[i]);
	fflush(outf);
	t->screen = newterm(o ? o->term : NULL, outf, in);
	if (!t->screen) {
		tui_close(t);
		return -EINVAL;
	}
	set_term(t->screen);
	if (tigetstr("cup") == NULL || tigetstr("cup") == (char *)-1) {
		endwin(); /* newterm may have sent the terminal's init strings */
		tui_close(t);
		return -EINVAL;
	}
	restore.len = 0;
	add_cap("rmkx");
	add_cap("cnorm");
	add_cap("sgr0");
	add_cap("rmcup");
	restore.active = 1;
	if (!restore.atexit_set) {
		atexit(on_exit_hook);
		restore.atexit_set = true;
	}
	struct sigaction sa = {0};
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_FATAL; i++)
		if (i < FIRST_CRASH ? t->old_fatal[i].sa_handler != SIG_IGN /* nohup's SIGHUP */
				    : t->old_fatal[i].sa_handler == SIG_DFL)
			sigaction(fatal_signals[i], &sa, NULL);

	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	set_escdelay(100); /* Esc alone vs. a key's escape sequence split on a slow link */
	curs_set(0);
	setup_colors(t);
	*out = t;
	return 0;
}

void tui_close(struct tui *t)
{
	sigset_t block, old;

	if (!t)
		return;
	sigemptyset(&block);
	for (size_t i = 0; i < N_FATAL; i++)
		sigaddset(&block, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (t->screen) {
		if (restore.active) {
			restore.active = 0;
			endwin();
		}
		delscreen(t->screen);
		for (size_t i = 0; i < N_FATAL; i++)
			sigaction(fatal_signals[i], &t->old_fatal[i], NULL);
		for (size_t i = 0; i < N_CURSES; i++)
			sigaction(curses_signals[i], &t->old_curses[i], NULL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	setlocale(LC_CTYPE, t->old_locale);
	free(t->old_locale);
	buf_release(&t->scratch);
	VEC_FREE(&t->wide);
	free(t);
}

int tui_getkey(struct tui *t, int timeout_ms)
{
	(void)t;
	wtimeout(stdscr, timeout_ms);
	int c = wgetch(stdscr);
	return c == ERR ? TUI_KEY_TIMEOUT : c;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void tui_tick_start(struct tui_tick *tk, int period_ms)
{
	tk->period_ms = period_ms;
	tk->due = period_ms > 0 ? now_ms() + period_ms : 0;
}

int tui_getkey_tick(struct tui *t, struct tui_tick *tk)
{
	if (tk->period_ms <= 0)
		return tui_getkey(t, -1);
	long left = tk->due - now_ms();
	int c = left > 0 ? tui_getkey(t, (int)left) : TUI_KEY_TIMEOUT;
	if (c != TUI_KEY_TIMEOUT)
		return c;
	if (now_ms() < tk->due)
		return tui_getkey_tick(t, tk); /* woken early (a signal) */
	tk->due = now_ms() + tk->period_ms;
	return TUI_KEY_TIMEOUT;
}

bool tui_view_key(struct tui_view *v, int key, size_t n, size_t height)
{
	long page = height > 1 ? (long)height - 1 : 1;

	switch (key) {
	case KEY_UP:
	case 'k':
		tui_view_move(v, -1, n, height);
		return true;
	case KEY_DOWN:
	case 'j':
		tui_view_move(v, 1, n, height);
		return true;
	case KEY_PPAGE:
	case 'b':
		tui_view_move(v, -page, n, height);
		return true;
	case KEY_NPAGE:
	case ' ':
		tui_view_move(v, page, n, height);
		return true;
	case KEY_HOME:
	case 'g':
		tui_view_set(v, 0, n, height);
		return true;
	case KEY_END:
	case 'G':
		tui_view_set(v, n ? n - 1 : 0, n, height);
		return true;
	}
	return false;
}

int tui_text(struct tui *t, int y, int x, int width, const char *s, size_t n)
{
	int col = 0;

	if (width <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	if (x + width > COLS)
		width = COLS - x;
	buf_reset(&t->scratch);
	/* Only the bytes that can show matter: 4 bytes of escape per column at most. */
	size_t take = n < (size_t)width * 16 ? n : (size_t)width * 16;
	sanitize_term(s, take, false, &t->scratch);
	const unsigned char *p = (const unsigned char *)t->scratch.p;
	size_t left = t->scratch.len;
	t->wide.n = 0;
	while (left) {
		uint32_t cp = '?';
		int len = 1, w = 1;
		if (*p < 0x80) {
			cp = *p == '\t' || *p == '\n' ? ' ' : *p;
		} else {
			int l = utf8_decode(p, left, &cp);
			len = l > 0 ? l : 1;
			w = t->utf8 && l > 0 ? wcwidth((wchar_t)cp) : -1;
			if (w < 0) {
				cp = '?';
				w = 1;
			}
		}
		if (col + w > width)
			break;
		if (w > 0 || t->wide.n) /* a zero-width mark joins the character before it */
			VEC_PUSH(&t->wide, (wchar_t)cp);
		col += w;
		p += len;
		left -= (size_t)len;
	}
	if (t->wide.n)
		mvaddnwstr(y, x, t->wide.v, (int)t->wide.n);
	return col;
}

void tui_text_pad(struct tui *t, int y, int x, int width, const char *s, size_t n)
{
	int used = tui_text(t, y, x, width, s, n);

	if (x + width > COLS)
		width = COLS - x;
	for (int i = used; i < width; i++)
		mvaddch(y, x + i, ' ');
}

int tui_prompt(struct tui *t, int y, const char *prompt, char *out, size_t max)
{
	size_t len = strlen(out);
	int ret = 0;

	if (len > max)
		len = max;
	out[len] = '\0';
	curs_set(1);
	for (;;) {
		attrset(A_NORMAL);
		int pw = tui_text(t, y, 0, COLS, prompt, strlen(prompt));
		/* Show the end of the text when it is wider than the line. */
		size_t from = len > (size_t)(COLS - pw - 1) && COLS - pw > 1
				      ? len - (size_t)(COLS - pw - 1)
				      : 0;
		int used = tui_text(t, y, pw, COLS - pw, out + from, len - from);
		for (int i = pw + used; i < COLS; i++)
			mvaddch(y, i, ' ');
		move(y, pw + used < COLS ? pw + used : COLS - 1);
		refresh();
		int c = tui_getkey(t, -1);
		if (c == '\n' || c == '\r' || c == KEY_ENTER) {
			ret = 1;
			break;
		}
		if (c == 27 || c == 7 /* Ctrl-G */)
			break;
		if (c == KEY_BACKSPACE || c == 127 || c == 8) {
			/* Remove one UTF-8 character. */
			while (len > 0 && ((unsigned char)out[len - 1] & 0xc0) == 0x80)
				len--;
			if (len > 0)
				len--;
		} else if (c == 21 /* Ctrl-U */) {
			len = 0;
		} else if (c >= 0x20 && c < 0x100 && c != 127 && len < max) {
			out[len++] = (char)c;
		}
		out[len] = '\0';
	}
	curs_set(0);
	return ret;
}
