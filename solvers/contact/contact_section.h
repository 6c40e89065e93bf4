/* RaiSim's sliding problem (23) of Le Lidec et al. (Alg. 5, line 13) for one contact of any
 * number of tangential rows (dim 3, 4 or 6: the tangential rows 0, 1, 3 .. dim - 1, the normal
 * at 2): with the contact's block A of G + R and gt its velocity without its own impulse,
 *   minimise f(l) = 1/2 l^T A l + gt^T l  over  K_mu  cut by the plane  (A l + gt)_N = 0.
 * A convex problem (a quadratic over a cone cut by a plane), solved exactly through its
 * Lagrangian dual in one multiplier (contact_section.c). raisim:bisection's map
 * (contact_bisection.c) solves it at every dim. */
#ifndef LUCID_CONTACT_SECTION_H
#define LUCID_CONTACT_SECTION_H

/* Eigenvalues w (n) and orthonormal eigenvectors V (n x n, column-major, one per column) of the
 * symmetric n x n S (n <= 6, column-major; overwritten), by cyclic Jacobi rotations until the
 * off-diagonal sum is below DBL_EPSILON of the diagonal's (the eigenvalues are then within that
 * of S's, Weyl). */
void lucid_contact_small_eigen(int n, double *S, double *w, double *V);

/* lambda (dim entries) minimising f over the section above, for mu > 0, gt_N <= 0 and A
 * symmetric positive semi-definite with A_NN > 0 (dim x dim, column-major). Returns 1, or 0 when
 * f is unbounded below on the section (lambda untouched). */
int lucid_contact_section_minimise(int dim, const double *A, const double *gt, double mu,
                                   double *lambda);

#endif
