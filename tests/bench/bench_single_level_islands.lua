-- The single-level step's cost against the number of separate boxes at rest in a bin
-- (docs/single_level.md, "Islands"), beside the default two-stage pipeline on the same scene.
-- Scene (dt = 0.01, friction 0.5): a ground plane and four static walls around a k x k grid
-- (k = ceil(sqrt(N))) of 0.2 x 0.15 x 0.1 m boxes of 1 kg, 0.4 m apart, placed on the ground;
-- each world steps `settle` times untimed, then `steps` steps are timed one by one (CPU time of
-- the process, os.clock: the machine is shared, and wall time moves with its load). Per N and
-- pipeline: the median and the largest time of a step (the largest is the first, cold, step
-- when settle = 0), the pairs (contacts) and islands of the last step, whether every step
-- converged; then the ratio single-level / two-stage of the medians at each N and the
-- least-squares slope of log(median single-level ms) against log(N). The two pipelines step in
-- turn, one step each. Single-level is not run at larger N once a run took more than `budget`
-- CPU seconds (both pipelines' steps counted; the timed steps end there too).
-- --scene=row instead: the N boxes side by side in a row along x, each face touching the next
-- (no walls): one island of N bodies, the case per-island solves do not help.
--   build/lucid tests/bench/bench_single_level_islands.lua [--n=1,2,4,...] [--steps=S]
--       [--settle=S] [--budget=S] [--scene=bin|row] [--check]
-- Exits 1 when a single-level step did not converge; with --check also unless the issue's
-- targets hold: single-level within 5x of two-stage at the largest N, slope <= 1.2.
local lucid = require "lucid"

local ns = {1, 2, 4, 8, 16, 32, 64}
local steps, settle, budget, check, layout = 20, 0, 10.0, false, "bin"
for _, a in ipairs(arg) do
  local k, v = a:match("^%-%-(%w+)=?(.*)$")
  if k == "n" then
    ns = {}
    for x in v:gmatch("%d+") do ns[#ns + 1] = tonumber(x) end
  elseif k == "steps" then
    steps = tonumber(v)
  elseif k == "settle" then
    settle = tonumber(v)
  elseif k == "budget" then
    budget = tonumber(v)
  elseif k == "check" then
    check = true
  elseif k == "scene" and (v == "bin" or v == "row") then
    layout = v
  else
    error("bench_single_level_islands: unknown argument " .. a)
  end
end

local HX, HY, HZ, PITCH = 0.1, 0.075, 0.05, 0.4

local function scene(n, collision)
  local w = lucid.world{dt = 0.01, collision = collision}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  if layout == "row" then
    for i = 0, n - 1 do
      w:add_body{shape = lucid.box(HX, HY, HZ), mass = 1, friction = 0.5,
                 pose = lucid.se3.new({1, 0, 0, 0}, {2 * HX * i, 0, HZ})}
    end
    return w
  end
  local k = math.ceil(math.sqrt(n))
  local half = k * PITCH / 2 -- the walls' inner faces, PITCH / 2 beyond the outer boxes' centres
  local wall = 0.05
  for _, s in ipairs({-1, 1}) do
    w:add_static{shape = lucid.box(wall, half + 2 * wall, 0.2), friction = 0.5,
                 pose = lucid.se3.new({1, 0, 0, 0}, {s * (half + wall), 0, 0.2})}
    w:add_static{shape = lucid.box(half, wall, 0.2), friction = 0.5,
                 pose = lucid.se3.new({1, 0, 0, 0}, {0, s * (half + wall), 0.2})}
  end
  for i = 0, n - 1 do
    local x, y = i % k, i // k
    w:add_body{shape = lucid.box(HX, HY, HZ), mass = 1, friction = 0.5,
               pose = lucid.se3.new({1, 0, 0, 0},
                                    {(x + 0.5) * PITCH - half, (y + 0.5) * PITCH - half, HZ})}
  end
  return w
end

-- Steps both pipelines' worlds in turn (one step each, so that both see the same load) and
-- returns per pipeline the median and largest ms per step, the last stats, all converged.
local function median(times)
  table.sort(times)
  local m = #times
  return m % 2 == 1 and times[(m + 1) // 2] or 0.5 * (times[m // 2] + times[m // 2 + 1])
end

local function run(n, pipelines)
  local worlds, times, converged = {}, {}, {}
  for _, c in ipairs(pipelines) do
    worlds[c], times[c], converged[c] = scene(n, c), {}, true
    if settle > 0 then worlds[c]:step(settle) end
  end
  local t0 = os.clock()
  for i = 1, steps do
    for _, c in ipairs(pipelines) do
      local t = os.clock()
      worlds[c]:step()
      times[c][i] = (os.clock() - t) * 1e3
      converged[c] = converged[c] and worlds[c]:stats().converged
    end
    if os.clock() - t0 > budget then break end
  end
  local out = {}
  for _, c in ipairs(pipelines) do
    local m = #times[c]
    out[c] = {median = median(times[c]), steps = m, stats = worlds[c]:stats(),
              converged = converged[c], seconds = os.clock() - t0}
    table.sort(times[c])
    out[c].max = times[c][m]
  end
  return out
end

print(string.format("%-13s %4s %10s %10s %6s %6s %7s %5s", "pipeline", "N", "median_ms",
                    "max_ms", "pairs", "isl", "steps", "conv"))
local results = {single_level = {}, two_stage = {}}
local stopped = false
for _, n in ipairs(ns) do
  local pipelines = stopped and {"two_stage"} or {"two_stage", "single_level"}
  local out = run(n, pipelines)
  for _, c in ipairs(pipelines) do
    local r = out[c]
    results[c][n] = r
    print(string.format("%-13s %4d %10.4f %10.4f %6d %6d %7d %5s", c, n, r.median, r.max,
                        r.stats.contacts, r.stats.islands, r.steps, tostring(r.converged)))
  end
  if not stopped and out.single_level.seconds > budget then
    stopped = true
    print(string.format("%.1f s at N = %d, beyond the budget: single-level not run at larger N",
                        out.single_level.seconds, n))
  end
end

-- slope of log(median) against log(N) over the single-level runs (least squares)
local sx, sy, sxx, sxy, m, last = 0, 0, 0, 0, 0, nil
for _, n in ipairs(ns) do
  local r = results.single_level[n]
  if r then
    local x, y = math.log(n), math.log(r.median)
    sx, sy, sxx, sxy, m = sx + x, sy + y, sxx + x * x, sxy + x * y, m + 1
    last = n
  end
end
local slope = m > 1 and (m * sxy - sx * sy) / (m * sxx - sx * sx) or 0 / 0
local ok = true
for _, n in ipairs(ns) do
  local a, b = results.single_level[n], results.two_stage[n]
  if a and b then
    print(string.format("N = %d: single-level / two-stage = %.2f", n, a.median / b.median))
  end
  if a and not a.converged then ok = false end
end
print(string.format("log-log slope of single-level ms against N (N = %d..%d): %.3f", ns[1],
                    last or 0, slope))
if not ok then print("FAIL: a single-level step did not converge") end
if check then
  local big = ns[#ns]
  local a, b = results.single_level[big], results.two_stage[big]
  local ratio = a and b and a.median / b.median or 1 / 0
  local met = ratio <= 5.0 and slope <= 1.2
  print(string.format("check: ratio %.2f at N = %d (<= 5), slope %.3f (<= 1.2): %s", ratio, big,
                      slope, met and "met" or "FAIL"))
  ok = ok and met
end
if not ok then os.exit(1) end
