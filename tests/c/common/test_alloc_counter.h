/* Counting the allocations a piece of code makes: the test links with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (tests/CMakeLists.txt), and these wrappers add
 * 1 to `allocations` for each call made while `counting` is set. Include in one test file. */
#ifndef LUCID_TEST_ALLOC_COUNTER_H
#define LUCID_TEST_ALLOC_COUNTER_H

#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

/* Test-only instrumentation state: the allocator wrappers have no other way to report. */
static int counting;
static long allocations;

void *__wrap_malloc(size_t n) {
    allocations += counting;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m) {
    allocations += counting;
    return __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n) {
    allocations += counting;
    return __real_realloc(p, n);
}

#endif
