#include "solvers/dense/dense_input.h"

#include <math.h>

lucid_status lucid_dense_check_matrix(int rows, int cols, const double *a, int ld) {
    if (!a || rows < 1 || cols < 1 || ld < rows) return LUCID_ERR_ARGUMENT;
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i)
            if (!isfinite(a[i + (long)ld * j])) return LUCID_ERR_NONFINITE;
    return LUCID_OK;
}

double lucid_dense_norm1(int rows, int cols, const double *a, int ld) {
    double best = 0.0;
    for (int j = 0; j < cols; ++j) {
        double sum = 0.0;
        for (int i = 0; i < rows; ++i) sum += fabs(a[i + (long)ld * j]);
        if (sum > best) best = sum;
    }
    return best;
}
