/* A free joint's velocity in MuJoCo's step (configuration.h): its body-frame linear velocity l
 * is the parent-frame velocity u = R l read in the body's axes, so a step that keeps u
 * constant under the rotation adds dt (w x l) to the explicit step of l (what d(R^T u)/dt =
 * -w x l took out) and reads l in the new frame after the integration, l+ <- exp(dt w+)^T l+.
 * Allocates nothing. */
#include "runtime/math/so3.h"
#include "runtime/model/configuration.h"
#include "runtime/model/model_internal.h"

/* The 3x3 block B (scaled) at rows r, columns c of a column-major matrix, added. */
static void add_block(double *J, size_t ld, size_t r, size_t c, const lucid_mat3 *B, double s) {
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 3; ++j) J[(r + i) + ld * (c + j)] += s * B->m[i + 3 * j];
}

/* out_l += dt w x l on every free joint. */
void lucid_model_free_turn_rate(const lucid_model *m, const double *v, double dt, double *out) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        if (nd->kind != LUCID_JOINT_FREE) continue;
        const double *x = v + nd->idx_v;
        lucid_vec3 c = lucid_vec3_cross(lucid_vec3_load(x + 3), lucid_vec3_load(x));
        lucid_vec3_store(lucid_vec3_axpy(lucid_vec3_load(out + nd->idx_v), dt, c), out + nd->idx_v);
    }
}

/* l <- exp(-dt w) l on every free joint. */
void lucid_model_free_transport(const lucid_model *m, double dt, double *v) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        if (nd->kind != LUCID_JOINT_FREE) continue;
        double *x = v + nd->idx_v;
        lucid_mat3 E = lucid_so3_exp(lucid_vec3_scale(lucid_vec3_load(x + 3), dt));
        lucid_vec3_store(lucid_mat3_tmul_vec(&E, lucid_vec3_load(x)), x);
    }
}

/* d(dt w x l) = dt hat(w) dl - dt hat(l) dw. */
void lucid_model_free_turn_rate_jacobian(const lucid_model *m, const double *v, double dt,
                                         double *D, size_t ld) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        if (nd->kind != LUCID_JOINT_FREE) continue;
        size_t k = nd->idx_v;
        lucid_mat3 W = lucid_mat3_hat(lucid_vec3_load(v + k + 3));
        lucid_mat3 L = lucid_mat3_hat(lucid_vec3_load(v + k));
        add_block(D, ld, k, k, &W, dt);
        add_block(D, ld, k, k + 3, &L, -dt);
    }
}

/* d(E^T l) = E^T dl + dt hat(E^T l) Jr(dt w) dw, E = exp(dt w) (from
 * exp(-(p + d)) = exp(-Jr(p) d) exp(-p)); T - I added. */
void lucid_model_free_transport_jacobian(const lucid_model *m, const double *v, double dt,
                                         double *T, size_t ld) {
    for (size_t i = 0; i < m->nnodes; ++i) {
        const lucid_model_node *nd = &m->nodes[i];
        if (nd->kind != LUCID_JOINT_FREE) continue;
        size_t k = nd->idx_v;
        lucid_vec3 p = lucid_vec3_scale(lucid_vec3_load(v + k + 3), dt);
        lucid_mat3 E = lucid_so3_exp(p), Et = lucid_mat3_transpose(&E), I = lucid_mat3_identity();
        lucid_mat3 Jr = lucid_so3_jr(p), Et_I = lucid_mat3_sub(&Et, &I);
        lucid_mat3 H = lucid_mat3_hat(lucid_mat3_mul_vec(&Et, lucid_vec3_load(v + k)));
        lucid_mat3 HJ = lucid_mat3_mul(&H, &Jr);
        add_block(T, ld, k, k, &Et_I, 1.0);
        add_block(T, ld, k, k + 3, &HJ, dt);
    }
}
