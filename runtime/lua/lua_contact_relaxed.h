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

/* Pushes the function sol:derivatives bound to the state at idx (a solve of model ncp (1) or
 * ccp (0) at kappa):
 *   D = sol:derivatives([{dense = true}]) -> the table of lucid.contact.derivatives (method
 *   "relaxed"): dlambda_dg (3n x 3n), dlambda_dmu (3n x n), dlambda_dR (3n x 3n) unless
 *   dense = false; dlambda_dG(dG) -> dlambda; jvp{G=, g=, mu=, R=} -> dlambda;
 *   vjp(w) -> {G=, g=, mu=, R=}; method, model, kappa. */
void lucid_lua_push_relaxed_derivatives(lua_State *L, int idx, int ncp, double kappa);

/* lucid.contact.derivatives(problem, sol, {method = "relaxed"}): pushes that table for the
 * relaxed solve sol (sol.derivatives of lucid.contact.solve with solver "ip", kappa > 0) after
 * checking problem (stack index) holds the G, g, mu, R it solved; errors name fname. */
int lucid_lua_relaxed_contact_derivatives(lua_State *L, int problem, int sol, int dense,
                                          int allow_unconverged, const char *fname);

#endif
