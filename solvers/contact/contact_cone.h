/* Friction cones of one contact, in its frame (t1, t2, n): tangents first, normal last.
 *   K_mu   = {x : ||x_T||_2 <= mu x_N}            (Coulomb cone of forces)
 *   K_mu*  = {x : mu ||x_T||_2 <= x_N}            (its dual, K_{1/mu}, velocities)
 *   P_mu   = {x : ||x_T||_inf <= mu x_N}          (4-facet "box" pyramid of the LCP model)
 *   P_mu*  = {x : mu ||x_T||_1 <= x_N}            (its dual)
 * Euclidean projections and distances; mu >= 0 (mu = 0 makes K a ray, K* a half-space). */
#ifndef LUCID_CONTACT_CONE_H
#define LUCID_CONTACT_CONE_H

/* out = projection of x onto K_mu (out may alias x). */
void lucid_cone_project(double mu, const double x[3], double out[3]);
/* out = projection of x onto the dual cone K_mu*. */
void lucid_cone_project_dual(double mu, const double x[3], double out[3]);
/* J (3x3, column-major) = derivative of lucid_cone_project at x (symmetric; any element of
 * the generalised Jacobian on the measure-zero kinks). */
void lucid_cone_project_jacobian(double mu, const double x[3], double J[9]);
/* Projects the tangential part of x onto the disk ||x_T|| <= mu x_N (x_N >= 0 kept as is):
 * the "horizontal" projection of the NCP Gauss-Seidel. */
void lucid_cone_project_horizontal(double mu, double x[3]);

double lucid_cone_distance(double mu, const double x[3]);
double lucid_cone_distance_dual(double mu, const double x[3]);
double lucid_pyramid_distance(double mu, const double x[3]);

/* The cone of a contact with torsional friction (lucid_contact_problem dim 4): x = (t1, t2,
 * n, s), K_mu = {||(x_t1, x_t2, x_s)|| <= mu x_n}, the same isotropic cone over three
 * tangential entries. Projections (out may alias x) and distances as above. */
void lucid_cone4_project(double mu, const double x[4], double out[4]);
double lucid_cone4_distance(double mu, const double x[4]);
double lucid_cone4_distance_dual(double mu, const double x[4]);

/* The same cone over dim - 1 tangential entries (dim 4, or 6 with rolling friction: x = (t1,
 * t2, n, s, r1, r2)); the tangential entries are 0, 1 and 3 .. dim - 1. */
#define LUCID_CONE_MAX_DIM 6
void lucid_cone_n_project(int dim, double mu, const double *x, double *out);
double lucid_cone_n_distance(int dim, double mu, const double *x);
double lucid_cone_n_distance_dual(int dim, double mu, const double *x);
double lucid_cone_n_tangent_norm(int dim, const double *x);
/* Each of n contacts' dim entries of x projected on its cone K_mu_i (out may alias x). */
void lucid_cones_project(int n, int dim, const double *mu, const double *x, double *out);
double lucid_pyramid_distance_dual(double mu, const double x[3]);

/* The box pyramid of the LCP model over the same dim - 1 tangential entries (dim 3, 4 or 6):
 *   P_mu  = {x : |x_k| <= mu x_n for every tangential k}   (2^(dim-1) edges)
 *   P_mu* = {x : mu sum_k |x_k| <= x_n}                     (its dual)
 * the projection onto P_mu (out may alias x) and the distances to P_mu and P_mu*. */
void lucid_pyramid_n_project(int dim, double mu, const double *x, double *out);
double lucid_pyramid_n_distance(int dim, double mu, const double *x);
double lucid_pyramid_n_distance_dual(int dim, double mu, const double *x);

#endif
