/* Thread count of the BLAS/LAPACK back end (OpenBLAS). lucid's dense problems are small,
 * where threading only adds overhead, so the Lua host pins it to 1 when it opens. */
#ifndef LUCID_DENSE_THREADS_H
#define LUCID_DENSE_THREADS_H

#include "runtime/core/status.h"

/* Sets the number of OpenBLAS threads; n must be in [1, LUCID_DENSE_MAX_THREADS]. */
lucid_status lucid_dense_set_threads(int n);
/* The number of threads OpenBLAS currently uses. */
int lucid_dense_get_threads(void);

#define LUCID_DENSE_MAX_THREADS 1024

#endif
