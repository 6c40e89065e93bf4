#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/core/status.h"

static void every_status_has_a_distinct_description(void **state) {
    (void)state;
    for (int a = LUCID_OK; a <= LUCID_ERR_INTERNAL; ++a) {
        assert_string_not_equal(lucid_status_string((lucid_status)a), "unknown status");
        for (int b = a + 1; b <= LUCID_ERR_INTERNAL; ++b)
            assert_string_not_equal(lucid_status_string((lucid_status)a),
                                    lucid_status_string((lucid_status)b));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_status_has_a_distinct_description)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
