#include "solvers/dense/dense_status.h"

#include <lapacke.h>

static lucid_status failure_status(lucid_dense_routine routine) {
    switch (routine) {
        case LUCID_DENSE_POTRF:
            return LUCID_ERR_NOT_SPD;
        case LUCID_DENSE_GETRF:
        case LUCID_DENSE_GETRI:
            return LUCID_ERR_SINGULAR;
        case LUCID_DENSE_GELS:
            return LUCID_ERR_RANK_DEFICIENT;
        case LUCID_DENSE_GELSD:
        case LUCID_DENSE_SYEVD:
        case LUCID_DENSE_GESVD:
            return LUCID_ERR_NO_CONVERGENCE;
        case LUCID_DENSE_POTRS:
        case LUCID_DENSE_GETRS:
        case LUCID_DENSE_GECON:
        case LUCID_DENSE_TRCON:
        case LUCID_DENSE_GEQP3:
            break; /* these never report info > 0 */
    }
    return LUCID_ERR_INTERNAL;
}

lucid_status lucid_dense_status_from_info(lucid_dense_routine routine, int info) {
    if (info == 0) return LUCID_OK;
    if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
        return LUCID_ERR_NO_MEMORY;
    if (info < 0) return LUCID_ERR_INTERNAL;
    return failure_status(routine);
}
