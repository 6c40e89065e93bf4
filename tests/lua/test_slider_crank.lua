-- MJCF slider-crank actuators (cranksite/slidersite, docs/model_files.md) from Lua: MuJoCo's
-- sample slider_crank.xml loads, m:actuators() names each one's sites and rod, a world steps it
-- with its servos driving the cranks, and w:step_derivatives refuses it by name (the moment's
-- change with q is not in its actuation stiffness). The comparisons with MuJoCo 2.2.2 are
-- tests/c/test_mjcf_slider_crank.c.
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

t.case("the servos turn the cranks; step derivatives are refused by name", function()
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
  t.raises("slider-crank actuators (MJCF cranksite) have no step derivatives",
           w.step_derivatives, w)
end)
