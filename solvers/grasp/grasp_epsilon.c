/* Ferrari-Canny epsilon: contact wrenches of linearised friction cones, their 6-D convex hull
 * by libqhull_r, and the origin's distance to the nearest facet (see grasp_epsilon.h). */
#include "solvers/grasp/grasp_epsilon.h"

#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

#include "runtime/math/finite.h"

#define GRASP_DIM    6
#define GRASP_TWO_PI 6.283185307179586476925286766559

void lucid_grasp_options_default(lucid_grasp_options *opt) {
    memset(opt, 0, sizeof(*opt));
    opt->edges = 8;
}

#define S lucid_grasp_options
const lucid_option lucid_grasp_option_table[] = {
    LUCID_OPTION_INTEGER_ENTRY(S, "", edges, LUCID_GRASP_MIN_EDGES, LUCID_GRASP_MAX_EDGES,
                               "m, edges of each linearised friction cone"),
    LUCID_OPTION_VEC3_ENTRY(S, "", center,
                            "the torque reference c (m), normally the object's centre of mass"),
    LUCID_OPTION_SPECIAL_ENTRY(S, "", torque_scale, LUCID_OPTION_NUMBER, POSITIVE, 0.0,
                               "0: automatic, 1 / the farthest point's distance to c",
                               "s multiplying torques (1/m)"),
    LUCID_OPTION_NUMBER_ENTRY(S, "", torsion, NONNEGATIVE,
                              "gamma (m): soft-finger contacts; 0 is the point contact"),
    LUCID_OPTION_END,
};
#undef S

static void set_message(char *err, size_t err_size, const char *text) {
    if (err != NULL && err_size > 0) snprintf(err, err_size, "%s", text);
}

static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Orthonormal tangents of the unit n, continuous except across n.z = 0 (Duff et al., "Building
 * an orthonormal basis, revisited", JCGT 2017): the cone edges depend on n alone. */
static void tangent_basis(const double n[3], double t1[3], double t2[3]) {
    double sign = copysign(1.0, n[2]);
    double a = -1.0 / (sign + n[2]);
    double b = n[0] * n[1] * a;
    t1[0] = 1.0 + sign * n[0] * n[0] * a;
    t1[1] = sign * b;
    t1[2] = -sign * n[0];
    t2[0] = b;
    t2[1] = sign + n[1] * n[1] * a;
    t2[2] = -n[1];
}

/* The inputs' check; *why (if not NULL) receives a bad option's rule, else stays. */
static lucid_status check_inputs(const double *points, const double *normals, size_t k, double mu,
                                 const lucid_grasp_options *opt, const char **why) {
    if (points == NULL || normals == NULL || opt == NULL || k == 0) return LUCID_ERR_ARGUMENT;
    if (k > ((size_t)-1) / (6 * sizeof(double) * (3 * LUCID_GRASP_MAX_EDGES + 2)))
        return LUCID_ERR_ARGUMENT;
    lucid_status st = lucid_option_table_check(lucid_grasp_option_table, opt, why);
    if (st != LUCID_OK) return st;
    if (!lucid_all_finite(points, 3 * k) || !lucid_all_finite(normals, 3 * k) || !isfinite(mu))
        return LUCID_ERR_NONFINITE;
    if (mu < 0.0) return LUCID_ERR_ARGUMENT;
    for (size_t i = 0; i < k; ++i) {
        const double *n = normals + 3 * i;
        if (!(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0.0)) return LUCID_ERR_ARGUMENT;
    }
    return LUCID_OK;
}

/* s = opt->torque_scale, or 1 / max_i |p_i - c| (1 when every point is at c). */
static double torque_scale(const double *points, size_t k, const lucid_grasp_options *opt) {
    if (opt->torque_scale > 0.0) return opt->torque_scale;
    double radius = 0.0;
    for (size_t i = 0; i < k; ++i) {
        const double *p = points + 3 * i;
        radius = fmax(radius, hypot(hypot(p[0] - opt->center[0], p[1] - opt->center[1]),
                                    p[2] - opt->center[2]));
    }
    return radius > 0.0 ? 1.0 / radius : 1.0;
}

size_t lucid_grasp_contact_wrenches(const lucid_grasp_options *opt) {
    size_t m = (size_t)opt->edges;
    return opt->torsion > 0.0 ? 3 * m + 2 : m;
}

/* The wrench (f, s (r x f + tau n)) of the force f = n + ft t1 + fs t2 and torsion tau. */
static void edge_wrench(const double r[3], const double n[3], const double t1[3],
                        const double t2[3], double ft, double fs, double tau, double s, double *w) {
    for (int a = 0; a < 3; ++a) w[a] = n[a] + ft * t1[a] + fs * t2[a];
    cross(r, w, w + 3);
    for (int a = 0; a < 3; ++a) w[3 + a] = s * (w[3 + a] + tau * n[a]);
}

lucid_status lucid_grasp_wrenches(const double *points, const double *normals, size_t k, double mu,
                                  const lucid_grasp_options *opt, double *wrenches, double *scale) {
    lucid_status st = check_inputs(points, normals, k, mu, opt, NULL);
    if (st != LUCID_OK) return st;
    if (wrenches == NULL) return LUCID_ERR_ARGUMENT;
    double s = torque_scale(points, k, opt);
    if (scale != NULL) *scale = s;
    const int m = opt->edges, soft = opt->torsion > 0.0;
    const size_t e = lucid_grasp_contact_wrenches(opt);
    /* ring latitudes: the equator alone for a point contact, -pi/4, 0, pi/4 for a soft finger */
    const double half = sqrt(0.5), lat_cos[3] = {half, 1.0, half}, lat_sin[3] = {-half, 0.0, half};
    for (size_t i = 0; i < k; ++i) {
        const double *v = normals + 3 * i;
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        double n[3] = {v[0] / len, v[1] / len, v[2] / len}, t1[3], t2[3];
        tangent_basis(n, t1, t2);
        double r[3] = {points[3 * i] - opt->center[0], points[3 * i + 1] - opt->center[1],
                       points[3 * i + 2] - opt->center[2]};
        double *w = wrenches + GRASP_DIM * i * e;
        for (int ring = soft ? 0 : 1; ring < (soft ? 3 : 2); ++ring)
            for (int j = 0; j < m; ++j, w += GRASP_DIM) {
                double angle = GRASP_TWO_PI * j / m, c = mu * lat_cos[ring];
                edge_wrench(r, n, t1, t2, c * cos(angle), c * sin(angle),
                            opt->torsion * lat_sin[ring], s, w);
            }
        for (int pole = 0; soft && pole < 2; ++pole, w += GRASP_DIM)
            edge_wrench(r, n, t1, t2, 0.0, 0.0, pole ? opt->torsion : -opt->torsion, s, w);
    }
    return LUCID_OK;
}

/* qhull's facets hold n.x + offset = 0 with n the outward unit normal: the origin lies at
 * distance -offset inside each facet's plane, so the smallest -offset is its distance to the
 * boundary when inside, and <= 0 when outside. */
static double smallest_margin(qhT *qh, int *facets) {
    double margin = HUGE_VAL;
    int count = 0;
    facetT *facet;
    FORALLfacets {
        margin = fmin(margin, -facet->offset);
        ++count;
    }
    *facets = count;
    return margin;
}

/* The margin below which the origin counts as on the boundary: qhull's own round-off bound on
 * facet distances, and no less than 1e-12 of the wrench scale. */
static double boundary_tolerance(const qhT *qh, const double *w, size_t n) {
    double largest = 0.0;
    for (size_t i = 0; i < GRASP_DIM * n; ++i) largest = fmax(largest, fabs(w[i]));
    return fmax(qh->DISTround, 1e-12 * largest);
}

static lucid_status run_hull(double *coords, size_t n, lucid_grasp_result *out, char *qhull_err,
                             size_t qhull_err_size) {
    FILE *errfile = fmemopen(qhull_err, qhull_err_size, "w");
    if (errfile == NULL) return LUCID_ERR_INTERNAL;
    qhT qh_storage;
    qhT *qh = &qh_storage;
    qh_zero(qh, errfile);
    char options[] = "qhull";
    /* qhull keeps the point array: the copy is the caller's until qh_freeqhull. */
    int exitcode = qh_new_qhull(qh, GRASP_DIM, (int)n, coords, False, options, NULL, errfile);
    volatile lucid_status st = LUCID_OK;
    if (exitcode == qh_ERRsingular) {
        out->degenerate = 1; /* "initial simplex is flat": no 6-D interior */
    } else if (exitcode == qh_ERRmem) {
        st = LUCID_ERR_NO_MEMORY;
    } else if (exitcode != qh_ERRnone) {
        st = LUCID_ERR_INTERNAL;
    } else if (setjmp(qh->errexit) == 0) { /* qhull errors inside its calls longjmp here */
        qh->NOerrexit = False;
        out->margin = smallest_margin(qh, &out->facets);
        if (out->margin > boundary_tolerance(qh, coords, n)) {
            out->epsilon = out->margin;
            out->force_closure = 1;
        }
    } else {
        st = LUCID_ERR_INTERNAL;
    }
    qh->NOerrexit = True;
    int curlong, totlong;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    fclose(errfile);
    return st;
}

lucid_status lucid_grasp_hull_epsilon(const double *wrenches, size_t n, lucid_grasp_result *out,
                                      char *err, size_t err_size) {
    set_message(err, err_size, "");
    if (out == NULL || (wrenches == NULL && n > 0)) return LUCID_ERR_ARGUMENT;
    double scale = out->torque_scale;
    memset(out, 0, sizeof(*out));
    out->torque_scale = scale;
    if (n > (size_t)INT_MAX / GRASP_DIM) return LUCID_ERR_ARGUMENT;
    if (!lucid_all_finite(wrenches, GRASP_DIM * n)) return LUCID_ERR_NONFINITE;
    if (n <= GRASP_DIM) { /* no 6-simplex: no interior */
        out->degenerate = 1;
        return LUCID_OK;
    }
    double *coords = malloc(sizeof(double) * GRASP_DIM * n); /* qhull may write its input */
    if (coords == NULL) return LUCID_ERR_NO_MEMORY;
    memcpy(coords, wrenches, sizeof(double) * GRASP_DIM * n);
    char qhull_err[512] = {0};
    lucid_status st = run_hull(coords, n, out, qhull_err, sizeof(qhull_err) - 1);
    free(coords);
    if (st != LUCID_OK && err != NULL && err_size > 0) {
        size_t len = strcspn(qhull_err, "\n");
        snprintf(err, err_size, "qhull failed: %.*s", (int)len,
                 len > 0 ? qhull_err : "(no message)");
    }
    return st;
}

lucid_status lucid_grasp_epsilon(const double *points, const double *normals, size_t k, double mu,
                                 const lucid_grasp_options *opt, lucid_grasp_result *out, char *err,
                                 size_t err_size) {
    set_message(err, err_size, "");
    if (out == NULL) return LUCID_ERR_ARGUMENT;
    const char *why = NULL;
    lucid_status st = check_inputs(points, normals, k, mu, opt, &why);
    if (why != NULL) set_message(err, err_size, why);
    if (st != LUCID_OK) return st;
    size_t n = k * lucid_grasp_contact_wrenches(opt);
    double *w = malloc(sizeof(double) * GRASP_DIM * n);
    if (w == NULL) return LUCID_ERR_NO_MEMORY;
    double scale = 1.0;
    st = lucid_grasp_wrenches(points, normals, k, mu, opt, w, &scale);
    out->torque_scale = scale;
    if (st == LUCID_OK) st = lucid_grasp_hull_epsilon(w, n, out, err, err_size);
    free(w);
    return st;
}
