// bench_decompose: lucid_mesh_decompose against HACD (Debian libbullet-extras-dev, Bullet
// 3.24's copy of Mamou's HACD) on the mug of tests/lua/test_mesh_decompose.lua, as built and
// subdivided 1:4 (midpoints), twice. Prints, per method and setting, the parts, their total
// hull volume relative to the mesh's own volume, and the time. Usage: bench_decompose
// [--quick] (--quick: the mug as built only, HACD at one concavity).
// Beyond the volumes, 20 000 points drawn uniformly in the mesh's bounding box measure how the
// parts cover the solid: "missed" is the solid's volume outside every part, "extra" the
// volume of parts outside the solid, both in % of the mesh's volume (a net volume error near
// zero can hide both).
#include <HACD/hacdHACD.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

extern "C" {
#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/mesh_decompose.h"
}

namespace {

struct Mesh {
    std::vector<double> v; // xyz
    std::vector<int> t;    // 0-based triples
};

// The test's mug: a 32-gon cup (R 40 mm, wall 5 mm, floor 8 mm, 100 mm tall) and a handle
// (8 x 6 mm bar swept on a half circle of radius 25 mm) touching the wall's face at +x.
Mesh mug() {
    const int N = 32, M = 12;
    const double R = 0.04, r = 0.035, H = 0.1, fl = 0.008, rho = 0.025, a = 0.004, b = 0.003;
    const double pi = std::acos(-1.0);
    Mesh m;
    auto add = [&m](double x, double y, double z) {
        m.v.insert(m.v.end(), {x, y, z});
        return (int)(m.v.size() / 3 - 1);
    };
    auto tri = [&m](int p, int q, int s) { m.t.insert(m.t.end(), {p, q, s}); };
    auto ring = [&](double rad, double z) {
        int first = (int)(m.v.size() / 3);
        for (int i = 0; i < N; ++i) {
            double th = (i + 0.5) * 2 * pi / N;
            add(rad * std::cos(th), rad * std::sin(th), z);
        }
        return first;
    };
    int ob = ring(R, 0), ot = ring(R, H), it = ring(r, H), ib = ring(r, fl);
    int cb = add(0, 0, 0), ci = add(0, 0, fl);
    for (int i = 0; i < N; ++i) {
        int j = (i + 1) % N;
        tri(ob + i, ob + j, ot + j), tri(ob + i, ot + j, ot + i);
        tri(ot + i, ot + j, it + j), tri(ot + i, it + j, it + i);
        tri(it + i, it + j, ib + j), tri(it + i, ib + j, ib + i);
        tri(ib + i, ib + j, ci), tri(ob + j, ob + i, cb);
    }
    double x0 = R * std::cos(pi / N), zc = H / 2;
    int s = (int)(m.v.size() / 3);
    for (int k = 0; k <= M; ++k) {
        double th = -pi / 2 + pi * k / M, cx = x0 + rho * std::cos(th),
               cz = zc + rho * std::sin(th);
        const double uv[4][2] = {{-a, -b}, {a, -b}, {a, b}, {-a, b}};
        for (const auto &q : uv) add(cx + q[0] * std::cos(th), q[1], cz + q[0] * std::sin(th));
    }
    for (int k = 0; k < M; ++k)
        for (int q = 0; q < 4; ++q) {
            int p0 = s + 4 * k + q, p1 = s + 4 * k + (q + 1) % 4;
            tri(p0, p1 + 4, p0 + 4), tri(p0, p1, p1 + 4); // facing out of the bar
        }
    int e = s + 4 * M;
    tri(s, s + 2, s + 1), tri(s, s + 3, s + 2), tri(e, e + 1, e + 2), tri(e, e + 2, e + 3);
    return m;
}

// Every triangle into four at its edges' midpoints (shared midpoints: still closed).
Mesh subdivide(const Mesh &in) {
    Mesh m = in;
    m.t.clear();
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int p, int q) {
        auto key = std::make_pair(std::min(p, q), std::max(p, q));
        auto found = mid.find(key);
        if (found != mid.end()) return found->second;
        for (int k = 0; k < 3; ++k) m.v.push_back(0.5 * (in.v[3 * p + k] + in.v[3 * q + k]));
        return mid[key] = (int)(m.v.size() / 3 - 1);
    };
    for (size_t i = 0; i < in.t.size(); i += 3) {
        int p = in.t[i], q = in.t[i + 1], s = in.t[i + 2];
        int pq = midpoint(p, q), qs = midpoint(q, s), sp = midpoint(s, p);
        m.t.insert(m.t.end(), {p, pq, sp, pq, q, qs, sp, qs, s, pq, qs, sp});
    }
    return m;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Whether p is inside the closed mesh: its winding number above one half.
bool inside_mesh(const Mesh &m, const double p[3]) {
    double omega = 0;
    for (size_t i = 0; i < m.t.size(); i += 3) {
        double a[3], b[3], c[3];
        for (int k = 0; k < 3; ++k) {
            a[k] = m.v[3 * m.t[i] + k] - p[k];
            b[k] = m.v[3 * m.t[i + 1] + k] - p[k];
            c[k] = m.v[3 * m.t[i + 2] + k] - p[k];
        }
        auto dot = [](const double *x, const double *y) {
            return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        };
        double la = std::sqrt(dot(a, a)), lb = std::sqrt(dot(b, b)), lc = std::sqrt(dot(c, c));
        double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                     a[2] * (b[0] * c[1] - b[1] * c[0]);
        omega +=
            2 * std::atan2(det, la * lb * lc + dot(a, b) * lc + dot(a, c) * lb + dot(b, c) * la);
    }
    return omega > 2 * std::acos(-1.0);
}

bool inside_hull(const lucid_convex_mesh *h, const double p[3]) {
    for (int f = 0; f < h->num_faces; ++f) {
        const lucid_vec3 &n = h->face_normals[f];
        if (n.x * p[0] + n.y * p[1] + n.z * p[2] > h->face_offsets_d[f]) return false;
    }
    return true;
}

// Prints the missed and extra volumes of the parts (each a point set, hulled here).
void coverage(const Mesh &m, double volume, const std::vector<std::vector<double>> &parts) {
    std::vector<lucid_convex_mesh *> hulls;
    for (const auto &p : parts) {
        lucid_convex_mesh *h = nullptr;
        if (lucid_convex_mesh_create(p.data(), (int)(p.size() / 3), &h) == LUCID_OK)
            hulls.push_back(h);
    }
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) lo[k] = 1e300, hi[k] = -1e300;
    for (size_t i = 0; i < m.v.size(); ++i)
        lo[i % 3] = std::fmin(lo[i % 3], m.v[i]), hi[i % 3] = std::fmax(hi[i % 3], m.v[i]);
    const int samples = 20000;
    unsigned long long state = 88172645463325252ULL; // xorshift64: the same points every run
    int missed = 0, extra = 0;
    for (int s = 0; s < samples; ++s) {
        double p[3];
        for (int k = 0; k < 3; ++k) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            p[k] = lo[k] + (hi[k] - lo[k]) * (double)(state >> 11) / 9007199254740992.0;
        }
        bool in_part = false;
        for (const auto *h : hulls) in_part = in_part || inside_hull(h, p);
        bool in_mesh = inside_mesh(m, p);
        missed += in_mesh && !in_part;
        extra += in_part && !in_mesh;
    }
    double box = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
    std::printf("   missed %5.1f %%, extra %5.1f %%\n", 100 * box * missed / samples / volume,
                100 * box * extra / samples / volume);
    for (auto *h : hulls) lucid_convex_mesh_destroy(h);
}

void run_lucid(const char *name, const Mesh &m, int max_parts) {
    lucid_decompose_options o = lucid_decompose_default_options();
    o.max_parts = max_parts;
    lucid_decomposition d;
    char err[256];
    auto t0 = std::chrono::steady_clock::now();
    lucid_status st = lucid_mesh_decompose(m.v.data(), (int)(m.v.size() / 3), m.t.data(),
                                           (int)(m.t.size() / 3), &o, &d, err, sizeof err);
    double dt = seconds_since(t0);
    if (st != LUCID_OK) {
        std::printf("%-10s lucid  max_parts %4d: error %s\n", name, max_parts, err);
        return;
    }
    std::printf("%-10s lucid  max_parts %4d: %3d parts, volume %+7.1f %%, %7.2f s", name, max_parts,
                d.num_parts, 100 * (d.parts_volume / d.mesh_volume - 1), dt);
    std::vector<std::vector<double>> parts;
    for (int p = 0; p < d.num_parts; ++p)
        parts.emplace_back(d.points + 3 * d.part_offsets[p], d.points + 3 * d.part_offsets[p + 1]);
    coverage(m, d.mesh_volume, parts);
    lucid_decomposition_free(&d);
}

// HACD on the mesh scaled to a 1000-unit extent (its parameters are in those units); the
// parts' volume is that of the hulls it returns, scaled back.
void run_hacd(const char *name, const Mesh &m, double volume, double concavity) {
    double lo = 1e300, hi = -1e300;
    for (double c : m.v) lo = std::fmin(lo, c), hi = std::fmax(hi, c);
    double S = 1000.0 / (hi - lo);
    std::vector<HACD::Vec3<HACD::Real>> P;
    std::vector<HACD::Vec3<long>> T;
    for (size_t i = 0; i < m.v.size(); i += 3)
        P.emplace_back(S * m.v[i], S * m.v[i + 1], S * m.v[i + 2]);
    for (size_t i = 0; i < m.t.size(); i += 3) T.emplace_back(m.t[i], m.t[i + 1], m.t[i + 2]);
    auto t0 = std::chrono::steady_clock::now();
    HACD::HACD h;
    h.SetPoints(P.data());
    h.SetNPoints(P.size());
    h.SetTriangles(T.data());
    h.SetNTriangles(T.size());
    h.SetCompacityWeight(0.1);
    h.SetVolumeWeight(0.0);
    h.SetNClusters(1);
    h.SetNVerticesPerCH(100);
    h.SetConcavity(concavity);
    h.SetAddExtraDistPoints(true);
    h.SetAddNeighboursDistPoints(true);
    h.SetAddFacesPoints(true);
    h.SetConnectDist(30);
    h.Compute();
    double dt = seconds_since(t0), total = 0;
    std::vector<std::vector<double>> parts;
    for (size_t c = 0; c < h.GetNClusters(); ++c) {
        std::vector<HACD::Vec3<HACD::Real>> p(h.GetNPointsCH(c));
        std::vector<HACD::Vec3<long>> t(h.GetNTrianglesCH(c));
        h.GetCH(c, p.data(), t.data());
        parts.emplace_back();
        for (const auto &q : p)
            parts.back().insert(parts.back().end(), {q.X() / S, q.Y() / S, q.Z() / S});
        for (const auto &f : t) {
            const auto &A = p[f.X()], &B = p[f.Y()], &C = p[f.Z()];
            total +=
                (A.X() * (B.Y() * C.Z() - B.Z() * C.Y()) - A.Y() * (B.X() * C.Z() - B.Z() * C.X()) +
                 A.Z() * (B.X() * C.Y() - B.Y() * C.X())) /
                6;
        }
    }
    total /= S * S * S;
    std::printf("%-10s HACD   concavity %5g: %3zu parts, volume %+7.1f %%, %7.2f s", name,
                concavity, h.GetNClusters(), 100 * (total / volume - 1), dt);
    coverage(m, volume, parts);
}

double mesh_volume(const Mesh &m) {
    double v = 0;
    for (size_t i = 0; i < m.t.size(); i += 3) {
        const double *A = &m.v[3 * m.t[i]], *B = &m.v[3 * m.t[i + 1]], *C = &m.v[3 * m.t[i + 2]];
        v += (A[0] * (B[1] * C[2] - B[2] * C[1]) - A[1] * (B[0] * C[2] - B[2] * C[0]) +
              A[2] * (B[0] * C[1] - B[1] * C[0])) /
             6;
    }
    return v;
}

} // namespace

int main(int argc, char **argv) {
    bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    Mesh m = mug();
    std::vector<std::pair<const char *, Mesh>> meshes = {{"mug", m}};
    if (!quick) meshes.emplace_back("mug x16", subdivide(subdivide(m)));
    for (const auto &[name, mesh] : meshes) {
        std::printf("%s: %zu triangles, volume %.6g m^3\n", name, mesh.t.size() / 3,
                    mesh_volume(mesh));
        for (int parts : {32, 64, 128, 256})
            if (!quick || parts == 64) run_lucid(name, mesh, parts);
        for (double c : {100.0, 50.0, 20.0, 10.0, 5.0})
            if (!quick || c == 20.0) run_hacd(name, mesh, mesh_volume(mesh), c);
    }
    return 0;
}
