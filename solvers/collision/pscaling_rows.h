/* The P-SDF program of two posed shapes (internal to pscaling.c and its tests): every shape
 * contributes cone blocks whose rows read, in its local frame and in units of `scale`,
 *   s_r = a0_r + aa_r alpha + ae_r eps + B_r . (y - c),   y = R^T (p - t)
 * (c: the local centre the shape is scaled about; eps: the shape's auxiliary column).
 * Far-apart shapes would make alpha and p huge next to the sizes: the length unit is the
 * larger of the bounding radius and the shapes' separation, alpha is measured in units of
 * scale / radius, and each block is divided by its largest coefficient, so every entry of the
 * program is O(1) whatever the distance (measured: separations of 1e3 sizes failed before). */
#ifndef LUCID_PSCALING_ROWS_H
#define LUCID_PSCALING_ROWS_H

#include "solvers/collision/cone_program.h"
#include "solvers/collision/pscaling.h"

typedef struct lucid_pscaling_program {
    lucid_cone_program P;
    double B[LUCID_CONE_MAX_ROWS][3];
    int first[2], count[2]; /* rows of shape 1 and shape 2 */
    int eps[2];             /* column of each shape's auxiliary variable, -1 when none */
    lucid_vec3 centre[2];   /* local centres (dimensionless) */
    lucid_mat3 R[2];
    lucid_vec3 t[2];   /* translations relative to origin, dimensionless */
    lucid_vec3 origin; /* world point of p = 0 */
    double scale;      /* world length of one program unit: max(bounding radius, separation) */
    double alpha_unit; /* the program's variable x[3] is alpha / alpha_unit (scale / radius) */
} lucid_pscaling_program;

/* The shape's bounding radius about its centre (the program's length unit is the larger). */
double lucid_pscaling_radius(const lucid_shape *s);
/* The local point the shape is scaled about (origin, or a mesh's vertex mean). */
lucid_vec3 lucid_pscaling_centre(const lucid_shape *s);

/* Builds the program of (s1, T1, s2, T2). LUCID_ERR_ARGUMENT when it does not fit
 * LUCID_CONE_MAX_ROWS. Neither shape may be a halfspace whose partner's centre is inside it
 * (alpha = 0 is handled in closed form by the caller). */
lucid_status lucid_pscaling_build(const lucid_shape *s1, const lucid_se3 *T1, const lucid_shape *s2,
                                  const lucid_se3 *T2, lucid_pscaling_program *prog);

/* One row of a shape in world units, unscaled: s = a0 + aa alpha + ae eps + B.(y - c). */
typedef struct lucid_pscaling_row {
    lucid_vec3 B;
    double a0, aa, ae;
} lucid_pscaling_row;

/* A shape's rows in its local frame, lengths in metres (the single-level step's program):
 * fills rows and block_start[0..*num_blocks] (the last entry is the row count) and returns the
 * number of rows, or -1 when they exceed max_rows or max_blocks. */
int lucid_pscaling_shape_rows(const lucid_shape *s, lucid_pscaling_row *rows, int max_rows,
                              int *block_start, int max_blocks, int *num_blocks);

#endif
