/* Status codes returned by every fallible C function in lucid.
 * C core code reports problems with these and never raises Lua errors; the Lua binding
 * layer turns a non-OK status into an error message naming the function. */
#ifndef LUCID_STATUS_H
#define LUCID_STATUS_H

typedef enum lucid_status {
    LUCID_OK = 0,
    LUCID_ERR_ARGUMENT,       /* invalid argument (wrong size, negative length, ...) */
    LUCID_ERR_NONFINITE,      /* an input holds NaN or Inf */
    LUCID_ERR_NO_MEMORY,      /* an allocation failed */
    LUCID_ERR_NOT_SPD,        /* matrix is not symmetric positive definite */
    LUCID_ERR_SINGULAR,       /* matrix is (numerically) singular */
    LUCID_ERR_RANK_DEFICIENT, /* least-squares matrix does not have full rank */
    LUCID_ERR_NO_CONVERGENCE, /* an iterative kernel did not converge */
    LUCID_ERR_DEGENERATE,     /* degenerate geometry (empty, collinear, coplanar, ...) */
    LUCID_ERR_IO,             /* file not found or unreadable */
    LUCID_ERR_PARSE,          /* file contents could not be parsed */
    LUCID_ERR_INTERNAL        /* a library call failed in an unexpected way */
} lucid_status;

/* A short lower-case description, e.g. "matrix is not positive definite". */
const char *lucid_status_string(lucid_status status);

/* Writes the printf-style message into err (err_size bytes, when err is given) and returns
 * status: the one-line failure of functions that report through a caller's buffer. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
lucid_status
lucid_status_fail(char *err, int err_size, lucid_status status, const char *fmt, ...);

#endif
