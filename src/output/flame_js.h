/*
 * flame_js: the flame graph's viewer script (output, L7). The source is
 * src/output/flame.js, a file of its own (edited, linted and read as
 * JavaScript); the build embeds its bytes (cmake/Embed.cmake), which
 * svg_write puts inside the SVG's <script> CDATA section unchanged.
 */
#ifndef KILN_OUTPUT_FLAME_JS_H
#define KILN_OUTPUT_FLAME_JS_H

#include <stddef.h>

/* flame.js's bytes (no NUL after them) and their number. */
extern const unsigned char kiln_flame_js[];
extern const size_t kiln_flame_js_len;

#endif
