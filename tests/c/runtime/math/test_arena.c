/* The scratch arena (runtime/math/arena.h): zeroed, aligned, disjoint allocations; a round
 * that outgrows the block is served all the same and the next reset makes the block large
 * enough, so that the same round again allocates nothing past it; overflowing sizes fail;
 * allocations without the zeroing share the block with the zeroed ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/math/arena.h"

/* One round: n buffers of sizes 8 k + 1 bytes (k = 1..n), each checked zeroed and aligned,
 * then filled with its index, and all checked intact at the end (no overlap). */
static void round_of(lucid_arena *a, int n) {
    unsigned char *p[64];
    for (int k = 0; k < n; ++k) {
        size_t bytes = 8 * (size_t)(k + 1) + 1;
        p[k] = lucid_arena_alloc(a, bytes, 1);
        assert_non_null(p[k]);
        assert_int_equal((uintptr_t)p[k] % 64, 0);
        for (size_t i = 0; i < bytes; ++i) assert_int_equal(p[k][i], 0);
        memset(p[k], k + 1, bytes);
    }
    for (int k = 0; k < n; ++k)
        for (size_t i = 0; i < 8 * (size_t)(k + 1) + 1; ++i) assert_int_equal(p[k][i], k + 1);
}

static void a_round_that_outgrows_the_block_fits_after_a_reset(void **state) {
    (void)state;
    lucid_arena a = {0};
    round_of(&a, 40); /* no block yet: every buffer is separate */
    assert_null(a.block);
    assert_int_equal(a.num_extra, 40);
    lucid_arena_reset(&a);
    assert_int_equal(a.num_extra, 0);
    size_t cap = a.cap;
    assert_true(cap >= 40 * 64);
    for (int again = 0; again < 3; ++again) { /* the steady state: all from the block */
        round_of(&a, 40);
        assert_int_equal(a.num_extra, 0);
        lucid_arena_reset(&a);
        assert_int_equal(a.cap, cap);
    }
    round_of(&a, 60); /* a larger round: served, then the block grows */
    assert_true(a.num_extra > 0);
    lucid_arena_reset(&a);
    assert_true(a.cap > cap);
    round_of(&a, 60);
    assert_int_equal(a.num_extra, 0);
    lucid_arena_free(&a);
    assert_null(a.block);
    assert_int_equal(a.cap, 0);
}

static void overflowing_sizes_fail(void **state) {
    (void)state;
    lucid_arena a = {0};
    assert_null(lucid_arena_alloc(&a, SIZE_MAX / 2, 4));
    assert_null(lucid_arena_alloc(&a, SIZE_MAX, 1));
    assert_non_null(lucid_arena_alloc(&a, 0, 8)); /* an empty request is a valid pointer */
    lucid_arena_free(&a);
}

/* Zeroed and unzeroed buffers alternating: aligned, disjoint, from the block in the steady
 * state; a zeroed one is zero where the last round wrote. */
static void unzeroed_buffers_share_the_block(void **state) {
    (void)state;
    lucid_arena a = {0};
    for (int again = 0; again < 3; ++again) {
        unsigned char *p[16];
        for (int k = 0; k < 16; ++k) {
            size_t bytes = 24 * (size_t)(k + 1);
            p[k] = k % 2 ? lucid_arena_alloc_uninit(&a, bytes, 1) : lucid_arena_alloc(&a, bytes, 1);
            assert_non_null(p[k]);
            assert_int_equal((uintptr_t)p[k] % 64, 0);
            for (size_t i = 0; k % 2 == 0 && i < bytes; ++i) assert_int_equal(p[k][i], 0);
            memset(p[k], k + 1, bytes);
        }
        for (int k = 0; k < 16; ++k)
            for (size_t i = 0; i < 24 * (size_t)(k + 1); ++i) assert_int_equal(p[k][i], k + 1);
        if (again > 0) assert_int_equal(a.num_extra, 0);
        lucid_arena_reset(&a);
    }
    assert_null(lucid_arena_alloc_uninit(&a, SIZE_MAX / 2, 4));
    lucid_arena_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_round_that_outgrows_the_block_fits_after_a_reset),
        cmocka_unit_test(overflowing_sizes_fail),
        cmocka_unit_test(unzeroed_buffers_share_the_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
