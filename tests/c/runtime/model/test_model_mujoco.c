/* lucid's rigid-body dynamics against MuJoCo 2.2.2 in the same process (libmujoco dlopen'ed:
 * a test-only dependency), on models both load from the same MJCF file: the robot models of
 * Debian's libmujoco-samples (test_samples), ../shared/data/robots/allegro_right_hand.xml and
 * its three URDFs (both read a copy without visual and collision elements, with diagonal
 * inertias: test_urdfs) and the repository's
 * tests/data/model/mjcf_forms.xml (free, ball, slide and multi-joint bodies). At 100 random
 * states each (uniform within limits, uniform rotations, velocities in [-2, 2]):
 *   - body placements: lucid's frame poses = MuJoCo's xpos/xmat;
 *   - M: lucid's CRBA = MuJoCo's mj_fullM(qM) (armature included in both);
 *   - bias: lucid's NLE = MuJoCo's qfrc_bias (Coriolis, centrifugal, gravity);
 *   - forward dynamics: lucid's ABA with tau = MuJoCo's qfrc_passive + qfrc_actuator (springs,
 *     damping, position servos at ctrl = 0) = MuJoCo's qacc with contacts and joint limits
 *     disabled (opt.disableflags |= mjDSBL_CONSTRAINT);
 * each to 1e-9 relative to the largest entry of the quantity. Both sides use MuJoCo's
 * compiled inertias (see compare_model; the loader's own are checked by test_mjcf_load).
 * Free joints: MuJoCo's qpos is the body's world pose and its qvel (v_world, w_body): the
 * world-frame velocity of the body origin, then the angular velocity in the body frame;
 * lucid's q is the pose relative to the body's placement and v the body twist (R^T v_world,
 * w_body). With v_mj = T v (T = diag(R, I) on a free joint's dofs): M = T^T M_mj T,
 * b = T^T (b_mj + M_mj dT v) where dT v = (R (w x v_lin), 0), tau = T^T tau_mj and
 * a = T^-1 (a_mj - dT v). Exit 77 with a message when MuJoCo or a model is missing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/model/dynamics.h"
#include "runtime/model/model.h"
#include "runtime/model/model_load.h"

#include "tests/c/common/test_mujoco_compare.h"
#include "tests/c/common/test_random.h"

#define STATES 100
#define TOL    1e-9

static int skipped;

#if HAVE_MUJOCO
/* lucid reads lucid_path (meshes skipped), MuJoCo mujoco_path (the same model). MJCF: the
 * same path, and lucid's bodies take MuJoCo's compiled inertias (see below); URDF: MuJoCo
 * fuses fixed links into their parents, so bodies are matched by name only (the inertias of
 * the URDF used here are diagonal: nothing for MuJoCo to diagonalise). */
static void compare_files(const char *lucid_path, const char *path) {
    mujoco_api mj;
    if (!load_mujoco(&mj)) {
        fprintf(stderr, "MuJoCo 2.2.2 (libmujoco.so) not found: %s not compared\n", path);
        skipped = 1;
        return;
    }
    char err[1024] = "";
    mjModel *mm = mj.load_xml(path, NULL, err, sizeof err);
    if (!mm) fprintf(stderr, "MuJoCo: %s\n", err);
    assert_non_null(mm);
    mm->opt.disableflags |= mjDSBL_CONSTRAINT; /* no contacts, no joint limits */
    mjData *md = mj.make_data(mm);
    assert_non_null(md);

    lucid_model_spec *spec = NULL;
    lucid_model_load_options o = lucid_model_load_options_default();
    o.skip_meshes = 1;
    assert_int_equal(lucid_model_spec_load(lucid_path, &o, &spec, err, sizeof err), LUCID_OK);
    int same_file = strcmp(lucid_path, path) == 0;
    /* The same parameters on both sides: MuJoCo keeps a full inertia tensor as principal
     * moments and axes from mju_eig3, accurate to ~1e-8 only (test_mjcf_load compares the
     * tensors themselves), so each body gets MuJoCo's R diag(I) R^T: what is compared here
     * is the algorithms. */
    if (same_file) assert_int_equal((int)spec->nbodies + 1, mm->nbody);
    for (size_t i = 0; same_file && i < spec->nbodies; i++) {
        int mb = (int)i + 1;
        lucid_quat iq = lucid_quat_make(mm->body_iquat[4 * mb], mm->body_iquat[4 * mb + 1],
                                        mm->body_iquat[4 * mb + 2], mm->body_iquat[4 * mb + 3]);
        lucid_quat_normalize(&iq);
        lucid_mat3 R = lucid_quat_to_mat3(iq);
        lucid_mat3 D = lucid_mat3_diag(lucid_vec3_load(mm->body_inertia + 3 * mb));
        lucid_mat3 RD = lucid_mat3_mul(&R, &D), Rt = lucid_mat3_transpose(&R);
        spec->bodies[i].inertia = lucid_mat3_mul(&RD, &Rt);
        spec->bodies[i].com = lucid_vec3_load(mm->body_ipos + 3 * mb);
        spec->bodies[i].mass = mm->body_mass[mb];
    }
    lucid_model *m = NULL;
    lucid_status st = lucid_model_compile(spec, &m, err, sizeof err);
    if (st) fprintf(stderr, "%s\n", err);
    assert_int_equal(st, LUCID_OK);
    lucid_model_spec_destroy(spec);
    lucid_model_data *d = NULL;
    assert_int_equal(lucid_model_data_create(m, &d), LUCID_OK);

    size_t nq = lucid_model_nq(m), nv = lucid_model_nv(m);
    assert_int_equal((int)nq, mm->nq);
    assert_int_equal((int)nv, mm->nv);
    assert_int_equal((int)lucid_model_njoints(m), mm->njnt);
    /* lucid's nodes are MuJoCo's joints, in the same order, at the same coordinates */
    for (int j = 0; j < mm->njnt; j++) {
        const char *name = mm->names + mm->name_jntadr[j];
        if (name[0]) assert_string_equal(lucid_model_joint_name(m, (size_t)j), name);
        assert_int_equal((int)lucid_model_joint_idx_q(m, (size_t)j), mm->jnt_qposadr[j]);
        assert_int_equal((int)lucid_model_joint_idx_v(m, (size_t)j), mm->jnt_dofadr[j]);
    }
    double *q = calloc(nq, sizeof *q), *v = calloc(nv, sizeof *v), *tau = calloc(nv, sizeof *tau);
    double *a = calloc(nv, sizeof *a), *b = calloc(nv, sizeof *b),
           *Mmj = calloc(nv * nv, sizeof *Mmj);
    double *want = calloc(nv * nv, sizeof *want), *T = calloc(nv * nv, sizeof *T);
    double *Tdv = calloc(nv, sizeof *Tdv), *tmp = calloc(nv * nv, sizeof *tmp);
    assert_true(q && v && tau && a && b && Mmj && want && T && Tdv && tmp);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    double worst[4] = {0, 0, 0, 0};
    for (int s = 0; s < STATES; s++) {
        mj.reset_data(mm, md);
        for (int j = 0; j < mm->njnt; j++) {
            double *qp = md->qpos + mm->jnt_qposadr[j];
            switch (mm->jnt_type[j]) {
                case mjJNT_FREE:
                    for (int i = 0; i < 3; i++) qp[i] = xorshift_range(&seed, -1, 1);
                    xorshift_quat(&seed, qp + 3);
                    break;
                case mjJNT_BALL:
                    xorshift_quat(&seed, qp);
                    break;
                default: {
                    double lo = mm->jnt_limited[j] ? mm->jnt_range[2 * j] : -3.14159;
                    double hi = mm->jnt_limited[j] ? mm->jnt_range[2 * j + 1] : 3.14159;
                    qp[0] = xorshift_range(&seed, lo, hi);
                }
            }
        }
        for (int i = 0; i < mm->nv; i++) md->qvel[i] = xorshift_range(&seed, -2, 2);
        for (int i = 0; i < mm->nu; i++) md->ctrl[i] = 0.0;
        mj.forward(mm, md);
        mj.full_m(mm, Mmj, md->qM);
        /* lucid's state and T (v_mj = T v), dT v */
        memcpy(q, md->qpos, nq * sizeof *q);
        memcpy(v, md->qvel, nv * sizeof *v);
        memset(T, 0, nv * nv * sizeof *T);
        memset(Tdv, 0, nv * sizeof *Tdv);
        for (size_t i = 0; i < nv; i++) T[i + nv * i] = 1.0;
        for (int j = 0; j < mm->njnt; j++) {
            if (mm->jnt_type[j] != mjJNT_FREE) continue;
            int body = mm->jnt_bodyid[j], iq = mm->jnt_qposadr[j], iv = mm->jnt_dofadr[j];
            /* q = placement^-1 X_world */
            lucid_se3 X, P = lucid_model_joint_placement(m, (size_t)j);
            assert_int_equal(
                lucid_se3_from_quat(lucid_quat_make(md->qpos[iq + 3], md->qpos[iq + 4],
                                                    md->qpos[iq + 5], md->qpos[iq + 6]),
                                    lucid_vec3_load(md->qpos + iq), &X),
                LUCID_OK);
            lucid_se3 L = lucid_se3_between(&P, &X);
            lucid_quat lq = lucid_se3_to_quat(&L);
            lucid_vec3_store(L.t, q + iq);
            q[iq + 3] = lq.w, q[iq + 4] = lq.x, q[iq + 5] = lq.y, q[iq + 6] = lq.z;
            /* R: the body's world rotation (MuJoCo's xmat, row-major) */
            const double *xm = md->xmat + 9 * body;
            lucid_mat3 R = {{xm[0], xm[3], xm[6], xm[1], xm[4], xm[7], xm[2], xm[5], xm[8]}};
            lucid_vec3 vl = lucid_mat3_tmul_vec(&R, lucid_vec3_load(md->qvel + iv));
            lucid_vec3 w = lucid_vec3_load(md->qvel + iv + 3);
            lucid_vec3_store(vl, v + iv);
            lucid_vec3 dtv = lucid_mat3_mul_vec(&R, lucid_vec3_cross(w, vl));
            lucid_vec3_store(dtv, Tdv + iv);
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) T[(iv + r) + nv * (iv + c)] = lucid_mat3_at(&R, r, c);
        }
        /* placements */
        lucid_model_forward_kinematics(m, d, q);
        for (int body = 1; body < mm->nbody; body++) {
            /* by name, or (an unnamed body of the same file) by spec order */
            const char *name = mm->names + mm->name_bodyadr[body];
            int f = name[0] || !same_file ? lucid_model_find_frame(m, name) : body - 1;
            assert_true(f >= 0);
            lucid_se3 X = lucid_model_frame_pose(m, d, (size_t)f);
            double got[12], ref[12];
            const double *xm = md->xmat + 9 * body;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    got[3 * r + c] = lucid_mat3_at(&X.R, r, c), ref[3 * r + c] = xm[3 * r + c];
            lucid_vec3_store(X.t, got + 9);
            memcpy(ref + 9, md->xpos + 3 * body, 3 * sizeof(double));
            compare("body placement", got, ref, 12, TOL, s);
        }
        /* M = T^T M_mj T (T is the identity but on the free joints' linear dofs) */
        memcpy(want, Mmj, nv * nv * sizeof *want); /* symmetric: row- or column-major */
        for (int j = 0; j < mm->njnt; j++) {
            if (mm->jnt_type[j] != mjJNT_FREE) continue;
            size_t iv = (size_t)mm->jnt_dofadr[j];
            const double *Tb = T + iv + nv * iv; /* R, column-major with stride nv */
            for (size_t i = 0; i < nv; i++) {    /* columns iv..iv+2 of want T */
                double row[3];
                for (size_t c = 0; c < 3; c++)
                    row[c] = want[i + nv * iv] * Tb[nv * c] +
                             want[i + nv * (iv + 1)] * Tb[1 + nv * c] +
                             want[i + nv * (iv + 2)] * Tb[2 + nv * c];
                for (size_t c = 0; c < 3; c++) want[i + nv * (iv + c)] = row[c];
            }
            for (size_t k = 0; k < nv; k++) { /* rows iv..iv+2 of T^T (want T) */
                double col[3];
                for (size_t r = 0; r < 3; r++)
                    col[r] = Tb[nv * r] * want[iv + nv * k] +
                             Tb[1 + nv * r] * want[iv + 1 + nv * k] +
                             Tb[2 + nv * r] * want[iv + 2 + nv * k];
                for (size_t r = 0; r < 3; r++) want[iv + r + nv * k] = col[r];
            }
        }
        lucid_model_crba(m, d, q);
        worst[0] =
            fmax(worst[0], compare("M", lucid_model_data_mass_matrix(d), want, nv * nv, TOL, s));
        /* b = T^T (b_mj + M_mj dT v) */
        for (size_t i = 0; i < nv; i++) {
            double acc = md->qfrc_bias[i];
            for (size_t l = 0; l < nv; l++) acc += Mmj[i * nv + l] * Tdv[l];
            tmp[i] = acc;
        }
        for (size_t i = 0; i < nv; i++) {
            double acc = 0.0;
            for (size_t l = 0; l < nv; l++) acc += T[l + nv * i] * tmp[l];
            want[i] = acc;
        }
        lucid_model_nle(m, d, q, v, b);
        worst[1] = fmax(worst[1], compare("bias forces", b, want, nv, TOL, s));
        /* tau = T^T (passive + actuator); a = T^-1 (a_mj - dT v) (T^-1 = T^T: orthogonal) */
        for (size_t i = 0; i < nv; i++) {
            double acc = 0.0;
            for (size_t l = 0; l < nv; l++)
                acc += T[l + nv * i] * (md->qfrc_passive[l] + md->qfrc_actuator[l]);
            tau[i] = acc;
            acc = 0.0;
            for (size_t l = 0; l < nv; l++) acc += T[l + nv * i] * (md->qacc[l] - Tdv[l]);
            want[i] = acc;
        }
        lucid_model_aba(m, d, q, v, tau, a);
        worst[2] = fmax(worst[2], compare("forward acceleration", a, want, nv, TOL, s));
    }
    printf("%s: %d states: M %.2g, bias %.2g, acceleration %.2g (largest relative gaps)\n",
           lucid_path, STATES, worst[0], worst[1], worst[2]);
    free(q), free(v), free(tau), free(a), free(b), free(Mmj), free(want), free(T), free(Tdv),
        free(tmp);
    lucid_model_data_destroy(d);
    lucid_model_destroy(m);
    mj.delete_data(md);
    mj.delete_model(mm);
}

static void compare_model(const char *path) {
    compare_files(path, path);
}
#else
static void compare_model(const char *path) {
    fprintf(stderr, "built without <mujoco/mujoco.h>: %s not compared\n", path);
    skipped = 1;
}
#endif

/* Every robot model of Debian's libmujoco-samples (issue 34): one humanoid, 22 in one file
 * (22 free joints in one model), humanoid100 (its humanoids and a floor of free objects), the
 * humanoid bodies of humanoid100 and hammock, the slider-crank (its loop's <equality> is a
 * constraint, disabled on both sides) and arm26 (its spatial tendons pull through MuJoCo's passive
 * and actuator forces). */
static void test_samples(void **state) {
    (void)state;
    static const char *const files[] = {
        "humanoid/humanoid.xml",         "humanoid/22_humanoids.xml",
        "humanoid100/humanoid_body.xml", "hammock/humanoid_body.xml",
        "slider_crank/slider_crank.xml", "tendon_arm/arm26.xml",
        "humanoid100/humanoid100.xml",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        char path[256];
        snprintf(path, sizeof path, "/usr/share/mujoco/model/%s", files[i]);
        if (!test_file_exists(path)) {
            fprintf(stderr, "%s missing (Debian libmujoco-samples): skipped\n", path);
            skipped = 1;
            continue;
        }
        compare_model(path);
    }
}

static void test_allegro(void **state) {
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/data/robots/allegro_right_hand.xml", test_shared_dir());
    if (!test_file_exists(path)) {
        fprintf(stderr, "%s missing (../shared absent; LUCID_SHARED_DIR overrides): skipped\n",
                path);
        skipped = 1;
        return;
    }
    compare_model(path);
}

static void test_forms(void **state) {
    (void)state;
    compare_model(LUCID_SOURCE_DIR "/tests/data/model/mjcf_forms.xml");
}

#if HAVE_MUJOCO
/* Zeroes the products of inertia ixy, ixz, iyz in text: MuJoCo keeps an inertia as principal
 * moments and axes from mju_eig3, accurate to ~1e-8 only, and a URDF's fused links leave no
 * way to hand lucid MuJoCo's compiled tensors (compare_files): with diagonal inputs both sides
 * read the same numbers, and what is compared is the algorithms. */
static void diagonal_inertias(char *text) {
    static const char *const keys[] = {"ixy=\"", "ixz=\"", "iyz=\""};
    for (size_t k = 0; k < 3; ++k)
        for (char *p = strstr(text, keys[k]); p; p = strstr(p, keys[k])) {
            p += strlen(keys[k]);
            char *end = strchr(p, '"');
            assert_non_null(end);
            for (*p++ = '0'; p < end; ++p) *p = ' ';
        }
}

/* The first start tag "<name" in p, not a longer name (<collision_checking>), or NULL. */
static const char *find_element(const char *p, const char *tag) {
    size_t n = strlen(tag);
    for (const char *s = strstr(p, tag); s; s = strstr(s + n, tag))
        if (s[n] == '>' || s[n] == '/' || s[n] == ' ' || s[n] == '\n' || s[n] == '\t') return s;
    return NULL;
}

/* A copy of a URDF without <visual> and <collision> elements (MuJoCo cannot skip the meshes
 * the shared URDFs name but do not ship) and with diagonal inertias at out, a file named
 * after tag; 0 when the source cannot be read. */
static int strip_urdf(const char *src, const char *tag, char *out, size_t outlen) {
    FILE *f = fopen(src, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    text[n] = '\0';
    diagonal_inertias(text);
    snprintf(out, outlen, "/tmp/lucid_test_model_mujoco_%ld_%s.urdf", (long)getpid(), tag);
    FILE *o = fopen(out, "wb");
    assert_non_null(o);
    for (const char *p = text; *p;) {
        const char *v = find_element(p, "<visual"), *c = find_element(p, "<collision");
        const char *s = v && (!c || v < c) ? v : c;
        if (!s) {
            fputs(p, o);
            break;
        }
        fwrite(p, 1, (size_t)(s - p), o);
        const char *close = s == v ? "</visual>" : "</collision>";
        const char *e = strstr(s, close);
        assert_non_null(e);
        p = e + strlen(close);
    }
    fclose(o);
    free(text);
    return 1;
}
#endif

/* The URDFs of ../shared/data/robots: an arm, a quadruped and a humanoid (fixed bases, as
 * both read a URDF's root), each side reading its own copy of the same stripped file. */
static void test_urdfs(void **state) {
    (void)state;
    static const char *const files[] = {"ur5.urdf", "a1.urdf", "simple_humanoid.urdf"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        char path[1024], mine[256], theirs[256];
        snprintf(path, sizeof path, "%s/data/robots/%s", test_shared_dir(), files[i]);
        if (!test_file_exists(path)) {
            fprintf(stderr, "%s missing (../shared absent; LUCID_SHARED_DIR overrides): skipped\n",
                    path);
            skipped = 1;
            continue;
        }
#if HAVE_MUJOCO
        assert_true(strip_urdf(path, "lucid", mine, sizeof mine));
        assert_true(strip_urdf(path, "mujoco", theirs, sizeof theirs));
        printf("%s:\n", path);
        compare_files(mine, theirs);
        remove(mine);
        remove(theirs);
#else
        (void)mine, (void)theirs;
        compare_model(path);
#endif
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_allegro),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_urdfs),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return mujoco_test_result(failed, skipped, "test_model_mujoco",
                              "some models were not compared (above)");
}
