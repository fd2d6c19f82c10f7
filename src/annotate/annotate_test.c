/*
 * Unit tests for annotate/: disassembly checked against objdump -d run at
 * test time on a program compiled at test time (objdump is the
 * reference here only; kiln never runs it), i386 and AArch64 bytes,
 * missing code bytes, and annotations of known samples: counts, shares,
 * source lines and their text, the --prefix rules, missing sources.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate/annotate.h"
#include "annotate/disasm.h"
#include "base/err.h"

static char tmpdir[64], prog[128], src[128], dbg[128];

/* Known code: a loop (a jump back inside the function), a call, a
 * memory store, a switch over a table. */
static const char prog_src[] =
	"#include <stdint.h>\n"
	"#include <stdlib.h>\n"
	"volatile uint64_t sink;\n"
	"__attribute__((noinline)) uint64_t mix(uint64_t x)\n"
	"{\n"
	"\tfor (int i = 0; i < 1000; i++)\n"
	"\t\tx = x * 6364136223846793005ULL + 1442695040888963407ULL;\n"
	"\treturn x;\n"
	"}\n"
	"__attribute__((noinline)) int pick(int k, int *out)\n"
	"{\n"
	"\tswitch (k) {\n"
	"\tcase 0: out[0] = 5; return 1;\n"
	"\tcase 1: out[1] = -7; return 3;\n"
	"\tcase 2: out[2] = 9; return 4;\n"
	"\tcase 3: out[3] = 11; return 8;\n"
	"\tdefault: return (int)mix((uint64_t)k);\n"
	"\t}\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tint o[4];\n"
	"\tsink = mix((uint64_t)argc) + (uint64_t)pick(argc > 1 ? atoi(argv[1]) : 0, o);\n"
	"\treturn 0;\n"
	"}\n";

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int group_setup(void **state)
{
	char cmd[1024];

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/kiln-annotate-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(src, sizeof(src), "%s/hot.c", tmpdir);
	snprintf(prog, sizeof(prog), "%s/hot", tmpdir);
	snprintf(dbg, sizeof(dbg), "%s/hot.debug", tmpdir);
	if (write_file(src, prog_src))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && cc -O2 -g -fno-omit-frame-pointer -o hot hot.c && "
		 "objcopy --only-keep-debug hot hot.debug",
		 tmpdir);
	if (system(cmd) != 0)
		prog[0] = '\0';
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (tmpdir[0] && !strncmp(tmpdir, "/tmp/kiln-annotate-", 19)) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			return -1;
	}
	return 0;
}

/* ---- objdump as the reference ---- */

struct ref_insn {
	uint64_t addr;
	char text[256]; /* objdump's text, its "# ..." comment cut */
};

/* binutils before 2.37 wrote the 64-bit default size of branches and
 * stack instructions ("retq", "callq", "jmpq *%rax", "leaveq", "pushq
 * $0x0"); kiln writes them as 2.37 and later do. Rewrites 'text' so. */
static void new_spelling(char *text, size_t len)
{
	static const char *const old[] = { "retq", "callq", "jmpq", "leaveq", "pushq", "popq" };
	for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
		size_t n = strlen(old[i]);
		if (strncmp(text, old[i], n) || (text[n] != ' ' && text[n] != '\0'))
			continue;
		char ops[256], name[8];
		const char *p = text + n;
		while (*p == ' ')
			p++;
		snprintf(ops, sizeof(ops), "%s", p);
		snprintf(name, sizeof(name), "%.*s", (int)(n - 1), old[i]);
		if (ops[0])
			snprintf(text, len, "%-6s %.200s", name, ops);
		else
			snprintf(text, len, "%s", name);
		return;
	}
}

/* objdump -d of [start, end): instructions in order. */
static size_t objdump_range(const char *path, uint64_t start, uint64_t end, struct ref_insn *out,
			    size_t cap)
{
	char cmd[512], line[512];
	size_t n = 0;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn --start-address=0x%" PRIx64
		 " --stop-address=0x%" PRIx64 " '%s'",
		 start, end, path);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && n < cap) {
		char *colon = strstr(line, ":\t");
		if (!colon || line[0] != ' ')
			continue;
		out[n].addr = strtoull(line, NULL, 16);
		snprintf(out[n].text, sizeof(out[n].text), "%s", colon + 2);
		char *cut = strchr(out[n].text, '#');
		if (!cut)
			cut = out[n].text + strlen(out[n].text);
		while (cut > out[n].text && (cut[-1] == '\n' || cut[-1] == ' '))
			cut--;
		*cut = '\0';
		new_spelling(out[n].text, sizeof(out[n].text));
		n++;
	}
	assert_int_equal(pclose(f), 0);
	return n;
}

static uint64_t sym_addr(const char *path, const char *name, uint64_t *size)
{
	char cmd[512], line[512], want[64];
	uint64_t addr = 0;

	snprintf(cmd, sizeof(cmd), "nm -S '%s'", path);
	snprintf(want, sizeof(want), " %s\n", name);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		size_t ll = strlen(line), wl = strlen(want);
		if (ll > wl && !strcmp(line + ll - wl, want)) {
			char *end;
			addr = strtoull(line, &end, 16);
			*size = strtoull(end, NULL, 16);
		}
	}
	pclose(f);
	assert_true(addr != 0);
	return addr;
}

static void text_of(const struct disasm_insn *in, char *buf, size_t len)
{
	disasm_insn_text(in, buf, len);
	char *cut = strchr(buf, '#');
	if (!cut)
		cut = buf + strlen(buf);
	while (cut > buf && cut[-1] == ' ')
		cut--;
	*cut = '\0';
}

/* Every function of the program decodes to objdump's addresses and text. */
static void test_vs_objdump(void **state)
{
	static const char *const funcs[] = { "mix", "pick", "main" };
	struct elf_image *img;
	struct ref_insn ref[512];
	char text[300];

	(void)state;
	if (!prog[0])
		skip();
	assert_int_equal(elf_image_open(&img, prog), 0);
	for (size_t k = 0; k < sizeof(funcs) / sizeof(funcs[0]); k++) {
		uint64_t size, start = sym_addr(prog, funcs[k], &size);
		size_t n = objdump_range(prog, start, start + size, ref, 512);
		struct disasm d;
		assert_true(n > 3);
		assert_int_equal(disasm_range(&d, img, start, size, disasm_elf_sym, img), 0);
		assert_int_equal(d.insns.n, n);
		for (size_t i = 0; i < n; i++) {
			text_of(&d.insns.v[i], text, sizeof(text));
			if (d.insns.v[i].addr != ref[i].addr || strcmp(text, ref[i].text))
				print_message("%s: kiln %" PRIx64 " '%s' objdump %" PRIx64 " '%s'\n",
					      funcs[k], d.insns.v[i].addr, text, ref[i].addr,
					      ref[i].text);
			assert_int_equal(d.insns.v[i].addr, ref[i].addr);
			assert_string_equal(text, ref[i].text);
		}
		disasm_release(&d);
	}
	elf_image_free(img);
}

/* mix's loop: its backward jump targets an instruction inside it. */
static void test_labels(void **state)
{
	struct elf_image *img;
	struct disasm d;
	uint64_t size, start;
	size_t jumps = 0, labels = 0;

	(void)state;
	if (!prog[0])
		skip();
	assert_int_equal(elf_image_open(&img, prog), 0);
	start = sym_addr(prog, "mix", &size);
	assert_int_equal(disasm_range(&d, img, start, size, disasm_elf_sym, img), 0);
	for (size_t i = 0; i < d.insns.n; i++) {
		const struct disasm_insn *in = &d.insns.v[i];
		if (in->flags & DISASM_LABEL)
			labels++;
		if (!(in->flags & DISASM_JUMP) || !(in->flags & DISASM_INSIDE))
			continue;
		jumps++;
		assert_true(in->target < in->addr); /* the loop goes back */
		size_t t = disasm_find(&d, in->target);
		assert_true(t != SIZE_MAX);
		assert_int_equal(d.insns.v[t].addr, in->target);
		assert_true(d.insns.v[t].flags & DISASM_LABEL);
		char want[64];
		snprintf(want, sizeof(want), "%" PRIx64 " <mix+0x%" PRIx64 ">", in->target,
			 in->target - start);
		assert_non_null(strstr(in->ops, want));
	}
	assert_true(jumps >= 1);
	assert_true(labels >= 1);
	/* The last instruction returns. */
	assert_true(d.insns.v[d.insns.n - 1].flags & DISASM_RET);
	assert_int_equal(disasm_find(&d, start - 1), SIZE_MAX);
	assert_int_equal(disasm_find(&d, start + size), SIZE_MAX);
	disasm_release(&d);
	elf_image_free(img);
}

/* A debug-only file has no code bytes: a clear error, not garbage. */
static void test_missing_code(void **state)
{
	struct elf_image *img, *bin;
	struct disasm d;
	const uint8_t *p, *q;
	uint64_t size, start;

	(void)state;
	if (!prog[0])
		skip();
	start = sym_addr(prog, "mix", &size);
	assert_int_equal(elf_image_open(&img, dbg), 0);
	assert_int_equal(elf_image_code(img, start, size, &p), -ENODATA);
	assert_int_equal(disasm_range(&d, img, start, size, NULL, NULL), -ENODATA);
	assert_non_null(strstr(err_last()->msg, "no code bytes"));
	disasm_release(&d);
	/* The binary has them, the same as objdump's first byte says. */
	assert_int_equal(elf_image_open(&bin, prog), 0);
	assert_int_equal(elf_image_code(bin, start, size, &q), 0);
	assert_int_equal(elf_image_code(bin, start, UINT64_MAX, &q), -ENODATA);
	assert_int_equal(elf_image_code(bin, UINT64_MAX - 1, 4, &q), -ENODATA);
	assert_int_equal(disasm_range(&d, bin, start, 0, NULL, NULL), -EINVAL);
	disasm_release(&d);
	elf_image_free(img);
	elf_image_free(bin);
}

static const char *fixed_sym(void *ctx, uint64_t vaddr, uint64_t *start)
{
	(void)ctx;
	if (vaddr < 0x1000 || vaddr >= 0x1100)
		return NULL;
	*start = 0x1000;
	return "f";
}

static void expect(const struct disasm *d, size_t i, uint64_t addr, const char *text)
{
	char buf[300];

	assert_true(i < d->insns.n);
	disasm_insn_text(&d->insns.v[i], buf, sizeof(buf));
	assert_int_equal(d->insns.v[i].addr, addr);
	assert_string_equal(buf, text);
}

static void test_x86_forms(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x83, 0xf7, 0x03,                         /* xor $0x3,%rdi */
		0xc7, 0x45, 0xfc, 0x00, 0x00, 0x00, 0x00,       /* movl $0x0,-0x4(%rbp) */
		0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0,    /* cs nopw 0x0(%rax,%rax,1) */
		0x48, 0xd1, 0xe0,                               /* shl %rax */
		0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff,       /* mov $0xffffffffffffffff,%rax */
		0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0,    /* mov %fs:0x28,%rax */
		0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00,       /* mov 0x10(%rip),%rax  # ... */
		0xff, 0xe0,                                     /* jmp *%rax */
		0x75, 0xd6,                                     /* jne 1000 <f> */
		0xe8, 0x00, 0x00, 0x00, 0x00,                   /* call ... */
		0x66, 0x90,                                     /* xchg %ax,%ax */
		0xf3, 0x48, 0xab,                               /* rep stos %rax,%es:(%rdi) */
		0xc3,                                           /* ret */
		0x0f, 0x0b,                                     /* ud2 */
		0x48, 0xd3, 0x7c, 0xdc, 0x20,                   /* sarq %cl,0x20(%rsp,%rbx,8) */
		0x48, 0xd3, 0xf8,                               /* sar %cl,%rax */
	};
	struct disasm d;

	(void)state;
	assert_int_equal(disasm_bytes(&d, DISASM_X86_64, code, 0x1000, sizeof(code), fixed_sym,
				      NULL), 0);
	expect(&d, 0, 0x1000, "xor    $0x3,%rdi");
	expect(&d, 1, 0x1004, "movl   $0x0,-0x4(%rbp)");
	expect(&d, 2, 0x100b, "cs nopw 0x0(%rax,%rax,1)");
	expect(&d, 3, 0x1015, "shl    %rax");
	expect(&d, 4, 0x1018, "mov    $0xffffffffffffffff,%rax");
	expect(&d, 5, 0x101f, "mov    %fs:0x28,%rax");
	expect(&d, 6, 0x1028, "mov    0x10(%rip),%rax        # 103f <f+0x3f>");
	expect(&d, 7, 0x102f, "jmp    *%rax");
	expect(&d, 8, 0x1031, "jne    1009 <f+0x9>");
	assert_true(d.insns.v[8].flags & DISASM_INSIDE);
	expect(&d, 9, 0x1033, "call   1038 <f+0x38>");
	assert_true(d.insns.v[9].flags & DISASM_CALL);
	expect(&d, 10, 0x1038, "xchg   %ax,%ax");
	expect(&d, 11, 0x103a, "rep stos %rax,%es:(%rdi)");
	expect(&d, 12, 0x103d, "ret");
	assert_true(d.insns.v[12].flags & DISASM_RET);
	expect(&d, 13, 0x103e, "ud2");
	expect(&d, 14, 0x1040, "sarq   %cl,0x20(%rsp,%rbx,8)");
	expect(&d, 15, 0x1045, "sar    %cl,%rax");
	/* 0x1009 is mid-instruction (the movl): a target, not a label. */
	assert_false(d.insns.v[1].flags & DISASM_LABEL);
	disasm_release(&d);

	/* Bytes that do not decode: one "(bad)" byte, then decoding goes on. */
	static const uint8_t bad[] = { 0x06, 0xc3 }; /* push %es: not in 64-bit mode */
	assert_int_equal(disasm_bytes(&d, DISASM_X86_64, bad, 0x2000, sizeof(bad), NULL, NULL), 0);
	assert_true(d.insns.v[0].flags & DISASM_BAD);
	assert_int_equal(d.insns.n, 2);
	expect(&d, 0, 0x2000, "(bad)");
	expect(&d, 1, 0x2001, "ret");
	disasm_release(&d);
}

static void test_i386(void **state)
{
	static const uint8_t code[] = {
		0x55,                   /* push %ebp */
		0x89, 0xe5,             /* mov %esp,%ebp */
		0x83, 0xec, 0x10,       /* sub $0x10,%esp */
		0x8b, 0x45, 0x08,       /* mov 0x8(%ebp),%eax */
		0xe8, 0xf2, 0xff, 0xff, 0xff, /* call 1000 <f> */
		0xc9,                   /* leave */
		0xc3,                   /* ret */
	};
	struct disasm d;

	(void)state;
	assert_int_equal(disasm_bytes(&d, DISASM_I386, code, 0x1000, sizeof(code), fixed_sym, NULL), 0);
	expect(&d, 0, 0x1000, "push   %ebp");
	expect(&d, 1, 0x1001, "mov    %esp,%ebp");
	expect(&d, 2, 0x1003, "sub    $0x10,%esp");
	expect(&d, 3, 0x1006, "mov    0x8(%ebp),%eax");
	expect(&d, 4, 0x1009, "call   1000 <f>");
	expect(&d, 5, 0x100e, "leave");
	expect(&d, 6, 0x100f, "ret");
	disasm_release(&d);
}

static void test_aarch64(void **state)
{
	static const uint8_t code[] = {
		0xfd, 0x7b, 0xbf, 0xa9, /* stp x29, x30, [sp, #-0x10]! */
		0x03, 0x00, 0x00, 0x94, /* bl +12 */
		0x40, 0x00, 0x00, 0xb4, /* cbz x0, +8 */
		0xfd, 0x7b, 0xc1, 0xa8, /* ldp x29, x30, [sp], #0x10 */
		0xc0, 0x03, 0x5f, 0xd6, /* ret */
	};
	struct disasm d;
	char buf[300];

	(void)state;
	assert_int_equal(disasm_bytes(&d, DISASM_AARCH64, code, 0x1000, sizeof(code), fixed_sym,
				      NULL), 0);
	assert_int_equal(d.insns.n, 5);
	assert_string_equal(d.insns.v[0].mnemonic, "stp");
	expect(&d, 1, 0x1004, "bl     1010 <f+0x10>");
	assert_true(d.insns.v[1].flags & DISASM_CALL);
	disasm_insn_text(&d.insns.v[2], buf, sizeof(buf));
	assert_string_equal(buf, "cbz    x0, 1010 <f+0x10>");
	assert_true(d.insns.v[2].flags & DISASM_INSIDE);
	assert_true(d.insns.v[4].flags & DISASM_LABEL);
	assert_string_equal(d.insns.v[4].mnemonic, "ret");
	disasm_release(&d);
}

/* A minimal ELF64 file: the header, one PT_LOAD of the whole file at
 * 0x400000, no section headers, 5 bytes of code at offset 120. */
static size_t tiny_elf(uint8_t *buf, uint16_t machine)
{
	static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0xc3 };
	size_t len = 120 + sizeof(code);

	memset(buf, 0, len);
	memcpy(buf, "\x7f" "ELF", 4);
	buf[4] = 2; /* ELFCLASS64 */
	buf[5] = 1; /* little-endian */
	buf[6] = 1;
	buf[16] = 2; /* ET_EXEC */
	buf[18] = (uint8_t)machine;
	buf[19] = (uint8_t)(machine >> 8);
	buf[20] = 1;
	buf[32] = 64;  /* e_phoff */
	buf[52] = 64;  /* e_ehsize */
	buf[54] = 56;  /* e_phentsize */
	buf[56] = 1;   /* e_phnum */
	buf[58] = 64;  /* e_shentsize */
	uint8_t *ph = buf + 64;
	ph[0] = 1;       /* PT_LOAD */
	ph[4] = 5;       /* R+X */
	ph[18] = 0x40;   /* p_vaddr 0x400000 */
	ph[26] = 0x40;   /* p_paddr */
	ph[32] = (uint8_t)len; /* p_filesz */
	ph[40] = (uint8_t)len; /* p_memsz */
	ph[49] = 0x10;   /* p_align 0x1000 */
	memcpy(buf + 120, code, sizeof(code));
	return len;
}

/* The machine from e_machine; code bytes from PT_LOAD when there are no
 * sections; a range past the segment's file bytes has none. */
static void test_elf_machine_and_segments(void **state)
{
	static const struct {
		uint16_t machine;
		int err;
		enum disasm_arch arch;
	} cases[] = {
		{ 62, 0, DISASM_X86_64 }, { 3, 0, DISASM_I386 }, { 183, 0, DISASM_AARCH64 },
		{ 40, 0, DISASM_ARM },     { 8, -ENOTSUP, 0 },   { 21, -ENOTSUP, 0 },
	};
	uint8_t buf[256];
	struct elf_image *img;
	struct disasm d;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = tiny_elf(buf, cases[i].machine);
		enum disasm_arch arch;
		assert_int_equal(elf_image_parse(&img, buf, len), 0);
		assert_int_equal(elf_image_machine(img), cases[i].machine);
		assert_int_equal(disasm_arch_of(img, &arch), cases[i].err);
		if (!cases[i].err)
			assert_int_equal(arch, cases[i].arch);
		else
			assert_int_equal(disasm_range(&d, img, 0x400078, 5, NULL, NULL), -ENOTSUP);
		if (cases[i].err)
			disasm_release(&d);
		elf_image_free(img);
	}
	size_t len = tiny_elf(buf, 62);
	assert_int_equal(elf_image_parse(&img, buf, len), 0);
	assert_int_equal(disasm_range(&d, img, 0x400078, 5, NULL, NULL), 0);
	expect(&d, 0, 0x400078, "push   %rbp");
	expect(&d, 1, 0x400079, "mov    %rsp,%rbp");
	expect(&d, 2, 0x40007c, "ret");
	disasm_release(&d);
	const uint8_t *p;
	assert_int_equal(elf_image_code(img, 0x400078, 5, &p), 0);
	assert_ptr_equal(p, buf + 120);
	assert_int_equal(elf_image_code(img, 0x400078, 6, &p), -ENODATA);
	assert_int_equal(elf_image_code(img, 0x3fffff, 2, &p), -ENODATA);
	assert_int_equal(disasm_range(&d, img, 0x400079, 5, NULL, NULL), -ENODATA);
	disasm_release(&d);
	elf_image_free(img);
}

/* ---- annotations ---- */

struct fixture {
	struct dso_set ds;
	struct strtab strs;
	struct srclines sl;
	uint32_t dso;
	uint64_t start, size;
};

static void fixture_init(struct fixture *fx, const char *func)
{
	dso_set_init(&fx->ds);
	strtab_init(&fx->strs);
	fx->dso = dso_set_intern(&fx->ds, prog);
	srclines_init(&fx->sl, &fx->ds, &fx->strs);
	fx->start = sym_addr(prog, func, &fx->size);
}

static void fixture_release(struct fixture *fx)
{
	srclines_release(&fx->sl);
	strtab_release(&fx->strs);
	dso_set_release(&fx->ds);
}

/* The line of hot.c holding 'needle'. */
static uint32_t src_line_of(const char *needle)
{
	uint32_t line = 1;
	const char *at = strstr(prog_src, needle);
	assert_non_null(at);
	for (const char *p = prog_src; p < at; p++)
		line += *p == '\n';
	return line;
}

static void test_annotation(void **state)
{
	struct fixture fx;
	struct annotation a;
	struct annotate_sample s[8];
	size_t ns = 0;

	(void)state;
	if (!prog[0])
		skip();
	fixture_init(&fx, "mix");
	struct disasm d;
	struct elf_image *img;
	assert_int_equal(elf_image_open(&img, prog), 0);
	assert_int_equal(disasm_range(&d, img, fx.start, fx.size, NULL, NULL), 0);
	assert_true(d.insns.n >= 4);
	/* 10 samples on the first instruction, 30 on the second (twice,
	 * added up), 60 on the last, 5 outside the function; periods of 2
	 * each but on the last (1 each): shares follow the periods. */
	s[ns++] = (struct annotate_sample){ d.insns.v[0].addr, 10, 20 };
	s[ns++] = (struct annotate_sample){ d.insns.v[1].addr, 20, 40 };
	s[ns++] = (struct annotate_sample){ d.insns.v[d.insns.n - 1].addr, 60, 60 };
	s[ns++] = (struct annotate_sample){ d.insns.v[1].addr, 10, 20 };
	s[ns++] = (struct annotate_sample){ fx.start + fx.size + 64, 5, 10 };
	struct annotate_req r = {
		.dsos = &fx.ds, .dso = fx.dso, .lines = &fx.sl, .strs = &fx.strs,
		.start = fx.start, .size = fx.size, .samples = s, .nsamples = ns,
	};
	assert_int_equal(annotation_build(&a, &r), 0);
	assert_int_equal(a.insns.n, d.insns.n);
	assert_int_equal(a.samples, 105);
	assert_int_equal(a.period, 150);
	assert_int_equal(a.outside_samples, 5);
	assert_int_equal(a.outside_period, 10);
	assert_int_equal(a.insns.v[0].samples, 10);
	assert_int_equal(a.insns.v[1].samples, 30);
	assert_int_equal(a.insns.v[1].period, 60);
	assert_int_equal(a.insns.v[d.insns.n - 1].samples, 60);
	assert_string_equal(strtab_get(&fx.strs, a.name), "mix");
	double sum = 0;
	uint64_t csum = 0, psum = 0;
	for (size_t i = 0; i < a.insns.n; i++) {
		sum += annotate_percent(a.insns.v[i].period, a.period - a.outside_period);
		csum += a.insns.v[i].samples;
		psum += a.insns.v[i].period;
	}
	assert_true(sum > 99.999 && sum < 100.001);
	assert_int_equal(csum + a.outside_samples, a.samples);
	assert_int_equal(psum + a.outside_period, a.period);
	assert_true(annotate_percent(a.insns.v[1].period, a.period) == 40.0);

	/* Every instruction has a hot.c line; the line totals add up and
	 * come hottest first; the loop body's text is read from hot.c. */
	uint64_t lsum = 0;
	bool body = false;
	uint32_t body_line = src_line_of("x = x * 636");
	for (size_t i = 0; i < a.lines.n; i++) {
		const struct annotate_line *l = &a.lines.v[i];
		assert_string_equal(strtab_get(&fx.strs, l->file), "hot.c");
		if (i)
			assert_true(a.lines.v[i - 1].period >= l->period);
		lsum += l->period;
		assert_true(l->src >= 0);
		size_t len;
		const char *t = source_line(&a.sources.v.v[l->src], l->line, &len);
		assert_non_null(t);
		if (l->line == body_line) {
			body = true;
			assert_non_null(strstr(t, "6364136223846793005ULL"));
		}
	}
	assert_true(body);
	assert_int_equal(lsum, a.period - a.outside_period);
	assert_int_equal(a.notes.n, 0);
	annotation_release(&a);

	/* Without a source file: the same lines, a note, no text. */
	r.src.prefix = "/nonexistent-kiln-src";
	assert_int_equal(annotation_build(&a, &r), 0);
	assert_true(a.lines.n > 0);
	assert_int_equal(a.notes.n, 1);
	assert_non_null(strstr(a.notes.v[0], "/nonexistent-kiln-src/"));
	assert_non_null(strstr(a.notes.v[0], "not found"));
	for (size_t i = 0; i < a.lines.n; i++)
		assert_int_equal(a.lines.v[i].src, -1);
	annotation_release(&a);

	disasm_release(&d);
	elf_image_free(img);
	fixture_release(&fx);
}

/* --prefix-strip N --prefix P: the tree moved elsewhere is found. */
static void test_prefix(void **state)
{
	struct fixture fx;
	struct annotation a;
	char moved[128], cmd[600];

	(void)state;
	if (!prog[0])
		skip();
	/* hot.c's directory has k components; put a copy under moved/ and
	 * strip them all. */
	unsigned k = 0;
	for (const char *p = tmpdir; *p; p++)
		k += *p == '/';
	snprintf(moved, sizeof(moved), "%.64s/moved", tmpdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s/'", moved, src, moved);
	assert_int_equal(system(cmd), 0);

	fixture_init(&fx, "pick");
	struct annotate_sample s = { fx.start, 1, 1 };
	struct annotate_req r = {
		.dsos = &fx.ds, .dso = fx.dso, .lines = &fx.sl, .strs = &fx.strs,
		.start = fx.start, .size = fx.size, .samples = &s, .nsamples = 1,
		.src = { .prefix = moved, .prefix_strip = k },
	};
	assert_int_equal(annotation_build(&a, &r), 0);
	assert_int_equal(a.notes.n, 0);
	assert_true(a.sources.v.n >= 1);
	char want[300];
	assert_true(strlen(moved) < 200);
	snprintf(want, sizeof(want), "%.200s/hot.c", moved);
	assert_string_equal(a.sources.v.v[0].path, want);
	assert_true(a.sources.v.v[0].found);
	annotation_release(&a);
	fixture_release(&fx);

	char buf[256];
	struct source_opts o = { .prefix = "/p/", .prefix_strip = 2 };
	source_rewrite_path("/a/b/c/d.c", &o, buf, sizeof(buf));
	assert_string_equal(buf, "/p/c/d.c");
	o.prefix_strip = 9; /* more than there are: the file name stays */
	source_rewrite_path("/a/b/c/d.c", &o, buf, sizeof(buf));
	assert_string_equal(buf, "/p/d.c");
	source_rewrite_path("rel/d.c", &o, buf, sizeof(buf)); /* relative: untouched */
	assert_string_equal(buf, "rel/d.c");
	o.prefix = NULL; /* strip alone does nothing, as objdump */
	source_rewrite_path("/a/b/c/d.c", &o, buf, sizeof(buf));
	assert_string_equal(buf, "/a/b/c/d.c");
}

/* No line tables asked for, or a dso with no binary: still clear answers. */
static void test_annotation_edges(void **state)
{
	struct fixture fx;
	struct annotation a;

	(void)state;
	if (!prog[0])
		skip();
	fixture_init(&fx, "main");
	struct annotate_req r = {
		.dsos = &fx.ds, .dso = fx.dso, .strs = &fx.strs,
		.start = fx.start, .size = fx.size,
	};
	assert_int_equal(annotation_build(&a, &r), 0);
	assert_int_equal(a.samples, 0);
	assert_int_equal(a.period, 0);
	assert_int_equal(a.lines.n, 0);
	for (size_t i = 0; i < a.insns.n; i++)
		assert_int_equal(a.insns.v[i].file, SRCLINE_NONE);
	annotation_release(&a);

	r.dso = dso_set_intern(&fx.ds, "/nonexistent/kiln-annotate-binary");
	assert_int_equal(annotation_build(&a, &r), -ENOENT);
	annotation_release(&a);
	fixture_release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_objdump),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_missing_code),
		cmocka_unit_test(test_x86_forms),
		cmocka_unit_test(test_i386),
		cmocka_unit_test(test_aarch64),
		cmocka_unit_test(test_elf_machine_and_segments),
		cmocka_unit_test(test_annotation),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_annotation_edges),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
