/* Convex hulls: containment, face convexity, topology, hill climbing against a linear scan,
 * degenerate inputs, mesh files (OBJ, STL ASCII and binary) and the real meshes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/shapes/convex_mesh.h"
#include "runtime/shapes/mesh_file.h"
#include "runtime/shapes/shape.h"

#include "tests/c/common/test_random.h"

/* n points uniform in a box of the given half-extents (or on a sphere when on_sphere). */
static double *random_points(uint64_t *state, int n, int on_sphere, double scale) {
    double *p = malloc(sizeof(double) * 3 * (size_t)n);
    assert_non_null(p);
    for (int i = 0; i < n; ++i) {
        lucid_vec3 v = on_sphere ? random_direction(state)
                                 : lucid_vec3_make(2 * uniform(state) - 1, 2 * uniform(state) - 1,
                                                   2 * uniform(state) - 1);
        lucid_vec3_store(lucid_vec3_scale(v, scale), p + 3 * i);
    }
    return p;
}

/* Every input point and every hull vertex lies inside every face plane; each face's own
 * vertices lie on it; normals are unit; faces are wound counter-clockwise from outside. */
static void check_hull_geometry(const lucid_convex_mesh *m, const double *points, int n,
                                double tol) {
    double largest = 0.0; /* the winding test runs on vertices scaled to ~1 (exactly) */
    for (int v = 0; v < m->num_vertices; ++v)
        largest = fmax(largest, fmax(fabs(m->vertices[v].x),
                                     fmax(fabs(m->vertices[v].y), fabs(m->vertices[v].z))));
    int e = ilogb(largest); /* ldexp per component: 2^-e overflows for subnormal sizes */
    for (int f = 0; f < m->num_faces; ++f) {
        lucid_vec3 nrm = m->face_normals[f];
        double d = m->face_offsets_d[f];
        assert_true(fabs(lucid_vec3_norm(nrm) - 1.0) < 1e-12);
        for (int i = 0; i < n; ++i)
            assert_true(lucid_vec3_dot(nrm, lucid_vec3_load(points + 3 * i)) <= d + tol);
        for (int v = 0; v < m->num_vertices; ++v)
            assert_true(lucid_vec3_dot(nrm, m->vertices[v]) <= d + tol);
        int begin = m->face_offsets[f], k = m->face_offsets[f + 1] - begin;
        assert_true(k >= 3);
        lucid_vec3 newell = lucid_vec3_zero();
        for (int i = 0; i < k; ++i) {
            lucid_vec3 a = m->vertices[m->face_vertices[begin + i]];
            lucid_vec3 b = m->vertices[m->face_vertices[begin + (i + 1) % k]];
            assert_true(fabs(lucid_vec3_dot(nrm, a) - d) <= tol);
            newell = lucid_vec3_add(
                newell,
                lucid_vec3_cross(lucid_vec3_make(ldexp(a.x, -e), ldexp(a.y, -e), ldexp(a.z, -e)),
                                 lucid_vec3_make(ldexp(b.x, -e), ldexp(b.y, -e), ldexp(b.z, -e))));
        }
        assert_true(lucid_vec3_dot(newell, nrm) > 0.0);
    }
}

/* Adjacency is symmetric, has no self loops or repeats, every vertex has degree >= 3, and
 * V - E + F = 2 (a closed convex polytope). */
static void check_hull_topology(const lucid_convex_mesh *m) {
    int nv = m->num_vertices, twice_edges = m->neighbor_offsets[nv];
    assert_int_equal(m->neighbor_offsets[0], 0);
    for (int v = 0; v < nv; ++v) {
        int begin = m->neighbor_offsets[v], end = m->neighbor_offsets[v + 1];
        assert_true(end - begin >= 3);
        for (int k = begin; k < end; ++k) {
            int w = m->neighbors[k];
            assert_true(w >= 0 && w < nv && w != v);
            if (k > begin) assert_true(m->neighbors[k - 1] < w);
            int found = 0;
            for (int j = m->neighbor_offsets[w]; j < m->neighbor_offsets[w + 1]; ++j)
                found += m->neighbors[j] == v;
            assert_int_equal(found, 1);
        }
    }
    assert_int_equal(nv - twice_edges / 2 + m->num_faces, 2);
}

static void hull_of_random_points_contains_them_and_is_convex(void **state) {
    (void)state;
    uint64_t rng = 11;
    int sizes[] = {4, 5, 10, 100, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (int on_sphere = 0; on_sphere < 2; ++on_sphere) {
            int n = sizes[s];
            double *p = random_points(&rng, n, on_sphere, 2.0);
            lucid_convex_mesh *m = NULL;
            assert_int_equal(lucid_convex_mesh_create(p, n, &m), LUCID_OK);
            assert_true(m->num_vertices >= 4 && m->num_vertices <= n);
            if (on_sphere) assert_int_equal(m->num_vertices, n); /* all points are extreme */
            check_hull_geometry(m, p, n, 1e-12);
            check_hull_topology(m);
            /* Every hull vertex is one of the input points. */
            for (int v = 0; v < m->num_vertices; ++v) {
                int found = 0;
                for (int i = 0; i < n && !found; ++i)
                    found = memcmp(p + 3 * i, &m->vertices[v], sizeof(lucid_vec3)) == 0;
                assert_true(found);
            }
            lucid_convex_mesh_destroy(m);
            free(p);
        }
}

static void cube_with_interior_points_has_eight_vertices_and_six_faces(void **state) {
    (void)state;
    uint64_t rng = 12;
    int n = 8 + 50;
    double *p = random_points(&rng, n, 0, 0.999);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 3; ++j) p[3 * i + j] = (i >> j) & 1 ? 1.0 : -1.0;
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(p, n, &m), LUCID_OK);
    assert_int_equal(m->num_vertices, 8);
    assert_int_equal(m->num_faces, 6); /* coplanar triangles merged into quads */
    assert_int_equal(m->neighbor_offsets[8], 24);
    for (int v = 0; v < 8; ++v) {
        /* Vertices keep input order, and the neighbours of a corner differ in one coordinate. */
        assert_memory_equal(&m->vertices[v], p + 3 * v, sizeof(lucid_vec3));
        for (int k = m->neighbor_offsets[v]; k < m->neighbor_offsets[v + 1]; ++k) {
            int w = m->neighbors[k], bits = v ^ w;
            assert_true(bits == 1 || bits == 2 || bits == 4);
        }
    }
    check_hull_geometry(m, p, n, 1e-12);
    lucid_convex_mesh_destroy(m);
    free(p);
}

static void hill_climbing_matches_linear_scan(void **state) {
    (void)state;
    uint64_t rng = 13;
    int sizes[] = {20, 200, 2000};
    for (size_t s = 0; s < 3; ++s) {
        int n = sizes[s];
        double *p = random_points(&rng, n, (int)(s % 2), 1.0);
        lucid_convex_mesh *m = NULL;
        assert_int_equal(lucid_convex_mesh_create(p, n, &m), LUCID_OK);
        lucid_shape shape;
        assert_int_equal(lucid_shape_convex(m, &shape), LUCID_OK);
        int hint = -1;
        for (int trial = 0; trial < 2000; ++trial) {
            lucid_vec3 d = random_direction(&rng);
            int start = (int)(uniform(&rng) * m->num_vertices);
            int scan = lucid_convex_mesh_support_scan(m, d);
            int climb = lucid_convex_mesh_support_climb(m, d, start);
            assert_true(lucid_vec3_dot(m->vertices[climb], d) ==
                        lucid_vec3_dot(m->vertices[scan], d));
            /* The dispatching entry point with a carried warm-start hint. */
            lucid_vec3 sp = lucid_shape_support(&shape, d, &hint);
            assert_true(hint >= 0 && hint < m->num_vertices);
            assert_memory_equal(&sp, &m->vertices[hint], sizeof sp);
            assert_true(lucid_vec3_dot(sp, d) == lucid_vec3_dot(m->vertices[scan], d));
        }
        /* Out-of-range hints are safe. */
        int bad_hints[] = {-5, m->num_vertices, 1 << 30};
        for (int i = 0; i < 3; ++i) {
            int h = bad_hints[i];
            int found = lucid_convex_mesh_support_index(m, lucid_vec3_make(1, 2, 3), &h);
            assert_int_equal(h, found);
        }
        lucid_convex_mesh_destroy(m);
        free(p);
    }
}

static void degenerate_inputs_are_rejected(void **state) {
    (void)state;
    lucid_convex_mesh *m = (lucid_convex_mesh *)&m; /* must be reset to NULL on failure */
    double pts[3 * 8] = {0};
    char err[128];
    assert_int_equal(lucid_convex_mesh_create_msg(pts, 0, &m, err, sizeof err),
                     LUCID_ERR_DEGENERATE);
    assert_null(m);
    assert_string_equal(err, "no points");
    for (int n = 1; n <= 3; ++n) {
        for (int i = 0; i < 3 * n; ++i) pts[i] = i * 1.5 + (i % 3 == 2 ? i * i : 0);
        assert_int_equal(lucid_convex_mesh_create(pts, n, &m), LUCID_ERR_DEGENERATE);
    }
    /* Eight copies of one point. */
    for (int i = 0; i < 24; ++i) pts[i] = (i % 3) + 0.5;
    assert_int_equal(lucid_convex_mesh_create_msg(pts, 8, &m, err, sizeof err),
                     LUCID_ERR_DEGENERATE);
    assert_string_equal(err, "all points coincide");
    /* Collinear: p_i = a + i b. */
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 3; ++j) pts[3 * i + j] = 1.0 + j + i * (0.5 - j);
    assert_int_equal(lucid_convex_mesh_create_msg(pts, 8, &m, err, sizeof err),
                     LUCID_ERR_DEGENERATE);
    assert_string_equal(err, "points are collinear");
    /* Coplanar: on the plane x + 2y - z = 3. */
    for (int i = 0; i < 8; ++i) {
        double x = cos(i), y = sin(2.0 * i);
        pts[3 * i] = x;
        pts[3 * i + 1] = y;
        pts[3 * i + 2] = x + 2 * y - 3;
    }
    assert_int_equal(lucid_convex_mesh_create_msg(pts, 8, &m, err, sizeof err),
                     LUCID_ERR_DEGENERATE);
    assert_string_equal(err, "points are coplanar");
    /* A tetrahedron with duplicates is fine; a NaN or Inf anywhere is not. */
    double tet[3 * 6] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0};
    assert_int_equal(lucid_convex_mesh_create(tet, 6, &m), LUCID_OK);
    assert_int_equal(m->num_vertices, 4);
    assert_int_equal(m->num_faces, 4);
    lucid_convex_mesh_destroy(m);
    tet[7] = NAN;
    assert_int_equal(lucid_convex_mesh_create(tet, 6, &m), LUCID_ERR_NONFINITE);
    tet[7] = -INFINITY;
    assert_int_equal(lucid_convex_mesh_create(tet, 6, &m), LUCID_ERR_NONFINITE);
    assert_int_equal(lucid_convex_mesh_create(NULL, 4, &m), LUCID_ERR_ARGUMENT);
    assert_int_equal(lucid_convex_mesh_create(tet, -1, &m), LUCID_ERR_ARGUMENT);
    lucid_convex_mesh_destroy(NULL);
}

/* ---- mesh files ---------------------------------------------------------------------- */

typedef struct temp_dir {
    char path[64];
} temp_dir;

static void make_temp_dir(temp_dir *t) {
    snprintf(t->path, sizeof t->path, "/tmp/lucid_mesh_XXXXXX");
    assert_non_null(mkdtemp(t->path));
}

static void file_path(const temp_dir *t, const char *name, char *out, size_t size) {
    snprintf(out, size, "%s/%s", t->path, name);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Points exactly representable as floats, so binary STL keeps them bit for bit. */
static double *float_points(uint64_t *state, int n) {
    double *p = random_points(state, n, 0, 1.5);
    for (int i = 0; i < 3 * n; ++i) p[i] = (double)(float)p[i];
    return p;
}

static void write_obj(const char *path, const double *p, int n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "# test mesh\r\nmtllib x.mtl\r\no thing\r\n");
    for (int i = 0; i < n; ++i) {
        if (i % 3 == 0) /* with the optional weight */
            fprintf(f, "v %.17g %.17g %.17g 1.0\r\n", p[3 * i], p[3 * i + 1], p[3 * i + 2]);
        else
            fprintf(f, "  v\t%.17g %.17g %.17g # comment\n", p[3 * i], p[3 * i + 1], p[3 * i + 2]);
        fprintf(f, "vn 0 0 1\nvt 0.5 0.5\n");
    }
    fprintf(f, "f 1 2 3\ns off\n");
    fclose(f);
}

/* Triangles (p[3t], p[3t+1], p[3t+2]); the last one is padded with point 0. */
static int triangle_vertex(int t, int k, int n) {
    return 3 * t + k < n ? 3 * t + k : 0;
}

static void write_ascii_stl(const char *path, const double *p, int n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "solid test\n");
    for (int t = 0; t < (n + 2) / 3; ++t) {
        fprintf(f, "  facet normal 0 0 1\r\n    outer loop\n");
        for (int k = 0; k < 3; ++k) {
            const double *v = p + 3 * triangle_vertex(t, k, n);
            fprintf(f, "      vertex %.17g %.17g %.17g\n", v[0], v[1], v[2]);
        }
        fprintf(f, "    endloop\n  endfacet\n");
    }
    fprintf(f, "endsolid test\n");
    fclose(f);
}

static void put_le32(unsigned char *b, uint32_t x) {
    for (int i = 0; i < 4; ++i) b[i] = (unsigned char)(x >> (8 * i));
}

static void write_binary_stl(const char *path, const double *p, int n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    unsigned char header[84] = {0};
    memcpy(header, "solid but actually binary", 25); /* detection must go by size */
    int triangles = (n + 2) / 3;
    put_le32(header + 80, (uint32_t)triangles);
    fwrite(header, 1, 84, f);
    for (int t = 0; t < triangles; ++t) {
        unsigned char rec[50] = {0};
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c) {
                float x = (float)p[3 * triangle_vertex(t, k, n) + c];
                uint32_t bits;
                memcpy(&bits, &x, 4);
                put_le32(rec + 12 + 12 * k + 4 * c, bits);
            }
        fwrite(rec, 1, 50, f);
    }
    fclose(f);
}

/* Same vertex set (order may differ when duplicates are present). */
static void assert_same_vertex_set(const lucid_convex_mesh *a, const lucid_convex_mesh *b,
                                   double scale) {
    assert_int_equal(a->num_vertices, b->num_vertices);
    assert_int_equal(a->num_faces, b->num_faces);
    for (int i = 0; i < a->num_vertices; ++i) {
        int found = 0;
        for (int j = 0; j < b->num_vertices && !found; ++j)
            found = lucid_vec3_dist(lucid_vec3_scale(a->vertices[i], scale), b->vertices[j]) == 0;
        assert_true(found);
    }
}

static void mesh_files_parse_to_the_same_hull(void **state) {
    (void)state;
    uint64_t rng = 21;
    int n = 200;
    double *p = float_points(&rng, n);
    lucid_convex_mesh *reference = NULL, *m = NULL;
    assert_int_equal(lucid_convex_mesh_create(p, n, &reference), LUCID_OK);
    temp_dir dir;
    make_temp_dir(&dir);
    char obj[128], ascii[128], binary[128], noext[128];
    file_path(&dir, "a.OBJ", obj, sizeof obj);
    file_path(&dir, "b.stl", ascii, sizeof ascii);
    file_path(&dir, "c.stl", binary, sizeof binary);
    file_path(&dir, "d.mesh", noext, sizeof noext);
    write_obj(obj, p, n);
    write_ascii_stl(ascii, p, n);
    write_binary_stl(binary, p, n);
    write_binary_stl(noext, p, n);
    const char *paths[] = {obj, ascii, binary, noext};
    char err[256];
    for (int i = 0; i < 4; ++i) {
        assert_int_equal(lucid_mesh_file_load_hull(paths[i], 1.0, &m, err, sizeof err), LUCID_OK);
        assert_same_vertex_set(reference, m, 1.0);
        lucid_convex_mesh_destroy(m);
        assert_int_equal(lucid_mesh_file_load_hull(paths[i], 2.0, &m, err, sizeof err), LUCID_OK);
        assert_same_vertex_set(reference, m, 2.0); /* x2 is exact */
        lucid_convex_mesh_destroy(m);
    }
    double *read;
    int count;
    assert_int_equal(lucid_mesh_file_read_points(binary, 1.0, &read, &count, err, sizeof err),
                     LUCID_OK);
    assert_int_equal(count, 3 * ((n + 2) / 3));
    assert_memory_equal(read, p, sizeof(double) * 3 * (size_t)n);
    free(read);
    for (int i = 0; i < 4; ++i) remove(paths[i]);
    remove(dir.path);
    lucid_convex_mesh_destroy(reference);
    free(p);
}

/* Writes text to NAME in the temp dir and expects STATUS with MESSAGE inside err. */
static void expect_failure(const temp_dir *dir, const char *name, const char *text,
                           lucid_status status, const char *message) {
    char path[128], err[256];
    file_path(dir, name, path, sizeof path);
    write_text(path, text);
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_mesh_file_load_hull(path, 1.0, &m, err, sizeof err), status);
    assert_null(m);
    if (strstr(err, message) == NULL) fail_msg("'%s' not in '%s'", message, err);
    remove(path);
}

static void malformed_mesh_files_give_clear_errors(void **state) {
    (void)state;
    temp_dir dir;
    make_temp_dir(&dir);
    const char *tet = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n";
    char text[256];
    snprintf(text, sizeof text, "%s# fine so far\nv 1 2\n", tet);
    expect_failure(&dir, "short.obj", text, LUCID_ERR_PARSE, "short.obj:6: expected");
    snprintf(text, sizeof text, "%sv 1 2 x\n", tet);
    expect_failure(&dir, "word.obj", text, LUCID_ERR_PARSE, "word.obj:5:");
    snprintf(text, sizeof text, "%sv 1 nan 2\n", tet);
    expect_failure(&dir, "nan.obj", text, LUCID_ERR_NONFINITE, "nan.obj:5:");
    expect_failure(&dir, "empty.obj", "", LUCID_ERR_DEGENERATE, "no vertices");
    expect_failure(&dir, "faces.obj", "# only faces\nf 1 2 3\n", LUCID_ERR_DEGENERATE,
                   "no vertices");
    expect_failure(&dir, "flat.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n", LUCID_ERR_DEGENERATE,
                   "coplanar");
    expect_failure(&dir, "bad.stl", "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 1 2\n",
                   LUCID_ERR_PARSE, "bad.stl:4: expected 'vertex x y z'");
    expect_failure(&dir, "junk.stl", "solid x\nbanana 1 2 3\n", LUCID_ERR_PARSE,
                   "junk.stl:2: unexpected 'banana'");
    expect_failure(&dir, "random.stl", "this is not a mesh at all", LUCID_ERR_PARSE,
                   "neither a binary STL");
    expect_failure(&dir, "empty.stl", "", LUCID_ERR_PARSE, "neither a binary STL");
    remove(dir.path);
    /* A missing file, and an invalid scale. */
    lucid_convex_mesh *m = NULL;
    char err[256];
    assert_int_equal(lucid_mesh_file_load_hull("/nonexistent/x.obj", 1.0, &m, err, sizeof err),
                     LUCID_ERR_IO);
    assert_non_null(strstr(err, "/nonexistent/x.obj: cannot open file"));
    double scales[] = {0.0, -1.0, NAN, INFINITY};
    for (int i = 0; i < 4; ++i)
        assert_int_equal(
            lucid_mesh_file_load_hull("/nonexistent/x.obj", scales[i], &m, err, sizeof err),
            LUCID_ERR_ARGUMENT);
}

static void write_bytes(const char *path, const char *data, size_t size) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

/* Writes size bytes to NAME and expects STATUS with MESSAGE inside err (file and memory). */
static void expect_bytes_failure(const temp_dir *dir, const char *name, const char *data,
                                 size_t size, lucid_status status, const char *message) {
    char path[128], err[256];
    file_path(dir, name, path, sizeof path);
    write_bytes(path, data, size);
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_mesh_file_load_hull(path, 1.0, &m, err, sizeof err), status);
    assert_null(m);
    if (strstr(err, message) == NULL) fail_msg("'%s' not in '%s'", message, err);
    remove(path);
    double *points = (double *)&points;
    int n = -1;
    assert_int_equal(
        lucid_mesh_file_parse_points(name, data, size, 1.0, &points, &n, err, sizeof err), status);
    assert_null(points);
    assert_int_equal(n, 0);
    if (strstr(err, message) == NULL) fail_msg("'%s' not in '%s' (memory)", message, err);
}

/* A NUL byte in an OBJ is an error at its line (no vertices silently dropped); other formats,
 * recognised by extension or by magic bytes, are read by assimp. */
static void nul_bytes_and_unsupported_formats_are_named(void **state) {
    (void)state;
    temp_dir dir;
    make_temp_dir(&dir);
    static const char nul_obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n# x\0y\nv 5 5 5\n";
    expect_bytes_failure(&dir, "nul.obj", nul_obj, sizeof nul_obj - 1, LUCID_ERR_PARSE,
                         "nul.obj:5: NUL byte in OBJ text");
    static const char nul_first[] = "v 0 0 0\nv 1 0\0 0\nv 0 1 0\nv 0 0 1\n";
    expect_bytes_failure(&dir, "nul2.obj", nul_first, sizeof nul_first - 1, LUCID_ERR_PARSE,
                         "nul2.obj:2: NUL byte");
    static const char nul_stl[] = "solid t\n vertex 0 0 0\n vertex 1 0 0\n\0 vertex 0 1 0\n";
    expect_bytes_failure(&dir, "nul.stl", nul_stl, sizeof nul_stl - 1, LUCID_ERR_PARSE,
                         "nul.stl:4: NUL byte in ASCII STL text");
    /* Formats lucid does not read itself go to assimp: a truncated one is named. */
    expect_bytes_failure(&dir, "t.glb", "glTF\2\0\0\0", 8, LUCID_ERR_PARSE,
                         "t.glb: 'glb' file not read by assimp");
    /* Nothing readable at all. */
    expect_bytes_failure(&dir, "t.txt", "hello\n", 6, LUCID_ERR_DEGENERATE, "no vertices");
    remove(dir.path);
    /* The in-memory reader agrees with the file reader on a valid OBJ (no NUL needed). */
    static const char tet[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1";
    double *points = NULL;
    int n = 0;
    char err[128];
    assert_int_equal(
        lucid_mesh_file_parse_points("m.obj", tet, sizeof tet - 1, 2.0, &points, &n, err, 128),
        LUCID_OK);
    assert_int_equal(n, 4);
    assert_true(points[3] == 2.0 && points[7] == 2.0 && points[11] == 2.0);
    free(points);
}

/* Issue 34: PLY, OFF (by extension or by magic bytes) and COLLADA through assimp give the
 * file's vertices; a .dae's <unit> and node transforms apply, its axes are kept. */
static void other_formats_are_read_through_assimp(void **state) {
    (void)state;
    static const char ply[] = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\n"
                              "property float y\nproperty float z\nelement face 4\n"
                              "property list uchar int vertex_indices\nend_header\n0 0 0\n"
                              "1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
    static const char off[] = "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n"
                              "3 0 3 2\n3 1 2 3\n";
    const struct {
        const char *name, *data;
        size_t size;
    } cases[] = {{"t.ply", ply, sizeof ply - 1},
                 {"t.mesh", ply, sizeof ply - 1},
                 {"t.off", off, sizeof off - 1},
                 {"t", off, sizeof off - 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double *points = NULL;
        int n = 0;
        char err[256] = "";
        lucid_status st = lucid_mesh_file_parse_points(cases[c].name, cases[c].data, cases[c].size,
                                                       2.0, &points, &n, err, 256);
        if (st != LUCID_OK) fail_msg("%s: %s", cases[c].name, err);
        /* every point is a vertex of the tetrahedron (x2), and each of the four occurs */
        int seen[4] = {0, 0, 0, 0};
        for (int i = 0; i < n; ++i) {
            const double *p = points + 3 * i;
            int k = p[0] == 2.0 ? 1 : p[1] == 2.0 ? 2 : p[2] == 2.0 ? 3 : 0;
            double sum = p[0] + p[1] + p[2];
            assert_true(sum == (k ? 2.0 : 0.0));
            seen[k] = 1;
        }
        assert_true(seen[0] && seen[1] && seen[2] && seen[3]);
        free(points);
    }
    /* tetra.dae: centimetres, a node at (10, 20, 30) cm, legs 2, 3 and 4 cm */
    lucid_convex_mesh *hull = NULL;
    char err[256] = "";
    lucid_status st = lucid_mesh_file_load_hull(
        LUCID_SOURCE_DIR "/tests/data/model/meshes/tetra.dae", 1.0, &hull, err, sizeof err);
    if (st != LUCID_OK) fail_msg("%s", err);
    assert_int_equal(hull->num_vertices, 4);
    const double want[4][3] = {
        {0.1, 0.2, 0.3}, {0.12, 0.2, 0.3}, {0.1, 0.23, 0.3}, {0.1, 0.2, 0.34}};
    for (int k = 0; k < 4; ++k) {
        int found = 0;
        for (int i = 0; i < 4; ++i) {
            lucid_vec3 v = hull->vertices[i];
            found += fabs(v.x - want[k][0]) < 1e-7 && fabs(v.y - want[k][1]) < 1e-7 &&
                     fabs(v.z - want[k][2]) < 1e-7;
        }
        assert_int_equal(found, 1);
    }
    lucid_convex_mesh_destroy(hull);
    /* a header declaring more vertices or faces than the file can hold is refused before
     * assimp sizes its arrays by it (fuzz_stl: an OFF face count of 100 digits, an OOM) */
    static const char huge_off[] = "OFF\r\n 6\n88888888888888888888888888888888888888\n";
    static const char huge_ply[] = "ply\nformat ascii 1.0\nelement vertex 4000000000\n"
                                   "property float x\nend_header\n0\n";
    static const char n_off[] = "nOFF\n3\n4 4 0\n0 0 0\n";
    /* a '#' line that assimp does not take as a comment ('\r' ends it for either reading) */
    static const char hash_off[] = "OFF\r\n# 6888888888\r\r888888888888888888\t888\t8\n";
    const char *refused[][2] = {
        {"h.off", huge_off}, {"h", huge_off}, {"h.ply", huge_ply}, {"c.off", hash_off}};
    for (size_t c = 0; c < 4; ++c) {
        double *none = NULL;
        int count = 0;
        st = lucid_mesh_file_parse_points(refused[c][0], refused[c][1], strlen(refused[c][1]), 1.0,
                                          &none, &count, err, sizeof err);
        assert_int_equal(st, LUCID_ERR_PARSE);
        if (strstr(err, "more than its") == NULL) fail_msg("%s: %s", refused[c][0], err);
    }
    /* nOFF's dimension is not a count: a 4-vertex file passes the check (assimp reads on) */
    double *few = NULL;
    int nfew = 0;
    st = lucid_mesh_file_parse_points("n.off", n_off, strlen(n_off), 1.0, &few, &nfew, err,
                                      sizeof err);
    assert_true(st == LUCID_OK || strstr(err, "more than its") == NULL);
    free(few);
    /* the same file saying Y_UP: its axes are kept too (ROS and Gazebo read a mesh's z as up) */
    FILE *f = fopen(LUCID_SOURCE_DIR "/tests/data/model/meshes/tetra.dae", "rb");
    assert_non_null(f);
    char text[4096];
    size_t size = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[size] = '\0';
    char *up = strstr(text, "Z_UP");
    assert_non_null(up);
    up[0] = 'Y';
    double *points = NULL;
    int n = 0;
    st = lucid_mesh_file_parse_points("y.dae", text, size, 1.0, &points, &n, err, sizeof err);
    if (st != LUCID_OK) fail_msg("%s", err);
    for (int i = 0; i < n; ++i) {
        const double *p = points + 3 * i;
        int found = 0;
        for (int k = 0; k < 4; ++k)
            found += fabs(p[0] - want[k][0]) < 1e-7 && fabs(p[1] - want[k][1]) < 1e-7 &&
                     fabs(p[2] - want[k][2]) < 1e-7;
        assert_int_equal(found, 1);
    }
    free(points);
}

/* Regression (issue 16): the degeneracy checks squared coordinates, so a valid tetrahedron
 * at scale 1e300 overflowed ("collinear") and at 1e-300 underflowed ("all points
 * coincide"). The hull is built on the points times a power of two now, so every scale of
 * the normal range gives the same hull, exactly scaled, and the same degeneracy verdicts. */
static void hulls_are_scale_invariant(void **state) {
    (void)state;
    const double tet[12] = {0.25, -0.5, 0.125, 1.5, 0.25, -0.75, -0.5, 1.25, 0.5, 0.3, 0.2, 1.1};
    uint64_t rng = 77;
    /* Subnormal coordinates: the faces are still wound counter-clockwise from outside. */
    double tiny[12];
    for (int i = 0; i < 12; ++i) tiny[i] = ldexp(round(tet[i] * 64), -1070);
    lucid_convex_mesh *sub = NULL;
    assert_int_equal(lucid_convex_mesh_create(tiny, 4, &sub), LUCID_OK);
    check_hull_geometry(sub, tiny, 4, 1e-322); /* a few subnormal ulps */
    lucid_convex_mesh_destroy(sub);
    for (int k = -300; k <= 300; k += 20) {
        double scale = pow(10.0, k);
        double p[12];
        for (int i = 0; i < 12; ++i) p[i] = tet[i] * scale;
        lucid_convex_mesh *m = NULL;
        char err[128];
        if (lucid_convex_mesh_create_msg(p, 4, &m, err, sizeof err) != LUCID_OK)
            fail_msg("scale 1e%d: %s", k, err);
        assert_int_equal(m->num_vertices, 4);
        assert_int_equal(m->num_faces, 4);
        check_hull_geometry(m, p, 4, 1e-12 * scale);
        check_hull_topology(m);
        for (int i = 0; i < 4; ++i) /* vertices are the input points, bit for bit */
            assert_memory_equal(&m->vertices[i], p + 3 * i, sizeof(lucid_vec3));
        for (int trial = 0; trial < 50; ++trial) {
            lucid_vec3 d = random_direction(&rng);
            int scan = lucid_convex_mesh_support_scan(m, d);
            for (int start = 0; start < 4; ++start)
                assert_int_equal(lucid_convex_mesh_support_climb(m, d, start), scan);
        }
        lucid_convex_mesh_destroy(m);
        /* Degenerate sets keep their diagnosis at every scale. */
        double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, line[12], same[12];
        for (int i = 0; i < 12; ++i) {
            flat[i] = (flat[i] + 0.5) * scale;
            line[i] = (0.5 + (i / 3) * (1.0 + i % 3)) * scale;
            same[i] = (0.75 + i % 3) * scale;
        }
        assert_int_equal(lucid_convex_mesh_create_msg(flat, 4, &m, err, sizeof err),
                         LUCID_ERR_DEGENERATE);
        assert_string_equal(err, "points are coplanar");
        assert_int_equal(lucid_convex_mesh_create_msg(line, 4, &m, err, sizeof err),
                         LUCID_ERR_DEGENERATE);
        assert_string_equal(err, "points are collinear");
        assert_int_equal(lucid_convex_mesh_create_msg(same, 4, &m, err, sizeof err),
                         LUCID_ERR_DEGENERATE);
        assert_string_equal(err, "all points coincide");
    }
}

/* Set when the shared meshes are absent: cmocka's skip() alone exits 0, which ctest would
 * report as Passed; main exits 77 instead (SKIP_RETURN_CODE), so it shows as skipped. */
static int real_meshes_missing;

/* The hull of an OBJ text, loaded through a temporary file as a user's would be. */
static lucid_convex_mesh *hull_of_obj(const char *name, const char *text) {
    temp_dir dir;
    make_temp_dir(&dir);
    char path[128], err[256];
    file_path(&dir, name, path, sizeof path);
    write_text(path, text);
    lucid_convex_mesh *m = NULL;
    assert_int_equal(lucid_mesh_file_load_hull(path, 1.0, &m, err, sizeof err), LUCID_OK);
    remove(path);
    remove(dir.path);
    return m;
}

/* Regression (issue 16, item 11): a 5-vertex hull 1e9 long whose vertex D lies 1e-7 above
 * the plane of A, B, C. qhull merges ABCD into one (bent) polygon, which dropped the true edge
 * B-D, so a climb from B in a direction near the polygon's normal stopped at B while D is
 * higher. Climbing walks the polygons' diagonals too now: it equals the scan everywhere. */
static void climbing_is_exact_on_an_extreme_aspect_hull(void **state) {
    (void)state;
    lucid_convex_mesh *m =
        hull_of_obj("needle.obj", "# 1e9 : 1 aspect; D is 1e-7 above the plane of A, B, C\n"
                                  "v 0 0 0\nv 1e9 0 0\nv 1e9 1 0\nv 0 1 1e-7\nv 5e8 0.5 -1\n");
    assert_int_equal(m->num_vertices, 5);
    assert_int_equal(m->num_faces, 5); /* the premise: qhull merged ABCD into a polygon */
    uint64_t rng = 11;
    int checked = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        lucid_vec3 d;
        if (trial % 4 == 0) {
            d = random_direction(&rng);
        } else if (trial % 4 == 1) { /* the failing family: up the bent polygon */
            d = lucid_vec3_make(1e-9, -1, pow(10.0, 12 * uniform(&rng)));
        } else { /* near a face normal, at angles from 1e-12 to 1 */
            lucid_vec3 n = m->face_normals[(int)(uniform(&rng) * m->num_faces)];
            d = lucid_vec3_axpy(n, pow(10.0, -12 * uniform(&rng)), random_direction(&rng));
        }
        double best = lucid_vec3_dot(m->vertices[lucid_convex_mesh_support_scan(m, d)], d);
        for (int start = 0; start < 5; ++start) {
            int got = lucid_convex_mesh_support_climb(m, d, start);
            if (lucid_vec3_dot(m->vertices[got], d) != best)
                fail_msg("direction (%g, %g, %g) from %d: climb %d, value %.17g < %.17g", d.x, d.y,
                         d.z, start, got, lucid_vec3_dot(m->vertices[got], d), best);
            checked++;
        }
    }
    assert_int_equal(checked, 100000);
    lucid_convex_mesh_destroy(m);
}

/* Regression (fuzz_obj in CI): two vertices 1e-7 apart (B, C) on a cloud 4e6 long. In the
 * direction from the box centre to A (nearly -y, with a -z part) qhull's hull is convex only
 * up to its merging tolerance there: B is higher than its every neighbour, C is 1.3e-4 lower
 * (a distance of 6e-11 along the direction, far below the tolerance, 2.7e-8) and has A as a
 * neighbour, 7e4 higher. The climb stopped at B; it now crosses to C. Every climb must land
 * on the scan's value, up to the hull's tolerance along d. */
static void climbing_crosses_near_duplicate_vertices(void **state) {
    (void)state;
    lucid_convex_mesh *m = hull_of_obj(
        "sliver.obj", "# found by fuzz_obj: B and C are 1e-7 apart\n"
                      "v 5 -1 5\nv -.66234106 -.782 -.8280014\nv -.66234107 -.782 -.8280013\n"
                      "v 2 -.6 -4\nv 6 4324284 8\nv 811 3 3\n");
    assert_int_equal(m->num_vertices, 6);
    assert_true(m->tie_tolerance > 0.0 && m->tie_tolerance < 1e-6);
    uint64_t rng = 5;
    double worst = 0.0;
    for (int trial = 0; trial < 20000; ++trial) {
        lucid_vec3 d;
        if (trial % 3 == 0) {
            d = random_direction(&rng);
        } else if (trial % 3 == 1) { /* the failing family: towards A from the box centre */
            d = lucid_vec3_axpy(lucid_vec3_sub(m->vertices[0], m->box_center), 1e6 * uniform(&rng),
                                random_direction(&rng));
        } else { /* near a vertex direction, at angles from 1e-12 to 1 */
            lucid_vec3 v = m->vertices[(int)(uniform(&rng) * m->num_vertices)];
            d = lucid_vec3_axpy(lucid_vec3_sub(v, m->box_center), pow(10.0, 6 - 12 * uniform(&rng)),
                                random_direction(&rng));
        }
        double best = lucid_vec3_dot(m->vertices[lucid_convex_mesh_support_scan(m, d)], d);
        double slack = m->tie_tolerance * (fabs(d.x) + fabs(d.y) + fabs(d.z));
        for (int start = 0; start < m->num_vertices; ++start) {
            int got = lucid_convex_mesh_support_climb(m, d, start);
            double short_by = best - lucid_vec3_dot(m->vertices[got], d);
            if (short_by > slack)
                fail_msg("direction (%g, %g, %g) from %d: climb %d short by %.3g (slack %.3g)", d.x,
                         d.y, d.z, start, got, short_by, slack);
            worst = fmax(worst, short_by / slack);
        }
    }
    printf("climbs short of the scan by at most %.3g of the tie slack\n", worst);
    lucid_convex_mesh_destroy(m);
}

/* Hull vertex counts of the shared real meshes against the manifest's hull_verts column. */
static void real_meshes_load_with_the_manifest_hull_sizes(void **state) {
    (void)state;
    /* LUCID_MESHES_DIR overrides the CI layout (shared/ beside the repository). */
    const char *root = getenv("LUCID_MESHES_DIR");
    if (root == NULL) root = LUCID_SOURCE_DIR "/../shared/data/meshes";
    char path[512], line[2048];
    snprintf(path, sizeof path, "%s/manifest.tsv", root);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        print_message("skipped: %s not found\n", path);
        real_meshes_missing = 1;
        skip();
    }
    int rows = 0, mismatches = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char file[256];
        int verts, tris, hull_verts;
        if (sscanf(line, "%255[^\t]\t%d\t%d\t%d", file, &verts, &tris, &hull_verts) != 4) continue;
        snprintf(path, sizeof path, "%s/%s", root, file);
        lucid_convex_mesh *m = NULL;
        double *p;
        int n;
        char err[512];
        assert_int_equal(lucid_mesh_file_read_points(path, 1.0, &p, &n, err, sizeof err), LUCID_OK);
        assert_int_equal(n, verts);
        assert_int_equal(lucid_convex_mesh_create(p, n, &m), LUCID_OK);
        check_hull_geometry(m, p, n, 1e-9);
        check_hull_topology(m);
        /* Hill climbing on qhull's merged facets still finds the global maximum. */
        uint64_t rng = 31;
        for (int trial = 0; trial < 300; ++trial) {
            lucid_vec3 d = random_direction(&rng);
            int start = (int)(uniform(&rng) * m->num_vertices);
            int scan = lucid_convex_mesh_support_scan(m, d);
            int climb = lucid_convex_mesh_support_climb(m, d, start);
            assert_true(lucid_vec3_dot(m->vertices[climb], d) ==
                        lucid_vec3_dot(m->vertices[scan], d));
        }
        if (m->num_vertices != hull_verts) {
            print_message("%s: %d hull vertices, manifest says %d\n", file, m->num_vertices,
                          hull_verts);
            mismatches++;
        }
        lucid_convex_mesh_destroy(m);
        free(p);
        rows++;
    }
    fclose(f);
    assert_true(rows > 0);
    assert_int_equal(mismatches, 0);
}

/* `test_convex_mesh` runs the self-contained cases; `test_convex_mesh --real-meshes` only the
 * case needing ../shared/data/meshes (its own ctest, c/test_convex_mesh_real_meshes), which
 * exits 77 when the data is missing. */
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--real-meshes") == 0) {
        const struct CMUnitTest real[] = {
            cmocka_unit_test(real_meshes_load_with_the_manifest_hull_sizes),
        };
        int failed = cmocka_run_group_tests(real, NULL, NULL);
        return failed ? failed : real_meshes_missing ? 77 : 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hull_of_random_points_contains_them_and_is_convex),
        cmocka_unit_test(cube_with_interior_points_has_eight_vertices_and_six_faces),
        cmocka_unit_test(hill_climbing_matches_linear_scan),
        cmocka_unit_test(degenerate_inputs_are_rejected),
        cmocka_unit_test(mesh_files_parse_to_the_same_hull),
        cmocka_unit_test(malformed_mesh_files_give_clear_errors),
        cmocka_unit_test(nul_bytes_and_unsupported_formats_are_named),
        cmocka_unit_test(other_formats_are_read_through_assimp),
        cmocka_unit_test(hulls_are_scale_invariant),
        cmocka_unit_test(climbing_is_exact_on_an_extreme_aspect_hull),
        cmocka_unit_test(climbing_crosses_near_duplicate_vertices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
