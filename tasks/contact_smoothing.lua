-- Smooth gradients across contact-mode switches (docs/contact_ip.md). One contact (G =
-- diag(a, a, b), mu) sweeps through separation -> sticking -> sliding along
--   g(s) = (c (s - 1)^2, 0, 1 - s),  s in [0, 4]:
-- separated for s < 1 (g_N > 0), sticking from s = 1 (g_T = 0 there) until
-- |g_T| / a = mu lambda_N, i.e. s = 1 + mu a / (b c), sliding beyond. Along the sweep: lambda
-- and d lambda / ds = (d lambda / d g) g'(s) for the exact solution (its closed form,
-- differentiated by lucid.contact.derivatives, active set) and for ncp:ip stopped on the central path at each
-- kappa (sol:derivatives()). Figures per kappa: the bias max |lambda_kappa - lambda| and the
-- smoothness max |d2 lambda / ds2| (differences of the derivative curve), and how far from
-- each switch the relaxed derivative is within 10 % of the exact one.
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"

local t = task.new{
  name = "contact_smoothing",
  summary = "Relaxed (interior-point) contact derivatives across separation, sticking and sliding.",
  options = {
    {name = "samples", kind = "integer", default = 801, min = 11, max = 100001, help = "points along the sweep"},
    {name = "out", kind = "string", default = "out/contact_smoothing", help = "directory of the SVG plots"},
  },
}
local opts = t:parse(arg)
local A, B, MU, C = 2.0, 0.5, 0.4, 1.0
local S0, S1 = 0.0, 4.0
local SWITCHES = {1.0, 1.0 + MU * A / (B * C)} -- separation -> sticking, sticking -> sliding
local KAPPAS = {1e-2, 1e-3, 1e-4, 1e-6}
local G = lucid.mat{{A, 0, 0}, {0, A, 0}, {0, 0, B}}

local function g_of(s) return {C * (s - 1) ^ 2, 0, 1 - s} end
local function dg_ds(s) return {2 * C * (s - 1), 0, -1} end

-- lambda and d lambda / ds at s: exact (kappa = nil) or relaxed at kappa.
local function sample(s, kappa)
  local g, dg = g_of(s), dg_ds(s)
  local problem = {G = G, g = g, mu = {MU}, model = "ncp"}
  local sol, D
  if kappa then
    problem.solver, problem.kappa, problem.tol, problem.max_iter = "ip", kappa, 1e-3 * kappa, 200
    sol = lucid.contact.solve(problem)
    D = sol:derivatives{dense = false}
  else -- the closed form (G diagonal), differentiated by lucid.contact.derivatives (active set)
    local lN, vt = math.max(-g[3] / B, 0), math.abs(g[1])
    local lT = vt / A <= MU * lN and -g[1] / A or -MU * lN * g[1] / vt
    sol = {lambda = {lT, 0, lN}, converged = true, model = "ncp"}
    D = lucid.contact.derivatives(problem, sol, {dense = false})
  end
  assert(sol.converged, string.format("solve at s = %g (kappa %s) did not converge", s, tostring(kappa)))
  local d = D.jvp{g = dg}
  return {sol.lambda[1], sol.lambda[3]}, {d[1], d[3]}
end

local n = opts.samples
local grid = {}
for k = 1, n do grid[k] = S0 + (S1 - S0) * (k - 1) / (n - 1) end
local curves = {} -- curves[label] = {lt = {}, ln = {}, dt = {}, dn = {}}
local labels = {"exact"}
for _, kappa in ipairs(KAPPAS) do labels[#labels + 1] = string.format("kappa %g", kappa) end
local bar = t:progress(#labels, "sweeps")
for i, label in ipairs(labels) do
  local kappa = i > 1 and KAPPAS[i - 1] or nil
  local c = {lt = {}, ln = {}, dt = {}, dn = {}}
  for k, s in ipairs(grid) do
    local l, d = sample(s, kappa)
    c.lt[k], c.ln[k], c.dt[k], c.dn[k] = l[1], l[2], d[1], d[2]
  end
  curves[label] = c
  bar:step()
end
bar:done()

-- Figures. Away from a switch: farther than `margin` (in s) from both switches.
local h = (S1 - S0) / (n - 1)
local exact = curves.exact
local figures = {seed = t.seed, samples = n, switches = SWITCHES, kappas = {}}
for i, kappa in ipairs(KAPPAS) do
  local c = curves[labels[i + 1]]
  local bias, curvature, slope = 0, 0, 0
  for k = 1, n do
    bias = math.max(bias, math.abs(c.lt[k] - exact.lt[k]), math.abs(c.ln[k] - exact.ln[k]))
    slope = math.max(slope, math.abs(c.dt[k]), math.abs(c.dn[k]))
    if k > 1 then
      curvature = math.max(curvature, math.abs(c.dt[k] - c.dt[k - 1]) / h,
                           math.abs(c.dn[k] - c.dn[k - 1]) / h)
    end
  end
  -- the smallest distance to a switch beyond which the relaxed derivative is within 10 % of
  -- the exact one (relative to the exact derivative's scale, max |d lambda / ds| = 1 / b)
  local scale, reach = 1 / B, 0
  for k = 1, n do
    local err = math.max(math.abs(c.dt[k] - exact.dt[k]), math.abs(c.dn[k] - exact.dn[k]))
    if err > 0.1 * scale then
      local dist = math.huge
      for _, sw in ipairs(SWITCHES) do dist = math.min(dist, math.abs(grid[k] - sw)) end
      reach = math.max(reach, dist)
    end
  end
  figures.kappas[i] = {kappa = kappa, max_bias = bias, max_second_derivative = curvature,
                       max_derivative = slope, width_10pct = reach}
end
-- the exact curve's own jumps (its second derivative is unbounded: report the largest jump of
-- its derivative between neighbouring samples)
local jump = 0
for k = 2, n do
  jump = math.max(jump, math.abs(exact.dt[k] - exact.dt[k - 1]), math.abs(exact.dn[k] - exact.dn[k - 1]))
end
figures.exact_max_derivative_jump = jump

os.execute("mkdir -p '" .. opts.out .. "'")
local function series(key)
  local list = {}
  for _, label in ipairs(labels) do list[#list + 1] = {name = label, x = grid, y = curves[label][key]} end
  return list
end
local title = string.format("one contact: separated | sticking (s = %g) | sliding (s = %.2g)",
                            SWITCHES[1], SWITCHES[2])
local files = {
  plot.lines{file = opts.out .. "/lambda_n.svg", title = "normal impulse, " .. title,
             xlabel = "s", ylabel = "lambda_N", series = series("ln")},
  plot.lines{file = opts.out .. "/lambda_t.svg", title = "tangential impulse, " .. title,
             xlabel = "s", ylabel = "lambda_T1", series = series("lt")},
  plot.lines{file = opts.out .. "/dlambda_n.svg", title = "d lambda_N / ds = (d lambda_N / d g) g'(s)",
             xlabel = "s", ylabel = "d lambda_N / ds", series = series("dn")},
  plot.lines{file = opts.out .. "/dlambda_t.svg", title = "d lambda_T1 / ds = (d lambda_T1 / d g) g'(s)",
             xlabel = "s", ylabel = "d lambda_T1 / ds", series = series("dt")},
}
figures.plots = files
t:report(figures, function()
  print(string.format("One contact (a = %g, b = %g, mu = %g), g(s) = (%g (s - 1)^2, 0, 1 - s), s in [%g, %g], %d samples",
    A, B, MU, C, S0, S1, n))
  print(string.format("switches at s = %g (separation -> sticking) and %g (sticking -> sliding)", SWITCHES[1], SWITCHES[2]))
  local rows = {}
  for _, f in ipairs(figures.kappas) do
    rows[#rows + 1] = {f.kappa, f.max_bias, f.max_second_derivative, f.max_derivative, f.width_10pct}
  end
  print(task.format_table({"kappa", "max |lambda - exact|", "max |d2 lambda/ds2|", "max |d lambda/ds|",
                           "derivative off by >10% within (s)"}, rows))
  print(string.format("exact: largest jump of d lambda/ds between samples %.3g (ds = %.3g)", jump, h))
  print("plots: " .. table.concat(files, ", "))
end)
