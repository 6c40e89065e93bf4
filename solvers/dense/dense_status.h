/* Translation of LAPACK's `info` results into lucid_status codes. */
#ifndef LUCID_DENSE_STATUS_H
#define LUCID_DENSE_STATUS_H

#include "runtime/core/status.h"

/* The LAPACK routines lucid calls; the meaning of info > 0 depends on the routine. */
typedef enum lucid_dense_routine {
    LUCID_DENSE_POTRF, /* Cholesky factor: info > 0 means not positive definite */
    LUCID_DENSE_POTRS, /* Cholesky solve */
    LUCID_DENSE_GETRF, /* LU factor (also dgesv): info > 0 means an exactly zero pivot */
    LUCID_DENSE_GETRS, /* LU solve */
    LUCID_DENSE_GETRI, /* inverse from LU: info > 0 means singular */
    LUCID_DENSE_GECON, /* condition estimate of a general matrix */
    LUCID_DENSE_TRCON, /* condition estimate of a triangular matrix */
    LUCID_DENSE_GELS,  /* QR least squares: info > 0 means rank-deficient */
    LUCID_DENSE_GELSD, /* SVD least squares: info > 0 means no convergence */
    LUCID_DENSE_SYEVD, /* symmetric eigen: info > 0 means no convergence */
    LUCID_DENSE_GESVD, /* SVD: info > 0 means no convergence */
    LUCID_DENSE_GEQP3  /* pivoted QR */
} lucid_dense_routine;

/* info == 0 -> LUCID_OK; LAPACKE's memory errors -> LUCID_ERR_NO_MEMORY; any other
 * info < 0 (an invalid argument, which our own checks should have prevented) ->
 * LUCID_ERR_INTERNAL; info > 0 -> the routine's failure (see lucid_dense_routine), or
 * LUCID_ERR_INTERNAL for routines that never report one. */
lucid_status lucid_dense_status_from_info(lucid_dense_routine routine, int info);

#endif
