-- tasks/contact_pose.lua end to end: the JSON report's structure, and that Gauss-Newton with
-- the first-order estimators solves easy problems (starts near the target pose).
local t = require "testing"
local json = require "lucid.json"

local interpreter = arg[-1]
local plot_file = os.tmpname() .. ".svg"
t.teardown(function() os.remove(plot_file) end)

local function run(args)
  local cmd = string.format("'%s' tasks/contact_pose.lua %s --plot '%s' 2>/dev/null", interpreter,
                            args, plot_file)
  local pipe = assert(io.popen(cmd))
  local out = pipe:read("a")
  local _, _, code = pipe:close()
  return out, code
end

local METHODS = {"finite_differences_1e-6", "finite_differences_1e-3", "zeroth_order_gaussian",
                 "first_order_gaussian", "first_order_gumbel"}

t.case("--json reports the quantiles of every method on near starts; 1st order solves them",
       function()
  local out, code = run("--problems 24 --start near --seed 3 --json")
  t.eq(code, 0, "exit code")
  local r = json.decode(out)
  t.eq(r.problems, 24)
  t.eq(r.start, "near")
  t.eq(r.targets, "reachable")
  t.eq(r.pairs * r.targets_per_pair >= 24, true, "pairs x targets covers the problems")
  for _, key in ipairs(METHODS) do
    local m = r.methods[key]
    t.truthy(m, "method " .. key)
    local q = {m.min, m.D1, m.Q1, m.median, m.Q3, m.D9, m.max}
    for i = 1, #q do t.truthy(type(q[i]) == "number" and q[i] >= 0, key .. " quantile") end
    for i = 2, #q do t.truthy(q[i - 1] <= q[i], key .. ": quantiles are ordered") end
    t.eq(m.count, 24)
    t.truthy(m.seconds > 0 and m.ms_per_problem > 0, key .. " timings")
    t.truthy(m.mean_iterations >= 1 and m.mean_iterations <= 50, key .. " iterations")
  end
  -- the targets are witness points of a touching pose, so the minimum is 0; from a nearby
  -- start the first-order estimators drive the cost to rounding level on at least a quarter
  -- of the problems and lower the median by four orders of magnitude
  for _, key in ipairs({"first_order_gaussian", "first_order_gumbel"}) do
    local m = r.methods[key]
    t.truthy(m.Q1 < 1e-20, string.format("%s Q1 %.3g", key, m.Q1))
    t.truthy(m.median < 1e-4 * r.initial_cost.median,
             string.format("%s median %.3g vs start %.3g", key, m.median, r.initial_cost.median))
  end
  -- the plot of problem 1 was written
  local f = io.open(plot_file)
  t.truthy(f, "plot file")
  local svg = f:read("a")
  f:close()
  t.truthy(svg:find("<svg", 1, true) and svg:find("1st-order Gumbel", 1, true), "SVG content")
end)

t.case("the table names every estimator; bad options exit 2", function()
  local out, code = run("--problems 2")
  t.eq(code, 0)
  for _, label in ipairs({"finite differences", "0th-order Gaussian", "1st-order Gaussian",
                          "1st-order Gumbel", "median", "D9"}) do
    t.truthy(out:find(label, 1, true), "table shows " .. label)
  end
  local _, bad = run("--problems 2 --start far")
  t.eq(bad, 2, "--start far")
end)

t.case("lucid.stats quantiles (the report's D1 ... D9) follow the type-7 definition", function()
  local stats = require "lucid.stats"
  -- sorted 1, 2, 3, 4, 10: h = 4 p + 1, linear between order statistics
  local xs = {10, 3, 1, 4, 2}
  t.near(stats.quantile(xs, 0.5), 3, 0)
  t.near(stats.quantile(xs, 0.1), 1.4, 1e-15)   -- h = 1.4
  t.near(stats.quantile(xs, 0.9), 7.6, 1e-15)   -- h = 4.6: 4 + 0.6 * 6
  t.near(stats.quantile(xs, 0), 1, 0)
  t.near(stats.quantile(xs, 1), 10, 0)
  t.eq(xs[1], 10, "input left unsorted")
  local s = stats.summary(xs)
  t.near(s.Q1, 2, 0)
  t.near(s.Q3, 4, 0)
  t.eq(s.count, 5)
  t.raises("lucid.stats.quantile: p must be in", stats.quantile, xs, 1.5)
  t.raises("lucid.stats.summary: entry 2 is not a number", stats.summary, {1, 0 / 0})
  t.raises("lucid.stats.summary: expected a non-empty list", stats.summary, {})
end)

return t
