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
#define SYSTRACE_LATE 3      /* head.enter of strings read at exit, sent just before the exit */
#define SYSTRACE_ARGV 4      /* head.enter of an exec's argv and envp (systrace_argv), after its entry */
#define SYSTRACE_ARGMAX 16   /* argv strings read per exec */
#define SYSTRACE_ARGLEN 128  /* bytes read per argv string, NUL included */
#define SYSTRACE_ENVMAX 1024 /* envp entries counted per exec */
#define SYSTRACE_MAXIPS 127  /* user frames of a frame-pointer stack (perf's max-stack) */
#define SYSTRACE_STACKMAX 8192 /* bytes of user stack copied for DWARF unwinding */
#define SYSTRACE_NREGS 20    /* user registers sent with a stack copy (perf's order) */
#define SYSTRACE_FP 1        /* head.stack: ips[] holds a frame-pointer stack */
#define SYSTRACE_DWARF 2     /* head.stack: regs[] and stack[] for DWARF unwinding */

struct systrace_head {
	__u64 time;
	__u32 pid, tid;
	__s64 nr;
	__u64 args[6];
	__u8 enter;
	__u8 nstr;
	__u8 stack; /* exit: 0, SYSTRACE_FP or SYSTRACE_DWARF (a systrace_stack) */
	__u8 pad[5];
	char comm[16];
};

struct systrace_strs {
	struct systrace_head h;
	__s16 slen[SYSTRACE_NSTR]; /* bpf_probe_read_user_str's result: bytes with the NUL, or <0 */
	__u8 sidx[SYSTRACE_NSTR];  /* which argument */
	__u8 pad[4];
	char str[SYSTRACE_NSTR][SYSTRACE_STRMAX];
};

/*
 * An execve's (or execveat's) argument vector, read at its entry: the
 * first 'argc' strings (len: bpf_probe_read_user_str's result; ptr: where
 * each was), 'more' when the vector went on past them, 'bad' when the
 * vector itself could not be read; envp counted, up to SYSTRACE_ENVMAX
 * ('env_more' past it).
 */
struct systrace_argv {
	struct systrace_head h;
	__u8 argc, more, bad, env_more;
	__u32 envc;
	__s16 len[SYSTRACE_ARGMAX];
	__u64 ptr[SYSTRACE_ARGMAX];
	char arg[SYSTRACE_ARGMAX][SYSTRACE_ARGLEN];
};

/*
 * An exit with the user stack that made the call (--call-graph): fp,
 * the addresses bpf_get_stack() walked (leaf first; 'n' bytes of ips);
 * dwarf, the user registers (x86_64 perf order: ax bx cx dx si di bp sp
 * ip flags cs ss r8..r15) and 'n' bytes of the stack from sp up. Sent with
 * only the bytes used.
 */
struct systrace_stack {
	struct systrace_head h;
	__u64 n;
	union {
		__u64 ips[SYSTRACE_MAXIPS];
		struct {
			__u64 regs[SYSTRACE_NREGS];
			__u8 stack[SYSTRACE_STACKMAX];
		} d;
	};
};

#endif
