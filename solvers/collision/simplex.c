/* Origin projection onto a GJK simplex by the Voronoi regions of its newest vertex. */
#include "solvers/collision/simplex.h"

/* Affine projection of the origin onto the hull of pts[0..m-1] (pts[0] is the newest vertex).
 * Fills the barycentric weights and the point; returns 1 when every weight is positive, i.e.
 * the projection lies in the relative interior of that face. Degenerate faces return 0. */
static int face_projection(const lucid_vec3 *const *pts, int m, double *lam, lucid_vec3 *p) {
    const lucid_vec3 n = *pts[0];
    if (m == 1) {
        lam[0] = 1.0;
        *p = n;
        return 1;
    }
    if (m == 2) {
        lucid_vec3 e = lucid_vec3_sub(*pts[1], n);
        double ee = lucid_vec3_norm2(e);
        if (!(ee > 0.0)) return 0;
        double t = -lucid_vec3_dot(n, e) / ee;
        lam[0] = 1.0 - t;
        lam[1] = t;
        *p = lucid_vec3_axpy(n, t, e);
        return t > 0.0 && t < 1.0;
    }
    lucid_vec3 e1 = lucid_vec3_sub(*pts[1], n), e2 = lucid_vec3_sub(*pts[2], n);
    lucid_vec3 nrm = lucid_vec3_cross(e1, e2);
    if (m == 3) {
        double nn = lucid_vec3_norm2(nrm);
        if (!(nn > 0.0)) return 0;
        *p = lucid_vec3_scale(nrm, lucid_vec3_dot(n, nrm) / nn);
        lucid_vec3 pn = lucid_vec3_sub(*p, n);
        double inv = 1.0 / nn;
        lam[1] = lucid_vec3_dot(nrm, lucid_vec3_cross(pn, e2)) * inv;
        lam[2] = lucid_vec3_dot(nrm, lucid_vec3_cross(e1, pn)) * inv;
        lam[0] = lucid_vec3_dot(nrm, lucid_vec3_cross(lucid_vec3_sub(*pts[1], *p),
                                                      lucid_vec3_sub(*pts[2], *p))) *
                 inv;
        return lam[0] > 0.0 && lam[1] > 0.0 && lam[2] > 0.0;
    }
    lucid_vec3 e3 = lucid_vec3_sub(*pts[3], n), mn = lucid_vec3_neg(n);
    double vol = lucid_vec3_dot(nrm, e3);
    if (vol == 0.0 || !isfinite(vol)) return 0;
    lam[1] = lucid_vec3_dot(lucid_vec3_cross(mn, e2), e3) / vol;
    lam[2] = lucid_vec3_dot(lucid_vec3_cross(e1, mn), e3) / vol;
    lam[3] = lucid_vec3_dot(nrm, mn) / vol;
    lam[0] = 1.0 - lam[1] - lam[2] - lam[3];
    *p = lucid_vec3_zero();
    return lam[0] > 0.0 && lam[1] > 0.0 && lam[2] > 0.0 && lam[3] > 0.0;
}

/* Candidate faces containing the newest vertex (bit rank-1), largest first: the whole simplex
 * is the most frequent answer near convergence and needs no test against other vertices.
 * The optimal face is unique (up to exact ties), so the order does not change the result. */
static int candidate_masks(int rank, int *masks) {
    static const int r2[] = {3, 2};
    static const int r3[] = {7, 5, 6, 4};
    static const int r4[] = {15, 11, 13, 14, 9, 10, 12, 8};
    static const int r1[] = {1};
    const int *src = rank == 1 ? r1 : rank == 2 ? r2 : rank == 3 ? r3 : r4;
    int count = 1 << (rank - 1);
    for (int i = 0; i < count; ++i) masks[i] = src[i];
    return count;
}

/* Rank 4: the origin is on the new vertex's side of the old face (GJK's progress condition),
 * so only the three faces through the new vertex d can hold the projection, and only those
 * with the origin strictly outside them (or degenerate). Their edges and d follow; if the
 * origin is inside all three, only the interior remains. The exact region tests still decide;
 * this just skips candidates that cannot pass. */
static int tetra_masks(const lucid_simplex *s, int *masks) {
    static const int face[3] = {11, 13, 14}, opposite[3] = {2, 1, 0};
    static const int edge[3] = {9, 10, 12}, edge_faces[3] = {1 | 2, 1 | 4, 2 | 4};
    lucid_vec3 d = s->v[3].w;
    int outside = 0, count = 0;
    for (int f = 0; f < 3; ++f) {
        int i = -1, j = -1;
        for (int k = 0; k < 3; ++k)
            if ((face[f] & (1 << k)) && i < 0)
                i = k;
            else if (face[f] & (1 << k))
                j = k;
        lucid_vec3 n = lucid_vec3_cross(lucid_vec3_sub(s->v[i].w, d), lucid_vec3_sub(s->v[j].w, d));
        double origin_side = -lucid_vec3_dot(n, d);
        double inner_side = lucid_vec3_dot(n, lucid_vec3_sub(s->v[opposite[f]].w, d));
        if (!(origin_side * inner_side > 0.0)) outside |= 1 << f;
    }
    if (!outside) {
        masks[0] = 15;
        return 1;
    }
    for (int f = 0; f < 3; ++f)
        if (outside & (1 << f)) masks[count++] = face[f];
    for (int e = 0; e < 3; ++e)
        if (outside & edge_faces[e]) masks[count++] = edge[e];
    masks[count++] = 8;
    return count;
}

/* The face `mask` is optimal over the whole simplex iff <p, v - p> >= 0 for the others. */
static int others_on_far_side(const lucid_simplex *s, int mask, lucid_vec3 p) {
    double pp = lucid_vec3_norm2(p);
    for (int i = 0; i < s->rank; ++i)
        if (!(mask & (1 << i)) && lucid_vec3_dot(p, s->v[i].w) < pp) return 0;
    return 1;
}

/* Gathers the face's points with the newest vertex first. */
static int gather(const lucid_simplex *s, int mask, const lucid_vec3 **pts, int *idx) {
    int m = 0, newest = s->rank - 1;
    idx[m] = newest;
    pts[m++] = &s->v[newest].w;
    for (int i = 0; i < newest; ++i)
        if (mask & (1 << i)) {
            idx[m] = i;
            pts[m++] = &s->v[i].w;
        }
    return m;
}

static void keep_face(const lucid_simplex *s, lucid_simplex *out, int mask, const double *lam_face,
                      const int *idx, int m) {
    double lam_of[4] = {0, 0, 0, 0};
    for (int j = 0; j < m; ++j) lam_of[idx[j]] = lam_face[j];
    int r = 0;
    for (int i = 0; i < s->rank; ++i) /* r <= i: safe when out == s */
        if (mask & (1 << i)) {
            out->v[r] = s->v[i];
            out->lambda[r++] = lam_of[i];
        }
    out->rank = r;
}

static int is_zero(lucid_vec3 p) {
    return p.x == 0.0 && p.y == 0.0 && p.z == 0.0;
}

/* A face chosen by the direct path: vertex indices into the input simplex (order preserved,
 * newest last), weights and the projection. Support points are copied once, at the end. */
typedef struct face_pick {
    int m, idx[4];
    double lam[4];
    lucid_vec3 x;
} face_pick;

static void pick1(face_pick *f, int c, lucid_vec3 w) {
    f->m = 1;
    f->idx[0] = c;
    f->lam[0] = 1.0;
    f->x = w;
}

static void pick2(face_pick *f, int a, int c, double t, lucid_vec3 x) {
    f->m = 2;
    f->idx[0] = a;
    f->idx[1] = c;
    f->lam[0] = t;
    f->lam[1] = 1.0 - t;
    f->x = x;
}

/* Triangle (B, C, A) = input vertices (ib < ic < ia), A the newest, whose weight is
 * positive whenever GJK made progress: only the regions of A, of the edges AB and AC and of
 * the face remain. Region tests on the six dot products of the edges with the vertices (the
 * classic Voronoi-region decomposition, exact sign tests without epsilon): d1, d2 place the
 * origin against A's corner, d3, d4 against B's, d5, d6 against C's, and the 2x2
 * determinants va, vb, vc are the face's barycentric weights times its Gram determinant,
 * used for their signs only. Returns 0 when
 * the decision lands in a region that progress excludes (round-off), for the exhaustive
 * search to settle. */
static int triangle_pick(const lucid_simplex *s, int ib, int ic, int ia, face_pick *f) {
    lucid_vec3 A = s->v[ia].w, B = s->v[ib].w, C = s->v[ic].w;
    lucid_vec3 ab = lucid_vec3_sub(B, A), ac = lucid_vec3_sub(C, A);
    double d1 = -lucid_vec3_dot(ab, A), d2 = -lucid_vec3_dot(ac, A);
    if (!(d1 > 0.0) && !(d2 > 0.0)) { /* <A, B - A> >= 0 and <A, C - A> >= 0 */
        pick1(f, ia, A);
        return 1;
    }
    double d3 = -lucid_vec3_dot(ab, B), d4 = -lucid_vec3_dot(ac, B);
    double d5 = -lucid_vec3_dot(ab, C), d6 = -lucid_vec3_dot(ac, C);
    double vc = d1 * d4 - d3 * d2;             /* weight of C (times the face's Gram determinant) */
    if (!(vc > 0.0) && d1 > 0.0 && d3 < 0.0) { /* edge AB */
        double t = d1 / lucid_vec3_norm2(ab);
        if (!(t > 0.0 && t < 1.0)) return 0;
        pick2(f, ib, ia, t, lucid_vec3_axpy(A, t, ab));
        return 1;
    }
    double vb = d5 * d2 - d1 * d6;             /* weight of B */
    if (!(vb > 0.0) && d2 > 0.0 && d6 < 0.0) { /* edge AC */
        double t = d2 / lucid_vec3_norm2(ac);
        if (!(t > 0.0 && t < 1.0)) return 0;
        pick2(f, ic, ia, t, lucid_vec3_axpy(A, t, ac));
        return 1;
    }
    double va = d3 * d6 - d5 * d4; /* weight of A */
    if (!(va > 0.0 && vb > 0.0 && vc > 0.0)) return 0;
    /* The face: the projection along the normal is exactly orthogonal to it (flat contacts
     * get exact normals), and weights relative to A stay accurate for small faces far from
     * the origin, where the Gram determinants above lose digits. */
    lucid_vec3 n = lucid_vec3_cross(ab, ac);
    double inv = 1.0 / lucid_vec3_norm2(n);
    lucid_vec3 p = lucid_vec3_scale(n, lucid_vec3_dot(A, n) * inv), pa = lucid_vec3_sub(p, A);
    double lb = lucid_vec3_dot(n, lucid_vec3_cross(pa, ac)) * inv;
    double lc = lucid_vec3_dot(n, lucid_vec3_cross(ab, pa)) * inv;
    double la =
        lucid_vec3_dot(n, lucid_vec3_cross(lucid_vec3_sub(B, p), lucid_vec3_sub(C, p))) * inv;
    if (!(la > 0.0 && lb > 0.0 && lc > 0.0)) return 0;
    f->m = 3;
    f->idx[0] = ib;
    f->idx[1] = ic;
    f->idx[2] = ia;
    f->lam[0] = lb;
    f->lam[1] = lc;
    f->lam[2] = la;
    f->x = p;
    return 1;
}

/* Segment (a, c) = (v0, v1), c newest: the interior or c (a alone cannot be optimal after
 * progress). Returns 0 when the weights do not come out strictly positive. */
static int segment_pick(const lucid_simplex *s, face_pick *f) {
    lucid_vec3 a = s->v[0].w, c = s->v[1].w, e = lucid_vec3_sub(a, c);
    double t = -lucid_vec3_dot(c, e); /* times |e|^2 */
    if (!(t > 0.0)) {                 /* <c, a - c> >= 0: c is the optimal face (exact test) */
        pick1(f, 1, c);
        return 1;
    }
    double ee = lucid_vec3_norm2(e);
    if (!(t < ee)) return 0;
    t /= ee;
    if (!(t < 1.0)) return 0;
    pick2(f, 0, 1, t, lucid_vec3_axpy(c, t, e));
    return 1;
}

/* Whether the origin and vertex o lie strictly on the same side of the plane (p, q, d); *n
 * receives (p - d) x (q - d). */
static int origin_inside(lucid_vec3 p, lucid_vec3 q, lucid_vec3 d, lucid_vec3 o, lucid_vec3 *n) {
    *n = lucid_vec3_cross(lucid_vec3_sub(p, d), lucid_vec3_sub(q, d));
    return -lucid_vec3_dot(*n, d) * lucid_vec3_dot(*n, lucid_vec3_sub(o, d)) > 0.0;
}

/* Tetrahedron (v0, v1, v2, d), d newest. The origin is on d's side of the old face (GJK's
 * progress condition), so the projection is in the interior or on a face through d. If the
 * origin is outside exactly the faces F (seen from the opposite vertex), the closest point
 * lies on one of them: the segment from the origin to it stays inside every other face's
 * halfspace, so it can only leave the tetrahedron through a face of F. Each such face is a
 * triangle problem with d newest; the shortest result wins. No epsilon: degenerate faces
 * count as "outside" and are simply searched. Returns 0 to request the generic search. */
static int tetra_pick(const lucid_simplex *s, face_pick *f) {
    lucid_vec3 a = s->v[0].w, b = s->v[1].w, c = s->v[2].w, d = s->v[3].w;
    lucid_vec3 n[3]; /* faces through d: (0,1 | opposite 2), (0,2 | 1), (1,2 | 0) */
    int outside[3] = {!origin_inside(a, b, d, c, &n[0]), !origin_inside(a, c, d, b, &n[1]),
                      !origin_inside(b, c, d, a, &n[2])};
    if (!outside[0] && !outside[1] && !outside[2]) {
        lucid_vec3 e1 = lucid_vec3_sub(a, d), e2 = lucid_vec3_sub(b, d), e3 = lucid_vec3_sub(c, d);
        lucid_vec3 md = lucid_vec3_neg(d);
        double vol = lucid_vec3_dot(n[0], e3);
        if (vol == 0.0 || !isfinite(vol)) return 0;
        double inv = 1.0 / vol;
        double l0 = lucid_vec3_dot(lucid_vec3_cross(md, e2), e3) * inv;
        double l1 = lucid_vec3_dot(lucid_vec3_cross(e1, md), e3) * inv;
        double l2 = lucid_vec3_dot(n[0], md) * inv;
        double l3 = 1.0 - l0 - l1 - l2;
        if (!(l0 > 0.0 && l1 > 0.0 && l2 > 0.0 && l3 > 0.0)) return 0;
        f->m = 4;
        for (int i = 0; i < 4; ++i) f->idx[i] = i;
        f->lam[0] = l0;
        f->lam[1] = l1;
        f->lam[2] = l2;
        f->lam[3] = l3;
        f->x = lucid_vec3_zero();
        return 1;
    }
    /* A face's own projection p is optimal over the tetrahedron iff the opposite vertex o
     * satisfies <p, o - p> >= 0 (the face's vertices already do): the first face passing that
     * exact test is the answer, the others need not be solved; if round-off fails them all,
     * the shortest candidate is kept. */
    static const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}}, opposite[3] = {2, 1, 0};
    double best = INFINITY;
    for (int k = 0; k < 3; ++k) {
        face_pick cand;
        if (!outside[k]) continue;
        if (!triangle_pick(s, pair[k][0], pair[k][1], 3, &cand)) return 0;
        double cn = lucid_vec3_norm2(cand.x);
        if (lucid_vec3_dot(cand.x, s->v[opposite[k]].w) >= cn) {
            *f = cand;
            return 1;
        }
        if (cn < best) {
            best = cn;
            *f = cand;
        }
    }
    return 1;
}

/* The direct path of each rank; 0 when it could not decide. */
static int direct_pick(const lucid_simplex *s, face_pick *f) {
    switch (s->rank) {
        case 1:
            pick1(f, 0, s->v[0].w);
            return 1;
        case 2:
            return segment_pick(s, f);
        case 3:
            return triangle_pick(s, 0, 1, 2, f);
        case 4:
            return tetra_pick(s, f);
    }
    return 0;
}

/* Exhaustive search over the candidate faces with the exact optimality tests: the fallback
 * when round-off defeats the direct path. */
static int project_generic(const lucid_simplex *s, lucid_simplex *out, lucid_vec3 *x) {
    int masks[8], idx[4], best_idx[4], best_mask = 1 << (s->rank - 1), best_m = 1;
    double lam[4], best_lam[4] = {1.0, 0, 0, 0};
    const lucid_vec3 *pts[4];
    lucid_vec3 p, best_p = s->v[s->rank - 1].w;
    double best_norm = lucid_vec3_norm2(best_p);
    best_idx[0] = s->rank - 1;
    int count = s->rank == 4 ? tetra_masks(s, masks) : candidate_masks(s->rank, masks);
    int found = 0;
    for (int pass = 0; pass < 2 && !found; ++pass) {
        if (pass == 1) { /* round-off defeated the pruned search: try every face */
            if (s->rank < 4) break;
            count = candidate_masks(s->rank, masks);
        }
        for (int c = 0; c < count && !found; ++c) {
            int m = gather(s, masks[c], pts, idx);
            if (!face_projection(pts, m, lam, &p)) continue;
            found = others_on_far_side(s, masks[c], p);
            if (found || lucid_vec3_norm2(p) < best_norm) {
                best_norm = lucid_vec3_norm2(p);
                best_mask = masks[c];
                best_p = p;
                best_m = m;
                for (int j = 0; j < m; ++j) {
                    best_lam[j] = lam[j];
                    best_idx[j] = idx[j];
                }
            }
        }
    }
    keep_face(s, out, best_mask, best_lam, best_idx, best_m);
    *x = best_p;
    return out->rank == 4 || (best_p.x == 0.0 && best_p.y == 0.0 && best_p.z == 0.0);
}

int lucid_simplex_project_origin_into(const lucid_simplex *s, lucid_simplex *out, lucid_vec3 *x) {
    face_pick f;
    if (!direct_pick(s, &f)) return project_generic(s, out, x);
    /* idx is increasing, so writing out->v[j] from s->v[idx[j]], j <= idx[j], is safe in place */
    for (int j = 0; j < f.m; ++j) {
        if (out != s || f.idx[j] != j) out->v[j] = s->v[f.idx[j]];
        out->lambda[j] = f.lam[j];
    }
    out->rank = f.m;
    *x = f.x;
    return f.m == 4 || is_zero(f.x);
}

int lucid_simplex_project_origin(lucid_simplex *s, lucid_vec3 *x) {
    return lucid_simplex_project_origin_into(s, s, x);
}

void lucid_simplex_witnesses(const lucid_simplex *s, lucid_vec3 *p1, lucid_vec3 *p2) {
    lucid_vec3 a = lucid_vec3_zero(), b = lucid_vec3_zero();
    for (int i = 0; i < s->rank; ++i) {
        a = lucid_vec3_axpy(a, s->lambda[i], s->v[i].p1);
        b = lucid_vec3_axpy(b, s->lambda[i], s->v[i].p2);
    }
    *p1 = a;
    *p2 = b;
}
