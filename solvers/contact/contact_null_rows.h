/* Rows of a contact problem that no force can move: the rule shared by the world's islands and
 * lucid_contact_solve.
 *
 * A row k of G = J M^-1 J^T is null when J_k M^-1 J_k^T is zero: the contact direction is
 * orthogonal to every motion the joints allow (the hinge axis of a planar arm on its floor,
 * the normal of a turntable resting on the ground, a link with no dofs). G being PSD, its
 * row and column are then zero: the row's force changes no velocity and its velocity is g_k
 * whatever the forces. The solvers divide by the diagonal of G + R; a null row gets R_k = the
 * largest diagonal instead (any positive value gives the same answer; this one keeps the
 * spectrum of G + R within G's own), which selects its least force, zero where g_k is. A
 * contact whose normal row is null can be pressed by nothing, so it carries no friction:
 * mu = 0. */
#ifndef LUCID_CONTACT_NULL_ROWS_H
#define LUCID_CONTACT_NULL_ROWS_H

#include <float.h>

/* A row is null when its diagonal (of G + R) is at most LUCID_CONTACT_NULL_ROW times the
 * largest diagonal of G: the round-off of a zero row's sums (k eps for k accumulated terms,
 * 1024 bounding the dofs a contact row spans), far below a real row at the most extreme mass
 * ratio lucid is tested at (1e9). */
#define LUCID_CONTACT_NULL_ROW (1024.0 * DBL_EPSILON)

/* Gives the null rows of an n-contact problem of dim rows per contact (3, 4 or 6; the normal
 * is row 2 of each) R_k = the largest diagonal of G and the contacts whose normal row is null
 * mu = 0. diag(ctx, k) is G's entry (k, k); R holds the dim n compliances (zeros where rigid)
 * and mu the n friction coefficients, both overwritten. Returns the number of null rows.
 * _dense_: on a dense column-major G of dim n x dim n. */
int lucid_contact_null_rows_dim(int n, int dim, double (*diag)(const void *, int), const void *ctx,
                                double *R, double *mu);
int lucid_contact_dense_null_rows_dim(int n, int dim, const double *G, double *R, double *mu);

#endif
