#!/usr/bin/env python3
"""Mutation testing for lucid: do the tests catch deliberate bugs in core functions?

Each mutation is a precise textual patch (file, exact original snippet that must occur exactly
once, replacement). For each one the script patches a private copy of the sources
(build-mutation/src, so the working tree is never modified), rebuilds only the library and the
test targets it needs in build-mutation/build (Release), runs that subset of ctest with a
per-test timeout (a hang counts as caught), restores the file, and reports caught/survived.
A snippet that no longer matches is an error (exit 2), so mutations cannot rot silently.

Run on demand, not in CI (about 45 minutes on 2 cores); --check is the ctest mutation/check:
    python3 tests/mutation/mutate.py                 # all mutations, table on stdout
    python3 tests/mutation/mutate.py --list          # ids and descriptions
    python3 tests/mutation/mutate.py --check         # only verify every snippet matches once
    python3 tests/mutation/mutate.py -k so3 -k gjk   # ids containing any of these
    python3 tests/mutation/mutate.py --write-doc docs/mutation.md
"""
import argparse
import datetime
import filecmp
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ctest regexes per area (install/ and format are never run).
T_COLLISION = (r"^(c/test_(gjk|gjk_simplex|gjk_frank_wolfe|gjk_acceleration|box_box|epa|shapes|convex_mesh|collision_mesh|collision_alloc"
               r"|collision_peers_fcl|collision_peers_bullet|collision_ccd|contact_patch)"
               r"|lua/test_(collision|shapes|contact_patch))$")
T_DERIV = (r"^(c/test_collision_derivatives_.*|lua/test_(distance_derivatives|distance_ad"
           r"|contact_pose)|task/contact_pose)$")
T_AD = r"^(c/test_ad_.*|lua/test_(ad|distance_ad|optim|contact_pose))$"
T_CONTACT = (r"^(c/test_contact_.*|c/test_world_contact|lua/test_(contact|scenarios)"
             r"|task/(sliding|dragged)_cube)$")
T_WORLD = (r"^(c/test_(world|world_contact|broad_phase)|lua/test_(world|scenarios)"
           r"|task/(sliding|dragged)_cube)$")
T_MATH = r"^(c/test_(so3|se3|ad_se3|world)|lua/test_(se3|world))$"
T_RNG = r"^(c/test_rng|lua/test_rng)$"
T_DENSE = r"^(c/test_(dense|contact_dense)|lua/test_linalg)$"
T_PATCH = r"^(c/test_contact_patch|lua/test_contact_patch|c/test_world_contact)$"


def M(mid, area, path, old, new, what, tests, known=None):
    return dict(id=mid, area=area, file=path, old=old, new=new, what=what, tests=tests,
                known=known)


MUTATIONS = [
    # ---- collision: GJK, simplex, EPA, shapes, meshes, patches
    M("gjk-momentum-factor2", "collision", "solvers/collision/gjk.c",
      "lucid_vec3_scale(y, 2.0 * (1.0 - delta))", "lucid_vec3_scale(y, (1.0 - delta))",
      "momentum direction without the gradient's factor 2", T_COLLISION,
      known="issue 16 survivor; caught by test_gjk_acceleration"),
    M("gjk-cap-gap-factor2", "collision", "solvers/collision/gjk.c",
      "res->gap = 2.0 * lucid_vec3_dot(x, lucid_vec3_sub(x, s));",
      "res->gap = 1.0 * lucid_vec3_dot(x, lucid_vec3_sub(x, s));",
      "Frank-Wolfe gap reported at the iteration cap halved", T_COLLISION,
      known="issue 16: cap gap never checked against the true gap; caught by "
      "test_gjk_acceleration"),
    M("gjk-nesterov-delta", "collision", "solvers/collision/gjk.c",
      "double delta = (k + 1.0) / (k + 3.0);", "double delta = (k + 1.0) / (k + 2.0);",
      "momentum schedule delta_k off by one", T_COLLISION),
    M("gjk-relative-tol", "collision", "solvers/collision/gjk.c",
      "return fmax(opt->tol * nx * nx,", "return fmax(opt->tol * nx,",
      "relative gap threshold tol |x| instead of tol |x|^2", T_COLLISION),
    M("gjk-plane-margin", "collision", "solvers/collision/gjk.c",
      "!(ds > margin * nd)", "!(ds > margin)",
      "separating-plane test ignores |d| (margin compared unnormalised)", T_COLLISION),
    M("simplex-edge-weights", "collision", "solvers/collision/simplex.c",
      "        lam[0] = 1.0 - t;\n", "        lam[0] = t;\n",
      "edge barycentric weight of the newest vertex wrong", T_COLLISION),
    M("simplex-far-side", "collision", "solvers/collision/simplex.c",
      "lucid_vec3_dot(p, s->v[i].w) < pp) return 0;", "lucid_vec3_dot(p, s->v[i].w) > pp) return 0;",
      "optimal-face test with the inequality reversed", T_COLLISION),
    M("simplex-triangle-weights-swapped", "collision", "solvers/collision/simplex.c",
      "    f->lam[0] = lb;\n    f->lam[1] = lc;\n", "    f->lam[0] = lc;\n    f->lam[1] = lb;\n",
      "triangle face weights of B and C swapped (wrong witness points)", T_COLLISION),
    M("epa-farthest-face", "collision", "solvers/collision/epa.c",
      "P->f[i].dist < P->f[best].dist", "P->f[i].dist > P->f[best].dist",
      "EPA expands the farthest face instead of the closest", T_COLLISION),
    M("epa-witness-weight", "collision", "solvers/collision/epa.c",
      "    double la = 1.0 - lb - lc;\n", "    double la = 1.0 - lb;\n",
      "EPA witness points from barycentric weights that do not sum to 1", T_COLLISION),
    M("epa-gap-upper-bound", "collision", "solvers/collision/epa.c",
      "upper = fmin(upper, lucid_vec3_dot(P.f[best].n, w.w));",
      "upper = fmax(upper, lucid_vec3_dot(P.f[best].n, w.w));",
      "EPA's upper bound is the worst support value, not the best", T_COLLISION),
    M("shape-support-side", "collision", "runtime/shapes/shape.c",
      "    return d >= 0.0 ? h : -h;", "    return d >= 0.0 ? -h : h;",
      "box/cylinder support picks the opposite face", T_COLLISION),
    M("shape-cylinder-aabb", "collision", "runtime/shapes/shape.c",
      "s->u.round.radius * sqrt(row.x * row.x + row.y * row.y);",
      "s->u.round.radius * (row.x * row.x + row.y * row.y);",
      "cylinder bounding box drops the square root (too small when tilted)",
      T_COLLISION + "|" + T_WORLD),
    M("mesh-climb-last-neighbour", "collision", "runtime/shapes/convex_mesh.c",
      "k < mesh->climb_offsets[v + 1]; ++k) {", "k < mesh->climb_offsets[v + 1] - 1; ++k) {",
      "hill climbing skips each vertex's last neighbour", T_COLLISION),
    M("patch-clip-lerp", "contact", "solvers/collision/contact_patch.c",
      "lucid_vec3_lerp(s, e, ds / (ds - de))", "lucid_vec3_lerp(s, e, de / (ds - de))",
      "polygon clipping interpolates at the wrong parameter", T_PATCH),
    # ---- derivatives
    M("fd-half-step", "derivatives", "autodiff/collision_derivatives_fd.c",
      "double scale = 0.5 / step;", "double scale = 1.0 / step;",
      "central difference divided by h instead of 2h", T_DERIV),
    M("zeroth-noise-scale", "derivatives", "autodiff/collision_derivatives_zeroth.c",
      "double scale = 1.0 / (noise * samples);", "double scale = 1.0 / samples;",
      "zeroth-order estimator forgets the 1/eps factor", T_DERIV),
    M("implicit-unit-distance-shift", "derivatives", "autodiff/collision_derivatives_implicit.c",
      "for (int i = 0; i < 3; ++i) A.m[4 * i] += q->distance;",
      "for (int i = 0; i < 3; ++i) A.m[4 * i] += 0.0;",
      "implicit system drops the distance term (separated pairs)", T_DERIV),
    M("implicit-smoothed-ddistance-sign", "derivatives",
      "autodiff/collision_derivatives_implicit.c",
      "res->ddistance[j] = -lucid_vec3_dot(n, dx);", "res->ddistance[j] = lucid_vec3_dot(n, dx);",
      "smoothed implicit derivative of the distance with the wrong sign", T_DERIV),
    M("implicit-unit-dp2-sign", "derivatives", "autodiff/collision_derivatives_implicit.c",
      "lucid_vec3_sub(G, lucid_mat3_mul_vec(&K2, dn))",
      "lucid_vec3_add(G, lucid_mat3_mul_vec(&K2, dn))",
      "dp2 of the implicit solve with the curvature term's sign flipped", T_DERIV),
    M("gumbel-covariance-mean", "derivatives", "autodiff/collision_derivatives_gumbel.c",
      "lucid_mat3 cov = lucid_mat3_sub(&second, &mm);",
      "lucid_mat3 cov = lucid_mat3_add(&second, &mm);",
      "Gumbel covariance adds the mean's outer product instead of subtracting it", T_DERIV),
    # ---- automatic differentiation
    M("ad-mul-partials", "autodiff", "autodiff/ad_rules.c",
      "*pa = b, *pb = a;", "*pa = a, *pb = b;",
      "product rule with the partials swapped", T_AD),
    M("ad-div-partial-sign", "autodiff", "autodiff/ad_rules.c",
      "*pb = -a / (b * b);", "*pb = a / (b * b);",
      "quotient rule with the denominator's partial sign flipped", T_AD),
    M("ad-cos-derivative", "autodiff", "autodiff/ad_elementwise.h",
      "            return -sin(x);", "            return sin(x);",
      "d/dx cos x = +sin x", T_AD),
    M("ad-sqrt-derivative", "autodiff", "autodiff/ad_elementwise.h",
      "            return 0.5 / y;", "            return 1.0 / y;",
      "d/dx sqrt x = 1/sqrt x", T_AD),
    M("ad-reverse-self-input", "autodiff", "autodiff/reverse.c",
      "int reached = input.index <= output.index;", "int reached = input.index < output.index;",
      "reverse mode: d x / d x is zero when the output is the input itself", T_AD),
    # ---- contact: criteria, cones, solvers, line search, Anderson
    M("criteria-complementarity-no-velocity", "contact", "solvers/contact/contact_criteria.c",
      "scaled(ec, force * velocity)", "scaled(ec, force)",
      "complementarity_scaled drops the velocity factor", T_CONTACT,
      known="issue 16 survivor"),
    M("criteria-velocity-sigma", "contact", "solvers/contact/contact_criteria.c",
      "velocity = worst(velocity, fabs(sigma[k] - p->g[k]));",
      "velocity = worst(velocity, fabs(sigma[k]));",
      "velocity scale |sigma| instead of |sigma - g|", T_CONTACT, known="issue 16 survivor"),
    M("criteria-ncp-correction-sign", "contact", "solvers/contact/contact_criteria.c",
      "d[2] += mu * lucid_contact_hypot(s[0], s[1]);",
      "d[2] -= mu * lucid_contact_hypot(s[0], s[1]);",
      "NCP corrected velocity with the De Saxce term subtracted", T_CONTACT),
    M("cone-projection-sign", "contact", "solvers/contact/contact_cone.c",
      "double s = (b * r + a * n) / (a * a + b * b); /* coordinate",
      "double s = (b * r - a * n) / (a * a + b * b); /* coordinate",
      "cone projection onto the boundary ray with a sign error", T_CONTACT),
    M("cone-jacobian-nn", "contact", "solvers/contact/contact_cone.c",
      "    J[8] = 1.0 / d;", "    J[8] = 1.0;",
      "cone projection Jacobian's normal-normal entry unscaled", T_CONTACT),
    M("pgs-tangent-step-sign", "contact", "solvers/contact/contact_pgs.c",
      "l[0] -= tangent_step * sT[0];", "l[0] += tangent_step * sT[0];",
      "PGS tangential update climbs instead of descends (first axis)", T_CONTACT),
    M("pgs-lcp-clamp-index", "contact", "solvers/contact/contact_pgs.c",
      "l[0] = fmin(bound, lucid_contact_fmax(-bound, l[0]));",
      "l[0] = fmin(bound, lucid_contact_fmax(-bound, l[1]));",
      "LCP friction clamp reads the wrong component", T_CONTACT),
    M("admm-dual-update-sign", "contact", "solvers/contact/contact_admm_core.c",
      "s->gamma[k] += rho * (s->rhs[k] - s->z[k]);", "s->gamma[k] -= rho * (s->rhs[k] - s->z[k]);",
      "ADMM dual ascent with the wrong sign", T_CONTACT),
    M("line-search-bracket", "contact", "solvers/contact/contact_line_search.c",
      "        if (slope < 0.0)\n            lo = alpha, lo_slope = slope;",
      "        if (slope > 0.0)\n            lo = alpha, lo_slope = slope;",
      "exact line search moves the wrong end of the bracket", T_CONTACT),
    M("anderson-mix-sign", "contact", "solvers/contact/contact_anderson.c",
      "d += t, out -= t;",
      "d += t, out += t;",
      "Anderson extrapolation with the correction's sign flipped", T_CONTACT),
    M("anderson-residual-difference", "contact", "solvers/contact/contact_anderson.c",
      "dF[k] = f - a->f_previous[k];", "dF[k] = f + a->f_previous[k];",
      "Anderson residual differences summed instead of subtracted", T_CONTACT),
    # ---- world
    M("world-gyroscopic-sign", "world", "runtime/world/world_step.c",
      "F = lucid_vec3_axpy(F, dt, lucid_vec3_cross(m, lucid_mat3_mul_vec(I, m)));",
      "F = lucid_vec3_axpy(F, -dt, lucid_vec3_cross(m, lucid_mat3_mul_vec(I, m)));",
      "gyroscopic term of the midpoint rule with the wrong sign", T_WORLD, known="issue 16 survivor"),
    M("world-rotation-order", "world", "runtime/world/world_step.c",
      "lucid_quat_mul(lucid_quat_exp(lucid_vec3_scale(w->d.w_free[i], dt)), b->orientation);",
      "lucid_quat_mul(b->orientation, lucid_quat_exp(lucid_vec3_scale(w->d.w_free[i], dt)));",
      "integration applies the world-frame increment in the body frame", T_WORLD),
    M("world-com-velocity", "world", "runtime/world/world_step.c",
      "lucid_vec3 vc = lucid_vec3_add(b->v, lucid_vec3_cross(b->w, rc));",
      "lucid_vec3 vc = lucid_vec3_sub(b->v, lucid_vec3_cross(b->w, rc));",
      "centre-of-mass velocity with w x r subtracted", T_WORLD),
    M("broad-phase-sort-order", "world", "runtime/world/broad_phase.c",
      "lucid_vec3_get(lo[o[j - 1]], k) > key", "lucid_vec3_get(lo[o[j - 1]], k) < key",
      "sweep order sorted descending (the sweep's early exit then misses pairs)", T_WORLD),
    M("broad-phase-other-axes", "world", "runtime/world/broad_phase.c",
      "        if (k == axis) continue;\n", "        if (k != axis) continue;\n",
      "box overlap tested on the sweep axis only, not on the other two", T_WORLD),
    # ---- math: SO(3), SE(3), rng, dense
    M("so3-exp-coefficient", "math", "runtime/math/so3.c",
      "return poly_hat(w, coef_a(t, t2), coef_b(t, t2));",
      "return poly_hat(w, coef_a(t, t2), coef_c(t, t2));",
      "exp uses (t - sin t)/t^3 for (1 - cos t)/t^2", T_MATH),
    M("so3-jr-sign", "math", "runtime/math/so3.c",
      "return poly_hat(w, -coef_b(t, t2), coef_c(t, t2));",
      "return poly_hat(w, coef_b(t, t2), coef_c(t, t2));",
      "right Jacobian equals the left one", T_MATH),
    M("so3-series-off-by-one", "math", "runtime/math/so3.c",
      "s = 1.0 - x * s / ((2 * j + m - 1) * (2 * j + m));",
      "s = 1.0 - x * s / ((2 * j + m) * (2 * j + m + 1));",
      "small-angle series terms shifted by one factorial", T_MATH),
    M("so3-log-near-pi-sign", "math", "runtime/math/so3.c",
      "if (lucid_vec3_dot(a, sin_axis) < 0.0) a = lucid_vec3_neg(a);",
      "if (lucid_vec3_dot(a, sin_axis) > 0.0) a = lucid_vec3_neg(a);",
      "log near pi picks the axis with the wrong sign", T_MATH),
    M("se3-coupling-sign", "math", "runtime/math/se3.c",
      "c2 * (WWP.m[k] + PWW.m[k] - 3.0 * WPW.m[k])", "c2 * (WWP.m[k] + PWW.m[k] + 3.0 * WPW.m[k])",
      "SE(3) Jacobian coupling block with a sign error", T_MATH),
    M("se3-adjoint-order", "math", "runtime/math/se3.c",
      "lucid_mat3 txR = lucid_mat3_mul(&tx, &T->R);", "lucid_mat3 txR = lucid_mat3_mul(&T->R, &tx);",
      "adjoint's off-diagonal block R [t]x instead of [t]x R", T_MATH),
    M("se3-jl-inv-sign", "math", "runtime/math/se3.c",
      "lucid_mat3 B = lucid_mat3_scale(&AQA, -1.0);", "lucid_mat3 B = lucid_mat3_scale(&AQA, 1.0);",
      "inverse left Jacobian's coupling block not negated", T_MATH),
    M("rng-uniform-bits", "math", "runtime/math/rng.c",
      "return (double)(lucid_rng_next_u64(rng) >> 11) * 0x1p-53;",
      "return (double)(lucid_rng_next_u64(rng) >> 12) * 0x1p-53;",
      "uniform draws cover only [0, 0.5)", T_RNG),
    M("rng-normal-sign", "math", "runtime/math/rng.c",
      "    return (bits & 0x100) ? -x : x;", "    return (bits & 0x100) ? x : x;",
      "ziggurat normal draws never negative (inside the rectangles)", T_RNG),
    M("dense-cholesky-upper-zero", "math", "solvers/dense/dense_cholesky.c",
      "for (int i = 0; i < j; ++i) a[i + (long)lda * j] = 0.0;",
      "for (int i = 0; i < j - 1; ++i) a[i + (long)lda * j] = 0.0;",
      "Cholesky factor keeps A's superdiagonal (off by one in the zeroing)", T_DENSE),
    M("dense-symmetric-relative", "math", "solvers/dense/dense_eigen.c",
      "<= rtol * scale)) return 0;", "<= rtol)) return 0;",
      "symmetry test absolute instead of relative to the matrix's scale", T_DENSE),
    M("dense-matmul-index", "math", "solvers/dense/dense_product.c",
      "const double bpj = b[p + (long)k * j];", "const double bpj = b[j + (long)k * p];",
      "small-matrix product reads B transposed", T_DENSE),
]


def run(cmd, cwd, timeout=None, env=None):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout, env=env)


def source_files():
    out = run(["git", "ls-files", "-co", "--exclude-standard"], ROOT).stdout.split("\n")
    return [f for f in out if f and os.path.isfile(os.path.join(ROOT, f))]


def sync_sources(src):
    """Copies the working tree (tracked and untracked, not ignored) into src, changed files only."""
    for rel in source_files():
        a, b = os.path.join(ROOT, rel), os.path.join(src, rel)
        if os.path.exists(b) and filecmp.cmp(a, b, shallow=False):
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        shutil.copy(a, b)  # a fresh mtime: make must rebuild what a mutation left behind


def check_snippets(mutations):
    bad = []
    for m in mutations:
        path = os.path.join(ROOT, m["file"])
        text = open(path).read() if os.path.exists(path) else ""
        n = text.count(m["old"])
        if n != 1:
            bad.append("%s: %s: original snippet found %d times (expected once): %r"
                       % (m["id"], m["file"], n, m["old"]))
    return bad


def tests_for(build, regex):
    out = run(["ctest", "-N", "-R", regex], build).stdout
    names = re.findall(r"Test\s+#\d+: (\S+)", out)
    return [n for n in names if not n.startswith("install/") and n != "format"]


def targets_for(tests):
    targets = {"lucid_lib"}
    for t in tests:
        kind, name = t.split("/", 1)
        targets.add(name if kind == "c" else "lucid")
    return sorted(targets)


def build_targets(build, targets, jobs):
    r = run(["cmake", "--build", build, "--parallel", str(jobs), "--target"] + targets, build)
    return r.returncode == 0, r.stdout


def run_tests(build, tests, timeout, env):
    regex = "^(" + "|".join(re.escape(t) for t in tests) + ")$"
    r = run(["ctest", "-R", regex, "--timeout", str(timeout), "-j2"], build, env=env)
    failed = re.findall(r"\d+ - (\S+) \((Failed|Timeout|SEGFAULT|Subprocess aborted|"
                        r"Child aborted|Exception|[^)]*)\)", r.stdout)
    return r.returncode, [f"{n} ({why})" for n, why in failed], r.stdout


def markdown(results, args, commit, started, elapsed):
    valid = [r for r in results if r["status"] in ("caught", "survived")]
    caught = sum(r["status"] == "caught" for r in valid)
    rate = 100.0 * caught / len(valid) if valid else 0.0
    lines = []
    lines.append("| # | mutation | area | file | what | tests run | result | caught by |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for i, r in enumerate(results, 1):
        m = r["m"]
        by = ", ".join(r["failed"][:3]) + (" ..." if len(r["failed"]) > 3 else "")
        what = m["what"] + (" *(%s)*" % m["known"] if m["known"] else "")
        what = what.replace("|", "\\|")  # a pipe would split the table cell
        lines.append("| %d | `%s` | %s | %s | %s | %d | **%s** | %s |"
                     % (i, m["id"], m["area"], m["file"], what, r["ntests"], r["status"], by))
    summary = ("%d mutations: %d caught, %d survived, %d invalid (build error); caught %.1f%%"
               % (len(results), caught, len(valid) - caught, len(results) - len(valid), rate))
    return "\n".join(lines), summary, rate


def write_doc(path, table, summary, commit, started, elapsed, argv, notes=""):
    survivors = "see the table's **survived** rows"
    text = f"""# Mutation testing

`tests/mutation/mutate.py` applies deliberate bugs to core functions one at a time (each a
precise textual patch whose original snippet must match exactly once, so the list cannot rot
silently), rebuilds the library and the tests of the mutated area in `build-mutation/`
(Release), runs those tests with a timeout (a hang counts as caught) and reports whether any
test failed. It runs on demand, not in CI; its `--check` is the ctest `mutation/check`, so a
snippet that stops matching fails the suite. A mutation that **survived** is a bug the suite
lets through: either a missing test, or (rarely) a change with no observable effect.

Last run: `{" ".join(argv)}` at commit `{commit}`, {started} UTC, {elapsed:.0f} s
(2 cores, `-j2`).

**{summary}.**

{table}

Survivors ({survivors}) are the tests still to write; the ones marked *issue 16* were
reported there and are covered by tests written in the same wave.
{notes}"""
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("-k", action="append", default=[], help="only mutations whose id contains K")
    ap.add_argument("--list", action="store_true", help="list the mutations and exit")
    ap.add_argument("--check", action="store_true", help="only check that every snippet matches")
    ap.add_argument("--dir", default=os.path.join(ROOT, "build-mutation"),
                    help="work directory (sources copy and build)")
    ap.add_argument("--jobs", type=int, default=2, help="build parallelism (default 2)")
    ap.add_argument("--timeout", type=int, default=120, help="per-test timeout in seconds")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the unmutated run (which must pass for the results to mean much)")
    ap.add_argument("--write-doc", metavar="PATH", help="also write the markdown report to PATH")
    ap.add_argument("--notes", metavar="FILE", help="markdown appended to the --write-doc report")
    args = ap.parse_args()

    selected = [m for m in MUTATIONS if not args.k or any(k in m["id"] for k in args.k)]
    ids = [m["id"] for m in MUTATIONS]
    assert len(ids) == len(set(ids)), "duplicate mutation ids"
    if args.list:
        for m in selected:
            print("%-38s %-11s %s" % (m["id"], m["area"], m["what"]))
        return 0
    bad = check_snippets(selected)
    if bad:
        print("\n".join(bad), file=sys.stderr)
        print("mutate.py: %d mutation(s) no longer match the sources: update them" % len(bad),
              file=sys.stderr)
        return 2
    if args.check:
        print("%d mutations: every original snippet matches exactly once" % len(selected))
        return 0

    src, build = os.path.join(args.dir, "src"), os.path.join(args.dir, "build")
    os.makedirs(src, exist_ok=True)
    sync_sources(src)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    shared = os.path.join(os.path.dirname(ROOT), "shared", "data", "meshes")
    if "LUCID_MESHES_DIR" not in env and os.path.isdir(shared):
        env["LUCID_MESHES_DIR"] = shared
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        r = run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release"], ROOT)
        if r.returncode != 0:
            print(r.stdout, file=sys.stderr)
            return 2
    commit = run(["git", "rev-parse", "--short", "HEAD"], ROOT).stdout.strip()
    dirty = run(["git", "status", "--porcelain", "--untracked-files=no"], ROOT).stdout.strip()
    commit += " (with uncommitted changes)" if dirty else ""
    started = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")
    t0 = time.time()

    if not args.no_baseline:
        union = sorted({t for m in selected for t in tests_for(build, m["tests"])})
        ok, log = build_targets(build, targets_for(union), args.jobs)
        if not ok:
            print(log[-3000:], file=sys.stderr)
            print("mutate.py: the unmutated build fails", file=sys.stderr)
            return 2
        rc, failed, log = run_tests(build, union, args.timeout, env)
        if rc != 0:
            print(log[-3000:], file=sys.stderr)
            print("mutate.py: the unmutated tests fail: %s" % ", ".join(failed), file=sys.stderr)
            return 2
        print("baseline: %d tests pass unmutated (%.0f s)" % (len(union), time.time() - t0),
              file=sys.stderr)

    results = []
    for i, m in enumerate(selected, 1):
        t1 = time.time()
        path = os.path.join(src, m["file"])
        original = open(path).read()
        tests = tests_for(build, m["tests"])
        try:
            with open(path, "w") as f:
                f.write(original.replace(m["old"], m["new"], 1))
            ok, log = build_targets(build, targets_for(tests), args.jobs)
            if not ok:
                status, failed = "invalid", ["build error"]
            else:
                rc, failed, log = run_tests(build, tests, args.timeout, env)
                status = "caught" if rc != 0 else "survived"
                if rc != 0 and not failed:
                    failed = ["ctest exit %d" % rc]
        finally:
            with open(path, "w") as f:
                f.write(original)
        results.append(dict(m=m, status=status, failed=failed, ntests=len(tests)))
        print("[%2d/%d] %-38s %-8s %4.0f s  %s" % (i, len(selected), m["id"], status,
                                                   time.time() - t1, ", ".join(failed[:4])),
              file=sys.stderr, flush=True)
    # Leave the copy's build consistent with the restored sources.
    build_targets(build, ["lucid_lib"], args.jobs)

    elapsed = time.time() - t0
    table, summary, rate = markdown(results, args, commit, started, elapsed)
    print(table)
    print()
    print(summary)
    if args.write_doc:
        argv = ["python3", "tests/mutation/mutate.py"] + sys.argv[1:]
        notes = "\n" + open(args.notes).read() if args.notes else ""
        write_doc(args.write_doc, table, summary, commit, started, elapsed, argv, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
