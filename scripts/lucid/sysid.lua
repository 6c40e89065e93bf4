-- lucid.sysid: identification of a robot's dynamic parameters from joint logs (docs/sysid.md,
-- "Robots from logs").
--
--   sysid.log_cholesky.to_pi(z), .from_pi(pi), .jacobian(z), .consistent(pi)
--       Rucker & Wensing's log-Cholesky map (RA-L 2022) between 10 unconstrained numbers and a
--       body's inertial parameters pi = [m, mx, my, mz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] (the
--       regressor's order: inertia about the body origin). Every z gives a physically
--       realisable body (positive definite pseudo-inertia).
--   sysid.read_log(path, model)           the CSV log (t, q_<joint>, [v_, a_], tau_<joint>)
--   sysid.prepare(log, opts)               q, v, a, tau per sample (zero-phase filtered)
--   sysid.accumulate(model, samples, opts, friction, keep)  per-joint normal equations of the
--                                          regressor (friction: another Coulomb column)
--   sysid.with_friction(st, friction)      the same from kept rows with another Coulomb column
--   sysid.friction_zones(model, theta, ropts), sysid.friction_columns(model, samples, theta,
--       ropts, zones)                      MuJoCo's soft frictionloss as the Coulomb column
--   sysid.identify(model, train, opts)     the physically consistent estimate with its prior
--   sysid.rms(stats, theta)                per-joint torque RMS error of theta on a log
--   sysid.excite(model, opts)              a Fourier excitation trajectory (Swevers et al.)
--   sysid.write_model(in, out, model, est, opts)  MJCF or URDF with the identified values
local lucid = require "lucid"
local check = require "lucid.check"
local optim = require "lucid.optim"

local sysid = {}

-- ---- the log-Cholesky map -----------------------------------------------------------------

-- z = {alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3}: the pseudo-inertia
-- J = [[Sigma, h], [h^T, m]] (Sigma = tr(I)/2 E - I, h = m c) is U U^T with
-- U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2], [0, 0, e^d3, t3], [0, 0, 0, 1]].
local lc = {}
sysid.log_cholesky = lc

local function unit_factor(z) -- V = U / e^alpha as rows
  return {{math.exp(z[2]), z[5], z[7], z[8]}, {0, math.exp(z[3]), z[6], z[9]},
          {0, 0, math.exp(z[4]), z[10]}, {0, 0, 0, 1}}
end

-- pi of a pseudo-inertia (linear in J)
local function pi_of_J(J)
  local S = J
  return {J[4][4], J[1][4], J[2][4], J[3][4], S[2][2] + S[3][3], -S[1][2], S[1][1] + S[3][3],
          -S[1][3], -S[2][3], S[1][1] + S[2][2]}
end

-- the pseudo-inertia of pi (rows of a 4 x 4 table)
function lc.pseudo_inertia(pi)
  local half = (pi[5] + pi[7] + pi[10]) / 2
  return {{half - pi[5], -pi[6], -pi[8], pi[2]}, {-pi[6], half - pi[7], -pi[9], pi[3]},
          {-pi[8], -pi[9], half - pi[10], pi[4]}, {pi[2], pi[3], pi[4], pi[1]}}
end

-- A B^T + B A^T scaled by s (4 x 4 tables)
local function sym_product(A, B, s)
  local J = {}
  for i = 1, 4 do
    J[i] = {}
    for j = 1, 4 do
      local x = 0
      for k = 1, 4 do x = x + A[i][k] * B[j][k] + B[i][k] * A[j][k] end
      J[i][j] = s * x
    end
  end
  return J
end

function lc.to_pi(z)
  local V = unit_factor(z)
  local J = sym_product(V, V, math.exp(2 * z[1]) / 2)
  return pi_of_J(J)
end

-- d pi / d z, a 10 x 10 lucid.mat
function lc.jacobian(z)
  local V = unit_factor(z)
  local e2 = math.exp(2 * z[1])
  local cols = {}
  cols[1] = pi_of_J(sym_product(V, V, e2)) -- dJ/dalpha = 2 J
  local entries = {{1, 1}, {2, 2}, {3, 3}, {1, 2}, {2, 3}, {1, 3}, {1, 4}, {2, 4}, {3, 4}}
  for k, ij in ipairs(entries) do
    local dV = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}
    dV[ij[1]][ij[2]] = k <= 3 and V[k][k] or 1
    cols[k + 1] = pi_of_J(sym_product(dV, V, e2))
  end
  local rows = {}
  for i = 1, 10 do
    rows[i] = {}
    for k = 1, 10 do rows[i][k] = cols[k][i] end
  end
  return lucid.mat(rows)
end

-- z of pi, or nil and why when pi is not physically consistent (J not positive definite).
-- U is the upper-triangular factor of J = U U^T, computed from the last column back.
function lc.from_pi(pi)
  local J = lc.pseudo_inertia(pi)
  local U = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}
  for j = 4, 1, -1 do
    local d = J[j][j]
    for k = j + 1, 4 do d = d - U[j][k] ^ 2 end
    if not (d > 0) then return nil, "pseudo-inertia not positive definite" end
    U[j][j] = math.sqrt(d)
    for i = 1, j - 1 do
      local x = J[i][j]
      for k = j + 1, 4 do x = x - U[i][k] * U[j][k] end
      U[i][j] = x / U[j][j]
    end
  end
  local s = U[4][4]
  return {math.log(s), math.log(U[1][1] / s), math.log(U[2][2] / s), math.log(U[3][3] / s),
          U[1][2] / s, U[2][3] / s, U[1][3] / s, U[1][4] / s, U[2][4] / s, U[3][4] / s}
end

-- The smallest eigenvalue of pi's pseudo-inertia over its largest: pi is a realisable body when
-- it is >= 0 (m > 0 and the inertia about the centre of mass satisfies the triangle
-- inequalities), strictly inside the set when > 0.
function lc.min_eig_ratio(pi)
  local w = lucid.mat(lc.pseudo_inertia(pi)):eigh()
  return w[1] / w[4]
end

-- true when pi is realisable to rounding: min_eig_ratio >= -ROUNDING (an estimate on the
-- boundary, a body whose mass lies on a plane, has a zero eigenvalue computed as +-1e-17)
local ROUNDING = 1e-12
function lc.consistent(pi)
  return lc.min_eig_ratio(pi) >= -ROUNDING
end

-- mass, centre of mass and the inertia about it (rows of a 3 x 3 table) of pi
function sysid.body_of_pi(pi)
  local m = pi[1]
  local c = {pi[2] / m, pi[3] / m, pi[4] / m}
  local I = {{pi[5], pi[6], pi[8]}, {pi[6], pi[7], pi[9]}, {pi[8], pi[9], pi[10]}}
  local cc = c[1] ^ 2 + c[2] ^ 2 + c[3] ^ 2
  for i = 1, 3 do
    for j = 1, 3 do I[i][j] = I[i][j] - m * ((i == j and cc or 0) - c[i] * c[j]) end
  end
  return m, c, I
end

-- ---- logs -------------------------------------------------------------------------------

local function log_fail(path, line, fmt, ...)
  error(string.format("%s:%d: " .. fmt, path, line, ...), 0)
end

-- The model's 1-dof joints in dof order: {name, dof}; an error for other joint kinds.
function sysid.joints(model, fname)
  local out = {}
  for _, j in ipairs(model:joints()) do
    if j.nv ~= 1 or j.nq ~= 1 then
      check.fail(fname, "joint '%s' (%s) is not a hinge or slide: logs name 1-dof joints only",
        j.name, j.kind)
    end
    out[#out + 1] = {name = j.name, dof = j.idx_v}
  end
  table.sort(out, function(a, b) return a.dof < b.dof end)
  return out
end

local function split_csv(line)
  local cells = {}
  for cell in (line .. ","):gmatch("([^,]*),") do cells[#cells + 1] = cell:match("^%s*(.-)%s*$") end
  return cells
end

-- The log at path for model: {path, t = {...}, q = {[dof] = {...}}, v, a (nil when absent),
-- tau, rate}. Errors `path:line: reason`.
function sysid.read_log(path, model)
  local fname = "lucid.sysid.read_log"
  local f, why = io.open(path, "r")
  if not f then check.fail(fname, "cannot open %s", why) end
  local header = f:read("l")
  if not header then f:close(); log_fail(path, 1, "empty file (expected a header row)") end
  local names = split_csv(header)
  local column = {}
  for k, name in ipairs(names) do
    if name == "" then f:close(); log_fail(path, 1, "column %d has no name", k) end
    if column[name] then f:close(); log_fail(path, 1, "column '%s' repeated", name) end
    column[name] = k
  end
  if not column.t then f:close(); log_fail(path, 1, "no 't' column") end
  local joints = sysid.joints(model, fname)
  local known = {t = true}
  local log = {path = path, t = {}, q = {}, v = {}, a = {}, tau = {}, joints = joints}
  local has = {}
  for _, kind in ipairs{"q", "v", "a", "tau"} do
    local count = 0
    for _, j in ipairs(joints) do
      local key = kind .. "_" .. j.name
      if column[key] then count = count + 1; known[key] = true; log[kind][j.dof] = {} end
    end
    if count ~= 0 and count ~= #joints or (count == 0 and (kind == "q" or kind == "tau")) then
      for _, j in ipairs(joints) do
        if not column[kind .. "_" .. j.name] then
          f:close(); log_fail(path, 1, "no '%s_%s' column", kind, j.name)
        end
      end
    end
    has[kind] = count > 0
  end
  for _, name in ipairs(names) do
    if not known[name] then
      f:close(); log_fail(path, 1, "unknown column '%s' (expected t, q_, v_, a_, tau_ and a joint "
        .. "of the model)", name)
    end
  end
  if not has.v then log.v = nil end
  if not has.a then log.a = nil end
  local lineno = 1
  for line in f:lines() do
    lineno = lineno + 1
    if line:match("%S") then
      local cells = split_csv(line)
      if #cells ~= #names then
        f:close(); log_fail(path, lineno, "%d values for %d columns", #cells, #names)
      end
      local n = #log.t + 1
      for k, cell in ipairs(cells) do
        local x = tonumber(cell)
        if not x or x ~= x or x == math.huge or x == -math.huge then
          f:close()
          log_fail(path, lineno, "'%s' (column %s) is not a finite number", cell, names[k])
        end
        cells[k] = x
      end
      local t = cells[column.t]
      if n > 1 and not (t > log.t[n - 1]) then
        f:close(); log_fail(path, lineno, "t = %.10g does not increase", t)
      end
      log.t[n] = t
      for _, kind in ipairs{"q", "v", "a", "tau"} do
        if log[kind] then
          for _, j in ipairs(joints) do
            log[kind][j.dof][n] = cells[column[kind .. "_" .. j.name]]
          end
        end
      end
    end
  end
  f:close()
  local n = #log.t
  if n < 16 then log_fail(path, lineno, "%d samples (at least 16 needed)", n) end
  -- uniform sampling: the filter and the differences assume it
  local h = (log.t[n] - log.t[1]) / (n - 1)
  for k = 2, n do
    if math.abs(log.t[k] - log.t[k - 1] - h) > 0.01 * h then
      log_fail(path, k + 1, "sampling is not uniform (step %.6g, mean %.6g; 1 %% allowed)",
        log.t[k] - log.t[k - 1], h)
    end
  end
  log.rate = 1 / h
  return log
end

-- ---- zero-phase filtering and differences -------------------------------------------------

-- Second-order Butterworth low-pass (bilinear transform, pre-warped) run forward then
-- backward (zero phase), the ends padded by odd reflection over `pad` samples.
function sysid.filtfilt(x, rate, cutoff)
  local K = math.tan(math.pi * cutoff / rate)
  local norm = 1 / (1 + math.sqrt(2) * K + K * K)
  local b0 = K * K * norm
  local b1, b2 = 2 * b0, b0
  local a1 = 2 * (K * K - 1) * norm
  local a2 = (1 - math.sqrt(2) * K + K * K) * norm
  local n = #x
  local pad = math.min(n - 1, math.ceil(3 * rate / cutoff))
  local y = {}
  for k = pad + 1, 2, -1 do y[#y + 1] = 2 * x[1] - x[k] end
  for k = 1, n do y[#y + 1] = x[k] end
  for k = n - 1, n - pad, -1 do y[#y + 1] = 2 * x[n] - x[k] end
  local function pass(u)
    local out = {}
    local x1, x2, y1, y2 = u[1], u[1], u[1], u[1] -- start at rest at the first value
    for k = 1, #u do
      local v = b0 * u[k] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
      x2, x1, y2, y1 = x1, u[k], y1, v
      out[k] = v
    end
    return out
  end
  local fwd = pass(y)
  local rev = {}
  for k = 1, #fwd do rev[k] = fwd[#fwd + 1 - k] end
  local back = pass(rev)
  local out = {}
  for k = 1, n do out[k] = back[#back + 1 - (pad + k)] end
  return out
end

-- central differences (one-sided at the ends), step h
local function derivative(x, h)
  local n, d = #x, {}
  d[1] = (x[2] - x[1]) / h
  d[n] = (x[n] - x[n - 1]) / h
  for k = 2, n - 1 do d[k] = (x[k + 1] - x[k - 1]) / (2 * h) end
  return d
end

-- MuJoCo 2.2.2's default solreffriction timeconst and solimpfriction dmin, dmax (see
-- sysid.friction_columns)
local MJ_TIMECONST, MJ_DMIN, MJ_DMAX = 0.02, 0.9, 0.95
-- The cut-off (Hz) of the acceleration in MuJoCo's friction model (sysid.friction_columns):
-- three times the bandwidth B / (2 pi) = 17 Hz of its default friction constraint.
local FRICTION_CUTOFF = 3 * 2 / (MJ_DMAX * MJ_TIMECONST) / (2 * math.pi)

-- The samples the fit uses: {q, v, a, tau} as lists of tables (one per sample, dof order).
-- With cutoff > 0, q, tau and the logged v and a are zero-phase filtered (all alike, so the
-- regressor and the torque see the same filter); v and a missing from the log are central
-- differences of the filtered q (v); the samples within `trim` seconds (default 1 / cutoff,
-- one sample without the filter) of either end, where the filter's padding and the one-sided
-- differences show, are left out.
-- For sysid.friction_columns the result also holds, per dof and over the whole log, raw_v (the
-- logged velocity, or the filtered one) and full_a (the acceleration through
-- opts.friction_cutoff, default FRICTION_CUTOFF), and `first`, the index there of sample 1.
function sysid.prepare(log, opts)
  opts = opts or {}
  local cutoff, h = opts.cutoff or 0, 1 / log.rate
  if cutoff >= log.rate / 2 then
    check.fail("lucid.sysid.prepare", "cutoff %.6g Hz must be below the Nyquist rate %.6g Hz",
      cutoff, log.rate / 2)
  end
  local function filt(x) return cutoff > 0 and sysid.filtfilt(x, log.rate, cutoff) or x end
  local q, v, a, tau = {}, {}, {}, {}
  for _, j in ipairs(log.joints) do
    local d = j.dof
    q[d] = filt(log.q[d])
    tau[d] = filt(log.tau[d])
    v[d] = log.v and filt(log.v[d]) or derivative(q[d], h)
    a[d] = log.a and filt(log.a[d]) or derivative(v[d], h)
  end
  local trim = opts.trim or (cutoff > 0 and 1 / cutoff or 0)
  local skip = math.max(1, math.ceil(trim * log.rate))
  local n = #log.t
  if 2 * skip >= n then
    check.fail("lucid.sysid.prepare", "%s: %d samples, fewer than the %d trimmed at the ends",
      log.path, n, 2 * skip)
  end
  local out = {t = {}, q = {}, v = {}, a = {}, tau = {}, nv = #log.joints, rate = log.rate,
               cutoff = cutoff, first = skip + 1}
  -- the whole log's raw velocity (the filtered one when none was logged) and filtered
  -- acceleration, per dof: sysid.friction_columns evaluates dry friction on them
  -- (the acceleration through the wider friction_cutoff: in MuJoCo's friction model it sets
  -- the force directly while the joint sticks, which 10 Hz smeared)
  local fc = opts.friction_cutoff or FRICTION_CUTOFF
  if not (fc > 0) then
    check.fail("lucid.sysid.prepare", "friction_cutoff must be > 0 (got %s)", tostring(fc))
  end
  local function ffilt(x) return fc < log.rate / 2 and sysid.filtfilt(x, log.rate, fc) or x end
  out.raw_v, out.full_a = {}, {}
  for _, j in ipairs(log.joints) do
    local d = j.dof
    out.raw_v[d] = log.v and log.v[d] or v[d]
    out.full_a[d] = log.a and ffilt(log.a[d])
      or derivative(log.v and ffilt(log.v[d]) or derivative(ffilt(log.q[d]), h), h)
  end
  for k = skip + 1, n - skip do
    local i = #out.t + 1
    out.t[i] = log.t[k]
    local qk, vk, ak, tk = {}, {}, {}, {}
    for d = 1, #log.joints do qk[d], vk[d], ak[d], tk[d] = q[d][k], v[d][k], a[d][k], tau[d][k] end
    out.q[i], out.v[i], out.a[i], out.tau[i] = qk, vk, ak, tk
  end
  return out
end

-- ---- dry friction as MuJoCo simulates it ---------------------------------------------------

-- MuJoCo 2.2.2's frictionloss is a soft constraint (default solreffriction 0.02 1, solimpfriction
-- 0.9 0.95): given the joint's acceleration a and velocity v its force is the clamp of
-- (a + B v) / R to [-F, F] (the Newton solver's optimality condition for a friction row), with
-- B = 2 / (dmax timeconst), timeconst = max(0.02, 2 timestep), and R = (1 - dmin) / dmin times
-- the dof's diagonal of M^-1 at q = 0 (dof_invweight0, armature included).

-- diag(M(0)^-1) of theta (inertial parameters, damping, Coulomb and armature columns) from the
-- regressor: M's column k is Y(0, 0, e_k) theta - Y(0, 0, 0) theta
local function inverse_mass_diagonal(model, theta, ropts)
  local nv = model.nv
  local zero = {}
  for j = 1, nv do zero[j] = 0 end
  local g = lucid.dynamics.regressor(model, zero, zero, zero, ropts) * theta
  local M = lucid.zeros(nv, nv)
  for k = 1, nv do
    local e = {}
    for j = 1, nv do e[j] = j == k and 1 or 0 end
    local col = lucid.dynamics.regressor(model, zero, zero, e, ropts) * theta - g
    for j = 1, nv do M:set(j, k, col[j]) end
  end
  local Minv = M:solve(lucid.eye(nv))
  local d = {}
  for j = 1, nv do d[j] = Minv:get(j, j) end
  return d
end

local function mujoco_B(model)
  return 2 / (MJ_DMAX * math.max(MJ_TIMECONST, 2 * model.timestep))
end

-- Each joint's linear zone W_j = R_j F_j of MuJoCo's friction model at theta (in the units of
-- a + B v): the friction force is F_j clamp((a + B v) / W_j, -1, 1).
function sysid.friction_zones(model, theta, ropts)
  local nb, nv = model.nbodies, model.nv
  local w = inverse_mass_diagonal(model, theta, ropts)
  local zones = {}
  for j = 1, nv do zones[j] = (1 - MJ_DMIN) / MJ_DMIN * w[j] * theta[10 * nb + nv + j] end
  return zones
end

-- Joint j's Coulomb column clamp((a + B v) / W, -1, 1) (sign(a + B v) where W = 0) on the
-- whole log's raw velocity and filtered acceleration, then filtered like the torque (the force
-- jumps within milliseconds; the filter is linear, the clamp is not), trimmed like the samples.
local function friction_column(samples, j, W, B)
  local v, a, c = samples.raw_v[j], samples.full_a[j], {}
  for k = 1, #v do
    local x = a[k] + B * v[k]
    c[k] = W > 0 and math.max(-1, math.min(1, x / W)) or (x > 0 and 1 or x < 0 and -1 or 0)
  end
  if samples.cutoff > 0 then c = sysid.filtfilt(c, samples.rate, samples.cutoff) end
  local out = {}
  for k = 1, #samples.t do out[k] = c[samples.first + k - 1] end
  return out
end

-- The Coulomb column of every sample under MuJoCo's friction model, with the given zones
-- (default: sysid.friction_zones at theta). Returns {[k] = {[dof] = value}} for
-- sysid.accumulate.
function sysid.friction_columns(model, samples, theta, ropts, zones)
  local nv = model.nv
  zones = zones or sysid.friction_zones(model, theta, ropts)
  local B = mujoco_B(model)
  local cols = {}
  for j = 1, nv do cols[j] = friction_column(samples, j, zones[j], B) end
  local out = {}
  for k = 1, #samples.t do
    local row = {}
    for j = 1, nv do row[j] = cols[j][k] end
    out[k] = row
  end
  return out
end

-- Each joint's zone identified from the log (refine_zones): with the rest of theta held, the
-- W_j (golden section on log W within a factor ZONE_RANGE of MuJoCo's zone at the estimate)
-- whose column, refitted with the joint's damping, friction and armature by least squares,
-- leaves the smallest torque error on joint j. It replaces MuJoCo's zone where the log
-- determines it: the zone spans ZONE_RESOLUTION standard deviations of the noise of its
-- argument a + B v, and its standard error in log W (from the error's curvature over
-- ZONE_STEP, in the fit's noise units kappa sigma_j^2) is below the identifiable ratio. The
-- estimate's inertia errors move MuJoCo's zone (a light joint's armature by 18 %, which the
-- fit then absorbed in its friction and damping), while a zone narrow against that noise is
-- biased by it (one moved 1.6x from the truth's and its validation error rose 1.4x).
local ZONE_RANGE, ZONE_EVALUATIONS, ZONE_STEP, ZONE_RESOLUTION = 10, 16, 0.05, 3

-- the RMS of joint j's a + B v less its low-passed self (the fit's cut-off): its noise
local function argument_noise(samples, j, B)
  local x = {}
  for k = 1, #samples.raw_v[j] do x[k] = samples.full_a[j][k] + B * samples.raw_v[j][k] end
  local xs = samples.cutoff > 0 and sysid.filtfilt(x, samples.rate, samples.cutoff) or x
  local s = 0
  for k = 1, #x do s = s + (x[k] - xs[k]) ^ 2 end
  return math.sqrt(s / #x)
end

-- the least-squares residual sum of squares of r (joint j's torque less the rest of the
-- model) against joint j's columns v, clamp((a + B v) / e^logW) and a
local function zone_error(samples, j, r, logW, B)
  local f = friction_column(samples, j, math.exp(logW), B)
  local s11, s12, s13, s22, s23, s33, b1, b2, b3, rr = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
  for k = 1, #samples.t do -- sums in plain numbers: fast in Lua
    local x1, x2, x3, rk = samples.v[k][j], f[k], samples.a[k][j], r[k]
    s11, s12, s13 = s11 + x1 * x1, s12 + x1 * x2, s13 + x1 * x3
    s22, s23, s33 = s22 + x2 * x2, s23 + x2 * x3, s33 + x3 * x3
    b1, b2, b3, rr = b1 + x1 * rk, b2 + x2 * rk, b3 + x3 * rk, rr + rk * rk
  end
  local A = lucid.mat{{s11, s12, s13}, {s12, s22, s23}, {s13, s23, s33}}
  local b = lucid.vec{b1, b2, b3}
  local ok, c = pcall(A.cholsolve, A, b)
  if not ok then return math.huge end
  return rr - c:dot(b)
end

-- golden section of f over [lo, hi] in `evaluations` calls: the best point and its value
local function golden_section(f, lo, hi, evaluations)
  local g = (math.sqrt(5) - 1) / 2
  local x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
  local f1, f2 = f(x1), f(x2)
  for _ = 3, evaluations do
    if f1 <= f2 then
      hi, x2, f2 = x2, x1, f1
      x1 = hi - g * (hi - lo)
      f1 = f(x1)
    else
      lo, x1, f1 = x1, x2, f2
      x2 = lo + g * (hi - lo)
      f2 = f(x2)
    end
  end
  if f1 <= f2 then return x1, f1 end
  return x2, f2
end

-- zones: MuJoCo's at theta; noise[j] = kappa sigma_j^2 (the fit's); st kept its rows
local function refine_zones(model, samples, theta, st, zones, noise, ratio)
  local nb, nv = model.nbodies, model.nv
  local B = mujoco_B(model)
  -- theta without the joints' own terms: r = tau - Y theta_rest per joint
  local rest = lucid.vec(theta)
  for j = 1, nv do
    for _, c in ipairs{10 * nb, 10 * nb + nv, 10 * nb + 2 * nv} do rest[c + j] = 0 end
  end
  local out, identified = {}, {}
  for j = 1, nv do
    out[j], identified[j] = zones[j], false
    if zones[j] >= ZONE_RESOLUTION * argument_noise(samples, j, B) then
      local r = {}
      for _, b in ipairs(st.batches[j]) do
        local rb = b.tau - b.Y * rest
        for i = 1, #rb do r[b.first + i - 1] = rb[i] end
      end
      local function f(logW) return zone_error(samples, j, r, logW, B) end
      local x, fx = golden_section(f, math.log(zones[j] / ZONE_RANGE),
                                   math.log(zones[j] * ZONE_RANGE), ZONE_EVALUATIONS)
      local curvature = (f(x + ZONE_STEP) - 2 * fx + f(x - ZONE_STEP)) / ZONE_STEP ^ 2
      local std = curvature > 0 and math.sqrt(2 * noise[j] / curvature) or math.huge
      if std <= ratio then out[j], identified[j] = math.exp(x), true end
    end
  end
  return out, identified
end

-- ---- normal equations -------------------------------------------------------------------

local BATCH = 256

-- Per joint j: H_j = sum_k y_jk^T y_jk, g_j = sum_k y_jk^T tau_jk, s_j = sum tau_jk^2 over the
-- samples (y_jk row j of the regressor at sample k), so any theta's torque error on the log
-- is theta^T H_j theta - 2 theta^T g_j + s_j without another pass. friction (optional, from
-- sysid.friction_columns; ropts with damping and coulomb) replaces the Coulomb column's values.
-- With keep, st.batches[j] holds joint j's rows (lucid.mat per BATCH samples, with their first
-- sample), for sysid.with_friction.
function sysid.accumulate(model, samples, ropts, friction, keep)
  local nv = model.nv
  local fcol = 10 * model.nbodies + nv -- the Coulomb column of dof 0
  local st = {n = #samples.t, H = {}, g = {}, s = {}, batches = keep and {} or nil,
              fcol = fcol}
  -- rows of BATCH samples are stacked per joint (Y:totable() and lucid.mat in C), then one
  -- product Y_j^T Y_j per batch: a rank-one update per sample allocated a p x p matrix each
  local rows, taus = {}, {}
  for j = 1, nv do
    rows[j], taus[j], st.s[j] = {}, {}, 0
    if keep then st.batches[j] = {} end
  end
  local first = 1
  local function flush()
    if #rows[1] == 0 then return end
    for j = 1, nv do
      local Yj, tj = lucid.mat(rows[j]), lucid.vec(taus[j])
      local YjT = Yj:T()
      local H, g = YjT * Yj, YjT * tj
      st.H[j] = st.H[j] and st.H[j] + H or H
      st.g[j] = st.g[j] and st.g[j] + g or g
      if keep then table.insert(st.batches[j], {Y = Yj, tau = tj, first = first}) end
      rows[j], taus[j] = {}, {}
    end
  end
  for k = 1, st.n do
    local Y = lucid.dynamics.regressor(model, samples.q[k], samples.v[k], samples.a[k], ropts)
    local yt = Y:totable()
    if friction then
      for j = 1, nv do yt[j][fcol + j] = friction[k][j] end
    end
    for j = 1, nv do
      local tau = samples.tau[k][j]
      local b = #rows[j] + 1
      rows[j][b], taus[j][b] = yt[j], tau
      st.s[j] = st.s[j] + tau * tau
    end
    if #rows[1] == BATCH then flush(); first = k + 1 end
  end
  flush()
  return st
end

-- st (accumulated with keep) with the Coulomb column's values replaced by friction (from
-- sysid.friction_columns): the normal equations again from the kept rows, no regressor pass.
-- st's rows are changed in place.
function sysid.with_friction(st, friction)
  local out = {n = st.n, H = {}, g = {}, s = st.s, batches = st.batches, fcol = st.fcol,
               friction = friction}
  for j, batches in ipairs(st.batches) do
    for _, b in ipairs(batches) do
      for i = 1, b.Y:rows() do b.Y:set(i, st.fcol + j, friction[b.first + i - 1][j]) end
      local YT = b.Y:T()
      local H, g = YT * b.Y, YT * b.tau
      out.H[j] = out.H[j] and out.H[j] + H or H
      out.g[j] = out.g[j] and out.g[j] + g or g
    end
  end
  return out
end

-- per-joint RMS torque error of theta (a lucid.vec) on the accumulated log
function sysid.rms(st, theta)
  local out = {}
  for j = 1, #st.H do
    local e = theta:dot(st.H[j] * theta) - 2 * theta:dot(st.g[j]) + st.s[j]
    out[j] = math.sqrt(math.max(e, 0) / st.n)
  end
  return out
end

local function weighted(st, w)
  local H, g = w[1] * st.H[1], w[1] * st.g[1]
  for j = 2, #st.H do H, g = H + w[j] * st.H[j], g + w[j] * st.g[j] end
  return H, lucid.vec(g)
end

-- ---- estimation -------------------------------------------------------------------------

local function diag(n, d)
  local D = lucid.zeros(n, n)
  for i = 1, n do D:set(i, i, d[i]) end
  return D
end

-- Standard deviations of the prior on theta: per body, rel * m for the mass, rel * m * l for
-- the first moment and rel * m * l^2 for the inertia (l the body's radius of gyration about
-- its origin, sqrt(tr(I) / 2m)); per joint rel * (torque scale / signal scale) with the log's
-- RMS torque, velocity and acceleration for damping, friction and armature.
local function prior_std(model, theta0, st_scale, rel)
  local nb, nv = model.nbodies, model.nv
  local sd = {}
  for b = 0, nb - 1 do
    local m = theta0[10 * b + 1]
    local l = math.sqrt((theta0[10 * b + 5] + theta0[10 * b + 7] + theta0[10 * b + 10]) / (2 * m))
    sd[10 * b + 1] = rel * m
    for i = 2, 4 do sd[10 * b + i] = rel * m * l end
    for i = 5, 10 do sd[10 * b + i] = rel * m * l * l end
  end
  for j = 1, nv do
    sd[10 * nb + j] = rel * st_scale.tau[j] / st_scale.v[j]
    sd[10 * nb + nv + j] = rel * st_scale.tau[j]
    sd[10 * nb + 2 * nv + j] = rel * st_scale.tau[j] / st_scale.a[j]
  end
  return sd
end

-- The number of filtered samples that carry one independent sample's information: white
-- noise through the forward-backward Butterworth (power gain 1 / (1 + (f / fc)^4)^2) keeps
-- the noise bandwidth fc * int_0^inf dx / (1 + x^4)^2 = fc * 3 pi / (8 sqrt 2) of the rate / 2
-- a white sequence has, so rate / (2 * that) samples (at least 1; 1 without filtering).
local ENBW = 3 * math.pi / (8 * math.sqrt(2))
local function samples_per_independent(samples)
  if not (samples.cutoff and samples.cutoff > 0) then return 1 end
  return math.max(1, samples.rate / (2 * ENBW * samples.cutoff))
end

local function rms_of(samples, field, j)
  local s = 0
  for k = 1, #samples.t do s = s + samples[field][k][j] ^ 2 end
  return math.sqrt(s / #samples.t)
end

-- A joint parameter's exp(z) with z at most Z_MAX: a Gauss-Newton trial step from a parameter
-- near 0 (its z far negative, its column tiny) can take z past exp's overflow, where theta(z)
-- failed instead of returning a cost the line search rejects (e^300 is astronomically wrong
-- for any joint, and the search then shortens the step).
local Z_MAX = 300
local function exp_capped(z) return math.exp(math.min(z, Z_MAX)) end

-- theta of z: each body's log-Cholesky block plus `offset` (margin times the nominal body),
-- exp of the joint parameters
local function theta_map(nb, nv, offset)
  local p = 10 * nb + 3 * nv
  local function forward(z)
    local th = {}
    for b = 0, nb - 1 do
      local zb = {}
      for i = 1, 10 do zb[i] = z[10 * b + i] end
      local pi = lc.to_pi(zb)
      for i = 1, 10 do th[10 * b + i] = pi[i] + offset[10 * b + i] end
    end
    for k = 10 * nb + 1, p do th[k] = exp_capped(z[k]) end
    return lucid.vec(th)
  end
  local function jacobian(z)
    local J = lucid.zeros(p, p)
    for b = 0, nb - 1 do
      local zb = {}
      for i = 1, 10 do zb[i] = z[10 * b + i] end
      local Jb = lc.jacobian(zb)
      for i = 1, 10 do
        for k = 1, 10 do J:set(10 * b + i, 10 * b + k, Jb:get(i, k)) end
      end
    end
    for k = 10 * nb + 1, p do J:set(k, k, z[k] < Z_MAX and math.exp(z[k]) or 0) end
    return J
  end
  return forward, jacobian
end

-- z of theta, the bodies pushed into the realisable set first: the pseudo-inertia's
-- eigenvalues raised to at least `floor` times the largest, the joint parameters to at least
-- their floor.
local function z_of_theta(theta, nb, nv, floors)
  local z = {}
  for b = 0, nb - 1 do
    local pi = {}
    for i = 1, 10 do pi[i] = theta[10 * b + i] end
    local zb = lc.from_pi(pi)
    if not zb then
      local J = lc.pseudo_inertia(pi)
      local w, V = lucid.mat(J):eigh()
      local top = math.max(w[4], 1e-300)
      local Jp = lucid.zeros(4, 4)
      for i = 1, 4 do
        local col = lucid.zeros(4)
        for r = 1, 4 do col[r] = V:get(r, i) end
        Jp = Jp + math.max(w[i], floors.eig * top) * (col * col:T())
      end
      zb = assert(lc.from_pi(pi_of_J(Jp:totable())))
    end
    for i = 1, 10 do z[10 * b + i] = zb[i] end
  end
  for k = 10 * nb + 1, 10 * nb + 3 * nv do z[k] = math.log(math.max(theta[k], floors[k])) end
  return lucid.vec(z)
end

-- Gauss-Newton on r(z) = R theta(z) - c in rounds of ROUND iterations, each in the variables
-- y of z = z_k + D y, D the inverse column norms of R dtheta/dz at the round's start (Jacobi
-- scaling): a body near the boundary of the realisable set has tiny columns in z, whose
-- unscaled steps are huge and made the line search cut every step (measured: 100 iterations
-- still lowering the cost steadily). Stops when a round lowers the cost (0.5 chi^2) by less
-- than CHI2_TOL (a chi^2 change of 0.02 moves no parameter by a noticeable fraction of its
-- standard error), or after `iterations` in all.
local ROUND, CHI2_TOL = 10, 1e-2
-- Levenberg-Marquardt's first lambda against the unit diagonal of the scaled normal matrix:
-- the data leave directions with eigenvalues far below lucid.optim's default 1e-3, where that
-- damping made every step a short gradient step (hundreds of iterations, measured)
local LAMBDA = 1e-6
local function scaled_gauss_newton(residual, jacobian, z, iterations)
  local total, history, info = 0, {}, nil
  local p = #z
  while total < iterations do
    local A = jacobian(z)
    local d = {}
    for k = 1, p do
      local col = 0
      for i = 1, A:rows() do col = col + A:get(i, k) ^ 2 end
      d[k] = col > 0 and 1 / math.sqrt(col) or 1
    end
    local D = diag(p, d)
    local zk = z
    local y
    y, info = optim.gauss_newton(function(y) return residual(zk + D * y) end, lucid.zeros(p),
      {damping = "adaptive", lambda = LAMBDA, max_iter = math.min(ROUND, iterations - total),
       tol = 1e-9})
    z = zk + D * y
    for _, h in ipairs(info.history) do history[#history + 1] = h end
    total = total + info.iterations
    local gain = info.history[1] - info.cost
    if gain < CHI2_TOL or info.iterations == 0 then
      info.converged, info.reason = true, "chi2"
      info.message = "a round lowered the cost by less than " .. CHI2_TOL
      break
    end
  end
  info.iterations, info.history = total, history
  if total >= iterations and info.reason ~= "chi2" then
    info.converged, info.reason, info.message = false, "max_iter", "iteration limit reached"
  end
  return z, info
end

local IDENTIFY_KEYS = {prior = "number", iterations = "number", coulomb_smoothing = "number",
                       identifiable_ratio = "number", eig_floor = "number",
                       inertia_margin = "number", shape_prior = "number",
                       friction_model = "string"}
local FRICTION_MODELS = {tanh = true, mujoco = true}
-- friction_model "mujoco": the fit is repeated with the Coulomb column of the previous
-- estimate until no joint's friction moves by more than FRICTION_TOL of itself and no zone by
-- more than ZONE_TOL (the golden section's last bracket is 0.6 % wide), or FRICTION_ROUNDS fits
local FRICTION_ROUNDS, FRICTION_TOL, ZONE_TOL = 10, 1e-3, 1e-2

-- Each parameter's scale for the identifiability rule: per body m, m l, m l^2 (as the prior's
-- standard deviations at rel = 1); 0 for the joint parameters (judged relative to the estimate).
local function parameter_scale(model, theta0)
  local sc = {}
  for b = 0, model.nbodies - 1 do
    local m = theta0[10 * b + 1]
    local l = math.sqrt((theta0[10 * b + 5] + theta0[10 * b + 7] + theta0[10 * b + 10]) / (2 * m))
    sc[10 * b + 1] = m
    for i = 2, 4 do sc[10 * b + i] = m * l end
    for i = 5, 10 do sc[10 * b + i] = m * l * l end
  end
  for k = 10 * model.nbodies + 1, #theta0 do sc[k] = 0 end
  return sc
end

-- The maximum a posteriori estimate under the physical constraints:
--   min 0.5 sum_j |W_j (Y_j theta - tau_j)|^2 + 0.5 |(theta - theta0) / sd|^2
--       + 0.5 sum_bodies |(d - d_nominal) / shape_prior|^2
-- over theta = theta(z) (log-Cholesky bodies, positive joint parameters), by lucid.optim's
-- Gauss-Newton on the equivalent p residuals R theta - c (R^T R = H, the weighted normal
-- matrix plus the prior's precision) and the shape prior's rows. W_j^2 = 1 / (kappa sigma_j^2):
-- sigma_j the noise of joint j from the residual of the unconstrained fit, kappa the filtered
-- samples per independent one. opts: prior (relative std, default 1), iterations (500),
-- coulomb_smoothing (0), identifiable_ratio (0.1), eig_floor (1e-6: the starting point's
-- smallest pseudo-inertia eigenvalue relative to the largest), inertia_margin (1e-3),
-- shape_prior (1, in e-folds of each log-Cholesky diagonal entry), friction_model ("tanh": the
-- Coulomb column tanh(v / coulomb_smoothing) on the filtered v; "mujoco": MuJoCo's soft
-- frictionloss, sysid.friction_columns, at the estimate, which the tanh fit starts).
-- Each body's pseudo-inertia is J = U U^T + inertia_margin J_nominal: strictly inside the
-- realisable set (on its boundary, a body with all its mass on a plane, MuJoCo's compiler
-- refuses the inertia by rounding: A + B >= C fails).
local fit -- one fit at a given Coulomb column (below)
function sysid.identify(model, train, opts)
  local fname = "lucid.sysid.identify"
  opts = check.options(fname, opts or {}, IDENTIFY_KEYS, "opts")
  local nb, nv = model.nbodies, model.nv
  local ropts = {damping = true, coulomb = true, armature = true,
                 coulomb_smoothing = opts.coulomb_smoothing or 0}
  local theta0 = lucid.dynamics.inertial_parameters(model, ropts)
  local fmodel = opts.friction_model or "tanh"
  if not FRICTION_MODELS[fmodel] then
    check.fail(fname, "opts.friction_model must be 'tanh' or 'mujoco' (got '%s')", fmodel)
  end
  local st = sysid.accumulate(model, train, ropts, nil, fmodel == "mujoco")
  local out = fit(model, train, opts, ropts, theta0, st)
  if fmodel == "mujoco" then
    local zones = sysid.friction_zones(model, out.theta, ropts)
    local identified = {}
    for round = 1, FRICTION_ROUNDS do
      local prev, prev_zones = out.theta, zones
      if round > 1 then
        -- searched within ZONE_RANGE of the zones MuJoCo derives from the estimate
        local noise = {}
        for j = 1, nv do noise[j] = out.samples_per_independent * out.sigma[j] ^ 2 end
        zones, identified = refine_zones(model, train, prev, st,
                                         sysid.friction_zones(model, prev, ropts), noise,
                                         opts.identifiable_ratio or 0.1)
      end
      st = sysid.with_friction(st, sysid.friction_columns(model, train, prev, ropts, zones))
      out = fit(model, train, opts, ropts, theta0, st, prev)
      out.friction_rounds, out.zones, out.zone_identified = round, zones, identified
      local moved, zmoved = 0, 0
      for j = 1, nv do
        local k = 10 * nb + nv + j
        moved = math.max(moved, math.abs(out.theta[k] - prev[k]) / out.theta[k])
        zmoved = math.max(zmoved, math.abs(zones[j] - prev_zones[j]) / zones[j])
      end
      if moved < FRICTION_TOL and zmoved < ZONE_TOL then break end
    end
  end
  out.friction_model = fmodel
  return out
end

-- One fit of sysid.identify on st (its Coulomb column ropts' or sysid.with_friction's), from
-- `start` (the previous fit's theta) or the unconstrained fit.
fit = function(model, train, opts, ropts, theta0, st, start)
  local rel = opts.prior or 1
  local ratio = opts.identifiable_ratio or 0.1
  local nb, nv = model.nbodies, model.nv
  local p = #theta0
  local scale = {tau = {}, v = {}, a = {}}
  for j = 1, nv do
    scale.tau[j] = math.max(rms_of(train, "tau", j), 1e-12)
    scale.v[j] = math.max(rms_of(train, "v", j), 1e-12)
    scale.a[j] = math.max(rms_of(train, "a", j), 1e-12)
  end
  local sd = prior_std(model, theta0, scale, rel)
  local prec = {}
  for k = 1, p do prec[k] = 1 / sd[k] ^ 2 end
  local P = diag(p, prec)
  local Pt0 = P * theta0
  -- unconstrained fit with unit weights, then each joint's noise from its residual
  local sigma = {}
  do
    local w = {}
    for j = 1, nv do w[j] = 1 / scale.tau[j] ^ 2 end
    local H, g = weighted(st, w)
    local th = (H + P):cholsolve(g + Pt0)
    local r = sysid.rms(st, th)
    for j = 1, nv do sigma[j] = math.max(r[j], 1e-9 * scale.tau[j]) end
  end
  -- each sample's weight 1 / (kappa sigma_j^2): filtered samples are correlated, kappa of them
  -- carry the information of one independent sample (see samples_per_independent)
  local kappa = samples_per_independent(train)
  local w = {}
  for j = 1, nv do w[j] = 1 / (kappa * sigma[j] ^ 2) end
  local Hd, gd = weighted(st, w)
  local H, g = Hd + P, gd + Pt0
  local th_free = H:cholsolve(g)
  local L = H:chol()
  local R, c = L:T(), L:solve(g)
  local floors = {eig = opts.eig_floor or 1e-6}
  for k = 10 * nb + 1, p do floors[k] = 1e-6 * sd[k] end
  local margin = opts.inertia_margin or 1e-3
  local offset = lucid.zeros(p)
  for k = 1, 10 * nb do offset[k] = margin * theta0[k] end
  local forward, jac = theta_map(nb, nv, offset)
  local map = lucid.ad.primitive{forward = forward, jacobian = jac, name = "theta(z)"}
  local z0 = z_of_theta((start or th_free) - offset, nb, nv, floors)
  -- the shape prior: (d_i - d_i nominal) / shape_prior for each body's log-Cholesky diagonal
  local shape = opts.shape_prior or 1
  local Sz = lucid.zeros(3 * nb, p)
  for b = 0, nb - 1 do
    for i = 1, 3 do Sz:set(3 * b + i, 10 * b + 1 + i, 1 / shape) end
  end
  local znom = z_of_theta(theta0 - offset, nb, nv, floors)
  local sz0 = Sz * znom
  local z, info = scaled_gauss_newton(
    function(z) return lucid.ad.concat{R * map(z) - c, Sz * z - sz0} end,
    function(z)
      local A, B = R * jac(z), lucid.zeros(3 * nb + p, p)
      for i = 1, p do for k = 1, p do B:set(i, k, A:get(i, k)) end end
      for i = 1, 3 * nb do for k = 1, p do B:set(p + i, k, Sz:get(i, k)) end end
      return B
    end, z0, opts.iterations or 500)
  local theta = forward(z)
  -- covariances: posterior (data and prior) for theta, data only for the base parameters
  local cov = H:solve(lucid.eye(p))
  local out = {theta = theta, theta0 = theta0, theta_free = th_free, sigma = sigma, info = info,
               friction = st.friction,
               samples_per_independent = kappa,
               prior_sd = sd, ropts = ropts, stats = st, nb = nb, nv = nv}
  -- identified: standard deviation below `ratio` of max(|estimate|, the parameter's scale)
  local scale_k = parameter_scale(model, theta0)
  out.std, out.identified, out.scale = {}, {}, scale_k
  for k = 1, p do
    out.std[k] = math.sqrt(math.max(cov:get(k, k), 0))
    out.identified[k] = out.std[k] <= ratio * math.max(math.abs(theta[k]), scale_k[k])
  end
  local bp = lucid.dynamics.base_parameters(model, ropts)
  local S, K = bp.select, bp.map
  local Fb = S:T() * Hd * S
  local ok, covb = pcall(Fb.solve, Fb, lucid.eye(bp.rank))
  local thb, thb0 = K * theta, K * theta0
  local sc2 = {}
  for k = 1, p do sc2[k] = scale_k[k] ^ 2 end
  local scale_b = K * diag(p, sc2) * K:T()
  out.base = {}
  for i = 1, bp.rank do
    local se = ok and math.sqrt(math.max(covb:get(i, i), 0)) or math.huge
    local sc = math.max(math.abs(thb[i]), math.sqrt(scale_b:get(i, i)))
    out.base[i] = {name = bp.names[i], estimate = thb[i], nominal = thb0[i],
                   std_error = se, identifiable = se <= ratio * sc}
  end
  out.base_parameters = bp
  return out
end

-- ---- excitation -------------------------------------------------------------------------

-- q_j(t) = q0_j + sum_l a_jl / (w l) sin(w l t) - b_jl / (w l) cos(w l t), w = 2 pi f0, the
-- coefficients x = (a_j1..a_jL, b_j1..b_jL) per joint; v(0) = a(0) = 0 is imposed through
-- a_j1 = -sum_{l>1} a_jl and b_j1 = -sum_{l>1} l b_jl.
local function fourier(x, L, f0, q0, t)
  local nv = #q0
  local w = 2 * math.pi * f0
  local q, v, a = {}, {}, {}
  for j = 1, nv do
    local base = (j - 1) * 2 * L
    local qa, va, aa = q0[j], 0, 0
    for l = 1, L do
      local ca, cb = x[base + l], x[base + L + l]
      local wl = w * l
      local s, c = math.sin(wl * t), math.cos(wl * t)
      qa = qa + ca / wl * s - cb / wl * c
      va = va + ca * c + cb * s
      aa = aa - ca * wl * s + cb * wl * c
    end
    q[j], v[j], a[j] = qa, va, aa
  end
  return q, v, a
end

local function impose_rest(x, L, nv)
  for j = 1, nv do
    local base = (j - 1) * 2 * L
    local sa, sb = 0, 0
    for l = 2, L do sa, sb = sa + x[base + l], sb + l * x[base + L + l] end
    x[base + 1], x[base + L + 1] = -sa, -sb
  end
  return x
end

local DENSE = 20 -- the final feasibility check's refinement of the search's sample points
local EXCITE_KEYS = {harmonics = "number", frequency = "number", samples = "number",
                     evaluations = "number", max_velocity = "number", max_torque = "number",
                     margin = "number", rng = "userdata", progress = "function"}

-- A Fourier excitation (Swevers, Ganseman, Tukel, De Schutter, Van Brussel 1997): the
-- coefficients minimise cond(Y_b) of the base regressor stacked over `samples` points of one
-- period, under |q - centre| within the joint range less `margin` (of each half range), |v| <=
-- max_velocity and |tau| <= max_torque (the model's limits where finite and smaller). Search:
-- random draws then a (1+1) evolution strategy; each candidate is scaled down until feasible.
function sysid.excite(model, opts)
  local fname = "lucid.sysid.excite"
  opts = check.options(fname, opts or {}, EXCITE_KEYS, "opts")
  local joints = sysid.joints(model, fname)
  local nv = #joints
  local L, f0 = opts.harmonics or 5, opts.frequency or 0.1
  local M, evals = opts.samples or 100, opts.evaluations or 300
  local rng = opts.rng or lucid.rng(0)
  local lower, upper, vlim, tlim = model:limits()
  local q0, half = {}, {}
  for j = 1, nv do
    local lo, hi = lower[j], upper[j]
    if lo == -math.huge or hi == math.huge then lo, hi = -math.pi, math.pi end
    q0[j], half[j] = (lo + hi) / 2, (hi - lo) / 2 * (1 - (opts.margin or 0.1))
  end
  local vmax, tmax = {}, {}
  for j = 1, nv do
    vmax[j] = math.min(vlim[j], opts.max_velocity or 2)
    tmax[j] = math.min(tlim[j], opts.max_torque or math.huge)
  end
  local ropts = {damping = true, coulomb = true, armature = true}
  local bp = lucid.dynamics.base_parameters(model, ropts)
  local S = bp.select
  local theta0 = lucid.dynamics.inertial_parameters(model)
  local T = 1 / f0
  -- the largest scale s <= 1 of x that keeps the bounds at `points` points of the period; with
  -- `strict`, q - q0 and v (trigonometric polynomials of degree L) are kept within the bounds
  -- everywhere: by Bernstein's inequality |f'| <= L w max|f|, so between points T / points
  -- apart max|f| <= (sampled max) / (1 - pi L / points)
  local function feasible_scale(x, points, strict)
    local s = 1
    local shrink = strict and 1 - math.pi * L / points or 1
    for i = 0, points - 1 do
      local q, v = fourier(x, L, f0, q0, i * T / points)
      for j = 1, nv do
        s = math.min(s, shrink * half[j] / math.max(math.abs(q[j] - q0[j]), 1e-300),
          shrink * vmax[j] / math.max(math.abs(v[j]), 1e-300))
      end
    end
    for _ = 1, 30 do -- torque: nonlinear in s, shrink until it holds
      local worst = 0
      local sx = {}
      for k = 1, #x do sx[k] = s * x[k] end
      for i = 0, points - 1 do
        local q, v, a = fourier(sx, L, f0, q0, i * T / points)
        local tau = lucid.dynamics.rnea(model, q, v, a)
        for j = 1, nv do worst = math.max(worst, math.abs(tau[j]) / tmax[j]) end
      end
      if worst <= 1 then return s end
      s = s * 0.9 / worst ^ 0.5
    end
    return 0
  end
  local function cond_of(x)
    local A
    for i = 0, M - 1 do
      local q, v, a = fourier(x, L, f0, q0, i * T / M)
      local Yb = lucid.dynamics.regressor(model, q, v, a, ropts) * S
      A = A and A + Yb:T() * Yb or Yb:T() * Yb
    end
    local w = A:eigh()
    if not (w[1] > 0) then return math.huge end
    return math.sqrt(w[#w] / w[1])
  end
  local function candidate(x)
    x = impose_rest(x, L, nv)
    local s = feasible_scale(x, M)
    if s <= 0 then return x, math.huge end
    for k = 1, #x do x[k] = s * x[k] end
    return x, cond_of(x)
  end
  local n = nv * 2 * L
  local best, best_cond = nil, math.huge
  local draws = math.max(1, evals // 5)
  for e = 1, evals do
    local x
    if e <= draws or not best then
      x = {}
      for k = 1, n do x[k] = rng:normal() end
    else
      x = {}
      for k = 1, n do x[k] = best[k] + 0.2 * rng:normal() * (math.abs(best[k]) + 0.1) end
    end
    local xc, c = candidate(x)
    if c < best_cond then best, best_cond = xc, c end
    if opts.progress then opts.progress(e, evals) end
  end
  if not best then check.fail(fname, "no feasible excitation found") end
  -- the bounds were checked at M points of the period: check them DENSE times more finely,
  -- position and speed strictly (between the points the trajectory may exceed them slightly),
  -- and scale down if needed
  local s = feasible_scale(best, DENSE * M, true)
  if s < 1 then
    for k = 1, #best do best[k] = s * best[k] end
    best_cond = cond_of(best)
  end
  return {x = best, cond = best_cond, harmonics = L, frequency = f0, q0 = q0, joints = joints,
          base_rank = bp.rank,
          eval = function(t) return fourier(best, L, f0, q0, t) end}
end

-- Writes the excitation as CSV: header t, q_<joint>..., v_<joint>..., a_<joint>..., one row per
-- 1 / rate seconds over `periods` periods (the last sample included).
function sysid.write_trajectory(path, ex, rate, periods)
  local f = io.open(path, "w")
  if not f then check.fail("lucid.sysid.write_trajectory", "cannot write %s", path) end
  local head = {"t"}
  for _, kind in ipairs{"q", "v", "a"} do
    for _, j in ipairs(ex.joints) do head[#head + 1] = kind .. "_" .. j.name end
  end
  f:write(table.concat(head, ","), "\n")
  local n = math.floor(periods * rate / ex.frequency + 0.5)
  for k = 0, n do
    local t = k / rate
    local q, v, a = ex.eval(t)
    local row = {string.format("%.6f", t)}
    for _, x in ipairs{q, v, a} do
      for j = 1, #ex.joints do row[#row + 1] = string.format("%.12g", x[j]) end
    end
    f:write(table.concat(row, ","), "\n")
  end
  f:close()
  return n + 1
end

-- ---- writing the model back ---------------------------------------------------------------

local function fmt(x) return string.format("%.15g", x) end

-- set (or add) attribute `name` in the attribute text of a tag
local function set_attr(attrs, name, value)
  local pat = "(%s" .. name .. "%s*=%s*)([\"'])(.-)%2"
  if attrs:find(pat) then
    return (attrs:gsub(pat, function(pre, q) return pre .. q .. value .. q end, 1))
  end
  return attrs .. " " .. name .. "=\"" .. value .. "\""
end

-- Every element <tag ...> of the text (comments skipped): start, stop, name, attrs, closing,
-- selfclosing.
local function tags(text)
  local out, pos = {}, 1
  while true do
    local s = text:find("<", pos, true)
    if not s then break end
    if text:sub(s, s + 3) == "<!--" then
      local e = text:find("-->", s + 4, true)
      pos = (e or #text) + 3
    elseif text:sub(s + 1, s + 1) == "?" or text:sub(s + 1, s + 1) == "!" then
      pos = (text:find(">", s, true) or #text) + 1
    else
      local e = text:find(">", s, true)
      if not e then break end
      local inner = text:sub(s + 1, e - 1)
      local closing = inner:sub(1, 1) == "/"
      local selfclosing = inner:sub(-1) == "/"
      local name = inner:match("^/?%s*([%w_:%-]+)")
      local attrs = inner:gsub("^/?%s*[%w_:%-]+", "", 1):gsub("/$", "")
      out[#out + 1] = {s = s, e = e, name = name, attrs = attrs, closing = closing,
                       selfclosing = selfclosing}
      pos = e + 1
    end
  end
  return out
end

local function attr(attrs, name)
  local _, v = attrs:match("%s" .. name .. "%s*=%s*([\"'])(.-)%1")
  return v
end

-- the identified body's inertial description in the body frame: mass, com, inertia about it
local function body_values(est, b)
  local pi = {}
  for i = 1, 10 do pi[i] = est.theta[10 * (b - 1) + i] end
  return sysid.body_of_pi(pi)
end

-- true when the body / link element at list[k] carries mass of its own: a URDF <mass> above 0;
-- in MJCF an <inertial> mass above 0 or a geom (which has mass unless mass="0") directly in it.
local function element_has_mass(list, k, bodytag)
  if list[k].selfclosing then return false end
  local depth = 0
  for i = k + 1, #list do
    local u = list[i]
    if u.name == bodytag then
      if u.closing then
        if depth == 0 then return false end
        depth = depth - 1
      elseif not u.selfclosing then
        depth = depth + 1
      end
    elseif depth == 0 and not u.closing then
      local key = u.name == "mass" and "value" or u.name == "inertial" and "mass"
      if key and (tonumber(attr(u.attrs, key) or "0") or 1) > 0 then return true end
      if u.name == "geom" and tonumber(attr(u.attrs, "mass") or "1") ~= 0 then return true end
    end
  end
  return false
end

-- The bodies (MJCF) or links (URDF) that are not moving bodies of the model but hang, welded,
-- from one: name -> that moving body's name.
local function welded_to_moving(list, urdf, body_index)
  local out = {}
  if urdf then
    local parent_of, joint_parent = {}, nil
    for _, tg in ipairs(list) do
      if tg.name == "joint" and not tg.closing then joint_parent = {}
      elseif joint_parent and tg.name == "parent" then joint_parent.parent = attr(tg.attrs, "link")
      elseif joint_parent and tg.name == "child" then joint_parent.child = attr(tg.attrs, "link")
      elseif tg.name == "joint" and tg.closing and joint_parent then
        if joint_parent.child then parent_of[joint_parent.child] = joint_parent.parent end
        joint_parent = nil
      end
    end
    for _, tg in ipairs(list) do
      local name = tg.name == "link" and not tg.closing and attr(tg.attrs, "name")
      if name and not body_index[name] then
        local up, guard = parent_of[name], 0
        while up and not body_index[up] and guard < #list do
          up, guard = parent_of[up], guard + 1
        end
        out[name] = up and body_index[up] and up or nil
      end
    end
  else
    local stack = {}
    for _, tg in ipairs(list) do
      if tg.name == "body" and tg.closing then
        stack[#stack] = nil
      elseif tg.name == "body" then
        local name = attr(tg.attrs, "name")
        local moving
        for i = #stack, 1, -1 do
          if stack[i] and body_index[stack[i]] then moving = stack[i]; break end
        end
        if name and not body_index[name] then out[name] = moving end
        if not tg.selfclosing then stack[#stack + 1] = name or false end
      end
    end
  end
  return out
end

-- Writes `out_path`: the model file `in_path` with each identified body's inertial element
-- replaced and each joint's damping, friction and armature set. opts.friction: "frictionloss"
-- (MuJoCo's attribute; URDF <dynamics friction>) or "omit" (a file lucid's loader accepts
-- today: it refuses joint dry friction). URDF has no armature: it is left out there.
function sysid.write_model(in_path, out_path, model, est, opts)
  local fname = "lucid.sysid.write_model"
  opts = opts or {}
  local f = io.open(in_path, "r")
  if not f then check.fail(fname, "cannot read %s", in_path) end
  local text = f:read("a")
  f:close()
  local urdf = text:find("<robot", 1, true) ~= nil
  local body_index, joint_dof = {}, {}
  for i, name in ipairs(model:names("body")) do body_index[name] = i end
  for _, j in ipairs(sysid.joints(model, fname)) do joint_dof[j.name] = j.dof end
  local nb, nv = est.nb, est.nv
  local friction = opts.friction ~= "omit"
  local edits = {} -- {s, e, replacement}, applied from the end
  local list = tags(text)
  local moving_parent = welded_to_moving(list, urdf, body_index)
  local found = {}
  for k, tg in ipairs(list) do
    local bodytag = urdf and "link" or "body"
    if tg.name == bodytag and not tg.closing then
      local name = attr(tg.attrs, "name")
      local b = name and body_index[name]
      if name and not b and moving_parent[name] and element_has_mass(list, k, bodytag) then
        -- its mass is in the moving body's identified parameters: writing both counts it twice
        check.fail(fname, "%s: body '%s' is welded to the moving body '%s': not supported",
          in_path, name, moving_parent[name])
      end
      if b then
        found[name] = true
        local m, c, I = body_values(est, b)
        local el
        if urdf then
          el = string.format("<inertial><origin xyz=\"%s %s %s\" rpy=\"0 0 0\"/>"
            .. "<mass value=\"%s\"/><inertia ixx=\"%s\" ixy=\"%s\" ixz=\"%s\" iyy=\"%s\" "
            .. "iyz=\"%s\" izz=\"%s\"/></inertial>",
            fmt(c[1]), fmt(c[2]), fmt(c[3]), fmt(m), fmt(I[1][1]), fmt(I[1][2]), fmt(I[1][3]),
            fmt(I[2][2]), fmt(I[2][3]), fmt(I[3][3]))
        else
          el = string.format("<inertial pos=\"%s %s %s\" mass=\"%s\" "
            .. "fullinertia=\"%s %s %s %s %s %s\"/>",
            fmt(c[1]), fmt(c[2]), fmt(c[3]), fmt(m), fmt(I[1][1]), fmt(I[2][2]), fmt(I[3][3]),
            fmt(I[1][2]), fmt(I[1][3]), fmt(I[2][3]))
        end
        if tg.selfclosing then
          local open = text:sub(tg.s, tg.e - 2) .. ">"
          edits[#edits + 1] = {tg.s, tg.e, open .. el .. "</" .. bodytag .. ">"}
        else
          edits[#edits + 1] = {tg.e + 1, tg.e, el}
          -- drop the body's own inertial element (the first <inertial> at depth 1)
          local depth = 0
          for i = k + 1, #list do
            local u = list[i]
            if depth == 0 and u.name == "inertial" and not u.closing then
              if u.selfclosing then
                edits[#edits + 1] = {u.s, u.e, ""}
              else
                for j2 = i + 1, #list do
                  if list[j2].name == "inertial" and list[j2].closing then
                    edits[#edits + 1] = {u.s, list[j2].e, ""}
                    break
                  end
                end
              end
              break
            end
            if u.name == bodytag and not u.closing and not u.selfclosing then depth = depth + 1 end
            if u.name == bodytag and u.closing then
              if depth == 0 then break end
              depth = depth - 1
            end
          end
        end
      end
    elseif tg.name == "joint" and not tg.closing then
      local name = attr(tg.attrs, "name")
      local d = name and joint_dof[name]
      if d then
        found[name] = true
        local damping = est.theta[10 * nb + d]
        local fr = est.theta[10 * nb + nv + d]
        local arm = est.theta[10 * nb + 2 * nv + d]
        if urdf then
          local dyn = string.format("<dynamics damping=\"%s\"%s/>", fmt(damping),
            friction and string.format(" friction=\"%s\"", fmt(fr)) or "")
          -- replace an existing <dynamics> inside this joint, else add one
          local replaced = false
          for i = k + 1, #list do
            local u = list[i]
            if u.name == "joint" and u.closing then break end
            if u.name == "dynamics" and not u.closing then
              edits[#edits + 1] = {u.s, u.e, dyn}
              replaced = true
              break
            end
          end
          if not replaced then edits[#edits + 1] = {tg.e + 1, tg.e, dyn} end
        else
          local a = set_attr(tg.attrs, "damping", fmt(damping))
          a = set_attr(a, "armature", fmt(arm))
          if friction then a = set_attr(a, "frictionloss", fmt(fr)) end
          edits[#edits + 1] = {tg.s, tg.e, "<joint" .. a .. (tg.selfclosing and "/>" or ">")}
        end
      end
    end
  end
  for _, names in ipairs{model:names("body"), model:names("joint")} do
    for _, name in ipairs(names) do
      if not found[name] then
        check.fail(fname, "%s: no element named '%s' (is it unnamed in the file?)", in_path, name)
      end
    end
  end
  table.sort(edits, function(x, y) return x[1] > y[1] end)
  for _, ed in ipairs(edits) do text = text:sub(1, ed[1] - 1) .. ed[3] .. text:sub(ed[2] + 1) end
  -- geoms must not override the written inertials
  text = text:gsub("(inertiafromgeom%s*=%s*[\"'])true([\"'])", "%1auto%2")
  local o = io.open(out_path, "w")
  if not o then check.fail(fname, "cannot write %s", out_path) end
  o:write(text)
  o:close()
  return urdf and "urdf" or "mjcf"
end

return sysid
