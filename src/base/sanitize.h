/*
 * sanitize: make untrusted text safe to show on a terminal (base, L0).
 *
 * Names from profiles (comm, mapped paths, symbols) are hostile: an ESC
 * sequence in a path printed in a warning could rewrite the terminal, a
 * bidi override (U+202E) could reorder what the user reads. Everything
 * that is not printable ASCII, TAB, LF or valid UTF-8 is written as a
 * visible "\xNN" per byte instead: C0 controls, DEL, C1 controls (U+0080
 * to U+009F), the bidi controls (U+061C, U+200E, U+200F, U+202A to
 * U+202E, U+2066 to U+2069), and every byte of an invalid or overlong
 * UTF-8 sequence, surrogate or code point past U+10FFFF.
 */
#ifndef KILN_BASE_SANITIZE_H
#define KILN_BASE_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/*
 * Append the sanitized form of 'n' bytes at 'in' to 'out'. Returns how
 * many bytes were consumed: all of them, except that with 'more' set
 * (more text follows) an incomplete UTF-8 sequence at the end is left
 * for the caller to pass again in front of the next bytes.
 */
size_t sanitize_term(const char *in, size_t n, bool more, struct buf *out);

#endif
