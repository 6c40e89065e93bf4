/* sol:derivatives() of a relaxed ip solve (lucid.contact.solve{solver = "ip", kappa > 0}):
 * the state the solve leaves (a copy of the problem and the workspace holding the relaxed
 * system's factorisation) lives in a userdata that the method closes over. */
#ifndef LUCID_LUA_CONTACT_RELAXED_H
#define LUCID_LUA_CONTACT_RELAXED_H

#include <lua.h>

#include "solvers/contact/contact_solver.h"

/* Pushes a new state for n contacts holding copies of G, g, mu and R (R may be NULL) and a
 * workspace; *p receives the problem over those copies (solve it with *ws to fill the
 * state). Raises a Lua error naming fname when memory runs out. */
void lucid_lua_relaxed_state_new(lua_State *L, const char *fname, int n, const double *G,
                                 const double *g, const double *mu, const double *R,
                                 lucid_contact_problem *p, lucid_contact_workspace **ws);

/* Pushes the function sol:derivatives bound to the state at idx:
 *   d = sol:derivatives() -> {dlambda_dg = mat (3n x 3n), dlambda_dmu = mat (3n x n),
 *                             jvp = function(dg [, dG [, dmu]]) -> vec,
 *                             vjp = function(lambda_bar) -> {g = vec, G = mat, mu = vec}} */
void lucid_lua_push_relaxed_derivatives(lua_State *L, int idx);

#endif
