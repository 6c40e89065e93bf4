-- Equality rows, joint and tendon dry friction and tendon limits on the body-space path
-- (runtime/world/world_sparse.c, docs/world_step.md "Dense or body space"): a tree with
-- equality rows of rank r is one slot of its width - r reduced coordinates (a basis Z of the
-- rows' null space, M' = Z^T M~ Z), so its Delassus matrix is the dense island's J P J^T; a
-- dry-friction row's virtual normal row has a column of its own. From the same states one step
-- in body space (sparse_threshold 0, every island checked to be body space, so a silent
-- fall-back to the dense path fails; the constrained tree's slot checked to have its reduced
-- width) and one dense step (sparse_threshold huge) agree, for each pair with a body-space
-- form, on scenes with contacts and:
-- - a four-bar's loop (MJCF <connect>) whose crank lies on a block;
-- - a gripper whose fingers are coupled by a joint equality (a mimic) squeezing a free box on a
--   floor, a weld holding a second box to the palm;
-- - a pendulum with frictionloss whose bob lands on a box on a floor, tips it and sticks;
-- - a double pendulum whose fixed tendon holds at its limit, a second tendon with frictionloss
--   joining it to a pendulum lying on a floor.
-- Each answer meets tol 1e-10 in its island's units; the states must agree to 10 tol (the
-- bound test_world_torsion_sparse.c holds dim 4 to) on the steps both paths converge, which
-- must be most of them.
local t = require "testing"
local lucid = require "lucid"

local DENSE = 2147483647 -- sparse_threshold: every island dense
local TOL = 1e-10

local GRIPPER = [[
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="palm" pos="0 0 0.09">
      <joint name="lift" type="slide" axis="0 0 1" damping="5"/>
      <geom type="box" size="0.06 0.02 0.01" mass="0.5"/>
      <body name="left" pos="-0.05 0 -0.04">
        <joint name="f1" type="slide" axis="1 0 0" range="-0.02 0.04" limited="true"/>
        <geom type="box" size="0.005 0.015 0.03" mass="0.05"/>
      </body>
      <body name="right" pos="0.05 0 -0.04">
        <joint name="f2" type="slide" axis="1 0 0" range="-0.04 0.02" limited="true"/>
        <geom type="box" size="0.005 0.015 0.03" mass="0.05"/>
      </body>
      <body name="held" pos="0 0.05 0">
        <freejoint/>
        <geom type="box" size="0.01 0.01 0.01" mass="0.02" contype="0" conaffinity="0"/>
      </body>
    </body>
    <body name="box" pos="0 0 0.03">
      <freejoint/>
      <geom type="box" size="0.03 0.01 0.03" mass="0.1"/>
    </body>
  </worldbody>
  <equality>
    <joint joint1="f2" joint2="f1" polycoef="0 -1 0 0 0"/>
    <weld body1="held" body2="palm"/>
  </equality>
  <actuator><motor joint="f1" gear="1"/></actuator>
</mujoco>]]

local PENDULUM = [[
<mujoco>
  <option timestep="0.001"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" pos="0 0 0.46"/>
    <body pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" frictionloss="0.3"/>
      <geom type="sphere" size="0.05" pos="0 0 -0.5" mass="1"/>
    </body>
    <body name="box" pos="-0.25 0 0.5">
      <freejoint/>
      <geom type="box" size="0.04 0.04 0.04" mass="0.2"/>
    </body>
  </worldbody>
</mujoco>]]

local TENDONS = [[
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" pos="0 0 0.6"/>
    <body pos="0 0 1">
      <joint name="j1" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body pos="0.3 0 0">
        <joint name="j2" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      </body>
    </body>
    <body pos="0 0.5 1">
      <joint name="j3" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.45 0 0" size="0.03"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="bend" limited="true" range="-0.4 0.4">
      <joint joint="j1" coef="1"/>
      <joint joint="j2" coef="0.5"/>
    </fixed>
    <fixed name="drag" frictionloss="0.2">
      <joint joint="j1" coef="1"/>
      <joint joint="j3" coef="-1"/>
    </fixed>
  </tendon>
</mujoco>]]

-- The world of a scene: its model (from xml text or a file), the contact pair.
local function world_of(sc, threshold, model, solver)
  local w = lucid.world{dt = sc.dt, gravity = {0, 0, -9.81}, sparse_threshold = threshold,
                        contact = {model = model, solver = solver, tol = sc.tol or TOL, max_iter = 5000}}
  local m = sc.file and lucid.model.load(sc.file) or lucid.model.load_string(sc.xml)
  local id = w:add_model(m, sc.desc)
  if sc.ctrl then w:set_control(id, sc.ctrl) end
  return w
end

local function max_diff(a, b)
  local d = 0
  for i = 1, #a do d = math.max(d, math.abs(a[i] - b[i])) end
  return d
end

-- From `steps` states of a dense trajectory (after `settle` steps), one dense and one
-- body-space step each, both cold: returns the largest state difference over the steps both
-- converged, and their count.
local function same_steps(sc, model, solver)
  local wd, ws = world_of(sc, DENSE, model, solver), world_of(sc, 0, model, solver)
  wd:step(sc.settle)
  local worst, both, rows, dense_ok, body_ok = 0, 0, 0, 0, 0
  for _ = 1, sc.steps do
    local x = wd:state()
    wd:set_state(x)
    ws:set_state(x)
    wd:step()
    ws:step()
    local sd, ss = wd:stats(), ws:stats()
    t.eq(sd.contacts, ss.contacts, "the same rows")
    t.truthy(ss.contacts > 0, sc.name .. ": rows to solve")
    rows = math.max(rows, ss.contacts)
    for _, is in ipairs(ws:islands()) do
      t.eq(is.backend, "body", sc.name .. ": every island in body space")
    end
    for _, is in ipairs(wd:islands()) do t.eq(is.backend, "dense") end
    if sc.reduced then -- the last island's slot of the constrained tree: its reduced width
      local found = false
      for _, width in ipairs(ws:contact_problem{G = false}.sparse.width) do
        found = found or width == sc.reduced
      end
      t.truthy(found, "a slot of " .. sc.reduced .. " reduced coordinates")
    end
    dense_ok = dense_ok + (sd.converged and 1 or 0)
    body_ok = body_ok + (ss.converged and 1 or 0)
    if (sd.converged and ss.converged) or solver == "pgs" then
      worst = math.max(worst, max_diff(wd:state(), ws:state()))
      both = both + 1
    end
  end
  return worst, both, rows, dense_ok, body_ok
end

local SCENES = {
  {name = "four-bar on a block", file = "tests/data/model/mjcf_fourbar_floor.xml", dt = 0.002,
   settle = 150, steps = 30, reduced = 1}, -- 3 hinges, the planar loop's connect of rank 2
  {name = "mimic gripper", xml = GRIPPER, dt = 0.002, settle = 100, steps = 30,
   ctrl = {2}, reduced = 2}, -- lift, 2 fingers, the welded body's 6: 9 dofs, rows of rank 7
  {name = "pendulum with frictionloss on a box", xml = PENDULUM, dt = 0.001, settle = 2,
   steps = 40, desc = {q = {0.6, 0, 0, 0, 1, 0, 0, 0}}, friction_rows = true},
  {name = "tendon limit and tendon frictionloss", xml = TENDONS, dt = 0.002, settle = 150,
   steps = 30, friction_rows = true, tol = 1e-8},
}

local PAIRS = {{"ncp", "admm"}, {"ncp", "pgs"}, {"ncp", "ip"}, {"lcp", "pgs"},
               {"ccp", "admm"}, {"ccp", "pgs"}, {"ccp", "ip"}, {"ccp", "newton"}}

for _, sc in ipairs(SCENES) do
  t.case(sc.name .. ": body space steps as the dense island", function()
    for _, pair in ipairs(PAIRS) do
      if not (sc.friction_rows and pair[1] == "ccp") then -- ccp refuses dry friction by name
        local worst, both, rows, dense_ok, body_ok = same_steps(sc, pair[1], pair[2])
        io.stderr:write(string.format("  %s, %s:%s: %d of %d steps compared (converged: dense %d, "
          .. "body space %d), up to %d rows; largest state difference %.2e\n", sc.name, pair[1],
          pair[2], both, sc.steps, dense_ok, body_ok, rows, worst))
        t.truthy(pair[2] == "pgs" or both >= sc.steps // 2, "most steps converge on both paths")
        t.truthy(worst <= 10 * TOL, string.format("%s:%s agrees (%.2e)", pair[1], pair[2], worst))
      end
    end
  end)
end
