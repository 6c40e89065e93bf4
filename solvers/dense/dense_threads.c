#include "solvers/dense/dense_threads.h"

#include <cblas.h> /* OpenBLAS's cblas.h also declares openblas_{set,get}_num_threads */

lucid_status lucid_dense_set_threads(int n) {
    if (n < 1 || n > LUCID_DENSE_MAX_THREADS) return LUCID_ERR_ARGUMENT;
    openblas_set_num_threads(n);
    return LUCID_OK;
}

int lucid_dense_get_threads(void) {
    return openblas_get_num_threads();
}
