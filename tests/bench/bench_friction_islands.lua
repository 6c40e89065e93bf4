-- humanoid100.xml (MuJoCo's humanoid among 100 falling objects) with dry friction
-- (frictionloss F) on every hinge of the humanoid: its islands hold friction rows. From the
-- same state after SETTLE dense steps, N steps with the automatic choice (sparse_threshold -1: large
-- islands in body space) and N with every island dense (what an island with friction rows
-- always was before body space took them), alternated REPS times; CPU ms/step of each, the
-- steps with an unconverged island, the largest island (contacts, friction rows included) and
-- its backend, the friction rows at the end, the body-space islands over the N steps (those
-- of the automatic run: the humanoid's alone, N of them, make "dense" what that run was before
-- body space took friction rows). Recorded in docs/benchmarks/robot_step.md.
--   ./lucid tests/bench/bench_friction_islands.lua [N] [SETTLE] [F] [REPS]
local lucid = require "lucid"
local N = math.tointeger(tonumber(arg[1] or "20"))
local settle = math.tointeger(tonumber(arg[2] or "400"))
local F = tonumber(arg[3] or "0.05")
local reps = math.tointeger(tonumber(arg[4] or "3"))
local DIR = "/usr/share/mujoco/model/humanoid100/"

local function read(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end

-- the humanoid's hinge default with frictionloss F: the edited humanoid_body.xml's elements
-- in place of its <include> (what an include does), its other paths relative to DIR
local body, hits = read(DIR .. "humanoid_body.xml"):gsub('<joint type="hinge" damping',
  string.format('<joint type="hinge" frictionloss="%.17g" damping', F))
assert(hits == 1, "humanoid_body.xml's hinge default not found")
local main, included = read(DIR .. "humanoid100.xml"):gsub('<include file="humanoid_body.xml"/>',
  function() return assert(body:match("<mujoco[^>]*>(.*)</mujoco>")) end)
assert(included == 1, "humanoid100.xml's include not found")
local m = lucid.model.load_string(main, {base_dir = DIR})

local function world(threshold)
  local w = lucid.world{dt = m.timestep, sparse_threshold = threshold}
  w:add_model(m)
  return w
end

local auto, dense = world(-1), world(2147483647)
dense:step(settle) -- the dense path: the same state from builds whose body space differs
local x = dense:state()

-- N steps of w from x: CPU seconds, unconverged steps, the largest island and its backend
local function run(w)
  w:set_state(x)
  local unconverged, largest, backend, rows, body = 0, 0, "", 0, 0
  local t0 = os.clock()
  for _ = 1, N do
    w:step()
    if not w:stats().converged then unconverged = unconverged + 1 end
    for _, is in ipairs(w:islands()) do
      if is.contacts > largest then largest, backend = is.contacts, is.backend end
      if is.backend == "body" then body = body + 1 end
    end
  end
  local seconds = os.clock() - t0
  for _, c in ipairs(w:contacts()) do
    if c.frictionloss then rows = rows + 1 end
  end
  return seconds, unconverged, largest, backend, rows, body
end

local total = {0, 0}
for r = 1, reps do
  for k, w in ipairs{auto, dense} do
    local s, u, largest, backend, rows, body = run(w)
    total[k] = total[k] + s
    print(string.format("rep %d %-9s %7.2f ms/step, unconverged %d of %d, largest island %d contacts "
      .. "(%s), %d friction rows, %d body-space islands", r, k == 1 and "automatic" or "dense",
      s / N * 1e3, u, N, largest, backend, rows, body))
  end
end
print(string.format("frictionloss %g, settle %d, %d x %d steps: automatic %.2f ms/step, dense %.2f "
  .. "ms/step (%.1fx)", F, settle, reps, N, total[1] / (reps * N) * 1e3, total[2] / (reps * N) * 1e3,
  total[2] / total[1]))
