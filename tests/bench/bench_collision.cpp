// bench_collision: lucid's GJK / Polyak / Nesterov / EPA against FCL 0.7 (libccd-based and
// FCL's own GJK), libccd 2.1 and Bullet 3.24 on identical poses, reproducing the protocols of
// Montaut et al. "GJK++" (Sec. IV) and "Collision Detection Accelerated" (RSS 2022, Sec. IV).
// C++17 only because the peers are C++ libraries; lucid is reached through lucid_facade.h (C11).
// Run with --help for the options; docs/benchmarks/collision.md records a run.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <ccd/ccd.h>

#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/ellipsoid.h>
#include <fcl/narrowphase/detail/gjk_solver_indep.h>
#include <fcl/narrowphase/detail/gjk_solver_libccd.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btConvexInternalShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

extern "C" {
#include "lucid_facade.h"
}

namespace {

// ---------------------------------------------------------------------------------------
// Options
struct Options {
    int pairs = 1000;      // ellipsoid and box pairs (the paper's 1000)
    int mesh_pairs = 300;  // pairs of mesh hulls
    int subdiv_pairs = 40; // pairs of subdivided hulls (3k-10k vertices)
    int poses = 100;
    int repeats = 0; // 0: automatic per category
    unsigned long seed = 1;
    std::string category = "all";  // ellipsoid, box, mesh, subdiv, warmstart, all
    std::string meshes;            // directory holding manifest.tsv
    std::vector<double> distances; // the controlled signed distances, cycled over the poses
    bool json = false;
    bool peers = true; // --no-peers: lucid only (for profiling lucid)
};

void usage() {
    std::printf(
        "usage: bench_collision [--pairs N] [--mesh-pairs N] [--subdiv-pairs N] [--poses N]\n"
        "                       [--repeats N] [--seed S] [--category "
        "all|ellipsoid|box|mesh|subdiv|warmstart]\n"
        "                       [--meshes DIR] [--distances d1,d2,...] [--no-peers] [--json]\n"
        "  --pairs caps every pair count (a quick run: --pairs 20 --poses 24).\n");
}

bool parse_options(int argc, char **argv, Options *o) {
    bool mesh_set = false, subdiv_set = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&](const char *what) -> const char * {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_collision: %s needs a value\n", what);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--pairs")
            o->pairs = std::atoi(next("--pairs"));
        else if (a == "--mesh-pairs") {
            o->mesh_pairs = std::atoi(next("--mesh-pairs"));
            mesh_set = true;
        } else if (a == "--subdiv-pairs") {
            o->subdiv_pairs = std::atoi(next("--subdiv-pairs"));
            subdiv_set = true;
        } else if (a == "--poses")
            o->poses = std::atoi(next("--poses"));
        else if (a == "--repeats")
            o->repeats = std::atoi(next("--repeats"));
        else if (a == "--seed")
            o->seed = std::strtoul(next("--seed"), nullptr, 10);
        else if (a == "--category")
            o->category = next("--category");
        else if (a == "--meshes")
            o->meshes = next("--meshes");
        else if (a == "--json")
            o->json = true;
        else if (a == "--no-peers")
            o->peers = false;
        else if (a == "--distances") {
            o->distances.clear();
            std::stringstream ss(next("--distances"));
            std::string item;
            while (std::getline(ss, item, ',')) o->distances.push_back(std::atof(item.c_str()));
        } else if (a == "--help" || a == "-h") {
            usage();
            std::exit(0);
        } else {
            std::fprintf(stderr, "bench_collision: unknown option %s\n", a.c_str());
            usage();
            return false;
        }
    }
    if (o->pairs < 1 || o->poses < 1 || o->mesh_pairs < 1 || o->subdiv_pairs < 1 ||
        o->repeats < 0) {
        std::fprintf(stderr, "bench_collision: counts must be positive\n");
        return false;
    }
    if (!mesh_set) o->mesh_pairs = std::min(o->mesh_pairs, o->pairs);
    if (!subdiv_set) o->subdiv_pairs = std::min(o->subdiv_pairs, o->pairs);
    static const char *cats[] = {"all", "ellipsoid", "box", "mesh", "subdiv", "warmstart"};
    if (std::find(std::begin(cats), std::end(cats), o->category) == std::end(cats)) {
        std::fprintf(stderr, "bench_collision: unknown category %s\n", o->category.c_str());
        return false;
    }
    return true;
}

double now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

// ---------------------------------------------------------------------------------------
// Small linear algebra on plain arrays (poses: R column-major, then t).
struct Pose {
    double m[12]; // R(i, j) = m[i + 3 j]; t = m[9..11]
    double R(int i, int j) const { return m[i + 3 * j]; }
    const double *t() const { return m + 9; }
};

void rot_apply(const Pose &T, const double v[3], double out[3]) {
    for (int i = 0; i < 3; ++i) out[i] = T.R(i, 0) * v[0] + T.R(i, 1) * v[1] + T.R(i, 2) * v[2];
}
void rot_apply_t(const Pose &T, const double v[3], double out[3]) {
    for (int j = 0; j < 3; ++j) out[j] = T.R(0, j) * v[0] + T.R(1, j) * v[1] + T.R(2, j) * v[2];
}

Pose random_rotation(std::mt19937_64 &rng) {
    std::normal_distribution<double> n01(0.0, 1.0);
    double q[4], s = 0.0;
    do {
        s = 0.0;
        for (double &c : q) {
            c = n01(rng);
            s += c * c;
        }
    } while (s < 1e-12);
    s = std::sqrt(s);
    double w = q[0] / s, x = q[1] / s, y = q[2] / s, z = q[3] / s;
    Pose T{};
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) T.m[i + 3 * j] = r[i][j];
    return T;
}

void random_unit(std::mt19937_64 &rng, double u[3]) {
    std::normal_distribution<double> n01(0.0, 1.0);
    double s;
    do {
        s = 0.0;
        for (int i = 0; i < 3; ++i) {
            u[i] = n01(rng);
            s += u[i] * u[i];
        }
    } while (s < 1e-12);
    s = std::sqrt(s);
    for (int i = 0; i < 3; ++i) u[i] /= s;
}

// ---------------------------------------------------------------------------------------
// Geometry shared by every library: one description, one object per library built from it.
enum class Kind { Ellipsoid, Box, Mesh };

struct Geom {
    Kind kind;
    double a[3] = {0, 0, 0}; // ellipsoid radii / box half extents
    std::string name;
    std::vector<double> verts; // hull vertices (meshes)
    double bound = 0.0;        // circumscribed radius about the local origin
    bench_lucid_shape *lucid = nullptr;
    std::shared_ptr<fcl::CollisionGeometryd> fcl;
    std::unique_ptr<btConvexShape> bt;
    int nverts() const { return int(verts.size() / 3); }
    ~Geom() { bench_lucid_shape_destroy(lucid); }
};

// Exact local support, used by the libccd callbacks (libccd has no shapes of its own).
void local_support(const Geom &g, const double d[3], double out[3]) {
    switch (g.kind) {
        case Kind::Ellipsoid: {
            double ad[3] = {g.a[0] * d[0], g.a[1] * d[1], g.a[2] * d[2]};
            double n = std::sqrt(ad[0] * ad[0] + ad[1] * ad[1] + ad[2] * ad[2]);
            for (int i = 0; i < 3; ++i) out[i] = n > 0 ? g.a[i] * ad[i] / n : 0.0;
            return;
        }
        case Kind::Box:
            for (int i = 0; i < 3; ++i) out[i] = d[i] >= 0 ? g.a[i] : -g.a[i];
            return;
        case Kind::Mesh: {
            // Linear scan: what a libccd user writes; libccd has no adjacency structure.
            const double *v = g.verts.data();
            int best = 0, n = g.nverts();
            double bd = -INFINITY;
            for (int k = 0; k < n; ++k) {
                double s = v[3 * k] * d[0] + v[3 * k + 1] * d[1] + v[3 * k + 2] * d[2];
                if (s > bd) {
                    bd = s;
                    best = k;
                }
            }
            std::memcpy(out, v + 3 * best, 3 * sizeof(double));
            return;
        }
    }
}

// Bullet has no ellipsoid; btMultiSphereShape with local scaling is NOT an ellipsoid (its
// support scales the sphere's support point, not the direction), so we give Bullet the
// exact ellipsoid support through its documented extension point, a btConvexInternalShape.
class BtEllipsoid : public btConvexInternalShape {
  public:
    explicit BtEllipsoid(const double r[3]) : r_(r[0], r[1], r[2]) {
        m_shapeType = CUSTOM_CONVEX_SHAPE_TYPE;
        setMargin(0.0);
    }
    btVector3 localGetSupportingVertexWithoutMargin(const btVector3 &d) const override {
        btVector3 ad = r_ * d;
        btScalar n = ad.length();
        return n > 0 ? r_ * ad / n : btVector3(0, 0, 0);
    }
    void batchedUnitVectorGetSupportingVertexWithoutMargin(const btVector3 *v, btVector3 *out,
                                                           int n) const override {
        for (int i = 0; i < n; ++i) out[i] = localGetSupportingVertexWithoutMargin(v[i]);
    }
    void getAabb(const btTransform &t, btVector3 &lo, btVector3 &hi) const override {
        getAabbSlow(t, lo, hi);
    }
    void calculateLocalInertia(btScalar, btVector3 &inertia) const override { inertia.setZero(); }
    const char *getName() const override { return "LucidBenchEllipsoid"; }
    int getNumPreferredPenetrationDirections() const override { return 0; }
    void getPreferredPenetrationDirection(int, btVector3 &) const override {}

  private:
    btVector3 r_;
};

std::unique_ptr<Geom> make_primitive(Kind kind, const double a[3]) {
    auto g = std::make_unique<Geom>();
    g->kind = kind;
    std::memcpy(g->a, a, sizeof g->a);
    if (kind == Kind::Ellipsoid) {
        g->lucid = bench_lucid_ellipsoid(a[0], a[1], a[2]);
        g->fcl = std::make_shared<fcl::Ellipsoidd>(a[0], a[1], a[2]);
        g->bt = std::make_unique<BtEllipsoid>(a);
        g->bound = std::max({a[0], a[1], a[2]});
    } else {
        g->lucid = bench_lucid_box(a[0], a[1], a[2]);
        g->fcl = std::make_shared<fcl::Boxd>(2 * a[0], 2 * a[1], 2 * a[2]);
        auto box = std::make_unique<btBoxShape>(btVector3(a[0], a[1], a[2]));
        box->setMargin(0.0); // Bullet's default 0.04 m margin rounds the corners
        g->bt = std::move(box);
        g->bound = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    }
    if (!g->lucid) {
        std::fprintf(stderr, "bench_collision: lucid rejected a primitive\n");
        std::exit(1);
    }
    return g;
}

// Hull of points through lucid; the peers receive lucid's hull vertices (and faces for FCL).
std::unique_ptr<Geom> make_hull(const std::string &name, const std::vector<double> &pts) {
    auto g = std::make_unique<Geom>();
    g->kind = Kind::Mesh;
    g->name = name;
    char err[256] = "";
    g->lucid = bench_lucid_hull(pts.data(), int(pts.size() / 3), err, sizeof err);
    if (!g->lucid) {
        std::fprintf(stderr, "bench_collision: hull of %s failed: %s\n", name.c_str(), err);
        return nullptr;
    }
    const double *xyz = nullptr;
    int nv = bench_lucid_hull_vertices(g->lucid, &xyz);
    g->verts.assign(xyz, xyz + 3 * nv);
    for (int k = 0; k < nv; ++k)
        g->bound =
            std::max(g->bound, std::sqrt(xyz[3 * k] * xyz[3 * k] + xyz[3 * k + 1] * xyz[3 * k + 1] +
                                         xyz[3 * k + 2] * xyz[3 * k + 2]));
    const int *off = nullptr, *fv = nullptr;
    int nf = bench_lucid_hull_faces(g->lucid, &off, &fv);
    auto vv = std::make_shared<std::vector<fcl::Vector3d>>();
    for (int k = 0; k < nv; ++k) vv->emplace_back(xyz[3 * k], xyz[3 * k + 1], xyz[3 * k + 2]);
    auto faces = std::make_shared<std::vector<int>>();
    for (int f = 0; f < nf; ++f) {
        faces->push_back(off[f + 1] - off[f]);
        for (int k = off[f]; k < off[f + 1]; ++k) faces->push_back(fv[k]);
    }
    g->fcl = std::make_shared<fcl::Convexd>(vv, nf, faces);
    auto hull = std::make_unique<btConvexHullShape>();
    for (int k = 0; k < nv; ++k)
        hull->addPoint(btVector3(xyz[3 * k], xyz[3 * k + 1], xyz[3 * k + 2]), false);
    hull->recalcLocalAabb();
    hull->setMargin(0.0);
    g->bt = std::move(hull);
    return g;
}

// ---------------------------------------------------------------------------------------
// Queries: one pose pair at a controlled signed distance, prepared for every library.
struct Query {
    int g1, g2; // indices into the category's geometry list
    Pose T1, T2;
    double nominal; // the controlled signed distance
    double ref;     // lucid vanilla at a tight tolerance (EPA when overlapping)
    int band;       // 0: d <= 0, 1: 0 < d <= 0.1, 2: d > 0.1
    int traj = -1;  // warm-start study: pair trajectory id, -1 otherwise
    fcl::Transform3d f1, f2;
    btTransform b1, b2;
};

int band_of(double d) {
    return d <= 0 ? 0 : (d <= 0.1 ? 1 : 2);
}
const char *band_name[3] = {"d<=0", "0<d<=0.1", "d>0.1"};

void prepare_peer_poses(Query &q) {
    auto to_fcl = [](const Pose &T) {
        fcl::Transform3d f = fcl::Transform3d::Identity();
        fcl::Matrix3d R;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) R(i, j) = T.R(i, j);
        f.linear() = R;
        f.translation() = fcl::Vector3d(T.t()[0], T.t()[1], T.t()[2]);
        return f;
    };
    auto to_bt = [](const Pose &T) {
        btMatrix3x3 R(T.R(0, 0), T.R(0, 1), T.R(0, 2), T.R(1, 0), T.R(1, 1), T.R(1, 2), T.R(2, 0),
                      T.R(2, 1), T.R(2, 2));
        return btTransform(R, btVector3(T.t()[0], T.t()[1], T.t()[2]));
    };
    q.f1 = to_fcl(q.T1);
    q.f2 = to_fcl(q.T2);
    q.b1 = to_bt(q.T1);
    q.b2 = to_bt(q.T2);
}

// The tight reference: vanilla GJK, relative gap 1e-14 (about 1e-7 relative on the distance),
// used both to place the poses and as the ground truth for every method's answer.
bench_lucid_config reference_config() {
    bench_lucid_config c{BENCH_GJK, 0, 1e-14, 1, BENCH_WARM_BOX};
    return c;
}

// Poses per the paper: random rotations, a random direction, then a translation along the
// witness axis of a first accurate query so that the signed distance takes a controlled value.
const std::vector<double> kDistances = {-0.1,  -0.05, -0.01, -0.005, -0.001, 0.001,
                                        0.005, 0.01,  0.05,  0.1,    0.5,    1.0};

// Bookkeeping of the placed queries of one category.
struct QueryStats {
    bool json = false; // notes go to stderr when stdout carries JSON
    std::vector<double> distances;
    int skipped = 0, mismatched = 0, witness = 0, passed = 0;
};

// Outcome of placing one query.
enum class Placed { Ok, NoStart, RefMismatch, WitnessMismatch, PassedThrough };

// The reference must be self-consistent before anything is compared with it:
//  - separated: translating along the witness axis keeps the same closest points, so the
//    distance must come back as the target (an exact, independent property);
//  - overlapping: the depth is at most the translation past contact, and translating shape 2
//    by the depth (+1e-6) along the reported normal must separate the shapes by ~1e-6.
Placed reference_consistent(const Geom &a, const Geom &b, const Query &q, const double p1[3],
                            const double p2[3]) {
    if (q.nominal > 0)
        return std::fabs(q.ref - q.nominal) <= 1e-7 + 1e-7 * q.nominal ? Placed::Ok
                                                                       : Placed::RefMismatch;
    // A thin shape translated past contact by more than its thickness comes out separated
    // on the other side: a valid query, but not at its nominal distance.
    if (q.ref > 0) return Placed::PassedThrough;
    if (!(q.ref >= q.nominal - 1e-7)) return Placed::RefMismatch;
    if (q.ref > -1e-9) return Placed::Ok; // touching: no normal to test
    bench_lucid_config cfg = reference_config();
    Pose T2 = q.T2;
    for (int k = 0; k < 3; ++k) T2.m[9 + k] += (-q.ref + 1e-6) * (p2[k] - p1[k]) / q.ref;
    int it;
    double d = bench_lucid_distance(a.lucid, q.T1.m, b.lucid, T2.m, &cfg, nullptr, 0, nullptr,
                                    nullptr, &it);
    if (std::getenv("BENCH_DEBUG") && std::fabs(d - 1e-6) > 1e-7)
        std::fprintf(
            stderr,
            "translation test: depth %.9g, distance after translating by depth + 1e-6: %.9g\n",
            -q.ref, d);
    return std::fabs(d - 1e-6) <= 1e-7 ? Placed::Ok : Placed::WitnessMismatch;
}

Placed place_query(const std::vector<std::unique_ptr<Geom>> &geoms, int i1, int i2, double target,
                   std::mt19937_64 &rng, Query *q) {
    const Geom &a = *geoms[i1], &b = *geoms[i2];
    bench_lucid_config ref = reference_config();
    for (int attempt = 0; attempt < 10; ++attempt) {
        q->g1 = i1;
        q->g2 = i2;
        q->T1 = random_rotation(rng);
        q->T2 = random_rotation(rng);
        double u[3];
        random_unit(rng, u);
        double c = a.bound + b.bound + 0.05;
        for (int k = 0; k < 3; ++k) {
            q->T1.m[9 + k] = 0.0;
            q->T2.m[9 + k] = c * u[k];
        }
        double p1[3], p2[3];
        int it = 0;
        double d0 =
            bench_lucid_distance(a.lucid, q->T1.m, b.lucid, q->T2.m, &ref, nullptr, 0, p1, p2, &it);
        if (!(d0 > 1e-6)) continue; // must start separated, with a well-defined witness axis
        double n[3] = {(p2[0] - p1[0]) / d0, (p2[1] - p1[1]) / d0, (p2[2] - p1[2]) / d0};
        for (int k = 0; k < 3; ++k) q->T2.m[9 + k] += (target - d0) * n[k];
        q->nominal = target;
        q->ref =
            bench_lucid_distance(a.lucid, q->T1.m, b.lucid, q->T2.m, &ref, nullptr, 0, p1, p2, &it);
        q->band = band_of(target);
        prepare_peer_poses(*q);
        Placed outcome = reference_consistent(a, b, *q, p1, p2);
        if (outcome == Placed::PassedThrough) q->band = band_of(q->ref);
        return outcome;
    }
    return Placed::NoStart;
}

// ---------------------------------------------------------------------------------------
// Methods: a name, a mode, the subset of queries it answers, and the call itself.
enum class Mode { Distance, Boolean, Penetration };

struct Method {
    std::string name;
    std::string library; // "lucid" or the peer's name
    Mode mode;
    std::string tolerance; // how its tolerance is set
    int subset = 0; // 0: every query, 1: overlapping (reference d <= 0) only, 2: separated only
    // returns the answer: signed distance (Distance/Penetration) or 1/0 (Boolean)
    std::function<double(const Query &, int *iters)> run;
    double gap_tol = 0; // absolute duality-gap tolerance, when the method stops on one
};

struct CcdObj {
    const Geom *g;
    const Pose *T;
};

void ccd_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out) {
    const CcdObj *o = static_cast<const CcdObj *>(obj);
    double d[3] = {dir->v[0], dir->v[1], dir->v[2]}, dl[3], sl[3], sw[3];
    rot_apply_t(*o->T, d, dl);
    local_support(*o->g, dl, sl);
    rot_apply(*o->T, sl, sw);
    for (int i = 0; i < 3; ++i) out->v[i] = sw[i] + o->T->t()[i];
}

void ccd_center(const void *obj, ccd_vec3_t *c) {
    const CcdObj *o = static_cast<const CcdObj *>(obj);
    for (int i = 0; i < 3; ++i) c->v[i] = o->T->t()[i];
}

// Tolerances (see docs/benchmarks/collision.md): lucid's relative gap test g <= tol ||x||^2
// with tol = 2e-6 is algebraically FCL-GJK's test (|x| - <x,s>/|x|) <= 1e-6 |x|; lucid's EPA
// then stops at a 1e-6 m support gap like the peers' EPA / MPR tolerances.
const double kFclTol = 1e-6;
const double kLucidMatchedTol = 2 * kFclTol;
const double kPaperTol = 1e-8; // the papers' absolute duality-gap tolerance

std::vector<Method> lucid_methods(bool matched, const std::vector<std::unique_ptr<Geom>> *geoms) {
    struct Variant {
        const char *name;
        int alg, norm;
    };
    static const Variant variants[] = {{"gjk", BENCH_GJK, 0},
                                       {"polyak", BENCH_POLYAK, 0},
                                       {"polyak+n", BENCH_POLYAK, 1},
                                       {"nesterov", BENCH_NESTEROV, 0},
                                       {"nesterov+n", BENCH_NESTEROV, 1}};
    std::vector<Method> out;
    for (Mode mode : {Mode::Distance, Mode::Boolean}) {
        for (const Variant &v : variants) {
            bench_lucid_config cfg{
                v.alg,           v.norm,         matched ? kLucidMatchedTol : kPaperTol,
                matched ? 1 : 0, BENCH_WARM_BOX, matched ? kFclTol : 0.0};
            Method m;
            m.name = std::string("lucid ") + v.name + (matched ? "" : " (paper tol)");
            m.library = "lucid";
            m.mode = mode;
            m.tolerance =
                matched ? "relative gap 2e-6, EPA 1e-6" : "absolute gap 1e-8, EPA default 1e-9";
            m.gap_tol = matched ? 0.0 : kPaperTol;
            if (mode == Mode::Distance)
                m.run = [cfg, geoms](const Query &q, int *it) {
                    return bench_lucid_distance((*geoms)[q.g1]->lucid, q.T1.m,
                                                (*geoms)[q.g2]->lucid, q.T2.m, &cfg, nullptr, 0,
                                                nullptr, nullptr, it);
                };
            else
                m.run = [cfg, geoms](const Query &q, int *it) {
                    return double(bench_lucid_collide((*geoms)[q.g1]->lucid, q.T1.m,
                                                      (*geoms)[q.g2]->lucid, q.T2.m, &cfg, nullptr,
                                                      0, it));
                };
            out.push_back(std::move(m));
        }
    }
    return out;
}

template <typename Solver>
double fcl_signed_distance(const Solver &solver, const Geom &a, const fcl::Transform3d &f1,
                           const Geom &b, const fcl::Transform3d &f2) {
    double d = 0.0;
    auto call = [&](const auto &s1, const auto &s2) {
        solver.shapeSignedDistance(s1, f1, s2, f2, &d);
    };
    auto dispatch2 = [&](const auto &s1) {
        switch (b.kind) {
            case Kind::Ellipsoid:
                call(s1, static_cast<const fcl::Ellipsoidd &>(*b.fcl));
                break;
            case Kind::Box:
                call(s1, static_cast<const fcl::Boxd &>(*b.fcl));
                break;
            case Kind::Mesh:
                call(s1, static_cast<const fcl::Convexd &>(*b.fcl));
                break;
        }
    };
    switch (a.kind) {
        case Kind::Ellipsoid:
            dispatch2(static_cast<const fcl::Ellipsoidd &>(*a.fcl));
            break;
        case Kind::Box:
            dispatch2(static_cast<const fcl::Boxd &>(*a.fcl));
            break;
        case Kind::Mesh:
            dispatch2(static_cast<const fcl::Convexd &>(*a.fcl));
            break;
    }
    return d;
}

template <typename Solver>
bool fcl_intersect(const Solver &solver, const Geom &a, const fcl::Transform3d &f1, const Geom &b,
                   const fcl::Transform3d &f2) {
    bool hit = false;
    auto call = [&](const auto &s1, const auto &s2) {
        hit = solver.shapeIntersect(s1, f1, s2, f2,
                                    static_cast<std::vector<fcl::ContactPointd> *>(nullptr));
    };
    auto dispatch2 = [&](const auto &s1) {
        switch (b.kind) {
            case Kind::Ellipsoid:
                call(s1, static_cast<const fcl::Ellipsoidd &>(*b.fcl));
                break;
            case Kind::Box:
                call(s1, static_cast<const fcl::Boxd &>(*b.fcl));
                break;
            case Kind::Mesh:
                call(s1, static_cast<const fcl::Convexd &>(*b.fcl));
                break;
        }
    };
    switch (a.kind) {
        case Kind::Ellipsoid:
            dispatch2(static_cast<const fcl::Ellipsoidd &>(*a.fcl));
            break;
        case Kind::Box:
            dispatch2(static_cast<const fcl::Boxd &>(*a.fcl));
            break;
        case Kind::Mesh:
            dispatch2(static_cast<const fcl::Convexd &>(*a.fcl));
            break;
    }
    return hit;
}

// FCL's EPA through shapeIntersect with a contact list: minus the penetration depth, or +1
// when FCL finds no overlap (which then disagrees with the overlapping reference).
template <typename Solver>
double fcl_penetration(const Solver &solver, const Geom &a, const fcl::Transform3d &f1,
                       const Geom &b, const fcl::Transform3d &f2) {
    std::vector<fcl::ContactPointd> contacts;
    bool hit = false;
    auto call = [&](const auto &s1, const auto &s2) {
        hit = solver.shapeIntersect(s1, f1, s2, f2, &contacts);
    };
    auto dispatch2 = [&](const auto &s1) {
        switch (b.kind) {
            case Kind::Ellipsoid:
                call(s1, static_cast<const fcl::Ellipsoidd &>(*b.fcl));
                break;
            case Kind::Box:
                call(s1, static_cast<const fcl::Boxd &>(*b.fcl));
                break;
            case Kind::Mesh:
                call(s1, static_cast<const fcl::Convexd &>(*b.fcl));
                break;
        }
    };
    switch (a.kind) {
        case Kind::Ellipsoid:
            dispatch2(static_cast<const fcl::Ellipsoidd &>(*a.fcl));
            break;
        case Kind::Box:
            dispatch2(static_cast<const fcl::Boxd &>(*a.fcl));
            break;
        case Kind::Mesh:
            dispatch2(static_cast<const fcl::Convexd &>(*a.fcl));
            break;
    }
    if (!hit || contacts.empty()) return 1.0;
    double depth = 0.0;
    // FCL 0.7's own EPA stores -depth in penetration_depth (its libccd path stores +depth).
    for (const auto &c : contacts) depth = std::max(depth, std::fabs(c.penetration_depth));
    return -depth;
}

std::vector<Method> peer_methods(const std::vector<std::unique_ptr<Geom>> *geoms) {
    std::vector<Method> out;
    auto G = [geoms](int i) -> const Geom & { return *(*geoms)[i]; };

    // FCL 0.7, both narrowphase solvers, called directly (no broadphase / dispatch overhead).
    auto ccd_solver = std::make_shared<fcl::detail::GJKSolver_libccd<double>>();
    ccd_solver->distance_tolerance = kFclTol;
    ccd_solver->collision_tolerance = kFclTol;
    auto indep = std::make_shared<fcl::detail::GJKSolver_indep<double>>();
    indep->gjk_tolerance = kFclTol;
    indep->epa_tolerance = kFclTol;
    out.push_back({"fcl-libccd", "fcl", Mode::Distance,
                   "dist_tolerance 1e-6 (abs. progress), EPA 1e-6", 0,
                   [=](const Query &q, int *it) {
                       *it = -1;
                       return fcl_signed_distance(*ccd_solver, G(q.g1), q.f1, G(q.g2), q.f2);
                   }});
    // A tighter libccd tolerance, to show what matching the others' accuracy costs.
    auto ccd_tight = std::make_shared<fcl::detail::GJKSolver_libccd<double>>();
    ccd_tight->distance_tolerance = 1e-9;
    out.push_back({"fcl-libccd tol 1e-9", "fcl", Mode::Distance,
                   "dist_tolerance 1e-9 (abs. progress)", 2, [=](const Query &q, int *it) {
                       *it = -1;
                       return fcl_signed_distance(*ccd_tight, G(q.g1), q.f1, G(q.g2), q.f2);
                   }});
    // FCL's own GJK has no signed distance in 0.7 (it returns -1 on overlap): it is timed on
    // separated queries, and its EPA (shapeIntersect with contacts) on overlapping ones.
    out.push_back({"fcl-indep", "fcl", Mode::Distance, "gjk_tolerance 1e-6 (relative)", 2,
                   [=](const Query &q, int *it) {
                       *it = -1;
                       return fcl_signed_distance(*indep, G(q.g1), q.f1, G(q.g2), q.f2);
                   }});
    out.push_back({"fcl-indep epa", "fcl", Mode::Penetration, "gjk 1e-6, epa_tolerance 1e-6", 1,
                   [=](const Query &q, int *it) {
                       *it = -1;
                       return fcl_penetration(*indep, G(q.g1), q.f1, G(q.g2), q.f2);
                   }});
    out.push_back({"fcl-libccd", "fcl", Mode::Boolean, "collision_tolerance 1e-6", 0,
                   [=](const Query &q, int *it) {
                       *it = -1;
                       return double(fcl_intersect(*ccd_solver, G(q.g1), q.f1, G(q.g2), q.f2));
                   }});
    out.push_back(
        {"fcl-indep", "fcl", Mode::Boolean, "gjk_tolerance 1e-6", 0, [=](const Query &q, int *it) {
             *it = -1;
             return double(fcl_intersect(*indep, G(q.g1), q.f1, G(q.g2), q.f2));
         }});

    // libccd 2.1 directly, through support callbacks. 2.1 has no distance query (no
    // ccdGJKDist*: FCL carries its own extension for that), so it is timed on the Boolean
    // tests (GJK and MPR) and on penetration depth of overlapping pairs (GJK+EPA, MPR).
    auto make_ccd = [](const Query &q, const Geom &a, const Geom &b, ccd_t *ccd, CcdObj *o1,
                       CcdObj *o2) {
        CCD_INIT(ccd);
        ccd->support1 = ccd_support;
        ccd->support2 = ccd_support;
        ccd->center1 = ccd_center;
        ccd->center2 = ccd_center;
        ccd->max_iterations = 1000;
        ccd->epa_tolerance = kFclTol;
        ccd->mpr_tolerance = kFclTol;
        ccd->dist_tolerance = kFclTol;
        *o1 = {&a, &q.T1};
        *o2 = {&b, &q.T2};
    };
    out.push_back({"libccd-gjk", "libccd", Mode::Boolean,
                   "ccdGJKIntersect (exact test, no tolerance)", 0, [=](const Query &q, int *it) {
                       ccd_t ccd;
                       CcdObj o1, o2;
                       make_ccd(q, G(q.g1), G(q.g2), &ccd, &o1, &o2);
                       *it = -1;
                       return double(ccdGJKIntersect(&o1, &o2, &ccd));
                   }});
    out.push_back({"libccd-mpr", "libccd", Mode::Boolean, "ccdMPRIntersect, mpr_tolerance 1e-6", 0,
                   [=](const Query &q, int *it) {
                       ccd_t ccd;
                       CcdObj o1, o2;
                       make_ccd(q, G(q.g1), G(q.g2), &ccd, &o1, &o2);
                       *it = -1;
                       return double(ccdMPRIntersect(&o1, &o2, &ccd));
                   }});
    out.push_back({"libccd-gjk+epa", "libccd", Mode::Penetration,
                   "ccdGJKPenetration, epa_tolerance 1e-6", 1, [=](const Query &q, int *it) {
                       ccd_t ccd;
                       CcdObj o1, o2;
                       make_ccd(q, G(q.g1), G(q.g2), &ccd, &o1, &o2);
                       ccd_real_t depth = 0;
                       ccd_vec3_t dir, pos;
                       *it = -1;
                       int r = ccdGJKPenetration(&o1, &o2, &ccd, &depth, &dir, &pos);
                       return r == 0 ? -double(depth) : 1.0; // 1.0: "not overlapping" (flagged)
                   }});
    out.push_back({"libccd-mpr", "libccd", Mode::Penetration,
                   "ccdMPRPenetration, mpr_tolerance 1e-6", 1, [=](const Query &q, int *it) {
                       ccd_t ccd;
                       CcdObj o1, o2;
                       make_ccd(q, G(q.g1), G(q.g2), &ccd, &o1, &o2);
                       ccd_real_t depth = 0;
                       ccd_vec3_t dir, pos;
                       *it = -1;
                       int r = ccdMPRPenetration(&o1, &o2, &ccd, &depth, &dir, &pos);
                       return r == 0 ? -double(depth) : 1.0;
                   }});

    // Bullet 3.24 (double-precision build): the GJK-EPA solver's signed distance and the
    // classic btGjkPairDetector (Voronoi simplex + GJK-EPA penetration) of its pipeline.
    // Their tolerances are compile-time constants of the library; margins are set to 0.
    out.push_back({"bullet-gjkepa2", "bullet", Mode::Distance,
                   "fixed in library: GJK_ACCURACY 1e-12 relative (double build)", 0,
                   [=](const Query &q, int *it) {
                       btGjkEpaSolver2::sResults r;
                       *it = -1;
                       btVector3 guess = q.b1.getOrigin() - q.b2.getOrigin();
                       btGjkEpaSolver2::SignedDistance(G(q.g1).bt.get(), q.b1, G(q.g2).bt.get(),
                                                       q.b2, guess, r);
                       return double(r.distance);
                   }});
    out.push_back({"bullet-pairdetector", "bullet", Mode::Distance,
                   "fixed in library: REL_ERROR2 1e-12 (squared relative, double build)", 0,
                   [=](const Query &q, int *it) {
                       btVoronoiSimplexSolver simplex;
                       btGjkEpaPenetrationDepthSolver epa;
                       btGjkPairDetector det(G(q.g1).bt.get(), G(q.g2).bt.get(), &simplex, &epa);
                       btGjkPairDetector::ClosestPointInput in;
                       in.m_transformA = q.b1;
                       in.m_transformB = q.b2;
                       btPointCollector pc;
                       det.getClosestPoints(in, pc, nullptr);
                       *it = -1;
                       return pc.m_hasResult ? double(pc.m_distance) : NAN;
                   }});
    return out;
}

// ---------------------------------------------------------------------------------------
// Measurement
struct Measured {
    const Method *m;
    std::vector<double> ns;    // per query (NaN when the method does not apply)
    std::vector<double> value; // answer per query
    std::vector<int> iters;
    double max_err = 0.0; // distance modes: max |d - ref|; Boolean: count of wrong answers
    double max_err_ovl = 0.0, max_err_sep = 0.0; // the same on overlapping / separated queries
    int wrong = 0;                               // answers outside the agreement tolerance
    int answered = 0;
    bool crashed = false; // the peer aborted (e.g. an assertion) on some query
};

// Peers can abort inside their own code (FCL's libccd EPA asserts on some inputs); a first
// pass in a child process finds out without taking the benchmark down.
bool applies(const Method &m, const Query &q);

bool survives(const Method &m, const std::vector<Query> &qs) {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return true; // cannot check: run it
    if (pid == 0) {
        std::freopen("/dev/null", "w", stderr);
        for (const Query &q : qs) {
            int it;
            if (applies(m, q)) (void)m.run(q, &it);
        }
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

const char *mode_name(Mode m) {
    return m == Mode::Distance ? "distance" : (m == Mode::Boolean ? "boolean" : "penetration");
}

bool applies(const Method &m, const Query &q) {
    return m.subset == 0 || (m.subset == 1 ? q.ref <= 0 : q.ref > 0);
}

// Agreement with the reference: 1e-5 m absolute plus 1e-5 relative, i.e. ten times the 1e-6
// accuracy every library is configured for (or compiled with). A method stopping on an
// absolute duality gap g <= eps only guarantees ||x|| - d* <= eps / (||x|| + d*) (from
// ||x||^2 - d*^2 <= g), which near contact exceeds 1e-5 (eps = 1e-8, d = 1e-4: 5e-5), so
// that bound is accepted too for separated pairs.
bool within_gap_bound(double eps, double ref, double v) {
    return eps > 0 && ref > 0 && v >= ref - 1e-9 && v - ref <= eps / (v + ref) + 1e-9;
}

bool agrees(const Method &m, const Query &q, double v) {
    if (m.mode != Mode::Boolean && within_gap_bound(m.gap_tol, q.ref, v)) return true;
    // Boolean: touching within 1e-6 m may legitimately go either way.
    if (m.mode == Mode::Boolean) return std::fabs(q.ref) <= 1e-6 || (v != 0.0) == (q.ref <= 0.0);
    return std::isfinite(v) && std::fabs(v - q.ref) <= 1e-5 + 1e-5 * std::fabs(q.ref);
}

Measured measure(const Method &m, const std::vector<Query> &qs, int repeats) {
    Measured r;
    r.m = &m;
    size_t n = qs.size();
    r.ns.assign(n, NAN);
    r.value.assign(n, NAN);
    r.iters.assign(n, -1);
    if (m.library != "lucid" && !survives(m, qs)) {
        r.crashed = true;
        return r;
    }
    // Warm-up pass (also records the answers and iteration counts).
    for (size_t i = 0; i < n; ++i) {
        if (!applies(m, qs[i])) continue;
        int it = -1;
        double v = m.run(qs[i], &it);
        r.value[i] = v;
        r.iters[i] = it;
        r.answered++;
        if (m.mode != Mode::Boolean) {
            double e = std::isfinite(v) ? std::fabs(v - qs[i].ref) : INFINITY;
            r.max_err = std::max(r.max_err, e);
            double &side = qs[i].ref <= 0 ? r.max_err_ovl : r.max_err_sep;
            side = std::max(side, e);
        }
        if (!agrees(m, qs[i], v)) {
            // BENCH_DEBUG=<method name> prints the first disagreements of that method.
            static const char *debug = std::getenv("BENCH_DEBUG");
            if (debug && m.name == debug && r.wrong < 8)
                std::fprintf(stderr, "%s [%s] query %zu: nominal %g ref %.9g got %.9g\n",
                             m.name.c_str(), mode_name(m.mode), i, qs[i].nominal, qs[i].ref, v);
            r.wrong++;
        }
    }
    if (m.mode == Mode::Boolean) r.max_err = r.wrong;
    volatile double sink = 0.0;
    for (size_t i = 0; i < n; ++i) {
        if (!applies(m, qs[i])) continue;
        int it;
        double t0 = now_ns();
        for (int k = 0; k < repeats; ++k) sink = sink + m.run(qs[i], &it);
        r.ns[i] = (now_ns() - t0) / repeats;
    }
    (void)sink;
    return r;
}

double median_of(std::vector<double> v) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
    if (v.empty()) return NAN;
    size_t k = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + k, v.end());
    double hi = v[k];
    if (v.size() % 2) return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + k));
}

// Median time of r over the queries selected by mask.
double median_ns(const Measured &r, const std::vector<char> &mask) {
    std::vector<double> v;
    for (size_t i = 0; i < r.ns.size(); ++i)
        if (mask[i] && !std::isnan(r.ns[i])) v.push_back(r.ns[i]);
    return median_of(v);
}

double mean_iters(const Measured &r, const std::vector<Query> &qs, int band) {
    double s = 0.0;
    int n = 0;
    for (size_t i = 0; i < qs.size(); ++i)
        if (r.iters[i] >= 0 && (band < 0 || qs[i].band == band)) {
            s += r.iters[i];
            ++n;
        }
    return n ? s / n : NAN;
}

// ---------------------------------------------------------------------------------------
// Output: a text table on stdout, or one JSON document with --json.
struct Json {
    std::ostringstream s;
    bool first = true;
    std::vector<std::string> summary; // the headline figures, printed last
};

std::string jnum(double x) {
    if (!std::isfinite(x)) return "null";
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", x);
    return b;
}
std::string jstr(const std::string &x) {
    std::string o = "\"";
    for (char c : x) {
        if (c == '"' || c == '\\') o += '\\';
        o += c;
    }
    return o + "\"";
}

// Reports one category: the lucid iteration study (paper tolerance), the lucid timings at the
// matched tolerance, and every peer with its median, the ratio lucid-best / peer and its
// agreement with the reference.
void report_category(const std::string &cat, const QueryStats &st, const std::vector<Query> &qs,
                     const std::vector<Measured> &paper, const std::vector<Measured> &matched,
                     const std::vector<Measured> &peers, const Options &opt, Json *json) {
    size_t n = qs.size();
    std::vector<char> all(n, 1);
    int band_count[3] = {0, 0, 0};
    for (const Query &q : qs) band_count[q.band]++;
    if (!opt.json) {
        std::printf("\n=== %s: %zu queries (d<=0: %d, 0<d<=0.1: %d, d>0.1: %d) ===\n", cat.c_str(),
                    n, band_count[0], band_count[1], band_count[2]);
        std::printf("-- lucid iterations at the papers' tolerance (absolute gap 1e-8), box-centre "
                    "warm start\n");
        std::printf("%-28s %9s %9s %9s %9s  %10s %9s\n", "variant", "it d<=0", "it 0-0.1",
                    "it >0.1", "it all", "median ns", "max|err|");
    }
    const Measured *vanilla[2] = {nullptr, nullptr};
    double worst_accel = 0.0;
    std::string worst_accel_what = "-";
    for (const Measured &r : paper)
        if (r.m->name.rfind("lucid gjk", 0) == 0) vanilla[r.m->mode == Mode::Boolean] = &r;
    std::string jcat = "{\"category\":" + jstr(cat) + ",\"queries\":" + std::to_string(n) +
                       ",\"dropped_no_start\":" + std::to_string(st.skipped) +
                       ",\"dropped_reference_mismatch\":" + std::to_string(st.mismatched) +
                       ",\"lucid_epa_witness_mismatch\":" + std::to_string(st.witness) +
                       ",\"passed_through\":" + std::to_string(st.passed) +
                       ",\"lucid_paper_tol\":[";
    bool firstj = true;
    for (const Measured &r : paper) {
        double it[4] = {mean_iters(r, qs, 0), mean_iters(r, qs, 1), mean_iters(r, qs, 2),
                        mean_iters(r, qs, -1)};
        double med = median_ns(r, all);
        const Measured *v = vanilla[r.m->mode == Mode::Boolean];
        if (!opt.json) {
            std::printf("%-28s %9.2f %9.2f %9.2f %9.2f  %10.0f %9.2g   [%s]", r.m->name.c_str(),
                        it[0], it[1], it[2], it[3], med,
                        r.m->mode == Mode::Boolean ? double(r.wrong) : r.max_err,
                        mode_name(r.m->mode));
            if (v && v != &r && mean_iters(*v, qs, -1) > 0.0) {
                std::printf("  ratio to gjk: %.2f %.2f %.2f", it[0] / mean_iters(*v, qs, 0),
                            it[1] / mean_iters(*v, qs, 1), it[2] / mean_iters(*v, qs, 2));
            } else if (v && v != &r) {
                std::printf("  (no GJK iterations: closed form)");
            }
            std::printf("\n");
        }
        // Issue 16's target: no accelerated variant above 1.1x vanilla's mean iterations on
        // any band (bands where vanilla runs no iteration, e.g. the box-box separating-axis
        // path of the Boolean mode, have no ratio).
        if (v && v != &r)
            for (int b = 0; b < 3; ++b) {
                double vi = mean_iters(*v, qs, b);
                if (vi > 0.0 && it[b] / vi > worst_accel) {
                    worst_accel = it[b] / vi;
                    worst_accel_what =
                        r.m->name + " [" + mode_name(r.m->mode) + "] band " + std::to_string(b);
                }
            }
        jcat += std::string(firstj ? "" : ",") + "{\"name\":" + jstr(r.m->name) +
                ",\"mode\":" + jstr(mode_name(r.m->mode)) + ",\"iters\":[" + jnum(it[0]) + "," +
                jnum(it[1]) + "," + jnum(it[2]) + "],\"iters_all\":" + jnum(it[3]) +
                ",\"median_ns\":" + jnum(med) + ",\"wrong\":" + std::to_string(r.wrong) +
                ",\"max_err\":" + jnum(r.max_err);
        if (v && v != &r)
            jcat += ",\"iters_ratio_to_gjk\":[" + jnum(it[0] / mean_iters(*v, qs, 0)) + "," +
                    jnum(it[1] / mean_iters(*v, qs, 1)) + "," +
                    jnum(it[2] / mean_iters(*v, qs, 2)) + "]";
        jcat += "}";
        firstj = false;
    }
    // Shallow contact, -0.01 <= d <= 0.01 m as in GJK++ Table I: median time per variant.
    std::vector<char> shallow(n, 0);
    for (size_t i = 0; i < n; ++i) shallow[i] = std::fabs(qs[i].nominal) <= 0.01;
    jcat += "],\"shallow_median_ns\":[";
    if (!opt.json)
        std::printf("-- shallow contact (|d| <= 0.01 m), paper tolerance: median ns, and vanilla / "
                    "variant\n");
    firstj = true;
    for (const Measured &r : paper) {
        const Measured *v = vanilla[r.m->mode == Mode::Boolean];
        double med = median_ns(r, shallow), base = v ? median_ns(*v, shallow) : NAN;
        if (!opt.json)
            std::printf("%-28s %10.0f  speedup over gjk %.2f   [%s]\n", r.m->name.c_str(), med,
                        base / med, mode_name(r.m->mode));
        jcat += std::string(firstj ? "" : ",") + "{\"name\":" + jstr(r.m->name) +
                ",\"mode\":" + jstr(mode_name(r.m->mode)) + ",\"median_ns\":" + jnum(med) +
                ",\"speedup_over_gjk\":" + jnum(base / med) + "}";
        firstj = false;
    }
    if (json) {
        const Measured *gd = vanilla[0];
        for (const Measured &r : paper)
            if (r.m->mode == Mode::Distance && r.m->name.rfind("lucid nesterov (", 0) == 0 && gd) {
                char line[256];
                std::snprintf(line, sizeof line,
                              "%s: nesterov / gjk mean iterations at 0<d<=0.1: %.2f / %.2f = %.2f",
                              cat.c_str(), mean_iters(r, qs, 1), mean_iters(*gd, qs, 1),
                              mean_iters(r, qs, 1) / mean_iters(*gd, qs, 1));
                json->summary.push_back(line);
            }
        for (const Measured &r : paper)
            if (r.m->mode == Mode::Distance && &r != gd && gd) {
                char line[256];
                std::snprintf(line, sizeof line,
                              "%s: shallow |d|<=0.01 distance, %s speedup over gjk %.2f",
                              cat.c_str(), r.m->name.c_str(),
                              median_ns(*gd, shallow) / median_ns(r, shallow));
                json->summary.push_back(line);
            }
    }
    jcat += "],\"lucid_matched_tol\":[";
    if (!opt.json) {
        std::printf("-- lucid at the peers' tolerance (relative gap 2e-6 == FCL-GJK 1e-6; EPA "
                    "1e-6): median "
                    "ns per query\n");
        std::printf("%-28s %10s %10s %10s %10s %9s %6s\n", "variant", "all", "d<=0", "0<d<=0.1",
                    "d>0.1", "max|err|", "wrong");
    }
    firstj = true;
    std::vector<char> bandmask[3];
    for (int b = 0; b < 3; ++b) {
        bandmask[b].assign(n, 0);
        for (size_t i = 0; i < n; ++i) bandmask[b][i] = qs[i].band == b;
    }
    for (const Measured &r : matched) {
        double med = median_ns(r, all);
        double mb[3] = {median_ns(r, bandmask[0]), median_ns(r, bandmask[1]),
                        median_ns(r, bandmask[2])};
        if (!opt.json)
            std::printf("%-28s %10.0f %10.0f %10.0f %10.0f %9.2g %6d   [%s]\n", r.m->name.c_str(),
                        med, mb[0], mb[1], mb[2], r.m->mode == Mode::Boolean ? 0.0 : r.max_err,
                        r.wrong, mode_name(r.m->mode));
        jcat += std::string(firstj ? "" : ",") + "{\"name\":" + jstr(r.m->name) +
                ",\"mode\":" + jstr(mode_name(r.m->mode)) + ",\"median_ns\":" + jnum(med) +
                ",\"median_ns_band\":[" + jnum(mb[0]) + "," + jnum(mb[1]) + "," + jnum(mb[2]) +
                "],\"wrong\":" + std::to_string(r.wrong) + ",\"max_err\":" + jnum(r.max_err) + "}";
        firstj = false;
    }
    jcat += "],\"peers\":[";
    if (!opt.json) {
        std::printf("-- peers on the identical queries: median ns; ratio = lucid-best median / "
                    "peer median on the\n"
                    "   same queries (< 1: lucid faster); speedup = its inverse\n");
        std::printf("%-22s %-11s %8s %10s %-18s %7s %8s %9s %9s %6s\n", "peer", "mode", "queries",
                    "median ns", "lucid best", "ratio", "speedup", "err d<=0", "err d>0", "wrong");
    }
    firstj = true;
    for (const Measured &p : peers) {
        std::vector<char> mask(n, 0);
        for (size_t i = 0; i < n; ++i) mask[i] = !std::isnan(p.ns[i]);
        Mode lucid_mode = p.m->mode == Mode::Boolean ? Mode::Boolean : Mode::Distance;
        const Measured *best = nullptr;
        double best_med = INFINITY;
        for (const Measured &r : matched) {
            if (r.m->mode != lucid_mode) continue;
            double med = median_ns(r, mask);
            if (med < best_med) {
                best_med = med;
                best = &r;
            }
        }
        if (p.crashed) {
            if (!opt.json)
                std::printf(
                    "%-22s %-11s CRASHED (aborted inside the library on some query; not timed)\n",
                    p.m->name.c_str(), mode_name(p.m->mode));
            jcat += std::string(firstj ? "" : ",") + "{\"name\":" + jstr(p.m->name) +
                    ",\"mode\":" + jstr(mode_name(p.m->mode)) + ",\"crashed\":true}";
            firstj = false;
            continue;
        }
        double med = median_ns(p, mask);
        double ratio = best_med / med;
        if (!opt.json)
            std::printf("%-22s %-11s %8d %10.0f %-18s %7.3f %7.1fx %9.2g %9.2g %6d%s\n",
                        p.m->name.c_str(), mode_name(p.m->mode), p.answered, med,
                        best ? best->m->name.c_str() : "-", ratio, 1.0 / ratio, p.max_err_ovl,
                        p.max_err_sep, p.wrong,
                        p.wrong ? "  <-- DISAGREES with the reference beyond tolerance" : "");
        jcat += std::string(firstj ? "" : ",") + "{\"name\":" + jstr(p.m->name) +
                ",\"library\":" + jstr(p.m->library) + ",\"mode\":" + jstr(mode_name(p.m->mode)) +
                ",\"tolerance\":" + jstr(p.m->tolerance) +
                ",\"queries\":" + std::to_string(p.answered) + ",\"median_ns\":" + jnum(med) +
                ",\"lucid_best\":" + jstr(best ? best->m->name : "") +
                ",\"lucid_best_median_ns\":" + jnum(best_med) +
                ",\"ratio_lucid_over_peer\":" + jnum(ratio) + ",\"max_err\":" + jnum(p.max_err) +
                ",\"max_err_overlapping\":" + jnum(p.max_err_ovl) +
                ",\"max_err_separated\":" + jnum(p.max_err_sep) +
                ",\"wrong\":" + std::to_string(p.wrong) + "}";
        firstj = false;
    }
    jcat += "]}";
    if (!opt.json) {
        // Target summary: the largest accelerated / vanilla ratio, and lucid-best against the
        // fastest peer that agrees with the reference (and against FCL's own GJK, fcl-indep).
        std::printf("-- targets: worst mean-iteration ratio accelerated / vanilla over the bands "
                    "%.3f (%s; target <= 1.1: %s)\n",
                    worst_accel, worst_accel_what.c_str(), worst_accel <= 1.1 ? "met" : "MISSED");
        for (Mode mode : {Mode::Distance, Mode::Boolean}) {
            double fastest = INFINITY, fastest_speedup = 0.0, indep_speedup = 0.0;
            std::string who = "-";
            for (const Measured &p : peers) {
                if (p.m->mode != mode || p.crashed) continue;
                std::vector<char> mask(n, 0);
                for (size_t i = 0; i < n; ++i) mask[i] = !std::isnan(p.ns[i]);
                double best_med = INFINITY;
                for (const Measured &r : matched)
                    if (r.m->mode == mode) best_med = std::min(best_med, median_ns(r, mask));
                double med = median_ns(p, mask);
                if (p.m->name == "fcl-indep") indep_speedup = med / best_med;
                if (p.wrong == 0 && med < fastest) {
                    fastest = med;
                    fastest_speedup = med / best_med;
                    who = p.m->name;
                }
            }
            std::printf("-- targets: %s: lucid best %.2fx the fastest accurate peer (%s), %.2fx "
                        "fcl-indep (FCL's own GJK)\n",
                        mode_name(mode), fastest_speedup, who.c_str(), indep_speedup);
        }
    }
    if (json) {
        // The toughest peer per mode: the smallest speedup of lucid-best over a timed peer.
        for (Mode mode : {Mode::Distance, Mode::Boolean}) {
            double worst = INFINITY, worst_ok = INFINITY;
            std::string who, who_ok;
            for (const Measured &p : peers) {
                bool same =
                    mode == Mode::Boolean ? p.m->mode == Mode::Boolean : p.m->mode != Mode::Boolean;
                if (!same || p.crashed) continue;
                std::vector<char> mask(n, 0);
                for (size_t i = 0; i < n; ++i) mask[i] = !std::isnan(p.ns[i]);
                double best_med = INFINITY;
                for (const Measured &r : matched)
                    if (r.m->mode == (mode == Mode::Boolean ? Mode::Boolean : Mode::Distance))
                        best_med = std::min(best_med, median_ns(r, mask));
                double speedup = median_ns(p, mask) / best_med;
                if (speedup < worst) {
                    worst = speedup;
                    who = p.m->name + " " + mode_name(p.m->mode);
                }
                if (p.wrong == 0 && speedup < worst_ok) {
                    worst_ok = speedup;
                    who_ok = p.m->name + " " + mode_name(p.m->mode);
                }
            }
            char line[320];
            if (who.empty()) continue;
            if (who_ok.empty())
                std::snprintf(line, sizeof line,
                              "%s [%s]: lucid-best speedup over the toughest peer %.2fx (%s); no "
                              "peer agrees with "
                              "the reference on every query",
                              cat.c_str(), mode_name(mode), worst, who.c_str());
            else
                std::snprintf(line, sizeof line,
                              "%s [%s]: lucid-best speedup over the toughest peer %.2fx (%s); over "
                              "the toughest "
                              "peer that agrees with the reference %.2fx (%s)",
                              cat.c_str(), mode_name(mode), worst, who.c_str(), worst_ok,
                              who_ok.c_str());
            json->summary.push_back(line);
        }
        json->s << (json->first ? "" : ",") << jcat;
        json->first = false;
    }
}

void run_category(const std::string &cat, const QueryStats &st,
                  const std::vector<std::unique_ptr<Geom>> &geoms, const std::vector<Query> &qs,
                  int repeats, const Options &opt, Json *json) {
    std::vector<Method> paper = lucid_methods(false, &geoms);
    std::vector<Method> matched = lucid_methods(true, &geoms);
    std::vector<Method> peers = opt.peers ? peer_methods(&geoms) : std::vector<Method>();
    std::vector<Measured> rp, rm, rpeer;
    for (const Method &m : paper) rp.push_back(measure(m, qs, repeats));
    for (const Method &m : matched) rm.push_back(measure(m, qs, repeats));
    for (const Method &m : peers) rpeer.push_back(measure(m, qs, repeats));
    report_category(cat, st, qs, rp, rm, rpeer, opt, json);
}

// ---------------------------------------------------------------------------------------
// Categories
std::vector<Query> make_queries(const std::vector<std::unique_ptr<Geom>> &geoms,
                                const std::vector<std::pair<int, int>> &pairs, int poses,
                                std::mt19937_64 &rng, QueryStats *st) {
    std::vector<Query> qs;
    qs.reserve(pairs.size() * poses);
    int skipped = 0, mismatched = 0, witness = 0, passed = 0;
    for (auto [i1, i2] : pairs)
        for (int j = 0; j < poses; ++j) {
            Query q;
            Placed p = place_query(geoms, i1, i2, st->distances[j % st->distances.size()], rng, &q);
            if (p == Placed::Ok || p == Placed::WitnessMismatch || p == Placed::PassedThrough)
                qs.push_back(q);
            if (p == Placed::PassedThrough) ++passed;
            if (p == Placed::WitnessMismatch) ++witness;
            if (p == Placed::NoStart) ++skipped;
            if (p == Placed::RefMismatch) {
                ++mismatched;
                if (std::getenv("BENCH_DEBUG"))
                    std::fprintf(stderr, "reference mismatch: pair %d-%d nominal %g ref %.9g\n", i1,
                                 i2, q.nominal, q.ref);
            }
        }
    // Dropped queries are lucid's own failures (the reference is lucid vanilla): always shown.
    st->skipped += skipped;
    st->mismatched += mismatched;
    st->witness += witness;
    st->passed += passed;
    FILE *out = st->json ? stderr : stdout;
    if (skipped || mismatched)
        std::fprintf(
            out,
            "NOTE: %d poses could not start separated, %d failed the reference distance self-check "
            "(lucid inconsistent); both dropped\n",
            skipped, mismatched);
    if (passed)
        std::fprintf(
            out,
            "NOTE: %d poses translated past contact came out separated on the other side (shape "
            "thinner than the translation); kept, banded by their actual distance\n",
            passed);
    if (witness)
        std::fprintf(out,
                     "NOTE: on %d overlapping queries lucid's EPA witness points / normal fail the "
                     "translation "
                     "test (moving shape 2 by depth + 1e-6 along the normal does not leave a 1e-6 "
                     "gap); kept\n",
                     witness);
    return qs;
}

double positive_normal(std::mt19937_64 &rng, double mean, double sd) {
    std::normal_distribution<double> n(mean, sd);
    return std::max(0.01, n(rng)); // clamped positive (>= 1 cm)
}

void primitive_category(Kind kind, const std::string &cat, const Options &opt, Json *json) {
    std::mt19937_64 rng(opt.seed * 7919 + (kind == Kind::Box ? 1 : 0));
    std::vector<std::unique_ptr<Geom>> geoms;
    std::vector<std::pair<int, int>> pairs;
    for (int p = 0; p < opt.pairs; ++p) {
        for (int k = 0; k < 2; ++k) {
            double a[3];
            for (double &x : a) x = positive_normal(rng, 0.1, 0.025);
            geoms.push_back(make_primitive(kind, a));
        }
        pairs.emplace_back(2 * p, 2 * p + 1);
    }
    QueryStats st{opt.json, opt.distances};
    std::vector<Query> qs = make_queries(geoms, pairs, opt.poses, rng, &st);
    run_category(cat, st, geoms, qs, opt.repeats ? opt.repeats : 5, opt, json);
}

// ---- meshes
std::string find_mesh_dir(const Options &opt) {
    std::vector<std::string> cands;
    if (!opt.meshes.empty()) cands.push_back(opt.meshes);
    if (const char *e = std::getenv("LUCID_MESHES")) cands.push_back(e);
    cands.push_back(std::string(LUCID_SOURCE_DIR) + "/../shared/data/meshes");
    cands.push_back(std::string(LUCID_SOURCE_DIR) + "/../../shared/data/meshes");
    for (const std::string &c : cands) {
        std::ifstream f(c + "/manifest.tsv");
        if (f) return c;
    }
    return "";
}

bool read_obj_vertices(const std::string &path, std::vector<double> *pts) {
    std::ifstream f(path);
    if (!f) return false;
    std::string line;
    while (std::getline(f, line)) {
        if (line.size() < 2 || line[0] != 'v' || (line[1] != ' ' && line[1] != '\t')) continue;
        double x, y, z;
        if (std::sscanf(line.c_str() + 1, "%lf %lf %lf", &x, &y, &z) == 3) {
            pts->push_back(x);
            pts->push_back(y);
            pts->push_back(z);
        }
    }
    return pts->size() >= 12;
}

// Centre on the bounding box and scale the largest extent to a YCB-like size in [5, 30] cm.
void normalise(std::vector<double> *pts, double extent) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t k = 0; k < pts->size(); k += 3)
        for (int i = 0; i < 3; ++i) {
            lo[i] = std::min(lo[i], (*pts)[k + i]);
            hi[i] = std::max(hi[i], (*pts)[k + i]);
        }
    double ext = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    for (size_t k = 0; k < pts->size(); k += 3)
        for (int i = 0; i < 3; ++i)
            (*pts)[k + i] = ((*pts)[k + i] - 0.5 * (lo[i] + hi[i])) * extent / ext;
}

std::vector<std::unique_ptr<Geom>> load_meshes(const Options &opt, std::mt19937_64 &rng) {
    std::vector<std::unique_ptr<Geom>> out;
    std::string dir = find_mesh_dir(opt);
    if (dir.empty()) {
        std::fprintf(stderr,
                     "bench_collision: no mesh directory (give --meshes DIR holding manifest.tsv); "
                     "mesh categories skipped\n");
        return out;
    }
    std::ifstream man(dir + "/manifest.tsv");
    std::string line;
    std::getline(man, line); // header
    std::uniform_real_distribution<double> size(0.05, 0.30);
    while (std::getline(man, line)) {
        std::string file = line.substr(0, line.find('\t'));
        if (file.empty()) continue;
        std::vector<double> pts;
        if (!read_obj_vertices(dir + "/" + file, &pts)) {
            std::fprintf(stderr, "bench_collision: cannot read %s\n", file.c_str());
            continue;
        }
        normalise(&pts, size(rng));
        auto g = make_hull(file, pts);
        if (g) out.push_back(std::move(g));
    }
    return out;
}

// Subdivided versions: N in [3000, 10000] points s_H(u) + r u on the boundary of the hull H
// dilated by a ball of radius r = 1% of its size, for uniform random unit directions u. Each
// point is the support point of a strictly convex set in direction u, hence extreme: the
// hull keeps ~N vertices while staying within r of the original hull.
std::unique_ptr<Geom> subdivide(const Geom &g, std::mt19937_64 &rng) {
    std::uniform_int_distribution<int> count(3000, 10000);
    int n = count(rng);
    double r = 0.01 * 2.0 * g.bound;
    std::vector<double> pts;
    pts.reserve(3 * n);
    for (int k = 0; k < n; ++k) {
        double u[3], s[3];
        random_unit(rng, u);
        local_support(g, u, s);
        for (int i = 0; i < 3; ++i) pts.push_back(s[i] + r * u[i]);
    }
    return make_hull(g.name + " (resampled)", pts);
}

void mesh_category(bool subdivided, const Options &opt, Json *json) {
    std::mt19937_64 rng(opt.seed * 104729 + (subdivided ? 1 : 0));
    std::vector<std::unique_ptr<Geom>> geoms = load_meshes(opt, rng);
    if (geoms.size() < 2) return;
    if (subdivided) {
        std::vector<std::unique_ptr<Geom>> sub;
        int want = std::min<int>(int(geoms.size()), std::max(2, opt.subdiv_pairs));
        for (int k = 0; k < want; ++k) {
            auto s = subdivide(*geoms[k], rng);
            if (s) sub.push_back(std::move(s));
        }
        geoms = std::move(sub);
    }
    int vmin = 1 << 30, vmax = 0;
    for (auto &g : geoms) {
        vmin = std::min(vmin, g->nverts());
        vmax = std::max(vmax, g->nverts());
    }
    std::uniform_int_distribution<int> pick(0, int(geoms.size()) - 1);
    int npairs = subdivided ? opt.subdiv_pairs : opt.mesh_pairs;
    std::vector<std::pair<int, int>> small, large;
    for (int p = 0; p < npairs; ++p) {
        int a = pick(rng), b = pick(rng);
        (std::min(geoms[a]->nverts(), geoms[b]->nverts()) >= 200 ? large : small)
            .emplace_back(a, b);
    }
    if (!opt.json)
        std::printf("\n[%s: %zu hulls with %d..%d vertices]\n",
                    subdivided ? "subdivided meshes" : "meshes", geoms.size(), vmin, vmax);
    int reps = opt.repeats ? opt.repeats : 3;
    if (subdivided) {
        QueryStats st{opt.json, opt.distances};
        std::vector<Query> qs =
            make_queries(geoms, small.empty() ? large : small, opt.poses, rng, &st);
        if (!small.empty()) {
            auto more = make_queries(geoms, large, opt.poses, rng, &st);
            qs.insert(qs.end(), more.begin(), more.end());
        }
        run_category("mesh hulls resampled to 3k-10k vertices", st, geoms, qs, reps, opt, json);
        return;
    }
    if (!small.empty()) {
        QueryStats st{opt.json, opt.distances};
        auto qs = make_queries(geoms, small, opt.poses, rng, &st);
        run_category("mesh hulls, smaller hull < 200 vertices", st, geoms, qs, reps, opt, json);
    }
    if (!large.empty()) {
        QueryStats st{opt.json, opt.distances};
        auto qs = make_queries(geoms, large, opt.poses, rng, &st);
        run_category("mesh hulls, both >= 200 vertices", st, geoms, qs, reps, opt, json);
    }
}

// ---- warm-start study: objects dropping in a funnel
struct Body {
    int geom;
    double x[3], v[3], w[3];
    double q[4]; // orientation quaternion w, x, y, z
};

Pose body_pose(const Body &b) {
    double w = b.q[0], x = b.q[1], y = b.q[2], z = b.q[3];
    Pose T{};
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) T.m[i + 3 * j] = r[i][j];
        T.m[9 + i] = b.x[i];
    }
    return T;
}

// Contact response of the toy simulator: push the two bodies apart along the line of their
// centres by the penetration depth and cancel their approaching velocity (inelastic).
void resolve_contact(Body *a, Body *b, double depth) {
    double d[3] = {b->x[0] - a->x[0], b->x[1] - a->x[1], b->x[2] - a->x[2]};
    double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (len < 1e-12) return;
    double vn = 0.0;
    for (int k = 0; k < 3; ++k) {
        d[k] /= len;
        vn += (b->v[k] - a->v[k]) * d[k];
    }
    for (int k = 0; k < 3; ++k) {
        a->x[k] -= 0.5 * depth * d[k];
        b->x[k] += 0.5 * depth * d[k];
        if (vn < 0) {
            a->v[k] += 0.5 * vn * d[k];
            b->v[k] -= 0.5 * vn * d[k];
        }
    }
}

// A deliberately simple simulator (ballistic + damped motion, bounding-sphere contacts with
// the cone, lucid's signed distance to separate overlapping bodies): it only has to produce
// temporally coherent, close-proximity pose sequences for the pairs a broadphase would keep, as in
// GJK++ Sec. IV-D.
std::vector<Query> funnel_dataset(const std::vector<std::unique_ptr<Geom>> &geoms, int nbodies,
                                  int steps, std::mt19937_64 &rng, int *ntraj) {
    const double dt = 1.0 / 120.0, g = 9.81, tan_half = std::tan(0.5), damping = 0.5;
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    std::vector<Body> bodies(nbodies);
    for (int k = 0; k < nbodies; ++k) {
        Body &b = bodies[k];
        b.geom = k % int(geoms.size());
        double ang = 2 * M_PI * u01(rng), rad = 0.25 * u01(rng);
        b.x[0] = rad * std::cos(ang);
        b.x[1] = rad * std::sin(ang);
        b.x[2] = 1.0 + 0.25 * k / double(nbodies) * 4.0;
        for (int i = 0; i < 3; ++i) {
            b.v[i] = 0.5 * (u01(rng) - 0.5);
            b.w[i] = 6.0 * (u01(rng) - 0.5);
        }
        Pose R = random_rotation(rng);
        (void)R;
        double qq[4], s = 0;
        std::normal_distribution<double> n01;
        for (double &c : qq) {
            c = n01(rng);
            s += c * c;
        }
        for (int i = 0; i < 4; ++i) b.q[i] = qq[i] / std::sqrt(s);
    }
    std::vector<Query> qs;
    std::vector<int> last_step(nbodies * nbodies, -10), traj_id(nbodies * nbodies, -1);
    *ntraj = 0;
    bench_lucid_config ref = reference_config();
    for (int step = 0; step < steps; ++step) {
        for (Body &b : bodies) {
            b.v[2] -= g * dt;
            for (int i = 0; i < 3; ++i) {
                b.v[i] *= 1.0 - damping * dt;
                b.x[i] += b.v[i] * dt;
            }
            // integrate the orientation: q += 0.5 * (0, w) * q * dt
            double w0 = b.w[0], w1 = b.w[1], w2 = b.w[2], *q = b.q;
            double dq[4] = {-0.5 * (w0 * q[1] + w1 * q[2] + w2 * q[3]),
                            0.5 * (w0 * q[0] + w1 * q[3] - w2 * q[2]),
                            0.5 * (-w0 * q[3] + w1 * q[0] + w2 * q[1]),
                            0.5 * (w0 * q[2] - w1 * q[1] + w2 * q[0])};
            double s = 0;
            for (int i = 0; i < 4; ++i) {
                q[i] += dq[i] * dt;
                s += q[i] * q[i];
            }
            for (int i = 0; i < 4; ++i) q[i] /= std::sqrt(s);
            for (double &wi : b.w) wi *= 1.0 - damping * dt;
            // funnel wall: the cone r = (z + 0.1) * tan_half, with a small outlet floor at z = 0
            double rb = geoms[b.geom]->bound;
            double rad = std::hypot(b.x[0], b.x[1]),
                   rmax = std::max(0.0, (b.x[2] + 0.1) * tan_half - rb);
            if (rad > rmax && rad > 0) {
                double nx = b.x[0] / rad, ny = b.x[1] / rad;
                b.x[0] = nx * rmax;
                b.x[1] = ny * rmax;
                double vn = b.v[0] * nx + b.v[1] * ny;
                if (vn > 0) {
                    b.v[0] -= 1.5 * vn * nx;
                    b.v[1] -= 1.5 * vn * ny;
                    b.v[2] += 0.3 * vn;
                }
            }
            if (b.x[2] < rb) {
                b.x[2] = rb;
                if (b.v[2] < 0) b.v[2] *= -0.3;
            }
        }
        // broadphase: bounding spheres inflated by 1 cm
        for (int i = 0; i < nbodies; ++i)
            for (int j = i + 1; j < nbodies; ++j) {
                const Body &a = bodies[i], &b = bodies[j];
                double dist = std::hypot(b.x[0] - a.x[0], b.x[1] - a.x[1], b.x[2] - a.x[2]);
                if (dist > geoms[a.geom]->bound + geoms[b.geom]->bound + 0.01) continue;
                int key = i * nbodies + j;
                if (last_step[key] != step - 1) traj_id[key] = (*ntraj)++; // a new trajectory
                last_step[key] = step;
                Query q;
                q.g1 = a.geom;
                q.g2 = b.geom;
                q.T1 = body_pose(a);
                q.T2 = body_pose(b);
                int it;
                q.ref = bench_lucid_distance(geoms[q.g1]->lucid, q.T1.m, geoms[q.g2]->lucid, q.T2.m,
                                             &ref, nullptr, 0, nullptr, nullptr, &it);
                q.nominal = q.ref;
                q.band = band_of(q.ref);
                q.traj = traj_id[key];
                prepare_peer_poses(q);
                qs.push_back(q);
                if (q.ref < 0) resolve_contact(&bodies[i], &bodies[j], -q.ref);
            }
    }
    return qs;
}

void warmstart_category(const Options &opt, Json *json) {
    std::mt19937_64 rng(opt.seed * 15485863ULL);
    std::vector<std::unique_ptr<Geom>> geoms;
    for (int k = 0; k < 12; ++k) {
        double a[3];
        for (double &x : a) x = positive_normal(rng, 0.1, 0.025);
        geoms.push_back(make_primitive(Kind::Ellipsoid, a));
    }
    std::vector<std::unique_ptr<Geom>> meshes = load_meshes(opt, rng);
    for (size_t k = 0; k < meshes.size() && k < 12; ++k) geoms.push_back(std::move(meshes[k]));
    int nbodies = std::min(36, std::max(4, opt.pairs));
    int ntraj = 0;
    std::vector<Query> qs = funnel_dataset(geoms, nbodies, 240, rng, &ntraj);
    int nb[3] = {0, 0, 0};
    for (const Query &q : qs) nb[q.band]++;
    int reps = opt.repeats ? opt.repeats : 5;
    struct Strategy {
        const char *name;
        int warm;
    };
    const Strategy strategies[] = {{"none x0=(1,0,0)", BENCH_WARM_NONE},
                                   {"box centres", BENCH_WARM_BOX},
                                   {"previous solution", BENCH_WARM_PREVIOUS}};
    struct Variant {
        const char *name;
        int alg, norm;
    };
    const Variant variants[] = {
        {"gjk", BENCH_GJK, 0}, {"polyak", BENCH_POLYAK, 0}, {"nesterov+n", BENCH_NESTEROV, 1}};
    if (!opt.json) {
        std::printf("\n=== warm start: funnel drop, %d bodies (%zu shapes), 240 steps at 120 Hz: "
                    "%zu queries on %d "
                    "pair trajectories (d<=0: %d, 0<d<=0.1: %d, d>0.1: %d) ===\n",
                    nbodies, geoms.size(), qs.size(), ntraj, nb[0], nb[1], nb[2]);
        std::printf("%-12s %-10s %-20s %9s %11s %9s\n", "mode", "variant", "warm start", "mean it",
                    "median ns", "wrong");
    }
    std::string jw = "{\"category\":\"warmstart\",\"queries\":" + std::to_string(qs.size()) +
                     ",\"trajectories\":" + std::to_string(ntraj) + ",\"rows\":[";
    bool firstj = true;
    for (int boolean = 1; boolean >= 0; --boolean)
        for (const Variant &v : variants)
            for (const Strategy &s : strategies) {
                bench_lucid_config cfg{v.alg, v.norm, kPaperTol, 0, s.warm};
                // previous-solution memory per trajectory: the result of the previous step,
                // computed once (untimed) in time order; timing repeats never update it.
                std::vector<bench_lucid_memory *> mem(ntraj, nullptr);
                for (auto &m : mem) m = bench_lucid_memory_create();
                std::vector<double> ns(qs.size());
                double it_sum = 0;
                int wrong = 0;
                volatile double sink = 0;
                for (size_t i = 0; i < qs.size(); ++i) {
                    const Query &q = qs[i];
                    const bench_lucid_shape *a = geoms[q.g1]->lucid, *b = geoms[q.g2]->lucid;
                    bench_lucid_memory *m = mem[q.traj];
                    int it = 0;
                    double t0 = now_ns();
                    for (int r = 0; r < reps; ++r) {
                        if (boolean)
                            sink =
                                sink + bench_lucid_collide(a, q.T1.m, b, q.T2.m, &cfg, m, 0, &it);
                        else
                            sink = sink + bench_lucid_distance(a, q.T1.m, b, q.T2.m, &cfg, m, 0,
                                                               nullptr, nullptr, &it);
                    }
                    ns[i] = (now_ns() - t0) / reps;
                    // the untimed call that stores this step's solution for the next step
                    double val;
                    if (boolean)
                        val = bench_lucid_collide(a, q.T1.m, b, q.T2.m, &cfg, m, 1, &it);
                    else
                        val = bench_lucid_distance(a, q.T1.m, b, q.T2.m, &cfg, m, 1, nullptr,
                                                   nullptr, &it);
                    it_sum += it;
                    bool ok = boolean ? (std::fabs(q.ref) <= 1e-6 || (val != 0) == (q.ref <= 0))
                                      : (std::fabs(val - q.ref) <= 1e-5 + 1e-5 * std::fabs(q.ref) ||
                                         within_gap_bound(kPaperTol, q.ref, val));
                    if (!ok && std::getenv("BENCH_DEBUG") && wrong < 5)
                        std::fprintf(
                            stderr,
                            "warm start %s %s %s: query %zu (shapes %d, %d) ref %.9g got %.9g\n",
                            boolean ? "boolean" : "distance", v.name, s.name, i, q.g1, q.g2, q.ref,
                            val);
                    wrong += !ok;
                }
                (void)sink;
                for (auto &m : mem) bench_lucid_memory_destroy(m);
                double med = median_of(ns), mit = it_sum / double(qs.size());
                if (!opt.json)
                    std::printf("%-12s %-10s %-20s %9.2f %11.0f %9d\n",
                                boolean ? "boolean" : "distance", v.name, s.name, mit, med, wrong);
                jw += std::string(firstj ? "" : ",") +
                      "{\"mode\":" + jstr(boolean ? "boolean" : "distance") +
                      ",\"variant\":" + jstr(v.name) + ",\"warm_start\":" + jstr(s.name) +
                      ",\"mean_iters\":" + jnum(mit) + ",\"median_ns\":" + jnum(med) +
                      ",\"wrong\":" + std::to_string(wrong) + "}";
                firstj = false;
            }
    jw += "]}";
    if (json) {
        json->s << (json->first ? "" : ",") << jw;
        json->first = false;
    }
}

} // namespace

int main(int argc, char **argv) {
    Options opt;
    if (!parse_options(argc, argv, &opt)) return 2;
    if (opt.distances.empty()) opt.distances = kDistances;
    Json json;
    double t0 = now_ns();
    if (!opt.json) {
        std::printf("bench_collision: lucid vs FCL %s (GST_LIBCCD, GST_INDEP), libccd 2.1, Bullet "
                    "%d (double)\n",
                    FCL_VERSION, BT_BULLET_VERSION);
        std::printf(
            "pairs %d (ellipsoid, box), mesh pairs %d, subdivided pairs %d, poses %d, seed %lu\n",
            opt.pairs, opt.mesh_pairs, opt.subdiv_pairs, opt.poses, opt.seed);
        std::printf("signed distances cycled per pose over {");
        for (size_t k = 0; k < opt.distances.size(); ++k)
            std::printf("%s%g", k ? ", " : "", opt.distances[k]);
        std::printf("} m\n");
    }
    const std::string &c = opt.category;
    if (c == "all" || c == "ellipsoid")
        primitive_category(Kind::Ellipsoid, "ellipsoids", opt, &json);
    if (c == "all" || c == "box") primitive_category(Kind::Box, "boxes", opt, &json);
    if (c == "all" || c == "mesh") mesh_category(false, opt, &json);
    if (c == "all" || c == "subdiv") mesh_category(true, opt, &json);
    if (c == "all" || c == "warmstart") warmstart_category(opt, &json);
    double secs = (now_ns() - t0) * 1e-9;
    if (opt.json)
        std::printf(
            "{\"seed\":%lu,\"pairs\":%d,\"poses\":%d,\"seconds\":%.1f,\"categories\":[%s]}\n",
            opt.seed, opt.pairs, opt.poses, secs, json.s.str().c_str());
    else {
        std::printf("\n=== summary ===\n");
        for (const std::string &line : json.summary) std::printf("%s\n", line.c_str());
        std::printf("\ntotal %.1f s\n", secs);
    }
    return 0;
}
