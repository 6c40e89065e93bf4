-- MJCF slider-crank actuators (cranksite/slidersite, docs/model_files.md) from Lua: MuJoCo's
-- sample slider_crank.xml loads, m:actuators() names each one's sites and rod, a world steps it
-- with its servos driving the cranks, and w:step_derivatives equals central differences of whole
-- steps (the moment's change with q in the actuation stiffness: f dr/dq, and r dLd/dq for a
-- velocity-dependent force), on the sample and on mjcf_slider_crank_damped.xml (velocity and
-- affine actuators, tilted hinges, a rod reaching its axis and one that cannot) and
-- mjcf_slider_crank_floating.xml (free, ball and hinge dofs moving both sites). The comparisons
-- with MuJoCo 2.2.2 are tests/c/runtime/model/test_mjcf_slider_crank.c.
local t = require "testing"
local lucid = require "lucid"

local SAMPLE = "/usr/share/mujoco/model/slider_crank/slider_crank.xml"

local function sample()
  local h = io.open(SAMPLE)
  if not h then return nil end
  h:close()
  return lucid.model.load(SAMPLE)
end

t.case("slider_crank.xml loads with its three slider-cranks", function()
  local m = sample()
  if not m then return t.skip("libmujoco-samples' slider_crank.xml not installed") end
  local acts = m:actuators()
  t.eq(#acts, 3)
  local expect = {{"forward", "cranksite", "slidersite", 0.08},
                  {"backward", "cranksite2", "slidersite2", 0.06},
                  {"broken", "cranksite3", "slidersite3", 0.05}}
  for i, e in ipairs(expect) do
    t.eq(acts[i].name, e[1])
    t.eq(acts[i].kind, "position")
    t.eq(acts[i].cranksite, e[2])
    t.eq(acts[i].slidersite, e[3])
    t.eq(acts[i].cranklength, e[4])
    t.eq(acts[i].joint, nil)
  end
end)

local DAMPED = "tests/data/model/mjcf_slider_crank_damped.xml"
local FLOATING = "tests/data/model/mjcf_slider_crank_floating.xml"

local function maxabs(M)
  local m = 0
  for i = 1, M:rows() do for j = 1, M:cols() do m = math.max(m, math.abs(M:get(i, j))) end end
  return m
end

-- A and B of `method` against central differences of whole steps solved to 1e-13 (h = 1e-4,
-- 1e-5, 1e-6): the best relative error of each block (relative to its largest entry, or 1e-3
-- for B), as tests/lua/test_tendons.lua does.
local function check_against_fd(name, w, method)
  local x, u = w:state(), w:controls()
  local D = w:step_derivatives{method = method}
  local best = {}
  for _, h in ipairs{1e-4, 1e-5, 1e-6} do
    w:set_state(x)
    w:set_controls(u)
    local F = w:step_derivatives{method = "finite_differences", step = h, tol = 1e-13,
                                 max_iter = 100000}
    for _, b in ipairs{"A", "B"} do
      local e = maxabs(D[b] - F[b]) / math.max(maxabs(F[b]), b == "A" and 1 or 1e-3)
      print(string.format("%s (%s): h = %.0e: %s %.1e", name, method, h, b, e))
      best[b] = math.min(best[b] or math.huge, e)
    end
  end
  for b, e in pairs(best) do t.truthy(e <= 1e-6, name .. ": " .. b .. " relative error " .. e) end
end

-- A world of model m at q, v and controls u (every crank inside its control range).
local function world_at(m, q, v, u)
  local w = lucid.world{dt = m.timestep, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:set_q(id, q)
  w:set_v(id, v)
  w:set_control(id, u)
  return w
end

t.case("the servos turn the cranks", function()
  local m = sample()
  if not m then return t.skip("libmujoco-samples' slider_crank.xml not installed") end
  local w = lucid.world{dt = m.timestep}
  local id = w:add_model(m)
  w:set_control(id, {0.05, -0.08, 0.1})
  for _ = 1, 100 do w:step() end
  local q = w:q(id)
  local moved = 0
  for i = 1, 3 do moved = math.max(moved, math.abs(q[i])) end
  t.truthy(moved > 0.1, "the cranks moved " .. moved .. " rad")
end)

t.case("slider-crank step derivatives equal central differences", function()
  local m = sample()
  if not m then return t.skip("libmujoco-samples' slider_crank.xml not installed") end
  for _, method in ipairs{"implicit", "relaxed"} do
    check_against_fd("slider_crank.xml", world_at(m, {0.3, -0.4, 0.5}, {0.7, -1.1, 0.4},
                                                  {0.05, -0.08, 0.03}), method)
  end
end)

t.case("velocity-dependent slider-crank forces: step derivatives equal central differences",
       function()
  local m = lucid.model.load(DAMPED)
  local kinds = {}
  for i, a in ipairs(m:actuators()) do kinds[i] = a.kind end
  t.eq(table.concat(kinds, " "), "general velocity position")
  -- at q3 = 0.5 the third rod (0.05) cannot reach its slider's axis: the pin (0.1 cos q3,
  -- 0.2 + 0.1 sin q3, 0) from the slider site (0, 0.1, 0) along a = (1, 0.2, 0) / |.| gives
  -- det = (a.v)^2 + r^2 - v.v < 0, MuJoCo's L = a.v branch; the other two reach theirs
  local q3 = 0.5
  local vx, vy = 0.1 * math.cos(q3), 0.1 + 0.1 * math.sin(q3)
  local n = math.sqrt(1 + 0.04)
  local av = (vx + 0.2 * vy) / n
  t.truthy(av * av + 0.05 ^ 2 - (vx * vx + vy * vy) < 0, "the broken rod's det < 0")
  for _, method in ipairs{"implicit", "relaxed"} do
    check_against_fd("mjcf_slider_crank_damped.xml",
                     world_at(m, {0.3, -0.4, q3}, {0.7, -1.1, 0.4}, {0.05, -0.08, 0.03}), method)
  end
end)

t.case("slider-cranks on a floating base (free, ball, hinge dofs): step derivatives equal central differences",
       function()
  local m = lucid.model.load(FLOATING)
  t.eq(m.nv, 10)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  local v = {}
  for i = 1, m.nv do v[i] = 0.3 * math.sin(1.7 * i) end
  w:set_v(id, v)
  w:set_control(id, {0.05, -0.08})
  w:step(30) -- falling and turning
  check_against_fd("mjcf_slider_crank_floating.xml", w, "implicit")
end)
