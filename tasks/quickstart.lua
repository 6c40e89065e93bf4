-- Quickstart: the runtime end to end. Builds poses with the SE(3) exponential, checks the
-- exp/log round trip, solves a random SPD linear system with LAPACK (Cholesky and LU), and
-- prints a summary (or one JSON object with --json).
local lucid = require "lucid"
local task = require "lucid.task"

local t = task.new{
  name = "quickstart",
  summary = "Poses, exp/log round trips and a dense linear solve: the lucid runtime end to end.",
  options = {
    {name = "n", kind = "integer", default = 200, min = 1, max = 4000, help = "size of the linear system"},
    {name = "poses", kind = "integer", default = 2000, min = 1, help = "random poses to round-trip"},
  },
}
local opts = t:parse(arg)
local rng = t.rng

-- 1. Poses: half a turn about y (quaternion w, x, y, z), then 2 m along z.
local T = lucid.se3.new({0, 0, 1, 0}, {0, 0, 2})
local p = T:act(lucid.vec{0.1, 0.2, 0.3})

-- 2. exp(log(T)) == T on random poses.
local worst_roundtrip = 0
local bar = t:progress(opts.poses, "exp/log round trips")
for _ = 1, opts.poses do
  local X = lucid.se3.random(rng)
  local Y = lucid.se3.exp(X:log())
  local dR = (X:rotation() - Y:rotation()):norm()
  local dt = (X:translation() - Y:translation()):norm()
  worst_roundtrip = math.max(worst_roundtrip, dR, dt)
  bar:step()
end
bar:done()

-- 3. A random SPD system A x = b with a known solution.
local n = opts.n
local B = lucid.zeros(n, n)
local x_true = lucid.zeros(n)
for i = 1, n do
  x_true[i] = rng:normal()
  for j = 1, n do B:set(i, j, rng:normal()) end
end
local A = B:T() * B + lucid.eye(n) * n
local b = A * x_true
local start = lucid.clock()
local x_chol = A:cholsolve(b)
local chol_seconds = lucid.clock() - start
start = lucid.clock()
local x_lu = A:solve(b)
local lu_seconds = lucid.clock() - start
local err_chol = (x_chol - x_true):norm() / x_true:norm()
local err_lu = (x_lu - x_true):norm() / x_true:norm()
local eigenvalues = A:eigh()
local condition = eigenvalues[n] / eigenvalues[1]

local figures = {
  seed = t.seed,
  point = p:totable(),
  poses = opts.poses,
  worst_exp_log_roundtrip = worst_roundtrip,
  n = n,
  condition_number = condition,
  cholesky = {relative_error = err_chol, seconds = chol_seconds},
  lu = {relative_error = err_lu, seconds = lu_seconds},
}

t:report(figures, function()
  print(string.format("lucid %s quickstart (seed %d)", lucid.version, t.seed))
  print(string.format("  T = (half turn about y, t = (0, 0, 2)) maps (0.1, 0.2, 0.3) to (%.3f, %.3f, %.3f)",
    p[1], p[2], p[3]))
  print(string.format("  exp(log(T)) = T on %d random poses: worst error %.2e", opts.poses,
    worst_roundtrip))
  print(string.format("  SPD system, n = %d, condition number %.3g:", n, condition))
  print(task.format_table({"method", "relative error", "time (ms)"}, {
    {"Cholesky (dpotrf/dpotrs)", err_chol, chol_seconds * 1e3},
    {"LU (dgetrf/dgetrs)", err_lu, lu_seconds * 1e3},
  }))
end)
