/*
 * csload: Capstone, loaded when first needed (annotate, L6).
 *
 * Capstone's library holds some 77,000 relocations that the dynamic
 * loader applied at every start of kiln when it was linked in: about
 * 2.4 ms of each command's start-up, also for the commands that never
 * disassemble. It is loaded here instead (dlopen of the library with the
 * major version of the headers kiln was built with, libcapstone.so.4 for
 * Capstone 4) the first time annotate disassembles, once per process,
 * thread-safe. The functions keep Capstone's own names and arguments,
 * prefixed csl_.
 */
#ifndef KILN_ANNOTATE_CSLOAD_H
#define KILN_ANNOTATE_CSLOAD_H

#include <capstone/capstone.h>

/* Load the library once: 0, or -ENOTSUP with the error set (naming the
 * library and dlerror's reason). The other functions need it to have
 * returned 0. */
int csl_load(void);

cs_err csl_open(cs_arch arch, cs_mode mode, csh *handle);
cs_err csl_close(csh *handle);
cs_err csl_option(csh handle, cs_opt_type type, size_t value);
const char *csl_strerror(cs_err code);
cs_insn *csl_malloc(csh handle);
void csl_free(cs_insn *insn, size_t count);
bool csl_disasm_iter(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
		     cs_insn *insn);
const char *csl_reg_name(csh handle, unsigned int reg_id);
const char *csl_insn_name(csh handle, unsigned int insn_id);
bool csl_insn_group(csh handle, const cs_insn *insn, unsigned int group_id);

#endif
