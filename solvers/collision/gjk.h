/* GJK as fully-corrective Frank-Wolfe on the Minkowski difference of two shape cores
 * (Montaut et al., "GJK++", Alg. 4), with the Polyak and Nesterov accelerations of Alg. 6,
 * the direction normalisation of Alg. 7 and the Boolean separating-plane exit of Alg. 2.
 *
 * Stopping test: the Frank-Wolfe duality gap g = 2 <x, x - s>, s = argmin_{w in D} <x, w>,
 * bounds ||x||^2 - ||x*||^2 and ||x - x*||^2 (Eq. 17-18), both squared lengths (m^2):
 *   LUCID_GJK_TOL_ABSOLUTE: stop when g <= tol           => ||x - x*|| <= sqrt(tol);
 *   LUCID_GJK_TOL_RELATIVE: stop when g <= tol ||x||^2   => ||x - x*|| <= sqrt(tol) ||x||,
 * i.e. the relative variant compares the same squared quantity against the squared distance
 * estimate, so its guarantee is a relative error of sqrt(tol) on the distance. */
#ifndef LUCID_GJK_H
#define LUCID_GJK_H

#include "runtime/core/option_table.h"
#include "runtime/core/status.h"
#include "solvers/collision/simplex.h"

typedef enum lucid_gjk_algorithm {
    LUCID_GJK_VANILLA,
    LUCID_GJK_POLYAK,
    LUCID_GJK_NESTEROV
} lucid_gjk_algorithm;

typedef enum lucid_gjk_tolerance {
    LUCID_GJK_TOL_ABSOLUTE, /* g <= tol */
    LUCID_GJK_TOL_RELATIVE  /* g <= tol * ||x||^2 */
} lucid_gjk_tolerance;

typedef enum lucid_gjk_warm_start {
    LUCID_WARM_BOX_CENTERS, /* x0 = c1 - c2, centres of the shapes' bounding boxes (default) */
    LUCID_WARM_NONE,        /* x0 = t1 - t2, the frame origins */
    LUCID_WARM_VECTOR,      /* x0 = options.warm_vector (world frame) */
    LUCID_WARM_PREVIOUS     /* x0 = options.previous->separation */
} lucid_gjk_warm_start;

struct lucid_distance_result;

typedef struct lucid_gjk_options {
    lucid_gjk_algorithm algorithm;
    int normalize; /* Alg. 7: normalise momentum and gradient before mixing them */
    double tol;    /* duality-gap tolerance (m^2 when absolute), default 1e-8 */
    lucid_gjk_tolerance tol_mode;
    int max_iter; /* GJK iteration cap, default 128 */
    lucid_gjk_warm_start warm_start;
    lucid_vec3 warm_vector;
    const struct lucid_distance_result *previous;
    double epa_tol;   /* EPA: support gap on the closest face (m), default 1e-9 */
    int epa_max_iter; /* EPA iteration cap, default and maximum LUCID_EPA_MAX_ITER */
} lucid_gjk_options;

void lucid_gjk_options_default(lucid_gjk_options *opt);
/* The options' description (lucid.distance and the other queries' opts): every field but the
 * warm start (warm_start, warm_vector, previous). */
extern const lucid_option lucid_gjk_option_table[];
/* LUCID_OK, or LUCID_ERR_ARGUMENT with *why (if not NULL) the first bad option's rule. */
lucid_status lucid_gjk_options_check(const lucid_gjk_options *opt, const char **why);

typedef enum lucid_gjk_outcome {
    LUCID_GJK_SEPARATED, /* converged (or cap reached) with the origin outside D */
    LUCID_GJK_OVERLAP,   /* the origin is in the simplex: cores touch or overlap */
    LUCID_GJK_PLANE,     /* Boolean mode: a plane separates the inflated shapes */
    LUCID_GJK_WITHIN     /* Boolean mode: ||x|| <= margin proves the inflated shapes overlap */
} lucid_gjk_outcome;

typedef struct lucid_gjk_result {
    lucid_gjk_outcome outcome;
    /* vectors in the Minkowski difference's frame (shape 1's, see minkowski.h) */
    lucid_simplex simplex; /* final active set with weights */
    lucid_vec3 x;          /* final iterate, a point of D (zero on overlap) */
    lucid_vec3 direction;  /* last support direction (the separating plane's normal for PLANE) */
    double gap;            /* last duality gap g = 2 <x, x - s> (+inf if none was evaluated:
                              a Boolean exit at the very first support) */
    double plane_bound;    /* PLANE: lower bound on the core distance certified by the plane */
    int iterations;
    int converged;
} lucid_gjk_result;

/* Runs GJK on the cores; x0 is in shape 1's frame. margin < 0 selects distance mode; margin >= 0
 * selects Boolean mode, which stops as soon as a plane separates D from the ball of radius margin
 * around the origin (the inflated shapes are disjoint) or as soon as ||x|| <= margin. */
void lucid_gjk_solve(lucid_minkowski *m, const lucid_gjk_options *opt, lucid_vec3 x0, double margin,
                     lucid_gjk_result *res);

#endif
