-- The ill-conditioned stack of Le Lidec et al. (Fig. 13): a heavy cube on a light one (1e3 kg on
-- 1e-3 kg by default, and a sweep of mass ratios). The stack's contact problem (8 contacts, taken
-- from the world after a few steps with w:contact_problem()) is solved cold by every model:solver
-- with at most --max-iter iterations at eps_abs = 1e-6; the residual reached is reported.
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"

local t = task.new{
  name = "ill_conditioned_stack",
  summary = "Heavy cube on a light one: residual each contact solver reaches (Fig. 13).",
  options = {
    {name = "max-iter", kind = "integer", default = 10000, min = 1, max = 1000000000, help = "iteration cap of a solve"},
    {name = "out", kind = "string", default = "out/ill_conditioned_stack", help = "directory of the SVG plots"},
    task.replay_option("the five steps that build the stack of mass ratio 1e6"),
  },
}
local opts = t:parse(arg)
local MU, REST = 0.4, 0.1 - 0.5e-4
local PAIRS = {"ncp:admm", "ncp:staggered", "ccp:admm", "ccp:newton", "ncp:pgs", "ccp:pgs",
               "lcp:pgs", "raisim:bisection"}
local RATIOS = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6}

-- The contact problem of a stack: a light cube of 1 / sqrt(ratio) kg under one of sqrt(ratio) kg
-- (ratio 1e6: the paper's 1e3 kg on 1e-3 kg).
local function stack_problem(ratio)
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = MU}
  local cube = lucid.box(0.1, 0.1, 0.1)
  w:add_body{shape = cube, mass = 1 / math.sqrt(ratio), friction = MU, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, REST})}
  w:add_body{shape = cube, mass = math.sqrt(ratio), friction = MU, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 3 * REST})}
  local rec = ratio == RATIOS[#RATIOS] and t:record(w, opts.replay, 1e-3) or nil
  w:step(5)
  t:write_replay(rec, opts.replay, string.format("stack of mass ratio %g", ratio))
  local p = w:contact_problem()
  local e = p.G:eigh()
  return p, e[#e] / math.max(e[1], e[#e] * 1e-16)
end

local function solve(p, pair)
  local model, solver = pair:match("(%w+):(%w+)")
  local start = lucid.clock()
  local s = lucid.contact.solve{G = p.G, g = p.g, mu = p.mu, model = model, solver = solver,
                                tol = 1e-6, max_iter = opts["max-iter"]}
  return {residual = s.model_residual.abs, ncp_residual = s.residual.abs, round_off = s.round_off,
          iterations = s.iterations,
          converged = s.converged, stalled = s.stalled, seconds = lucid.clock() - start}
end

local bar = t:progress(#RATIOS * #PAIRS, "stack problems")
local sweep = {}
for i, ratio in ipairs(RATIOS) do
  local p, condition = stack_problem(ratio)
  sweep[i] = {ratio = ratio, condition = condition, solvers = {}}
  for _, pair in ipairs(PAIRS) do
    sweep[i].solvers[pair] = solve(p, pair)
    bar:step()
  end
end
bar:done()

os.execute("mkdir -p '" .. opts.out .. "'")
local series = {}
for _, pair in ipairs(PAIRS) do
  local x, y = {}, {}
  for i, s in ipairs(sweep) do x[i], y[i] = s.ratio, s.solvers[pair].residual end
  series[#series + 1] = {name = pair, x = x, y = y}
end
local floor_x, floor_y = {}, {}
for i, s in ipairs(sweep) do floor_x[i], floor_y[i] = s.ratio, s.solvers["ncp:admm"].round_off end
series[#series + 1] = {name = "round-off at ncp:admm's answer", x = floor_x, y = floor_y}
local files = {plot.lines{file = opts.out .. "/residual_vs_ratio.svg", logx = true, logy = true,
                          title = "Stack: residual reached in " .. opts["max-iter"] .. " iterations (Fig. 13 right)",
                          xlabel = "mass ratio", ylabel = "eps_abs (model criterion)", series = series}}

local figures = {seed = t.seed, max_iter = opts["max-iter"], tol = 1e-6, sweep = sweep, plots = files}
t:report(figures, function()
  local heavy = sweep[#sweep] -- ratio 1e6: 1e3 kg on 1e-3 kg, the paper's case
  print(string.format("Stack 1e3 kg on 1e-3 kg (ratio 1e6): 8 contacts, G of rank 12 (24 rows), "
    .. "eig_max / eig_min ~ %.3g", heavy.condition))
  local rows = {}
  for _, pair in ipairs(PAIRS) do
    local s = heavy.solvers[pair]
    rows[#rows + 1] = {pair, s.residual, s.ncp_residual, s.round_off, s.residual / s.round_off,
                       s.iterations, tostring(s.converged), tostring(s.stalled), s.seconds * 1e3}
  end
  print(task.format_table({"model:solver", "eps_abs (model)", "eps_abs (NCP)", "round-off", "eps / round-off",
                           "iterations", "converged", "stalled", "time (ms)"}, rows))
  print("round-off: how much of eps_abs rounding the answer's forces to doubles and summing its velocity can cause "
    .. "(lucid.contact.residual's round_off); no answer in double precision is reliably below a fraction of it.")
  print("residual reached against the mass ratio:")
  local header, rows2 = {"model:solver"}, {}
  for _, s in ipairs(sweep) do header[#header + 1] = string.format("1e%d", math.floor(math.log(s.ratio, 10) + 0.5)) end
  for _, pair in ipairs(PAIRS) do
    local row = {pair}
    for _, s in ipairs(sweep) do row[#row + 1] = s.solvers[pair].residual end
    rows2[#rows2 + 1] = row
  end
  print(task.format_table(header, rows2))
  print("plots: " .. table.concat(files, ", "))
end)
