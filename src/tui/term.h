/*
 * term: the terminal in curses mode, and getting it back (tui, L8).
 *
 * tui_open puts the terminal in curses mode (ncursesw, the alternate
 * screen, cbreak, no echo, keypad) and makes sure it is left as it was
 * found however the process ends:
 *  - tui_close (the normal way) calls endwin and puts back the signal
 *    handlers and the locale it found;
 *  - SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGABRT (an assertion, xalloc's
 *    out-of-memory abort), and a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 *    when no sanitizer handles it): a handler writes the
 *    terminal's exit sequences (keypad off, cursor on, attributes off,
 *    alternate screen off), puts back the saved termios (both
 *    async-signal-safe: write and tcsetattr), and re-raises the signal
 *    with its default action, so the shell sees the death it expects
 *    (a signal ignored when tui_open is called, as nohup's SIGHUP, stays
 *    ignored);
 *  - exit() from anywhere (an error path): an atexit hook calls endwin.
 * That restore record is the module's one piece of file-scope state: a
 * signal handler and an atexit hook reach nothing else. One terminal is
 * open at a time (tui_open fails with -EBUSY otherwise).
 *
 * SIGWINCH is ncurses' own: a resize arrives as the key KEY_RESIZE. Ctrl-Z
 * is ncurses' too (it leaves curses mode, stops, and redraws on return).
 */
#ifndef KILN_TUI_TERM_H
#define KILN_TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tui/rows.h"

struct tui_opts {
	FILE *in, *out;   /* the terminal; NULL: stdin and stdout */
	const char *term; /* the terminal type ($TERM, read by the caller); NULL: ncurses reads it */
};

struct tui;

/*
 * Enter curses mode. Returns 0 with *out set, or -ENOTTY (in or out is not
 * a terminal), -EINVAL (the terminal type is unknown or cannot address
 * the cursor), -EBUSY (a terminal is already open). The caller then
 * prints its output as text instead.
 */
int tui_open(struct tui **out, const struct tui_opts *o);
/* Leave curses mode and free 't' (NULL is a no-op). */
void tui_close(struct tui *t);

/* What tui_getkey returns when 'timeout_ms' passed without a key. */
#define TUI_KEY_TIMEOUT (-1)
/* One key (a curses KEY_* code or a byte), waiting at most timeout_ms (< 0: forever). */
int tui_getkey(struct tui *t, int timeout_ms);

/* A periodic refresh while waiting for keys (top's -d). */
struct tui_tick {
	int period_ms; /* <= 0: never */
	long due;      /* monotonic ms of the next tick */
};
void tui_tick_start(struct tui_tick *tk, int period_ms);
/*
 * The next key, or TUI_KEY_TIMEOUT once the tick is due (the next one is
 * then due a period later). Without a period it waits for a key.
 */
int tui_getkey_tick(struct tui *t, struct tui_tick *tk);

/*
 * Apply a moving key to 'v' over 'n' rows, 'height' on screen: Up/Down
 * (k/j), PgUp/PgDn (b/space), Home/End (g/G). Returns false (v unchanged)
 * for any other key.
 */
bool tui_view_key(struct tui_view *v, int key, size_t n, size_t height);

/* Colour pairs (attributes when the terminal has no colours). */
enum tui_attr { TUI_NORMAL, TUI_TITLE, TUI_SELECTED, TUI_HOT, TUI_WARM, TUI_STATUS, TUI_MATCH };
int tui_attr(const struct tui *t, enum tui_attr a);
/* A share's attribute: TUI_HOT from 5%, TUI_WARM from 0.5% (perf's thresholds). */
int tui_pct_attr(const struct tui *t, double pct);

/*
 * Draw 'n' bytes of untrusted text at (y, x) in at most 'width' columns:
 * sanitized (base/sanitize), UTF-8 drawn as such when the locale is
 * UTF-8 (else '?' per character), cut at the width, never wrapped.
 * Returns the columns used.
 */
int tui_text(struct tui *t, int y, int x, int width, const char *s, size_t n);
/* As tui_text, then blanks to the end of 'width'. */
void tui_text_pad(struct tui *t, int y, int x, int width, const char *s, size_t n);

/*
 * Read a line of input on row 'y' after 'prompt' ('/' for a filter):
 * backspace, Ctrl-U (clear), Enter (accept), Esc (cancel). Returns 1
 * with the text (at most 'max' bytes) in 'out', 0 when cancelled.
 */
int tui_prompt(struct tui *t, int y, const char *prompt, char *out, size_t max);

#endif
