/* Agreement with Bullet 3.24 (optional: Debian libbullet-dev) on signed distances: 10,000 random
 * pairs per shape type (box, sphere, capsule, convex hull as shape 1, shape 2 cycling through
 * the four), with btGjkEpaSolver2::SignedDistance (GJK, then EPA when overlapping).
 *
 * Fairness and tolerances (certificates: tests/c/common/test_collision_peers.hpp):
 *  - Debian builds Bullet in single precision (btScalar = float): poses, supports and results
 *    are rounded to float (relative 6e-8); with coordinates up to ~2.5 m we allow
 *    FLOAT_ROUNDING = 2e-6 m (about 16 float ulps at 2.5 m) on top of every tolerance.
 *  - SignedDistance works on the shapes without their collision margins. Boxes and hulls get
 *    margin 0, so Bullet sees the exact shapes; btSphereShape and btCapsuleShapeZ are a point /
 *    segment whose margin is the radius, exactly lucid's core + radius: Bullet's core distance
 *    minus the two radii is compared (what btGjkPairDetector does with margins).
 *  - Bullet's float GJK stops when (|x| - alpha) <= 1e-4 |x| (relative 1e-4), or when a new
 *    support point repeats an earlier one within 1e-2 m (no guarantee), and reports contact
 *    once |x| < 1e-4. Its EPA stops when the support gap on the closest face is below 1e-4 m.
 *    Nominal tolerances: separated 1e-4 d, overlapping 1e-4 m, plus FLOAT_ROUNDING.
 *  - Separated pairs: as for FCL, a difference beyond the nominal tolerance must be proven to be
 *    Bullet's own error by its certified error (exact supports) and stay rare (< 2%).
 *  - Overlapping pairs: any unit normal n bounds the depth by the overlap h_D(n), so Bullet's
 *    normal must not prove lucid's depth too large (d_lucid >= -h_D(n_bullet) - rounding) and
 *    lucid's normal must not prove Bullet's too large; the depths must agree within 1e-4 m
 *    except in a rare (< 2%) set, where Bullet's EPA stopped early: its depth is then below
 *    lucid's (EPA only ever under-estimates a depth: its polytope lies inside D), which the
 *    test checks, and the largest such shortfall is printed. */
#include <memory>

#include "tests/c/common/test_collision_peers.hpp"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>

using namespace peers;

namespace {

const int PAIRS_PER_KIND = 10000;
const double FLOAT_ROUNDING = 2e-6;
const double NOMINAL = 1e-4;
const int KINDS[4] = {BOX, SPHERE, CAPSULE, CONVEX};

btTransform to_bullet(const lucid_se3 &T) {
    const double *m = T.R.m; /* column-major: R(i, j) = m[i + 3j] */
    btMatrix3x3 R((btScalar)m[0], (btScalar)m[3], (btScalar)m[6], (btScalar)m[1], (btScalar)m[4],
                  (btScalar)m[7], (btScalar)m[2], (btScalar)m[5], (btScalar)m[8]);
    return btTransform(R, btVector3((btScalar)T.t.x, (btScalar)T.t.y, (btScalar)T.t.z));
}

lucid_vec3 from_bullet(const btVector3 &v) {
    return lucid_vec3_make(v.x(), v.y(), v.z());
}

std::unique_ptr<btConvexShape> bullet_shape(const Shape &sh) {
    switch (sh.kind) {
        case BOX: {
            auto b = std::make_unique<btBoxShape>(
                btVector3((btScalar)sh.a, (btScalar)sh.b, (btScalar)sh.c));
            b->setMargin(0);
            return b;
        }
        case SPHERE:
            return std::make_unique<btSphereShape>((btScalar)sh.a);
        case CAPSULE:
            return std::make_unique<btCapsuleShapeZ>((btScalar)sh.a, (btScalar)(2 * sh.b));
        default: {
            auto h = std::make_unique<btConvexHullShape>();
            for (int i = 0; i < sh.mesh->num_vertices; ++i) {
                lucid_vec3 v = sh.mesh->vertices[i];
                h->addPoint(btVector3((btScalar)v.x, (btScalar)v.y, (btScalar)v.z), false);
            }
            h->recalcLocalAabb();
            h->setMargin(0);
            return h;
        }
    }
}

struct BulletAnswer {
    bool ok;
    double distance; /* signed, full shapes */
    lucid_vec3 p1, p2, normal;
};

/* Bullet's answer on the cores, inflated by the radii along its normal (from 1 to 2). */
BulletAnswer bullet_distance(const Shape &s1, const lucid_se3 &T1, const Shape &s2,
                             const lucid_se3 &T2) {
    std::unique_ptr<btConvexShape> b1 = bullet_shape(s1), b2 = bullet_shape(s2);
    btGjkEpaSolver2::sResults res;
    btVector3 guess((btScalar)(T1.t.x - T2.t.x), (btScalar)(T1.t.y - T2.t.y),
                    (btScalar)(T1.t.z - T2.t.z));
    BulletAnswer a{};
    a.ok = btGjkEpaSolver2::SignedDistance(b1.get(), to_bullet(T1), b2.get(), to_bullet(T2), guess,
                                           res);
    if (!a.ok) return a;
    lucid_vec3 w0 = from_bullet(res.witnesses[0]), w1 = from_bullet(res.witnesses[1]);
    double core = res.distance;
    lucid_vec3 delta = lucid_vec3_sub(w1, w0); /* = core * normal */
    a.ok = std::fabs(core) > 0 && lucid_vec3_norm(delta) > 0;
    if (!a.ok) return a;
    a.normal = lucid_vec3_scale(delta, 1.0 / core);
    a.normal = lucid_vec3_normalized(a.normal);
    double r1 = s1.s.radius, r2 = s2.s.radius;
    a.distance = core - r1 - r2;
    a.p1 = lucid_vec3_axpy(w0, r1, a.normal);
    a.p2 = lucid_vec3_axpy(w1, -r2, a.normal);
    return a;
}

struct PenetrationTally {
    int compared = 0, beyond_nominal = 0, failures = 0;
    double max_diff_nominal = 0, max_shortfall = 0;
};

void compare_separated(const Shape &s1, const lucid_se3 &T1, const Shape &s2, const lucid_se3 &T2,
                       const lucid_distance_result &r, const BulletAnswer &b, Tally &t) {
    t.compared++;
    double e_l = certified_error(s1, T1, s2, T2, r.p1, r.p2);
    double e_b = certified_error(s1, T1, s2, T2, b.p1, b.p2);
    double diff = std::fabs(r.distance - b.distance);
    double nominal = NOMINAL * b.distance + FLOAT_ROUNDING;
    double core = r.distance + s1.s.radius + s2.s.radius;
    t.max_diff = std::fmax(t.max_diff, diff);
    t.max_lucid_error = std::fmax(t.max_lucid_error, e_l);
    bool ok = e_l <= 0.5 * 1e-8 / core + 1e-12;
    if (diff > nominal + e_l) {
        t.peer_beyond_nominal++;
        t.max_peer_error = std::fmax(t.max_peer_error, e_b);
        if (!(e_b > NOMINAL * b.distance) || diff > e_b + e_l + FLOAT_ROUNDING) ok = false;
    }
    if (!ok && t.failures++ < 5)
        std::printf("  %s-%s separated: lucid %.9g (cert %.2e) bullet %.9g (cert %.2e)\n",
                    kind_name(s1.kind), kind_name(s2.kind), r.distance, e_l, b.distance, e_b);
}

void compare_overlapping(const Shape &s1, const lucid_se3 &T1, const Shape &s2, const lucid_se3 &T2,
                         const lucid_distance_result &r, const BulletAnswer &b,
                         PenetrationTally &t) {
    t.compared++;
    double bound_from_bullet = -overlap_along(s1, T1, s2, T2, b.normal);
    double bound_from_lucid = -overlap_along(s1, T1, s2, T2, r.normal);
    bool ok = r.distance >= bound_from_bullet - FLOAT_ROUNDING &&
              b.distance >= bound_from_lucid - FLOAT_ROUNDING;
    double diff = std::fabs(r.distance - b.distance);
    if (diff <= NOMINAL + FLOAT_ROUNDING) {
        t.max_diff_nominal = std::fmax(t.max_diff_nominal, diff);
    } else {
        /* Bullet's EPA stopped early: only its depth may be the smaller one. */
        t.beyond_nominal++;
        t.max_shortfall = std::fmax(t.max_shortfall, b.distance - r.distance);
        if (!(b.distance > r.distance)) ok = false;
    }
    if (!ok && t.failures++ < 5)
        std::printf("  %s-%s overlapping: lucid %.9g (bound from bullet's normal %.9g) bullet %.9g "
                    "(bound from lucid's normal %.9g)\n",
                    kind_name(s1.kind), kind_name(s2.kind), r.distance, bound_from_bullet,
                    b.distance, bound_from_lucid);
}

} // namespace

int main() {
    Rng rng{977};
    std::vector<lucid_convex_mesh *> meshes = make_meshes(rng, 16);
    int failed = 0;
    for (int kind : KINDS) {
        Tally t;
        PenetrationTally p;
        int undecided = 0;
        for (int i = 0; i < PAIRS_PER_KIND; ++i) {
            Shape s1 = random_shape(rng, kind, meshes);
            Shape s2 = random_shape(rng, KINDS[i % 4], meshes);
            lucid_se3 T1, T2;
            random_poses(rng, &T1, &T2);
            lucid_distance_result r;
            if (lucid_distance(&s1.s, &T1, &s2.s, &T2, nullptr, &r) != LUCID_OK ||
                (r.distance > 0 && !r.converged)) {
                t.failures++;
                continue;
            }
            double core = r.distance + s1.s.radius + s2.s.radius;
            /* Bullet reports contact once its core iterate is within 1e-4 of the origin, and its
             * EPA is undefined on touching cores: those pairs carry no sign to compare. */
            if (std::fabs(core) <= NOMINAL + FLOAT_ROUNDING) {
                undecided++;
                continue;
            }
            BulletAnswer b = bullet_distance(s1, T1, s2, T2);
            if (!b.ok) { /* btGjkEpaSolver2 returns false when its EPA fails */
                t.peer_failed++;
                continue;
            }
            if ((b.distance > 0) != (r.distance > 0)) {
                double e_l = r.distance > 0 ? certified_error(s1, T1, s2, T2, r.p1, r.p2) : 0.0;
                double e_b = b.distance > 0 ? certified_error(s1, T1, s2, T2, b.p1, b.p2) : 0.0;
                if (decision_explained(r.distance, e_l, b.distance > 0, b.distance, e_b))
                    t.peer_wrong_decision++;
                else if (t.failures++ < 5)
                    std::printf("  %s-%s: decision differs: lucid %.9g bullet %.9g (cert %.2e)\n",
                                kind_name(s1.kind), kind_name(s2.kind), r.distance, b.distance,
                                e_b);
                continue;
            }
            if (r.distance > 0)
                compare_separated(s1, T1, s2, T2, r, b, t);
            else
                compare_overlapping(s1, T1, s2, T2, r, b, p);
        }
        t.overlapping = p.compared;
        print_tally("bullet SignedDistance", kind_name(kind), t);
        std::printf("%-22s %-9s overlapping %5d: max |lucid - bullet| within nominal %.2e, "
                    "beyond nominal %d (bullet depth short by up to %.2e), failures %d, "
                    "skipped at contact %d\n",
                    "bullet SignedDistance", kind_name(kind), p.compared, p.max_diff_nominal,
                    p.beyond_nominal, p.max_shortfall, p.failures, undecided);
        if (t.failures > 0 || p.failures > 0 || t.compared < PAIRS_PER_KIND / 3 ||
            p.compared < PAIRS_PER_KIND / 10 ||
            t.peer_beyond_nominal + t.peer_wrong_decision > PAIRS_PER_KIND / 50 ||
            p.beyond_nominal > PAIRS_PER_KIND / 50 || t.peer_failed > PAIRS_PER_KIND / 1000)
            failed = 1;
    }
    for (lucid_convex_mesh *m : meshes) lucid_convex_mesh_destroy(m);
    std::printf(failed ? "FAILED\n" : "all pairs agree within the tolerances above\n");
    return failed;
}
