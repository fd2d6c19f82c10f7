/* csload: Capstone through dlopen, resolved once (annotate, L6). */
#include "annotate/csload.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

#define CSL_STR_(x) #x
#define CSL_STR(x) CSL_STR_(x)
#define CSL_SONAME "libcapstone.so." CSL_STR(CS_API_MAJOR)

/* The resolved entry points (process-wide: the library is loaded once
 * and never unloaded). */
static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*close)(csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	const char *(*strerror)(cs_err);
	cs_insn *(*malloc)(csh);
	void (*free)(cs_insn *, size_t);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	const char *(*reg_name)(csh, unsigned int);
	const char *(*insn_name)(csh, unsigned int);
	bool (*insn_group)(csh, const cs_insn *, unsigned int);
	char why[256]; /* why loading failed, "" when it worked */
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	if (!p && !api.why[0]) {
		const char *e = dlerror();
		snprintf(api.why, sizeof(api.why), "%s has no %s%s%s", CSL_SONAME, name, e ? ": " : "",
			e ? e : "");
	}
	return p;
}

static void load(void)
{
	void *h = dlopen(CSL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(api.why, sizeof(api.why), "cannot load %s (Capstone %d): %s", CSL_SONAME,
			CS_API_MAJOR, e ? e : "not found");
		return;
	}
	api.open = (cs_err(*)(cs_arch, cs_mode, csh *))sym(h, "cs_open");
	api.close = (cs_err(*)(csh *))sym(h, "cs_close");
	api.option = (cs_err(*)(csh, cs_opt_type, size_t))sym(h, "cs_option");
	api.strerror = (const char *(*)(cs_err))sym(h, "cs_strerror");
	api.malloc = (cs_insn * (*)(csh)) sym(h, "cs_malloc");
	api.free = (void (*)(cs_insn *, size_t))sym(h, "cs_free");
	api.disasm_iter = (bool (*)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *))sym(
		h, "cs_disasm_iter");
	api.reg_name = (const char *(*)(csh, unsigned int))sym(h, "cs_reg_name");
	api.insn_name = (const char *(*)(csh, unsigned int))sym(h, "cs_insn_name");
	api.insn_group = (bool (*)(csh, const cs_insn *, unsigned int))sym(h, "cs_insn_group");
}

int csl_load(void)
{
	pthread_once(&once, load);
	if (api.why[0])
		return err_set(-ENOTSUP, "%s", api.why);
	return 0;
}

cs_err csl_open(cs_arch arch, cs_mode mode, csh *handle)
{
	return api.open(arch, mode, handle);
}

cs_err csl_close(csh *handle)
{
	return api.close(handle);
}

cs_err csl_option(csh handle, cs_opt_type type, size_t value)
{
	return api.option(handle, type, value);
}

const char *csl_strerror(cs_err code)
{
	return api.strerror(code);
}

cs_insn *csl_malloc(csh handle)
{
	return api.malloc(handle);
}

void csl_free(cs_insn *insn, size_t count)
{
	api.free(insn, count);
}

bool csl_disasm_iter(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
		     cs_insn *insn)
{
	return api.disasm_iter(handle, code, size, address, insn);
}

const char *csl_reg_name(csh handle, unsigned int reg_id)
{
	return api.reg_name(handle, reg_id);
}

const char *csl_insn_name(csh handle, unsigned int insn_id)
{
	return api.insn_name(handle, insn_id);
}

bool csl_insn_group(csh handle, const cs_insn *insn, unsigned int group_id)
{
	return api.insn_group(handle, insn, group_id);
}
