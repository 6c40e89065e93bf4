/* Accessors of a compiled model and the workspace's create/destroy pair (see model.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model/model_internal.h"

size_t lucid_model_nq(const lucid_model *m) {
    return m->nq;
}
size_t lucid_model_nv(const lucid_model *m) {
    return m->nv;
}
size_t lucid_model_nu(const lucid_model *m) {
    return m->nu;
}
size_t lucid_model_na(const lucid_model *m) {
    return m->na;
}
size_t lucid_model_nbodies(const lucid_model *m) {
    return m->nbodies;
}
size_t lucid_model_njoints(const lucid_model *m) {
    return m->nnodes;
}
size_t lucid_model_nframes(const lucid_model *m) {
    return m->nframes;
}
size_t lucid_model_ngeoms(const lucid_model *m) {
    return m->ngeoms;
}
size_t lucid_model_nexcludes(const lucid_model *m) {
    return m->nexcludes;
}
lucid_vec3 lucid_model_gravity(const lucid_model *m) {
    return m->gravity;
}
double lucid_model_timestep(const lucid_model *m) {
    return m->timestep;
}
const char *lucid_model_name(const lucid_model *m) {
    return m->name;
}
double lucid_model_total_mass(const lucid_model *m) {
    return m->total_mass;
}

const char *lucid_model_joint_name(const lucid_model *m, size_t j) {
    return m->nodes[j].name;
}
lucid_joint_kind lucid_model_joint_kind(const lucid_model *m, size_t j) {
    return m->nodes[j].kind;
}
int lucid_model_joint_parent(const lucid_model *m, size_t j) {
    return m->nodes[j].parent;
}
size_t lucid_model_joint_idx_q(const lucid_model *m, size_t j) {
    return m->nodes[j].idx_q;
}
size_t lucid_model_joint_idx_v(const lucid_model *m, size_t j) {
    return m->nodes[j].idx_v;
}
size_t lucid_model_joint_nq(const lucid_model *m, size_t j) {
    return m->nodes[j].nq;
}
size_t lucid_model_joint_nv(const lucid_model *m, size_t j) {
    return m->nodes[j].nv;
}
int lucid_model_joint_body(const lucid_model *m, size_t j) {
    return m->nodes[j].body;
}
lucid_se3 lucid_model_joint_placement(const lucid_model *m, size_t j) {
    return m->nodes[j].X_tree;
}
int lucid_model_find_joint(const lucid_model *m, const char *name) {
    for (size_t i = 0; name && i < m->nnodes; ++i)
        if (strcmp(m->nodes[i].name, name) == 0) return (int)i;
    return -1;
}

const double *lucid_model_lower_limits(const lucid_model *m) {
    return m->lower;
}
const double *lucid_model_upper_limits(const lucid_model *m) {
    return m->upper;
}
const double *lucid_model_velocity_limits(const lucid_model *m) {
    return m->velocity_limit;
}
const double *lucid_model_effort_limits(const lucid_model *m) {
    return m->effort_limit;
}
const double *lucid_model_damping(const lucid_model *m) {
    return m->damping;
}

const double *lucid_model_frictionloss(const lucid_model *m) {
    return m->frictionloss;
}

int lucid_model_joint_mimic(const lucid_model *m, size_t j, double *multiplier, double *offset) {
    const lucid_model_node *nd = &m->nodes[j];
    if (nd->mimic >= 0) {
        if (multiplier) *multiplier = nd->mimic_multiplier;
        if (offset) *offset = nd->mimic_offset;
    }
    return nd->mimic;
}
size_t lucid_model_nequalities(const lucid_model *m) {
    return m->nequalities;
}
size_t lucid_model_equality_rows(const lucid_model *m) {
    return m->equality_rows;
}
const double *lucid_model_armature(const lucid_model *m) {
    return m->armature;
}
const int *lucid_model_limited(const lucid_model *m) {
    return m->limited;
}
const int *lucid_model_dof_parent(const lucid_model *m) {
    return m->dof_parent;
}
const int *lucid_model_dof_joint(const lucid_model *m) {
    return m->dof_node;
}
const int *lucid_model_dof_axis(const lucid_model *m) {
    return m->dof_axis;
}
const double *lucid_model_stiffness(const lucid_model *m) {
    return m->stiffness;
}
const double *lucid_model_springref(const lucid_model *m) {
    return m->springref;
}
double lucid_model_joint_mass(const lucid_model *m, size_t j, lucid_vec3 *com) {
    const lucid_inertia *I = &m->nodes[j].inertia;
    if (com && I->mass > 0.0) *com = lucid_vec3_scale(I->h, 1.0 / I->mass);
    return I->mass;
}
int lucid_model_joint_last_dof(const lucid_model *m, size_t j) {
    return lucid_model_node_last_dof(m, (int)j);
}

const char *lucid_model_body_name(const lucid_model *m, size_t b) {
    return m->bodies[b].name;
}
int lucid_model_body_joint(const lucid_model *m, size_t b) {
    return m->bodies[b].node;
}
int lucid_model_body_parent(const lucid_model *m, size_t b) {
    return m->bodies[b].parent;
}
lucid_se3 lucid_model_body_placement(const lucid_model *m, size_t b) {
    return m->bodies[b].placement;
}
double lucid_model_body_mass(const lucid_model *m, size_t b) {
    return m->bodies[b].mass;
}
int lucid_model_find_body(const lucid_model *m, const char *name) {
    for (size_t i = 0; name && i < m->nbodies; ++i)
        if (strcmp(m->bodies[i].name, name) == 0) return (int)i;
    return -1;
}

const lucid_model_geom *lucid_model_geoms(const lucid_model *m) {
    return m->geoms;
}
void lucid_model_body_geoms(const lucid_model *m, int body, size_t *first, size_t *count) {
    size_t b = body < 0 ? 0 : (size_t)body + 1;
    if (body < -1 || b > m->nbodies) {
        *first = *count = 0;
        return;
    }
    *first = m->geom_start[b];
    *count = m->geom_start[b + 1] - m->geom_start[b];
}

lucid_frame_kind lucid_model_frame_kind(const lucid_model *m, size_t f) {
    return m->frames[f].kind;
}
int lucid_model_find_frame(const lucid_model *m, const char *name) {
    for (size_t i = 0; name && i < m->nframes; ++i)
        if (strcmp(m->frames[i].name, name) == 0) return (int)i;
    return -1;
}

int lucid_model_frame_mocap(const lucid_model *m, size_t f, lucid_se3 *in_mocap) {
    if (in_mocap) *in_mocap = m->frames[f].in_mocap;
    return m->frames[f].mocap;
}

size_t lucid_model_nmocap(const lucid_model *m) {
    return m->nmocap;
}
const char *lucid_model_mocap_name(const lucid_model *m, size_t k) {
    return m->mocap[k].name;
}
lucid_se3 lucid_model_mocap_pose(const lucid_model *m, size_t k) {
    return m->mocap[k].pose;
}
int lucid_model_find_mocap(const lucid_model *m, const char *name) {
    for (size_t i = 0; name && i < m->nmocap; ++i)
        if (strcmp(m->mocap[i].name, name) == 0) return (int)i;
    return -1;
}

const lucid_model_actuator *lucid_model_actuators(const lucid_model *m) {
    return m->actuators;
}
size_t lucid_model_ntendons(const lucid_model *m) {
    return m->ntendons;
}
const lucid_model_tendon *lucid_model_tendons(const lucid_model *m) {
    return m->tendons;
}
int lucid_model_find_tendon(const lucid_model *m, const char *name) {
    for (size_t i = 0; name && i < m->ntendons; ++i)
        if (strcmp(m->tendons[i].name, name) == 0) return (int)i;
    return -1;
}
size_t lucid_model_nkeyframes(const lucid_model *m) {
    return m->nkeyframes;
}
const lucid_model_keyframe *lucid_model_keyframes(const lucid_model *m) {
    return m->keyframes;
}
int lucid_model_find_keyframe(const lucid_model *m, const char *name) {
    for (size_t i = 0; i < m->nkeyframes; ++i)
        if (name && m->keyframes[i].name[0] && strcmp(m->keyframes[i].name, name) == 0)
            return (int)i;
    return -1;
}

const int (*lucid_model_excludes(const lucid_model *m))[2] {
    return (const int(*)[2])m->excludes;
}

lucid_model_parent_filter lucid_model_filter_parent(const lucid_model *m) {
    return m->filter_parent;
}

lucid_model_collision lucid_model_collision_mode(const lucid_model *m) {
    return m->collision;
}

size_t lucid_model_npairs(const lucid_model *m) {
    return m->npairs;
}

const lucid_model_pair *lucid_model_pairs(const lucid_model *m) {
    return m->pairs;
}

/* The order key of geoms g1, g2: the smaller first. */
static long long pair_key(int g1, int g2) {
    return g1 < g2 ? (long long)g1 << 32 | (unsigned)g2 : (long long)g2 << 32 | (unsigned)g1;
}

int lucid_model_find_pair(const lucid_model *m, int g1, int g2) {
    long long key = pair_key(g1, g2);
    size_t lo = 0, hi = m->npairs; /* binary search over pair_order */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const lucid_model_pair *p = &m->pairs[m->pair_order[mid]];
        long long k = pair_key(p->geom1, p->geom2);
        if (k == key) return m->pair_order[mid];
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

int lucid_model_names_count(const lucid_model *m, const char *kind, size_t *count) {
    *count = 0;
    if (!kind) return 0;
    if (strcmp(kind, "body") == 0)
        *count = m->nbodies;
    else if (strcmp(kind, "joint") == 0)
        *count = m->nnodes;
    else if (strcmp(kind, "frame") == 0)
        *count = m->nframes;
    else if (strcmp(kind, "actuator") == 0)
        *count = m->nu;
    else if (strcmp(kind, "mocap") == 0)
        *count = m->nmocap;
    else if (strcmp(kind, "tendon") == 0)
        *count = m->ntendons;
    else
        return 0;
    return 1;
}

const char *lucid_model_name_at(const lucid_model *m, const char *kind, size_t i) {
    size_t n;
    if (!lucid_model_names_count(m, kind, &n) || i >= n) return NULL;
    switch (kind[0]) {
        case 'b':
            return m->bodies[i].name;
        case 'j':
            return m->nodes[i].name;
        case 'f':
            return m->frames[i].name;
        case 'm':
            return m->mocap[i].name;
        case 't':
            return m->tendons[i].name;
        default:
            return m->actuators[i].name;
    }
}

void lucid_model_data_destroy(lucid_model_data *d) {
    if (!d) return;
    free(d->liMi);
    free(d->oMi);
    free(d->v);
    free(d->a);
    free(d->f);
    free(d->c);
    free(d->Ic);
    free(d->Ia);
    free(d->pA);
    free(d->U);
    free(d->Dinv);
    free(d->u);
    free(d->M);
    free(d->L);
    free(d->D);
    free(d->tmp);
    free(d->oJ);
    free(d->dVdq);
    free(d->dAdq);
    free(d->dAdv);
    free(d->dG);
    free(d->ov);
    free(d->oa);
    free(d->oF);
    free(d->oB);
    free(d->oI);
    free(d->oYc);
    free(d->dwork);
    free(d->dof_last);
    free(d->dof_branch);
    free(d->ltdl_col);
    free(d->ltdl_below_start);
    free(d->ltdl_below);
    free(d);
}

/* n * s bytes, zeroed, at least one element; NULL on overflow or no memory. */
static void *zalloc(size_t n, size_t s) {
    if (s && n > SIZE_MAX / 4 / s) return NULL;
    return calloc(n ? n : 1, s);
}

lucid_status lucid_model_data_create(const lucid_model *m, lucid_model_data **out) {
    if (!m || !out) return LUCID_ERR_ARGUMENT;
    *out = NULL;
    size_t n = m->nnodes, nv = m->nv;
    if (nv > 0 && nv > SIZE_MAX / 8 / nv) return LUCID_ERR_NO_MEMORY;
    lucid_model_data *d = calloc(1, sizeof *d);
    if (!d) return LUCID_ERR_NO_MEMORY;
    d->nnodes = n;
    d->nv = nv;
    d->liMi = zalloc(n, sizeof *d->liMi);
    d->oMi = zalloc(n, sizeof *d->oMi);
    d->v = zalloc(6 * n, sizeof(double));
    d->a = zalloc(6 * n, sizeof(double));
    d->f = zalloc(6 * n, sizeof(double));
    d->c = zalloc(6 * n, sizeof(double));
    d->Ic = zalloc(n, sizeof *d->Ic);
    d->Ia = zalloc(36 * n, sizeof(double));
    d->pA = zalloc(6 * n, sizeof(double));
    d->U = zalloc(6 * nv, sizeof(double));
    d->Dinv = zalloc(36 * n, sizeof(double));
    d->u = zalloc(nv, sizeof(double));
    d->M = zalloc(nv * nv, sizeof(double));
    d->L = zalloc(m->ltdl_nnz, sizeof(double));
    d->D = zalloc(nv, sizeof(double));
    d->tmp = zalloc(7 * nv, sizeof(double));
    d->oJ = zalloc(6 * nv, sizeof(double));
    d->dVdq = zalloc(6 * nv, sizeof(double));
    d->dAdq = zalloc(6 * nv, sizeof(double));
    d->dAdv = zalloc(6 * nv, sizeof(double));
    d->dG = zalloc(18 * nv, sizeof(double));
    d->ov = zalloc(6 * n, sizeof(double));
    d->oa = zalloc(6 * n, sizeof(double));
    d->oF = zalloc(6 * n, sizeof(double));
    d->oB = zalloc(12 * n, sizeof(double));
    d->oI = zalloc(n, sizeof *d->oI);
    d->oYc = zalloc(n, sizeof *d->oYc);
    d->dwork = zalloc(3 * nv * nv, sizeof(double)); /* nv^2 <= SIZE_MAX / 8 (checked above) */
    if (!d->oJ || !d->dVdq || !d->dAdq || !d->dAdv || !d->dG || !d->ov || !d->oa || !d->oF ||
        !d->oB || !d->oI || !d->oYc || !d->dwork ||
        !(d->dof_last = zalloc(nv, sizeof *d->dof_last)) ||
        !(d->dof_branch = zalloc(nv, sizeof *d->dof_branch)) ||
        !(d->ltdl_col = zalloc(m->ltdl_nnz, sizeof *d->ltdl_col)) ||
        !(d->ltdl_below_start = zalloc(nv + 1, sizeof *d->ltdl_below_start)) ||
        !(d->ltdl_below = zalloc(m->ltdl_nnz, sizeof *d->ltdl_below))) {
        lucid_model_data_destroy(d);
        return LUCID_ERR_NO_MEMORY;
    }
    if (!d->liMi || !d->oMi || !d->v || !d->a || !d->f || !d->c || !d->Ic || !d->Ia || !d->pA ||
        !d->U || !d->Dinv || !d->u || !d->M || !d->L || !d->D || !d->tmp) {
        lucid_model_data_destroy(d);
        return LUCID_ERR_NO_MEMORY;
    }
    for (size_t k = nv; k-- > 0;) { /* children have larger indices than their parents */
        if (d->dof_last[k] < k) d->dof_last[k] = k;
        int p = m->dof_parent[k];
        if (p >= 0 && d->dof_last[p] < d->dof_last[k]) d->dof_last[p] = d->dof_last[k];
    }
    while (d->dof_trunk < nv && d->dof_last[d->dof_trunk] == nv - 1 &&
           m->dof_parent[d->dof_trunk] == (int)d->dof_trunk - 1)
        d->dof_trunk++;
    for (size_t k = d->dof_trunk; k < nv; ++k) {
        int p = m->dof_parent[k];
        d->dof_branch[k] = p < (int)d->dof_trunk ? k : d->dof_branch[p];
    }
    for (size_t k = 0; k < nv; ++k) {
        size_t p = m->ltdl_start[k];
        for (int a = m->dof_parent[k]; a >= 0; a = m->dof_parent[a]) {
            d->ltdl_below_start[a + 1]++;
            d->ltdl_col[p++] = (size_t)a;
        }
    }
    for (size_t a = 0; a < nv; ++a) d->ltdl_below_start[a + 1] += d->ltdl_below_start[a];
    size_t *next = zalloc(nv, sizeof *next); /* each column's fill cursor */
    if (!next) {
        lucid_model_data_destroy(d);
        return LUCID_ERR_NO_MEMORY;
    }
    for (size_t a = 0; a < nv; ++a) next[a] = d->ltdl_below_start[a];
    for (size_t k = 0; k < nv; ++k) /* rows in increasing order within each column */
        for (size_t p = m->ltdl_start[k]; p < m->ltdl_start[k + 1]; ++p) {
            size_t e = next[d->ltdl_col[p]]++;
            d->ltdl_below[e][0] = k;
            d->ltdl_below[e][1] = p;
        }
    free(next);
    *out = d;
    return LUCID_OK;
}

const char *lucid_sensor_kind_name(lucid_sensor_kind kind) {
    static const char *const names[LUCID_SENSOR_KIND_COUNT] = {
        "jointpos",    "jointvel",      "actuatorfrc", "framepos", "framequat", "gyro",
        "velocimeter", "accelerometer", "force",       "torque",   "touch"};
    return (unsigned)kind < LUCID_SENSOR_KIND_COUNT ? names[kind] : "?";
}
size_t lucid_model_nsensors(const lucid_model *m) {
    return m->nsensors;
}
const lucid_model_sensor *lucid_model_sensors(const lucid_model *m) {
    return m->sensors;
}
size_t lucid_model_nsensordata(const lucid_model *m) {
    return m->nsensordata;
}

lucid_zone_kind lucid_model_frame_zone(const lucid_model *m, size_t f, double size[3]) {
    for (int k = 0; k < 3; ++k) size[k] = m->frames[f].zone_size[k];
    return m->frames[f].zone;
}
int lucid_model_frame_node(const lucid_model *m, size_t f) {
    return m->frames[f].node;
}
