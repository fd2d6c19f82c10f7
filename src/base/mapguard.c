/* mapguard: SIGBUS on shrunk file mappings made into zeros (base, L0). */
#include "base/mapguard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct guard {
	_Atomic uintptr_t start; /* 0: free */
	_Atomic size_t len;
	_Atomic uint64_t fault; /* lowest faulting offset + 1; 0: none */
};

static struct guard guards[MAPGUARD_SLOTS];
static _Atomic size_t used; /* slots ever taken (the handler looks no further) */
static struct sigaction previous;
static uintptr_t page_size;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static void record_fault(struct guard *g, uint64_t off)
{
	uint64_t cur = atomic_load(&g->fault);
	while ((cur == 0 || off + 1 < cur) && !atomic_compare_exchange_weak(&g->fault, &cur, off + 1))
		;
}

/* Hand a fault that is not ours to whoever handled SIGBUS before. */
static void pass_on(int sig, siginfo_t *si, void *ctx)
{
	if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
		previous.sa_sigaction(sig, si, ctx);
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
	} else {
		/* Returning re-runs the faulting read, which then gets the default action. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGBUS, &dfl, NULL);
	}
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	int saved = errno;
	uintptr_t a = (uintptr_t)si->si_addr;
	size_t n = atomic_load(&used);
	for (size_t i = 0; i < n; i++) {
		struct guard *g = &guards[i];
		uintptr_t start = atomic_load(&g->start);
		size_t len = atomic_load(&g->len);
		if (!start || a < start || a - start >= len)
			continue;
		uintptr_t page = a & ~(page_size - 1);
		void *z = mmap((void *)page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			       -1, 0);
		if (z == MAP_FAILED)
			break;
		record_fault(g, page > start ? page - start : 0);
		errno = saved;
		return;
	}
	errno = saved;
	pass_on(sig, si, ctx);
}

/* (Re)install the handler unless it is in place: something else may have
 * replaced it since (a test harness, a library). */
static void install(void)
{
	struct sigaction cur, sa;
	pthread_mutex_lock(&install_lock);
	if (!page_size) {
		long ps = sysconf(_SC_PAGESIZE);
		page_size = ps > 0 ? (uintptr_t)ps : 4096;
	}
	if (sigaction(SIGBUS, NULL, &cur) == 0 &&
	    !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, &previous);
	}
	pthread_mutex_unlock(&install_lock);
}

int mapguard_add(const void *p, size_t len)
{
	if (!p || !len)
		return -1;
	install();
	for (size_t i = 0; i < MAPGUARD_SLOTS; i++) {
		uintptr_t free_slot = 0;
		struct guard *g = &guards[i];
		if (atomic_load(&g->start))
			continue;
		/* Claim with a placeholder so the handler never sees a half-set slot. */
		if (!atomic_compare_exchange_strong(&g->start, &free_slot, UINTPTR_MAX))
			continue;
		atomic_store(&g->len, 0);
		atomic_store(&g->fault, 0);
		size_t u = atomic_load(&used);
		while (u < i + 1 && !atomic_compare_exchange_weak(&used, &u, i + 1))
			;
		atomic_store(&g->len, len);
		atomic_store(&g->start, (uintptr_t)p);
		return (int)i;
	}
	return -1;
}

void mapguard_remove(int slot)
{
	if (slot < 0 || slot >= MAPGUARD_SLOTS)
		return;
	atomic_store(&guards[slot].len, 0);
	atomic_store(&guards[slot].start, 0);
}

bool mapguard_faulted(int slot, uint64_t *off)
{
	if (slot < 0 || slot >= MAPGUARD_SLOTS)
		return false;
	uint64_t f = atomic_load(&guards[slot].fault);
	if (f && off)
		*off = f - 1;
	return f != 0;
}

void mapguard_touch(const void *p, size_t n)
{
	if (!n)
		return;
	const volatile uint8_t *b = p;
	uintptr_t ps = page_size ? page_size : 4096;
	/* The first byte, then the first byte of each later page, then the last. */
	(void)b[0];
	uintptr_t next = ((uintptr_t)b & ~(ps - 1)) + ps;
	for (uintptr_t a = next; a - (uintptr_t)b < n; a += ps)
		(void)*(const volatile uint8_t *)a;
	(void)b[n - 1];
}
