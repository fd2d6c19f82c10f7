/*
 * systrace: the events the system call BPF program sends to kiln
 * (trace/bpf, shared by systrace.bpf.c and trace/bpfsrc.c).
 *
 * One record per sys_enter or sys_exit of a followed process, through a
 * BPF ring buffer: a head (time, tgid, tid, call number, the six argument
 * registers or, at exit, the result in args[0], the task's comm), and for
 * calls with string arguments (the map strargs says which, per call
 * number) up to SYSTRACE_NSTR strings read from user memory at entry.
 */
#ifndef KILN_TRACE_BPF_SYSTRACE_H
#define KILN_TRACE_BPF_SYSTRACE_H

#define SYSTRACE_STRMAX 256  /* bytes read per string, NUL included */
#define SYSTRACE_NSTR 2      /* strings per call */
#define SYSTRACE_MAXNR 1024  /* call numbers with a strargs entry */
#define SYSTRACE_EXEC 2      /* head.enter of an exec's file name (str[0]) */

struct systrace_head {
	__u64 time;
	__u32 pid, tid;
	__s64 nr;
	__u64 args[6];
	__u8 enter;
	__u8 nstr;
	__u8 pad[6];
	char comm[16];
};

struct systrace_strs {
	struct systrace_head h;
	__s16 slen[SYSTRACE_NSTR]; /* bpf_probe_read_user_str's result: bytes with the NUL, or <0 */
	__u8 sidx[SYSTRACE_NSTR];  /* which argument */
	__u8 pad[4];
	char str[SYSTRACE_NSTR][SYSTRACE_STRMAX];
};

#endif
