/* Shared by the peer-agreement tests (FCL, Bullet): random shapes and poses, lucid queries and
 * distance certificates computed from exact supports.
 *
 * Certificates. For any point x = p1 - p2 of the Minkowski difference D = A1 - A2 (p1 in A1,
 * p2 in A2) and s = argmin_{w in D} <x, w>, the true distance d* of separated shapes satisfies
 *   <x, s> / |x|  <=  d*  <=  |x|,
 * so e(x) = |x| - <x, s>/|x| (the Frank-Wolfe gap over 2|x|) bounds how far an answer whose
 * witnesses give x can be from d*. We evaluate it for lucid's answer and for the peer's
 * answer with lucid's exact support functions: a peer answer that misses its own nominal
 * tolerance is then explained by a number (its certified error), not waved away. For
 * overlapping shapes, any unit n gives the upper bound h_D(n) = max_{w in D} <n, w> on the
 * penetration depth, i.e. the lower bound -h_D(n) <= d* on the signed distance. */
#ifndef LUCID_TEST_COLLISION_PEERS_HPP
#define LUCID_TEST_COLLISION_PEERS_HPP

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

extern "C" {
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/shape.h"
#include "solvers/collision/collision.h"
}

namespace peers {

enum Kind { BOX, ELLIPSOID, CAPSULE, CYLINDER, SPHERE, CONVEX, NUM_KINDS };

inline const char *kind_name(int k) {
    static const char *names[] = {"box", "ellipsoid", "capsule", "cylinder", "sphere", "convex"};
    return names[k];
}

struct Rng {
    uint64_t state;
    double uniform() { /* splitmix64 */
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        return (double)(z >> 11) * (1.0 / 9007199254740992.0);
    }
    double range(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    lucid_vec3 direction() {
        for (;;) {
            lucid_vec3 v = lucid_vec3_make(range(-1, 1), range(-1, 1), range(-1, 1));
            double n = lucid_vec3_norm(v);
            if (n > 0.1 && n <= 1.0) return lucid_vec3_scale(v, 1.0 / n);
        }
    }
    lucid_se3 pose(lucid_vec3 t) {
        lucid_quat q = lucid_quat_make(range(-1, 1), range(-1, 1), range(-1, 1), range(-1, 1));
        lucid_se3 T;
        if (lucid_se3_from_quat(q, t, &T) != LUCID_OK) T = lucid_se3_make(lucid_mat3_identity(), t);
        return T;
    }
};

/* A shape with the sizes the peers need to build the same one (lucid conventions: half sizes). */
struct Shape {
    Kind kind;
    lucid_shape s;
    double a, b, c; /* box half extents / ellipsoid radii / (radius, half-length) */
    const lucid_convex_mesh *mesh;
};

/* Hulls of 40 random points on ellipsoids of random proportions (about 20-40 vertices). */
inline std::vector<lucid_convex_mesh *> make_meshes(Rng &rng, int count) {
    std::vector<lucid_convex_mesh *> meshes;
    while ((int)meshes.size() < count) {
        double r[3] = {rng.range(0.05, 0.3), rng.range(0.05, 0.3), rng.range(0.05, 0.3)};
        std::vector<double> pts;
        for (int i = 0; i < 40; ++i) {
            lucid_vec3 d = rng.direction();
            pts.push_back(r[0] * d.x);
            pts.push_back(r[1] * d.y);
            pts.push_back(r[2] * d.z);
        }
        lucid_convex_mesh *m = nullptr;
        if (lucid_convex_mesh_create(pts.data(), 40, &m) == LUCID_OK) meshes.push_back(m);
    }
    return meshes;
}

inline Shape random_shape(Rng &rng, int kind, const std::vector<lucid_convex_mesh *> &meshes) {
    Shape sh;
    sh.kind = (Kind)kind;
    sh.a = rng.range(0.05, 0.3);
    sh.b = rng.range(0.05, 0.3);
    sh.c = rng.range(0.05, 0.3);
    sh.mesh = nullptr;
    switch (sh.kind) {
        case BOX:
            lucid_shape_box(sh.a, sh.b, sh.c, &sh.s);
            break;
        case ELLIPSOID:
            lucid_shape_ellipsoid(sh.a, sh.b, sh.c, &sh.s);
            break;
        case CAPSULE:
            lucid_shape_capsule(sh.a, sh.b, &sh.s);
            break;
        case CYLINDER:
            lucid_shape_cylinder(sh.a, sh.b, &sh.s);
            break;
        case SPHERE:
            lucid_shape_sphere(sh.a, &sh.s);
            break;
        default:
            sh.mesh = meshes[(size_t)(rng.uniform() * (double)meshes.size()) % meshes.size()];
            lucid_shape_convex(sh.mesh, &sh.s);
            break;
    }
    return sh;
}

/* Shape 2 at a random direction from shape 1, centres 0 to 0.9 m apart: roughly a third of
 * the pairs overlap. */
inline void random_poses(Rng &rng, lucid_se3 *T1, lucid_se3 *T2) {
    *T1 = rng.pose(lucid_vec3_make(rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1)));
    *T2 = rng.pose(lucid_vec3_axpy(T1->t, rng.range(0.0, 0.9), rng.direction()));
}

/* World support of a posed shape (full shape, radius included). */
inline lucid_vec3 support(const lucid_shape *s, const lucid_se3 *T, lucid_vec3 dir) {
    return lucid_se3_act(T, lucid_shape_support(s, lucid_mat3_tmul_vec(&T->R, dir), nullptr));
}

/* e(x) of the header comment for the witness pair (p1, p2). */
inline double certified_error(const Shape &s1, const lucid_se3 &T1, const Shape &s2,
                              const lucid_se3 &T2, lucid_vec3 p1, lucid_vec3 p2) {
    lucid_vec3 x = lucid_vec3_sub(p1, p2);
    double n = lucid_vec3_norm(x);
    if (!(n > 0.0)) return INFINITY;
    lucid_vec3 s = lucid_vec3_sub(support(&s1.s, &T1, lucid_vec3_neg(x)), support(&s2.s, &T2, x));
    return n - lucid_vec3_dot(x, s) / n;
}

/* h_D(n) for a unit normal n from shape 1 to shape 2: the overlap of the shapes along n. */
inline double overlap_along(const Shape &s1, const lucid_se3 &T1, const Shape &s2,
                            const lucid_se3 &T2, lucid_vec3 n) {
    return lucid_vec3_dot(n, support(&s1.s, &T1, n)) -
           lucid_vec3_dot(n, support(&s2.s, &T2, lucid_vec3_neg(n)));
}

/* A separation/overlap disagreement is the peer's error when a certificate says so: lucid
 * separated with a positive certified lower bound d - e (the peer's "overlap" is then wrong),
 * or the peer separated with a certified lower bound <= 0 (its GJK stopped so far from the
 * optimum that it cannot tell; lucid's overlap stands). */
inline bool decision_explained(double d_lucid, double e_lucid, bool peer_separated, double d_peer,
                               double e_peer) {
    if (d_lucid > 0) return d_lucid - e_lucid > 0;
    return peer_separated && d_peer - e_peer <= 0;
}

/* Per-category tallies and the worst numbers seen, printed at the end of each test. */
struct Tally {
    int compared = 0, overlapping = 0, peer_beyond_nominal = 0, failures = 0;
    int peer_wrong_decision = 0, peer_failed = 0;
    double max_diff = 0, max_diff_nominal_ok = 0, max_peer_error = 0, max_lucid_error = 0;
};

inline void print_tally(const char *peer, const char *kind, const Tally &t) {
    std::printf(
        "%-22s %-9s compared %5d (overlapping %5d)  max |lucid - peer| %.2e  "
        "peer beyond its nominal tolerance: %d (certified peer error up to %.2e)  "
        "max lucid certified error %.2e  peer decision refuted or uncertified: %d  peer returned "
        "no answer: %d  failures %d\n",
        peer, kind, t.compared, t.overlapping, t.max_diff, t.peer_beyond_nominal, t.max_peer_error,
        t.max_lucid_error, t.peer_wrong_decision, t.peer_failed, t.failures);
}

} // namespace peers

#endif
