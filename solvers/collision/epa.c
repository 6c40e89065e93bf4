/* EPA on fixed-size storage: start polytope from any GJK simplex, horizon expansion. */
#include "solvers/collision/epa.h"

/* Relative size below which a blow-up direction is considered to add no volume. */
#define EPA_FLAT_EPS 1e-10
/* Faces one expansion may absorb to avoid degenerate cone faces (a handful in practice). */
#define EPA_MAX_ABSORB 32

typedef struct epa_face {
    int v[3];     /* counter-clockwise seen from outside */
    int adj[3];   /* face across edge (v[i], v[i+1]) */
    lucid_vec3 n; /* unit outward normal */
    double dist;  /* <n, v0>: distance of the plane to the origin */
    int alive;
} epa_face;

typedef struct epa_horizon_edge {
    int a, b;    /* edge of a visible face, in that face's winding */
    int outside; /* the non-visible face across it */
} epa_horizon_edge;

typedef struct epa_polytope {
    lucid_support_point v[LUCID_EPA_MAX_VERTICES];
    epa_face f[LUCID_EPA_MAX_FACES];
    int free_faces[LUCID_EPA_MAX_FACES]; /* dead slots to reuse */
    int stack[LUCID_EPA_MAX_FACES];
    unsigned char mark[LUCID_EPA_MAX_FACES]; /* 1 visible, 2 seen and not visible */
    epa_horizon_edge horizon[LUCID_EPA_MAX_HORIZON];
    int nv, nf, nfree, nh;
} epa_polytope;

static int link_faces(epa_polytope *P);

static int face_plane(const epa_polytope *P, int a, int b, int c, epa_face *f) {
    lucid_vec3 n = lucid_vec3_cross(lucid_vec3_sub(P->v[b].w, P->v[a].w),
                                    lucid_vec3_sub(P->v[c].w, P->v[a].w));
    double len = lucid_vec3_norm(n);
    if (!(len > 0.0) || !isfinite(len)) return 0;
    f->v[0] = a;
    f->v[1] = b;
    f->v[2] = c;
    f->n = lucid_vec3_scale(n, 1.0 / len);
    f->dist = lucid_vec3_dot(f->n, P->v[a].w);
    return 1;
}

static double triangle_area2(lucid_vec3 a, lucid_vec3 b, lucid_vec3 c) {
    return lucid_vec3_norm2(lucid_vec3_cross(lucid_vec3_sub(b, a), lucid_vec3_sub(c, a)));
}

/* The outcome when D has no interior: depth 0 along `normal`, witnesses from GJK's weights. */
static void flat_result(const lucid_simplex *start, lucid_vec3 normal, lucid_epa_result *res) {
    res->depth = 0.0;
    res->normal = normal;
    lucid_simplex_witnesses(start, &res->p1, &res->p2);
    res->converged = 1;
}

/* Unit vector orthogonal to the unit u, as close as possible to `prefer`. */
static lucid_vec3 orthogonal_towards(lucid_vec3 u, lucid_vec3 prefer) {
    lucid_vec3 t = lucid_vec3_axpy(prefer, -lucid_vec3_dot(prefer, u), u);
    return lucid_vec3_norm2(t) > 1e-12 ? lucid_vec3_normalized(t) : lucid_vec3_any_orthogonal(u);
}

static double scale_of(const epa_polytope *P) {
    double s = 0.0;
    for (int i = 0; i < P->nv; ++i) s = fmax(s, lucid_vec3_max_abs(P->v[i].w));
    return s;
}

/* Rank 1 -> 2: the support among the six axis directions farthest from the point. */
static int grow_point(lucid_minkowski *m, epa_polytope *P) {
    static const double axes[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                      {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
    lucid_support_point best = P->v[0];
    double best_d = 0.0;
    for (int i = 0; i < 6; ++i) {
        lucid_support_point sp = lucid_minkowski_support(m, lucid_vec3_load(axes[i]));
        double dd = lucid_vec3_dist(sp.w, P->v[0].w);
        if (dd > best_d) {
            best_d = dd;
            best = sp;
        }
    }
    if (!(best_d > EPA_FLAT_EPS * fmax(lucid_vec3_max_abs(best.w), lucid_vec3_max_abs(P->v[0].w))))
        return 0;
    P->v[P->nv++] = best;
    return 1;
}

/* Rank 2 -> 3: the support, among six directions around the segment, farthest from its line. */
static int grow_segment(lucid_minkowski *m, epa_polytope *P, lucid_vec3 *flat_normal) {
    lucid_vec3 a = P->v[0].w, e = lucid_vec3_normalized(lucid_vec3_sub(P->v[1].w, a));
    lucid_vec3 u = orthogonal_towards(e, *flat_normal), v = lucid_vec3_cross(e, u);
    lucid_support_point best = P->v[0];
    double best_d = 0.0;
    /* cos and sin of k * 60 degrees */
    static const double cs[6][2] = {
        {1.0, 0.0},  {0.5, 0.8660254037844386},   {-0.5, 0.8660254037844386},
        {-1.0, 0.0}, {-0.5, -0.8660254037844386}, {0.5, -0.8660254037844386}};
    for (int i = 0; i < 6; ++i) {
        lucid_vec3 dir =
            lucid_vec3_add(lucid_vec3_scale(u, cs[i][0]), lucid_vec3_scale(v, cs[i][1]));
        lucid_support_point sp = lucid_minkowski_support(m, dir);
        double dd = lucid_vec3_norm(lucid_vec3_cross(lucid_vec3_sub(sp.w, a), e));
        if (dd > best_d) {
            best_d = dd;
            best = sp;
        }
    }
    *flat_normal = u;
    if (!(best_d > EPA_FLAT_EPS * fmax(scale_of(P), lucid_vec3_max_abs(best.w)))) return 0;
    P->v[P->nv++] = best;
    return 1;
}

/* Rank 3 -> tetrahedron: the triangle plus the support farther from its plane on either side.
 * (A bipyramid with both apexes need not be convex; the origin lies on or near the triangle,
 * so a tetrahedron with the origin on its boundary is a valid start: EPA expands through it.) */
static int grow_triangle(lucid_minkowski *m, epa_polytope *P, lucid_vec3 *flat_normal) {
    lucid_vec3 a = P->v[0].w;
    lucid_vec3 n = lucid_vec3_normalized(
        lucid_vec3_cross(lucid_vec3_sub(P->v[1].w, a), lucid_vec3_sub(P->v[2].w, a)));
    if (lucid_vec3_dot(n, *flat_normal) < 0.0) n = lucid_vec3_neg(n);
    *flat_normal = n;
    lucid_support_point up = lucid_minkowski_support(m, n);
    lucid_support_point down = lucid_minkowski_support(m, lucid_vec3_neg(n));
    double scale = fmax(scale_of(P), fmax(lucid_vec3_max_abs(up.w), lucid_vec3_max_abs(down.w)));
    double h_up = lucid_vec3_dot(n, lucid_vec3_sub(up.w, a));
    double h_down = -lucid_vec3_dot(n, lucid_vec3_sub(down.w, a));
    if (!(fmax(h_up, h_down) > EPA_FLAT_EPS * scale)) return 0;
    P->v[P->nv++] = h_up >= h_down ? up : down;
    return 1;
}

/* Faces of the tetrahedron 0-3, wound outward from the side vertex 3 lies on. */
static int build_faces(epa_polytope *P) {
    lucid_vec3 v0 = P->v[0].w;
    lucid_vec3 nb = lucid_vec3_cross(lucid_vec3_sub(P->v[1].w, v0), lucid_vec3_sub(P->v[2].w, v0));
    int up = lucid_vec3_dot(nb, lucid_vec3_sub(P->v[3].w, v0)) > 0.0;
    static const int faces_up[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}};
    static const int faces_down[4][3] = {{0, 1, 2}, {1, 0, 3}, {2, 1, 3}, {0, 2, 3}};
    const int(*f)[3] = up ? faces_up : faces_down;
    P->nf = 0;
    P->nfree = 0;
    for (int i = 0; i < 4; ++i) {
        epa_face face;
        if (!face_plane(P, f[i][0], f[i][1], f[i][2], &face)) return 0;
        face.alive = 1;
        P->f[P->nf++] = face;
    }
    return link_faces(P);
}

/* Keeps the triangle of largest area of a degenerate (flat) tetrahedron. */
static void drop_to_triangle(epa_polytope *P) {
    int skip = 0;
    double best = -1.0;
    for (int s = 0; s < 4; ++s) {
        lucid_vec3 t[3];
        for (int i = 0, j = 0; i < 4; ++i)
            if (i != s) t[j++] = P->v[i].w;
        double a2 = triangle_area2(t[0], t[1], t[2]);
        if (a2 > best) {
            best = a2;
            skip = s;
        }
    }
    for (int i = skip; i < 3; ++i) P->v[i] = P->v[i + 1];
    P->nv = 3;
}

static int tetra_is_flat(const epa_polytope *P) {
    lucid_vec3 a = P->v[0].w;
    lucid_vec3 e1 = lucid_vec3_sub(P->v[1].w, a), e2 = lucid_vec3_sub(P->v[2].w, a),
               e3 = lucid_vec3_sub(P->v[3].w, a);
    double vol = fabs(lucid_vec3_dot(lucid_vec3_cross(e1, e2), e3));
    double s = fmax(lucid_vec3_norm(e1), fmax(lucid_vec3_norm(e2), lucid_vec3_norm(e3)));
    return !(vol > EPA_FLAT_EPS * s * s * s);
}

/* A triangle whose area is negligible against its longest edge squared (collinear). */
static int triangle_is_thin(const epa_polytope *P) {
    lucid_vec3 a = P->v[0].w, b = P->v[1].w, c = P->v[2].w;
    double l2 =
        fmax(lucid_vec3_norm2(lucid_vec3_sub(b, a)),
             fmax(lucid_vec3_norm2(lucid_vec3_sub(c, a)), lucid_vec3_norm2(lucid_vec3_sub(c, b))));
    return !(sqrt(triangle_area2(a, b, c)) > EPA_FLAT_EPS * l2);
}

/* Keeps the longest edge of a degenerate triangle. */
static void drop_to_segment(epa_polytope *P) {
    int skip = 0;
    double best = -1.0;
    for (int s = 0; s < 3; ++s) {
        double l2 = lucid_vec3_norm2(lucid_vec3_sub(P->v[(s + 1) % 3].w, P->v[(s + 2) % 3].w));
        if (l2 > best) {
            best = l2;
            skip = s;
        }
    }
    lucid_support_point a = P->v[(skip + 1) % 3], b = P->v[(skip + 2) % 3];
    P->v[0] = a;
    P->v[1] = b;
    P->nv = 2;
}

/* Builds the start polytope; returns 0 (with *flat_normal set) when D has no interior. */
static int start_polytope(lucid_minkowski *m, const lucid_simplex *start, epa_polytope *P,
                          lucid_vec3 *flat_normal) {
    P->nv = start->rank;
    for (int i = 0; i < start->rank; ++i) P->v[i] = start->v[i];
    if (P->nv == 4 && tetra_is_flat(P)) drop_to_triangle(P);
    if (P->nv == 3 && triangle_is_thin(P)) drop_to_segment(P);
    if (P->nv == 2 && !(lucid_vec3_dist(P->v[0].w, P->v[1].w) > EPA_FLAT_EPS * scale_of(P)))
        P->nv = 1;
    if (P->nv == 1 && !grow_point(m, P)) return 0;
    if (P->nv == 2 && !grow_segment(m, P, flat_normal)) return 0;
    if (P->nv == 3 && !grow_triangle(m, P, flat_normal)) return 0;
    return build_faces(P);
}

static int closest_face(const epa_polytope *P) {
    int best = -1;
    for (int i = 0; i < P->nf; ++i)
        if (P->f[i].alive && (best < 0 || P->f[i].dist < P->f[best].dist)) best = i;
    return best;
}

/* Edge index of face f that goes from b to a (the twin of a -> b), or -1. */
static int twin_edge(const epa_face *f, int a, int b) {
    for (int i = 0; i < 3; ++i)
        if (f->v[i] == b && f->v[(i + 1) % 3] == a) return i;
    return -1;
}

/* Face adjacency of the start polytope by matching twin edges. */
static int link_faces(epa_polytope *P) {
    for (int i = 0; i < P->nf; ++i)
        for (int e = 0; e < 3; ++e) {
            P->f[i].adj[e] = -1;
            for (int j = 0; j < P->nf && P->f[i].adj[e] < 0; ++j)
                if (j != i && twin_edge(&P->f[j], P->f[i].v[e], P->f[i].v[(e + 1) % 3]) >= 0)
                    P->f[i].adj[e] = j;
            if (P->f[i].adj[e] < 0) return 0;
        }
    return 1;
}

static int sees(const epa_polytope *P, int f, lucid_vec3 w) {
    return lucid_vec3_dot(P->f[f].n, lucid_vec3_sub(w, P->v[P->f[f].v[0]].w)) > 0.0;
}

static int is_listed(const int *list, int n, int x) {
    for (int i = 0; i < n; ++i)
        if (list[i] == x) return 1;
    return 0;
}

/* Flood fill of the faces visible from w, starting at the closest face (visible by
 * construction): the visible region stays connected, so its boundary is one horizon loop.
 * The `nabsorbed` faces in `absorbed` count as visible (see sound_horizon). */
static int find_horizon(epa_polytope *P, int start, lucid_vec3 w, const int *absorbed,
                        int nabsorbed) {
    for (int i = 0; i < P->nf; ++i) P->mark[i] = 0;
    int top = 0;
    P->nh = 0;
    P->mark[start] = 1;
    P->stack[top++] = start;
    while (top > 0) {
        const epa_face *f = &P->f[P->stack[--top]];
        for (int e = 0; e < 3; ++e) {
            int g = f->adj[e];
            if (P->mark[g] == 1) continue;
            if (P->mark[g] == 0 && (sees(P, g, w) || is_listed(absorbed, nabsorbed, g))) {
                P->mark[g] = 1;
                P->stack[top++] = g;
                continue;
            }
            P->mark[g] = 2;
            if (P->nh >= LUCID_EPA_MAX_HORIZON) return 0;
            epa_horizon_edge h = {f->v[e], f->v[(e + 1) % 3], g};
            P->horizon[P->nh++] = h;
        }
    }
    return P->nh >= 3;
}

static int take_face_slot(epa_polytope *P) {
    if (P->nfree > 0) return P->free_faces[--P->nfree];
    return P->nf < LUCID_EPA_MAX_FACES ? P->nf++ : -1;
}

/* The cone faces from w (vertex iw) to the horizon; returns the index of the first horizon
 * edge whose face is degenerate or closer to the origin than min_dist (impossible for an exact
 * convex expansion: a sign of round-off), -1 when all are fine, or -2 when
 * the horizon is not one simple loop (every edge has exactly one successor, and its outside
 * face holds the twin edge). */
static int cone_faces(const epa_polytope *P, int iw, double min_dist, epa_face *fresh) {
    for (int h = 0; h < P->nh; ++h) {
        int successors = 0;
        for (int k = 0; k < P->nh; ++k) successors += P->horizon[k].a == P->horizon[h].b;
        if (successors != 1 ||
            twin_edge(&P->f[P->horizon[h].outside], P->horizon[h].a, P->horizon[h].b) < 0)
            return -2;
    }
    for (int h = 0; h < P->nh; ++h)
        if (!face_plane(P, P->horizon[h].a, P->horizon[h].b, iw, &fresh[h]) ||
            fresh[h].dist < min_dist)
            return h;
    return -1;
}

/* Finds a horizon whose cone from w has only sound faces. A bad cone face (a, b, w) means w
 * lies on or barely behind the plane of the face g across (a, b) (w repeats a vertex or lines
 * up with an edge: D's vertices come in clusters below the ulp for nearly aligned boxes).
 * Replacing g as well (absorbing it) avoids that face; w lies at most `slack` behind g, so
 * the polytope gets a dent of at most slack but stays inside D around the origin, and its
 * closest face is still a lower bound on the depth. */
static int sound_horizon(epa_polytope *P, int best, int iw, double min_dist, double slack,
                         epa_face *fresh) {
    int absorbed[EPA_MAX_ABSORB], n = 0;
    for (;;) {
        if (!find_horizon(P, best, P->v[iw].w, absorbed, n)) return 0;
        int h = cone_faces(P, iw, min_dist, fresh);
        if (h == -1) return 1;
        if (h < 0) return 0;
        int g = P->horizon[h].outside;
        lucid_vec3 a = P->v[P->f[g].v[0]].w;
        if (n == EPA_MAX_ABSORB ||
            !(lucid_vec3_dot(P->f[g].n, lucid_vec3_sub(P->v[iw].w, a)) > -slack))
            return 0;
        absorbed[n++] = g;
    }
}

/* Replaces the faces visible from w by the cone from w to their horizon. Nothing is modified
 * when the expansion would overflow or no sound horizon exists (see sound_horizon). */
static int expand(epa_polytope *P, int best, lucid_support_point w, double min_dist, double slack) {
    if (P->nv >= LUCID_EPA_MAX_VERTICES) return 0;
    int iw = P->nv;
    P->v[iw] = w;
    epa_face fresh[LUCID_EPA_MAX_HORIZON];
    if (!sound_horizon(P, best, iw, min_dist, slack, fresh)) return 0;
    int visible = 0;
    for (int i = 0; i < P->nf; ++i) visible += P->f[i].alive && P->mark[i] == 1;
    if (P->nh - visible > P->nfree + (LUCID_EPA_MAX_FACES - P->nf)) return 0;
    P->nv++;
    for (int i = 0; i < P->nf; ++i)
        if (P->f[i].alive && P->mark[i] == 1) {
            P->f[i].alive = 0;
            P->free_faces[P->nfree++] = i;
        }
    int slot[LUCID_EPA_MAX_HORIZON];
    for (int h = 0; h < P->nh; ++h) {
        slot[h] = take_face_slot(P);
        P->f[slot[h]] = fresh[h];
        P->f[slot[h]].alive = 1;
    }
    for (int h = 0; h < P->nh; ++h) {
        epa_face *f = &P->f[slot[h]];
        epa_face *out = &P->f[P->horizon[h].outside];
        f->adj[0] = P->horizon[h].outside;
        out->adj[twin_edge(out, P->horizon[h].a, P->horizon[h].b)] = slot[h];
        for (int k = 0; k < P->nh; ++k) {
            if (P->horizon[k].a == P->horizon[h].b) f->adj[1] = slot[k]; /* edge (b, w) */
            if (P->horizon[k].b == P->horizon[h].a) f->adj[2] = slot[k]; /* edge (w, a) */
        }
    }
    return 1;
}

static void face_result(const epa_polytope *P, const epa_face *f, lucid_epa_result *res) {
    const lucid_support_point *a = &P->v[f->v[0]], *b = &P->v[f->v[1]], *c = &P->v[f->v[2]];
    lucid_vec3 p = lucid_vec3_scale(f->n, f->dist);
    lucid_vec3 nrm = lucid_vec3_cross(lucid_vec3_sub(b->w, a->w), lucid_vec3_sub(c->w, a->w));
    double nn = lucid_vec3_norm2(nrm);
    double lb =
        lucid_vec3_dot(nrm, lucid_vec3_cross(lucid_vec3_sub(c->w, p), lucid_vec3_sub(a->w, p)));
    double lc =
        lucid_vec3_dot(nrm, lucid_vec3_cross(lucid_vec3_sub(a->w, p), lucid_vec3_sub(b->w, p)));
    lb /= nn;
    lc /= nn;
    double la = 1.0 - lb - lc;
    res->depth = f->dist;
    res->normal = f->n;
    res->p1 =
        lucid_vec3_add(lucid_vec3_add(lucid_vec3_scale(a->p1, la), lucid_vec3_scale(b->p1, lb)),
                       lucid_vec3_scale(c->p1, lc));
    res->p2 =
        lucid_vec3_add(lucid_vec3_add(lucid_vec3_scale(a->p2, la), lucid_vec3_scale(b->p2, lb)),
                       lucid_vec3_scale(c->p2, lc));
}

/* ---- Coaxial shapes: EPA on the meridian section ---------------------------------------
 * When both cores are solids of revolution about one common line through the origin of frame
 * 1 (coincident or axially offset cylinders, cones, capsules, spheroids, spheres on the axis),
 * D is a solid of revolution too and its depth is attained on a whole circle of normals: the
 * 3D polytope can only approach that circle by chords (depth 0.99998 instead of 1 after 1024
 * iterations for two coincident cylinders). The depth is then the one of D's meridian section,
 * a planar convex set whose support along a direction n of the plane (axis a, radial e) is the
 * projection of D's support: EPA on a polygon converges like bisection on the section's curve.
 * An axis misalignment theta and an off-axis offset o move shape 2 by at most
 * delta = 2 sin(theta / 2) r2 + o (r2 the core's extent); both bounds move by at most delta,
 * so the path is taken only when 2 delta <= tol / 2 and `converged` means gap + 2 delta <= tol. */
#define COAX_MAX_VERTICES 256

typedef struct coax_vertex {
    double u, v; /* coordinates along e (radial) and a (axis) */
    lucid_support_point sp;
} coax_vertex;

/* Solid of revolution about local z: returns its core's extent from the frame origin, or -1. */
static double revolution_extent(const lucid_shape *s) {
    switch (s->kind) {
        case LUCID_SHAPE_SPHERE:
            return 0.0;
        case LUCID_SHAPE_CAPSULE:
            return s->u.half_length;
        case LUCID_SHAPE_CYLINDER:
        case LUCID_SHAPE_CONE:
            return hypot(s->u.round.radius, s->u.round.half_length);
        case LUCID_SHAPE_ELLIPSOID:
            return s->u.radii.x == s->u.radii.y ? fmax(s->u.radii.x, s->u.radii.z) : -1.0;
        default:
            return -1.0;
    }
}

/* The common axis a (frame 1) and the misalignment bound delta; 0 when there is none. */
static int common_axis(const lucid_minkowski *m, lucid_vec3 *a, double *delta) {
    double r1 = revolution_extent(m->s1), r2 = revolution_extent(m->s2);
    int sphere1 = m->s1->kind == LUCID_SHAPE_SPHERE, sphere2 = m->s2->kind == LUCID_SHAPE_SPHERE;
    if (r1 < 0.0 || r2 < 0.0 || (sphere1 && sphere2)) return 0;
    lucid_vec3 z2 = lucid_vec3_make(m->T12.R.m[6], m->T12.R.m[7], m->T12.R.m[8]); /* R12 e_z */
    lucid_vec3 t = m->T12.t;
    *a = sphere1 ? lucid_vec3_normalized(z2) : lucid_vec3_make(0, 0, 1);
    double tilt = 0.0; /* 2 sin(theta / 2) = |z2 - a| (up to the sign of the axis) */
    if (!sphere1 && !sphere2)
        tilt = fmin(lucid_vec3_dist(z2, *a), lucid_vec3_dist(lucid_vec3_neg(z2), *a));
    lucid_vec3 off = lucid_vec3_axpy(t, -lucid_vec3_dot(t, *a), *a);
    *delta = tilt * r2 + lucid_vec3_norm(off);
    return isfinite(*delta);
}

static lucid_vec3 coax_dir(lucid_vec3 e, lucid_vec3 a, double nu, double nv) {
    return lucid_vec3_add(lucid_vec3_scale(e, nu), lucid_vec3_scale(a, nv));
}

/* Outward unit normal and distance of edge i -> i+1 of the counter-clockwise polygon; +inf
 * for a degenerate edge (a repeated vertex: its normal cone is covered by its neighbours). */
static double coax_edge(const coax_vertex *V, int n, int i, double *nu, double *nv) {
    const coax_vertex *p = &V[i], *q = &V[(i + 1) % n];
    double du = q->u - p->u, dv = q->v - p->v, len = hypot(du, dv);
    if (!(len > 0.0)) return INFINITY;
    *nu = dv / len;
    *nv = -du / len;
    return *nu * p->u + *nv * p->v;
}

static int coax_closest(const coax_vertex *V, int n, double *nu, double *nv, double *dist) {
    int best = -1;
    *dist = INFINITY;
    for (int i = 0; i < n; ++i) {
        double a = 0.0, b = 0.0, d = coax_edge(V, n, i, &a, &b);
        if (d < *dist) {
            *dist = d;
            *nu = a;
            *nv = b;
            best = i;
        }
    }
    return best;
}

/* Returns 1 with *res filled when the coaxial path applies, 0 to run the 3D EPA (out of line:
 * its 22 kB of vertices never share the stack with the 3D polytope). */
__attribute__((noinline)) static int coaxial_epa(lucid_minkowski *m, double tol, int max_iter,
                                                 lucid_epa_result *res) {
    lucid_vec3 a, e;
    double delta;
    if (!common_axis(m, &a, &delta) || !(4.0 * delta <= tol)) return 0;
    e = lucid_vec3_normalized(lucid_vec3_any_orthogonal(a));
    coax_vertex V[COAX_MAX_VERTICES];
    int n = 0;
    for (int k = 0; k < 8; ++k) { /* start: supports along 8 directions, counter-clockwise */
        double ang = k * (3.14159265358979323846 / 4.0);
        lucid_support_point sp = lucid_minkowski_support(m, coax_dir(e, a, cos(ang), sin(ang)));
        coax_vertex c = {lucid_vec3_dot(sp.w, e), lucid_vec3_dot(sp.w, a), sp};
        V[n++] = c;
    }
    double nu = 0.0, nv = 0.0, lower;
    int best = coax_closest(V, n, &nu, &nv, &lower);
    double scale = 0.0;
    for (int i = 0; i < n; ++i) scale = fmax(scale, fmax(fabs(V[i].u), fabs(V[i].v)));
    /* a section without interior or with the origin outside: the 3D path decides */
    if (best < 0 || !(lower > -1e-12 * scale) || !(scale > 0.0)) return 0;
    double upper = INFINITY;
    int it = 0, converged = 0;
    if (max_iter > LUCID_EPA_MAX_ITER) max_iter = LUCID_EPA_MAX_ITER;
    while (it < max_iter) {
        ++it;
        lucid_support_point sp = lucid_minkowski_support(m, coax_dir(e, a, nu, nv));
        coax_vertex c = {lucid_vec3_dot(sp.w, e), lucid_vec3_dot(sp.w, a), sp};
        double h = nu * c.u + nv * c.v;
        upper = fmin(upper, h);
        if (upper - lower + 2.0 * delta <= tol) {
            converged = 1;
            break;
        }
        if (!(h > lower) || n == COAX_MAX_VERTICES) break; /* no progress left in floating point */
        for (int i = n; i > best + 1; --i) V[i] = V[i - 1];
        V[best + 1] = c;
        ++n;
        best = coax_closest(V, n, &nu, &nv, &lower);
    }
    /* witnesses: the foot of the origin on the closest edge, projected onto the section plane
     * (both cores are solids of revolution about a, so the projections stay in them); among
     * edges of one line (tied distances: collinear support points) the one holding the foot */
    double t = 0.0;
    for (int i = 0, found = 0; i < n && !found; ++i) {
        double ni = 0.0, vi = 0.0, di = coax_edge(V, n, i, &ni, &vi);
        if (i != best && !(di <= lower + 1e-12 * scale && ni * nu + vi * nv > 0.5)) continue;
        const coax_vertex *p = &V[i], *q = &V[(i + 1) % n];
        double du = q->u - p->u, dv = q->v - p->v;
        double ti = ((lower * nu - p->u) * du + (lower * nv - p->v) * dv) / (du * du + dv * dv);
        if (i == best || (ti >= 0.0 && ti <= 1.0)) {
            best = i;
            t = fmin(1.0, fmax(0.0, ti));
            found = ti >= 0.0 && ti <= 1.0;
        }
    }
    const coax_vertex *p = &V[best], *q = &V[(best + 1) % n];
    lucid_vec3 p1 =
        lucid_vec3_add(lucid_vec3_scale(p->sp.p1, 1.0 - t), lucid_vec3_scale(q->sp.p1, t));
    lucid_vec3 p2 =
        lucid_vec3_add(lucid_vec3_scale(p->sp.p2, 1.0 - t), lucid_vec3_scale(q->sp.p2, t));
    res->depth = lower;
    res->normal = coax_dir(e, a, nu, nv);
    res->p1 = coax_dir(e, a, lucid_vec3_dot(p1, e), lucid_vec3_dot(p1, a));
    res->p2 = coax_dir(e, a, lucid_vec3_dot(p2, e), lucid_vec3_dot(p2, a));
    res->iterations = it;
    res->converged = converged;
    return 1;
}

void lucid_epa_solve(lucid_minkowski *m, const lucid_simplex *start, double tol, int max_iter,
                     lucid_vec3 fallback_normal, lucid_epa_result *res) {
    if (coaxial_epa(m, tol, max_iter, res)) return;
    epa_polytope P;
    lucid_vec3 flat_normal = lucid_vec3_normalized(fallback_normal);
    if (lucid_vec3_norm2(flat_normal) == 0.0) flat_normal = lucid_vec3_make(0, 0, 1);
    res->iterations = 0;
    res->converged = 0;
    if (start->rank < 1 || !start_polytope(m, start, &P, &flat_normal)) {
        flat_result(start, flat_normal, res);
        return;
    }
    if (max_iter > LUCID_EPA_MAX_ITER) max_iter = LUCID_EPA_MAX_ITER;
    /* Bounds on the depth (van den Bergen): the closest face's distance is a lower bound (the
     * polytope lies in D), and every support value <n, w> along a unit n is an upper bound
     * (translating by it along n separates). Stopping on the best upper bound minus the lower
     * bound certifies |depth error| <= tol and stops earlier than the gap of the current face
     * alone when the closest face wanders over a flat region of D. */
    double upper = INFINITY;
    int best = closest_face(&P);
    for (int it = 0; it < max_iter; ++it) {
        res->iterations = it + 1;
        lucid_support_point w = lucid_minkowski_support(m, P.f[best].n);
        upper = fmin(upper, lucid_vec3_dot(P.f[best].n, w.w));
        double gap = upper - P.f[best].dist;
        if (!(gap > tol)) {
            res->converged = isfinite(gap);
            break;
        }
        double slack = 1e-9 * fmax(1.0, lucid_vec3_max_abs(w.w));
        if (!expand(&P, best, w, P.f[best].dist - slack, slack)) break;
        best = closest_face(&P);
    }
    face_result(&P, &P.f[best], res);
}
