#ifndef TILTBOARD_ALLOCATION_COUNTER_H
#define TILTBOARD_ALLOCATION_COUNTER_H
/// Heap allocations made by this process so far (malloc, calloc, realloc, aligned and
/// posix_memalign), counted by interposing glibc's allocator in the executable that links this.
unsigned long long tiltboard_allocation_count(void);
/// The same, counting only the calling thread's allocations.
unsigned long long tiltboard_thread_allocation_count(void);
#endif
