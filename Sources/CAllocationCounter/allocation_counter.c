// Counts heap allocations by defining the allocator entry points in the linking executable and
// forwarding to glibc's own implementations. glibc 2.34 removed the malloc hooks, and
// LD_PRELOAD would make `tiltboard bench` depend on how it is started; symbol interposition in
// the executable needs neither. The counter is a relaxed atomic: one uncontended add per call.
#include "allocation_counter.h"
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic unsigned long long allocations;
// Initial-exec TLS in the executable: reading or bumping it never allocates.
static _Thread_local unsigned long long thread_allocations;

static inline void count_one(void) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    thread_allocations++;
}

unsigned long long tiltboard_allocation_count(void) {
    return atomic_load_explicit(&allocations, memory_order_relaxed);
}

unsigned long long tiltboard_thread_allocation_count(void) {
    return thread_allocations;
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_one();
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}
