/* MuJoCo 2.2.2 loaded at run time for the benchmarks and tests that compare against it
 * (bench_contact, bench_bin, test_mjcf_load): the library is dlopen'ed so the benchmarks build and
 * run without it, and lucid itself never links it. Include only where <mujoco/mujoco.h> and
 * <dlfcn.h> exist. */
#ifndef LUCID_BENCH_MUJOCO_API_H
#define LUCID_BENCH_MUJOCO_API_H

#include <dlfcn.h>
#include <mujoco/mujoco.h>
#include <string.h>

typedef struct mujoco_api {
    void *lib;
    mjModel *(*load_xml)(const char *, const mjVFS *, char *, int);
    mjData *(*make_data)(const mjModel *);
    void (*step)(const mjModel *, mjData *);
    void (*reset_data)(const mjModel *, mjData *);
    void (*delete_data)(mjData *);
    void (*delete_model)(mjModel *);
    void (*contact_force)(const mjModel *, const mjData *, int, mjtNum *);
    void (*energy_pos)(const mjModel *, mjData *);
    void (*energy_vel)(const mjModel *, mjData *);
    const char *(*version)(void);
    /* model tests and the dynamics benchmark */
    void (*forward)(const mjModel *, mjData *);
    void (*full_m)(const mjModel *, mjtNum *, const mjtNum *);
    void (*rne)(const mjModel *, mjData *, int, mjtNum *);
    void (*crb)(const mjModel *, mjData *);
    void (*factor_m)(const mjModel *, mjData *);
    void (*fwd_position)(const mjModel *, mjData *);
    void (*fwd_velocity)(const mjModel *, mjData *);
    void (*kinematics)(const mjModel *, mjData *);
    void (*com_pos)(const mjModel *, mjData *);
    void (*com_vel)(const mjModel *, mjData *);
    int (*eig3)(mjtNum *, mjtNum *, mjtNum *, const mjtNum *);
    /* the step-derivative benchmark */
    void (*transition_fd)(const mjModel *, mjData *, mjtNum, mjtByte, mjtNum *, mjtNum *, mjtNum *,
                          mjtNum *);
    /* actuators and keyframes (test_mjcf_actuators) */
    void (*fwd_actuation)(const mjModel *, mjData *);
    void (*reset_keyframe)(const mjModel *, mjData *, int);
    /* the touch sensor's zone test (test_mjcf_sensors) */
    mjtNum (*ray_geom)(const mjtNum *, const mjtNum *, const mjtNum *, const mjtNum *,
                       const mjtNum *, int);
    /* the length-range search, replayed (test_mjcf_spatial_tendons) */
    void (*step1)(const mjModel *, mjData *);
    void (*step2)(const mjModel *, mjData *);
    void (*solve_m)(const mjModel *, mjData *, mjtNum *, const mjtNum *, int);
    /* collision filtering (test_mjcf_filter) */
    void (*collision)(const mjModel *, mjData *);
} mujoco_api;

/* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer. */
#define LUCID_MUJOCO_LOAD(field, name)                                                             \
    do {                                                                                           \
        void *sym = dlsym(api->lib, name);                                                         \
        if (!sym) return 0;                                                                        \
        memcpy(&api->field, &sym, sizeof sym);                                                     \
    } while (0)

/* Fills *api from libmujoco; 0 when the library or one of its symbols is missing. */
static inline int load_mujoco(mujoco_api *api) {
    api->lib = dlopen("libmujoco.so.2.2.2", RTLD_NOW);
    if (!api->lib) api->lib = dlopen("libmujoco.so", RTLD_NOW);
    if (!api->lib) return 0;
    LUCID_MUJOCO_LOAD(load_xml, "mj_loadXML");
    LUCID_MUJOCO_LOAD(make_data, "mj_makeData");
    LUCID_MUJOCO_LOAD(step, "mj_step");
    LUCID_MUJOCO_LOAD(reset_data, "mj_resetData");
    LUCID_MUJOCO_LOAD(delete_data, "mj_deleteData");
    LUCID_MUJOCO_LOAD(delete_model, "mj_deleteModel");
    LUCID_MUJOCO_LOAD(contact_force, "mj_contactForce");
    LUCID_MUJOCO_LOAD(energy_pos, "mj_energyPos");
    LUCID_MUJOCO_LOAD(energy_vel, "mj_energyVel");
    LUCID_MUJOCO_LOAD(version, "mj_versionString");
    LUCID_MUJOCO_LOAD(forward, "mj_forward");
    LUCID_MUJOCO_LOAD(full_m, "mj_fullM");
    LUCID_MUJOCO_LOAD(rne, "mj_rne");
    LUCID_MUJOCO_LOAD(crb, "mj_crb");
    LUCID_MUJOCO_LOAD(factor_m, "mj_factorM");
    LUCID_MUJOCO_LOAD(fwd_position, "mj_fwdPosition");
    LUCID_MUJOCO_LOAD(fwd_velocity, "mj_fwdVelocity");
    LUCID_MUJOCO_LOAD(kinematics, "mj_kinematics");
    LUCID_MUJOCO_LOAD(com_pos, "mj_comPos");
    LUCID_MUJOCO_LOAD(com_vel, "mj_comVel");
    LUCID_MUJOCO_LOAD(eig3, "mju_eig3");
    LUCID_MUJOCO_LOAD(transition_fd, "mjd_transitionFD");
    LUCID_MUJOCO_LOAD(fwd_actuation, "mj_fwdActuation");
    LUCID_MUJOCO_LOAD(reset_keyframe, "mj_resetDataKeyframe");
    LUCID_MUJOCO_LOAD(ray_geom, "mju_rayGeom");
    LUCID_MUJOCO_LOAD(step1, "mj_step1");
    LUCID_MUJOCO_LOAD(step2, "mj_step2");
    LUCID_MUJOCO_LOAD(solve_m, "mj_solveM");
    LUCID_MUJOCO_LOAD(collision, "mj_collision");
    return 1;
}
#undef LUCID_MUJOCO_LOAD

/* v = velocity of the world point p on a free MuJoCo body (body 0, the world: zero). A free
 * joint's qvel is the body origin's linear velocity in the world, then the angular velocity in
 * the body frame. */
static inline void mujoco_point_velocity(const mjModel *m, const mjData *d, int body,
                                         const double p[3], double v[3]) {
    v[0] = v[1] = v[2] = 0.0;
    if (body == 0) return;
    const mjtNum *R = d->xmat + 9 * body, *x = d->xpos + 3 * body;
    const mjtNum *qv = d->qvel + m->jnt_dofadr[m->body_jntadr[body]];
    double w[3], r[3] = {p[0] - x[0], p[1] - x[1], p[2] - x[2]};
    for (int i = 0; i < 3; ++i)
        w[i] = R[3 * i] * qv[3] + R[3 * i + 1] * qv[4] + R[3 * i + 2] * qv[5];
    v[0] = qv[0] + w[1] * r[2] - w[2] * r[1];
    v[1] = qv[1] + w[2] * r[0] - w[0] * r[2];
    v[2] = qv[2] + w[0] * r[1] - w[1] * r[0];
}

/* MuJoCo's contact i in lucid's order (t1, t2, n): its force (mj_contactForce, whose frame is
 * normal first) and the relative velocity of body 2 with respect to body 1 at its point, both
 * in the contact frame. Returns 0 for a contact without constraint rows (excluded). */
static inline int mujoco_contact_sample(const mujoco_api *api, const mjModel *m, const mjData *d,
                                        int i, double sigma[3], double lambda[3]) {
    const mjContact *c = &d->contact[i];
    if (c->efc_address < 0) return 0;
    mjtNum f[6];
    api->contact_force(m, d, i, f);
    double v1[3], v2[3];
    mujoco_point_velocity(m, d, m->geom_bodyid[c->geom1], c->pos, v1);
    mujoco_point_velocity(m, d, m->geom_bodyid[c->geom2], c->pos, v2);
    const mjtNum *F = c->frame; /* rows: normal, t1, t2 */
    for (int k = 0; k < 3; ++k) {
        int row = k == 2 ? 0 : k + 1;
        sigma[k] = F[3 * row] * (v2[0] - v1[0]) + F[3 * row + 1] * (v2[1] - v1[1]) +
                   F[3 * row + 2] * (v2[2] - v1[2]);
        lambda[k] = f[row];
    }
    return 1;
}

#endif
