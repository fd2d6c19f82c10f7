// SPDX-License-Identifier: GPL-2.0
/*
 * ksym.bpf.c: the kernel's symbols as binary records (source/live/bpf;
 * built with clang -target bpf, CO-RE against the running kernel's BTF,
 * loaded as a light skeleton by source/live/ksymbpf.c). See ksym_bpf.h.
 *
 * An iter/ksym program (Linux 6.0+) runs once per symbol of the same
 * iteration /proc/kallsyms formats (core kernel, modules, ftrace, BPF
 * programs, kprobes), and writes what its s_show() would print, without
 * the text: no empty name, the value only where it would be shown, a
 * module symbol's type in upper case if exported, else lower case.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "ksym_bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct ksym_rec {
	__u64 value;
	__u16 name_len;
	__u8 mod_len;
	__u8 type;
	char s[KSYM_REC_NAME + KSYM_REC_MODULE];
};

/* A record is built here (larger than the stack allows), one per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksym_rec);
} rec SEC(".maps");

static char type_case(char t, int exported)
{
	if (exported && t >= 'a' && t <= 'z')
		return t - 'a' + 'A';
	if (!exported && t >= 'A' && t <= 'Z')
		return t - 'A' + 'a';
	return t;
}

SEC("iter/ksym")
int kiln_ksym(struct bpf_iter__ksym *ctx)
{
	struct kallsym_iter *it = ctx->ksym;
	__u32 zero = 0;

	if (!it)
		return 0;
	struct ksym_rec *r = bpf_map_lookup_elem(&rec, &zero);
	if (!r)
		return 0;
	long n = bpf_probe_read_kernel_str(r->s, KSYM_REC_NAME, it->name);
	if (n <= 1)
		return 0; /* no name: /proc/kallsyms skips it too */
	n = (n - 1) & (KSYM_REC_NAME - 1);
	long m = 0;
	char t = it->type;
	if (it->module_name[0]) {
		m = bpf_probe_read_kernel_str(r->s + n, KSYM_REC_MODULE, it->module_name);
		m = m > 1 ? (m - 1) & (KSYM_REC_MODULE - 1) : 0;
		t = type_case(t, it->exported);
	}
	r->value = it->show_value ? it->value : 0;
	r->name_len = n;
	r->mod_len = m;
	r->type = t;
	bpf_seq_write(ctx->meta->seq, r, KSYM_REC_HEADER + n + m);
	return 0;
}
