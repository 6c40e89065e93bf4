/* Trajectories of a box on a floor simulated by MuJoCo 2.2.2, for `tasks/sysid.lua --problem
 * cross` (lucid identifies the box's mass, friction and restitution from them). MuJoCo is
 * dlopen'ed (tests/bench/mujoco_api.h); lucid never links it.
 *
 *   mujoco_box_traj MASS MU HX HY HZ X Y Z YAW VX VY VZ STEPS1 FX1 FY1 STEPS2 FX2 FY2 DT STEPS SUB
 *
 * A box of half extents (HX, HY, HZ) and MASS (uniform density), friction MU against a plane
 * (condim 3, elliptic cone; MuJoCo's default solref/solimp), starting at (X, Y, Z) turned by YAW
 * about z with linear velocity (VX, VY, VZ); a world-frame force (FX1, FY1, 0) at its centre of
 * mass during the first STEPS1 samples, then (FX2, FY2, 0) for STEPS2 more, then none. MuJoCo
 * steps at DT / SUB (Euler integrator, Newton solver); every DT one line is printed:
 *   t x y z qw qx qy qz
 * Exit 77 (skip) when MuJoCo's header was absent at build time or the library cannot be loaded,
 * 2 on bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<mujoco/mujoco.h>) && __has_include(<dlfcn.h>)
#define HAVE_MUJOCO_HEADER 1
#endif
#endif

#define NARGS 21

#ifdef HAVE_MUJOCO_HEADER
#include "tests/bench/mujoco_api.h"

static int write_mjcf(const char *path, const double *a, double dt_sub) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    const double yaw = a[8];
    fprintf(f,
            "<mujoco model=\"sysid_box\">\n"
            "  <option timestep=\"%.17g\" gravity=\"0 0 -9.81\" integrator=\"Euler\" "
            "cone=\"elliptic\" solver=\"Newton\"/>\n"
            "  <default><geom friction=\"%.17g 0.005 0.0001\" condim=\"3\"/></default>\n"
            "  <worldbody>\n    <geom type=\"plane\" size=\"0 0 1\"/>\n"
            "    <body pos=\"%.17g %.17g %.17g\" quat=\"%.17g 0 0 %.17g\"><freejoint/>"
            "<geom type=\"box\" size=\"%.17g %.17g %.17g\" mass=\"%.17g\"/></body>\n"
            "  </worldbody>\n</mujoco>\n",
            dt_sub, a[1], a[5], a[6], a[7], cos(yaw / 2), sin(yaw / 2), a[2], a[3], a[4], a[0]);
    return fclose(f) == 0;
}

static int run(const double *a) {
    mujoco_api api;
    if (!load_mujoco(&api)) {
        fprintf(stderr, "mujoco_box_traj: libmujoco.so.2.2.2 not loadable: skipped\n");
        return 77;
    }
    const int steps1 = (int)a[12], steps2 = (int)a[15], steps = (int)a[19], sub = (int)a[20];
    const double dt = a[18];
    if (steps < 1 || sub < 1 || steps1 < 0 || steps2 < 0 || !(dt > 0)) {
        fprintf(stderr, "mujoco_box_traj: STEPS, SUB >= 1, STEPS1, STEPS2 >= 0, DT > 0\n");
        return 2;
    }
    char path[] = "/tmp/lucid_mujoco_box_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    close(fd);
    char error[1000] = "";
    mjModel *m =
        write_mjcf(path, a, dt / sub) ? api.load_xml(path, NULL, error, sizeof error) : NULL;
    remove(path);
    if (!m) {
        fprintf(stderr, "mujoco_box_traj: MuJoCo cannot load the box: %s\n", error);
        return 1;
    }
    mjData *d = api.make_data(m);
    /* free joint: qvel = world linear velocity, then angular velocity in the body frame */
    d->qvel[0] = a[9], d->qvel[1] = a[10], d->qvel[2] = a[11];
    for (int k = 1; k <= steps; ++k) {
        double fx = 0.0, fy = 0.0;
        if (k <= steps1) {
            fx = a[13], fy = a[14];
        } else if (k <= steps1 + steps2) {
            fx = a[16], fy = a[17];
        }
        for (int s = 0; s < sub; ++s) {
            d->xfrc_applied[6 + 0] = fx; /* body 1 (body 0 is the world): force at the com */
            d->xfrc_applied[6 + 1] = fy;
            api.step(m, d);
        }
        printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", k * dt, d->qpos[0], d->qpos[1],
               d->qpos[2], d->qpos[3], d->qpos[4], d->qpos[5], d->qpos[6]);
    }
    api.delete_data(d);
    api.delete_model(m);
    return 0;
}
#endif

int main(int argc, char **argv) {
    if (argc != NARGS + 1) {
        fprintf(stderr,
                "usage: mujoco_box_traj MASS MU HX HY HZ X Y Z YAW VX VY VZ STEPS1 FX1 FY1 STEPS2 "
                "FX2 FY2 DT STEPS SUB\n");
        return 2;
    }
    double a[NARGS];
    for (int i = 0; i < NARGS; ++i) {
        char *end = NULL;
        a[i] = strtod(argv[i + 1], &end);
        if (!end || *end != '\0' || end == argv[i + 1]) {
            fprintf(stderr, "mujoco_box_traj: argument %d ('%s') is not a number\n", i + 1,
                    argv[i + 1]);
            return 2;
        }
    }
#ifdef HAVE_MUJOCO_HEADER
    return run(a);
#else
    fprintf(stderr, "mujoco_box_traj: built without <mujoco/mujoco.h>: skipped\n");
    return 77;
#endif
}
