/* Cone rows of each shape in the P-SDF program (pscaling_rows.h). In local coordinates y (in
 * program units) about the centre, with the shape scaled by alpha:
 *   sphere r:      (alpha r, y) in Q^4
 *   ellipsoid a:   (alpha, y / a) in Q^4
 *   box e:         alpha e_k -+ y_k >= 0 (6 rays)
 *   capsule r, h:  (alpha r, y - eps e_z) in Q^4, alpha h -+ eps >= 0 (eps: core parameter)
 *   cylinder r, h: (alpha r, y_x, y_y) in Q^3, alpha h -+ y_z >= 0
 *   cone r, h:     (k (alpha h - y_z), y_x, y_y) in Q^3 with k = r / 2h, alpha h + y_z >= 0
 *   convex mesh:   alpha (d_f - n_f.c) - n_f.(y - c) >= 0 per face (scaled about c)
 *   halfspace:     offset - n.y >= 0 (not scaled) */
#include "solvers/collision/pscaling_rows.h"

#include <stddef.h>

#include "runtime/shapes/convex_mesh.h"

/* Rows go to B (row i's B_i) and a0, aa, ae; block starts to block_start (caps: max_rows,
 * max_blocks); prog, when not NULL, is the program being built. */
typedef struct row_builder {
    lucid_pscaling_program *prog;
    double (*B)[3];
    int *block_start;
    int max_rows, max_blocks;
    double a0[LUCID_CONE_MAX_ROWS], aa[LUCID_CONE_MAX_ROWS], ae[LUCID_CONE_MAX_ROWS];
    int m, blocks, overflow;
} row_builder;

static void begin_block(row_builder *b) {
    if (b->blocks >= b->max_blocks) b->overflow = 1;
    if (b->overflow) return;
    b->block_start[b->blocks++] = b->m;
}

static void row(row_builder *b, double bx, double by, double bz, double aa, double ae, double a0) {
    if (b->m >= b->max_rows) b->overflow = 1;
    if (b->overflow) return;
    int i = b->m++;
    b->B[i][0] = bx;
    b->B[i][1] = by;
    b->B[i][2] = bz;
    b->aa[i] = aa;
    b->ae[i] = ae;
    b->a0[i] = a0;
}

/* A mesh's vertex mean (lucid_pscaling_centre of a convex shape). */
static lucid_vec3 centre_mesh(const lucid_convex_mesh *mesh);

static void mesh_rows(row_builder *b, const lucid_convex_mesh *mesh, double L) {
    lucid_vec3 c = lucid_vec3_scale(centre_mesh(mesh), 1.0 / L);
    for (int f = 0; f < mesh->num_faces; ++f) {
        lucid_vec3 n = mesh->face_normals[f];
        begin_block(b);
        row(b, -n.x, -n.y, -n.z, mesh->face_offsets_d[f] / L - lucid_vec3_dot(n, c), 0.0, 0.0);
    }
}

/* The rows of one shape (lengths divided by L). */
static void shape_rows(row_builder *b, const lucid_shape *s, double L) {
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            begin_block(b);
            row(b, 0, 0, 0, s->radius / L, 0, 0);
            row(b, 1, 0, 0, 0, 0, 0);
            row(b, 0, 1, 0, 0, 0, 0);
            row(b, 0, 0, 1, 0, 0, 0);
            break;
        case LUCID_SHAPE_ELLIPSOID:
            begin_block(b);
            row(b, 0, 0, 0, 1, 0, 0);
            row(b, L / s->u.radii.x, 0, 0, 0, 0, 0);
            row(b, 0, L / s->u.radii.y, 0, 0, 0, 0);
            row(b, 0, 0, L / s->u.radii.z, 0, 0, 0);
            break;
        case LUCID_SHAPE_BOX: {
            double e[3] = {s->u.half_extents.x / L, s->u.half_extents.y / L,
                           s->u.half_extents.z / L};
            for (int k = 0; k < 3; ++k)
                for (int sign = -1; sign <= 1; sign += 2) {
                    begin_block(b);
                    row(b, sign * (k == 0), sign * (k == 1), sign * (k == 2), e[k], 0, 0);
                }
            break;
        }
        case LUCID_SHAPE_CAPSULE: {
            double r = s->radius / L, h = s->u.half_length / L;
            begin_block(b);
            row(b, 0, 0, 0, r, 0, 0);
            row(b, 1, 0, 0, 0, 0, 0);
            row(b, 0, 1, 0, 0, 0, 0);
            row(b, 0, 0, 1, 0, -1, 0);
            begin_block(b);
            row(b, 0, 0, 0, h, -1, 0);
            begin_block(b);
            row(b, 0, 0, 0, h, 1, 0);
            break;
        }
        case LUCID_SHAPE_CYLINDER:
        case LUCID_SHAPE_CONE: {
            double r = s->u.round.radius / L, h = s->u.round.half_length / L;
            int cone = s->kind == LUCID_SHAPE_CONE;
            double k = r / (2.0 * h);
            begin_block(b);
            if (cone)
                row(b, 0, 0, -k, k * h, 0, 0);
            else
                row(b, 0, 0, 0, r, 0, 0);
            row(b, 1, 0, 0, 0, 0, 0);
            row(b, 0, 1, 0, 0, 0, 0);
            if (!cone) {
                begin_block(b);
                row(b, 0, 0, -1, h, 0, 0);
            }
            begin_block(b);
            row(b, 0, 0, 1, h, 0, 0);
            break;
        }
        case LUCID_SHAPE_CONVEX:
            mesh_rows(b, s->u.mesh, L);
            break;
        case LUCID_SHAPE_HALFSPACE: {
            lucid_vec3 n = s->u.halfspace.normal;
            begin_block(b);
            row(b, -n.x, -n.y, -n.z, 0, 0, s->u.halfspace.offset / L);
            break;
        }
        case LUCID_SHAPE_HEIGHTFIELD: /* refused by lucid_pscaling */
            break;
    }
}

static lucid_vec3 centre_mesh(const lucid_convex_mesh *mesh) {
    lucid_vec3 c = lucid_vec3_zero();
    for (int i = 0; i < mesh->num_vertices; ++i) c = lucid_vec3_add(c, mesh->vertices[i]);
    return lucid_vec3_scale(c, 1.0 / mesh->num_vertices);
}

lucid_vec3 lucid_pscaling_centre(const lucid_shape *s) {
    return s->kind == LUCID_SHAPE_CONVEX ? centre_mesh(s->u.mesh) : lucid_vec3_zero();
}

double lucid_pscaling_radius(const lucid_shape *s) {
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            return s->radius;
        case LUCID_SHAPE_ELLIPSOID:
            return lucid_vec3_max_abs(s->u.radii);
        case LUCID_SHAPE_BOX:
            return lucid_vec3_norm(s->u.half_extents);
        case LUCID_SHAPE_CAPSULE:
            return s->radius + s->u.half_length;
        case LUCID_SHAPE_CYLINDER:
        case LUCID_SHAPE_CONE:
            return hypot(s->u.round.radius, s->u.round.half_length);
        case LUCID_SHAPE_CONVEX: {
            lucid_vec3 c = centre_mesh(s->u.mesh);
            double r = 0.0;
            for (int i = 0; i < s->u.mesh->num_vertices; ++i)
                r = fmax(r, lucid_vec3_dist(s->u.mesh->vertices[i], c));
            return r;
        }
        case LUCID_SHAPE_HALFSPACE:
        case LUCID_SHAPE_HEIGHTFIELD:
            return 0.0;
    }
    return 0.0;
}

/* G and h of shape k's rows [first, end): G_i = (-R B_i, -aa_i, -ae_i), h_i = a0_i - B_i.(R^T t +
 * c). */
static void fill_program_rows(row_builder *b, int k, int first, int end) {
    lucid_pscaling_program *g = b->prog;
    int n = g->P.n;
    lucid_vec3 y0 = lucid_vec3_add(lucid_mat3_tmul_vec(&g->R[k], g->t[k]), g->centre[k]);
    for (int i = first; i < end; ++i) {
        lucid_vec3 Bi = lucid_vec3_load(g->B[i]);
        lucid_vec3 row_p = lucid_mat3_mul_vec(&g->R[k], Bi);
        double *G = g->P.G + (size_t)i * (size_t)n;
        for (int j = 0; j < n; ++j) G[j] = 0.0;
        G[0] = -row_p.x;
        G[1] = -row_p.y;
        G[2] = -row_p.z;
        G[3] = -b->aa[i] * g->alpha_unit; /* the variable is alpha / alpha_unit */
        if (g->eps[k] >= 0) G[g->eps[k]] = -b->ae[i];
        g->P.h[i] = b->a0[i] - lucid_vec3_dot(Bi, y0);
    }
}

/* How far apart the shapes are: the distance between the centres, or from the centre to
 * the halfspace's plane. */
static double separation(const lucid_shape *const *s, const lucid_se3 *const *T,
                         const lucid_vec3 *cw) {
    for (int k = 0; k < 2; ++k)
        if (s[k]->kind == LUCID_SHAPE_HALFSPACE) {
            lucid_vec3 local = lucid_se3_act_inv(T[k], cw[1 - k]);
            return fabs(lucid_vec3_dot(s[k]->u.halfspace.normal, local) - s[k]->u.halfspace.offset);
        }
    return lucid_vec3_dist(cw[0], cw[1]);
}

/* Divides every cone block (G rows, h, B) by its largest |G| entry: a positive factor keeps
 * the cone, multiplies the block's duals by it and leaves z_r B_r (the normal) unchanged. */
static void equilibrate(lucid_pscaling_program *g) {
    int n = g->P.n;
    for (int b = 0; b < g->P.num_blocks; ++b) {
        int lo = g->P.block_start[b], hi = g->P.block_start[b + 1];
        double big = 0.0;
        for (int i = lo; i < hi; ++i)
            for (int j = 0; j < n; ++j) big = fmax(big, fabs(g->P.G[i * n + j]));
        if (!(big > 0.0)) continue;
        for (int i = lo; i < hi; ++i) {
            for (int j = 0; j < n; ++j) g->P.G[i * n + j] /= big;
            g->P.h[i] /= big;
            for (int j = 0; j < 3; ++j) g->B[i][j] /= big;
        }
    }
}

lucid_status lucid_pscaling_build(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                  const lucid_se3 *T2, lucid_pscaling_program *prog) {
    const lucid_shape *s[2] = {s1, s2};
    const lucid_se3 *T[2] = {T1, T2};
    double radius = fmax(lucid_pscaling_radius(s1), lucid_pscaling_radius(s2));
    lucid_vec3 cw[2];
    int bounded = 0;
    lucid_vec3 sum = lucid_vec3_zero();
    for (int k = 0; k < 2; ++k) {
        cw[k] = lucid_se3_act(T[k], lucid_pscaling_centre(s[k]));
        if (s[k]->kind != LUCID_SHAPE_HALFSPACE) {
            sum = lucid_vec3_add(sum, cw[k]);
            ++bounded;
        }
    }
    prog->origin = lucid_vec3_scale(sum, 1.0 / bounded);
    double L = fmax(radius, separation(s, T, cw));
    prog->scale = L;
    prog->alpha_unit = L / radius;
    int n = 4;
    for (int k = 0; k < 2; ++k) {
        prog->eps[k] = s[k]->kind == LUCID_SHAPE_CAPSULE ? n++ : -1;
        prog->R[k] = T[k]->R;
        prog->t[k] = lucid_vec3_scale(lucid_vec3_sub(T[k]->t, prog->origin), 1.0 / L);
        prog->centre[k] = lucid_vec3_scale(lucid_pscaling_centre(s[k]), 1.0 / L);
    }
    row_builder b;
    b.prog = prog;
    b.B = prog->B;
    b.block_start = prog->P.block_start;
    b.max_rows = LUCID_CONE_MAX_ROWS;
    b.max_blocks = LUCID_CONE_MAX_BLOCKS;
    b.m = b.blocks = b.overflow = 0;
    for (int k = 0; k < 2; ++k) {
        prog->first[k] = b.m;
        shape_rows(&b, s[k], L);
        prog->count[k] = b.m - prog->first[k];
    }
    if (b.overflow) return LUCID_ERR_ARGUMENT;
    prog->P.n = n;
    prog->P.m = b.m;
    prog->P.num_blocks = b.blocks;
    prog->P.block_start[b.blocks] = b.m;
    for (int j = 0; j < n; ++j) prog->P.c[j] = j == 3 ? 1.0 : 0.0;
    for (int k = 0; k < 2; ++k)
        fill_program_rows(&b, k, prog->first[k], prog->first[k] + prog->count[k]);
    equilibrate(prog);
    return LUCID_OK;
}

int lucid_pscaling_shape_rows(const lucid_shape *s, lucid_pscaling_row *rows, int max_rows,
                              int *block_start, int max_blocks, int *num_blocks) {
    row_builder b;
    double B[LUCID_CONE_MAX_ROWS][3];
    b.prog = NULL;
    b.B = B;
    b.block_start = block_start;
    b.max_rows = max_rows < LUCID_CONE_MAX_ROWS ? max_rows : LUCID_CONE_MAX_ROWS;
    b.max_blocks = max_blocks;
    b.m = b.blocks = b.overflow = 0;
    shape_rows(&b, s, 1.0);
    if (b.overflow) return -1;
    for (int i = 0; i < b.m; ++i) {
        rows[i].B = lucid_vec3_load(B[i]);
        rows[i].a0 = b.a0[i], rows[i].aa = b.aa[i], rows[i].ae = b.ae[i];
    }
    block_start[b.blocks] = b.m;
    *num_blocks = b.blocks;
    return b.m;
}
