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
    return 1;
}
#undef LUCID_MUJOCO_LOAD

#endif
