/* Exact support Hessians of the smooth, curved primitives. For a support S(u) = grad
 * sigma(u), the Hessian at a unit u is symmetric, annihilates u and encodes the curvature
 * radii of the surface at S(u). */
#include <math.h>

#include "autodiff/collision_derivatives_hessians.h"

/* Below this the support is treated as jumping between two points (a flat side): a
 * direction within ~1e-6 rad of perpendicular to a capsule or cylinder axis. */
#define SMOOTHNESS_TOL 1e-6

static lucid_mat3 tangent_projector(lucid_vec3 l) {
    lucid_mat3 P = lucid_mat3_identity();
    lucid_mat3 ll = lucid_mat3_outer(l, l);
    return lucid_mat3_sub(&P, &ll);
}

/* sigma(u) = |A u| with A = diag(a): Hessian A^2 / |A u| - A^2 u u^T A^2 / |A u|^3. */
static lucid_mat3 ellipsoid_hessian(lucid_vec3 a, lucid_vec3 l) {
    lucid_vec3 a2 = lucid_vec3_mul(a, a);
    lucid_vec3 w = lucid_vec3_mul(a2, l); /* A^2 l */
    double norm = sqrt(lucid_vec3_dot(w, l));
    lucid_mat3 D = lucid_mat3_diag(lucid_vec3_scale(a2, 1.0 / norm));
    lucid_mat3 ww = lucid_mat3_outer(w, w);
    ww = lucid_mat3_scale(&ww, 1.0 / (norm * norm * norm));
    return lucid_mat3_sub(&D, &ww);
}

/* sigma(u) = R |u_xy| + h |u_z|: only the rim term curves, R (I2 - r r^T) / |u_xy|. */
static lucid_status cylinder_hessian(double radius, lucid_vec3 l, lucid_mat3 *K) {
    double radial = hypot(l.x, l.y);
    if (radial < SMOOTHNESS_TOL || fabs(l.z) < SMOOTHNESS_TOL) return LUCID_ERR_DEGENERATE;
    lucid_vec3 r = lucid_vec3_make(l.x / radial, l.y / radial, 0.0);
    lucid_mat3 P = lucid_mat3_diag(lucid_vec3_make(1.0, 1.0, 0.0));
    lucid_mat3 rr = lucid_mat3_outer(r, r);
    P = lucid_mat3_sub(&P, &rr);
    *K = lucid_mat3_scale(&P, radius / radial);
    return LUCID_OK;
}

lucid_status lucid_support_hessian_analytic(const lucid_shape *s, lucid_vec3 l, lucid_mat3 *K) {
    lucid_mat3 core = lucid_mat3_zero();
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            break;
        case LUCID_SHAPE_ELLIPSOID:
            core = ellipsoid_hessian(s->u.radii, l);
            break;
        case LUCID_SHAPE_CAPSULE:
            /* The core segment's support jumps between its ends at l_z = 0 (the flat side). */
            if (fabs(l.z) < SMOOTHNESS_TOL) return LUCID_ERR_DEGENERATE;
            break;
        case LUCID_SHAPE_CYLINDER: {
            lucid_status st = cylinder_hessian(s->u.round.radius, l, &core);
            if (st != LUCID_OK) return st;
            break;
        }
        default:
            return LUCID_ERR_ARGUMENT;
    }
    lucid_mat3 swept = tangent_projector(l);
    swept = lucid_mat3_scale(&swept, s->radius);
    *K = lucid_mat3_add(&core, &swept);
    return LUCID_OK;
}
