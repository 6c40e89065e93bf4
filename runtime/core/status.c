#include "runtime/core/status.h"

#include <stdarg.h>
#include <stdio.h>

const char *lucid_status_string(lucid_status status) {
    switch (status) {
        case LUCID_OK:
            return "ok";
        case LUCID_ERR_ARGUMENT:
            return "invalid argument";
        case LUCID_ERR_NONFINITE:
            return "non-finite number (NaN or Inf)";
        case LUCID_ERR_NO_MEMORY:
            return "out of memory";
        case LUCID_ERR_NOT_SPD:
            return "matrix is not symmetric positive definite";
        case LUCID_ERR_SINGULAR:
            return "matrix is singular";
        case LUCID_ERR_RANK_DEFICIENT:
            return "matrix is rank-deficient";
        case LUCID_ERR_NO_CONVERGENCE:
            return "iteration did not converge";
        case LUCID_ERR_DEGENERATE:
            return "degenerate geometry";
        case LUCID_ERR_IO:
            return "file not found or unreadable";
        case LUCID_ERR_PARSE:
            return "file could not be parsed";
        case LUCID_ERR_INTERNAL:
            return "internal library error";
    }
    return "unknown status";
}

lucid_status lucid_status_fail(char *err, int err_size, lucid_status status, const char *fmt, ...) {
    if (err != NULL && err_size > 0) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(err, (size_t)err_size, fmt, args);
        va_end(args);
    }
    return status;
}
