-- Mocap bodies (MJCF mocap="true"; runtime/world/world_model.c, docs/world.md "Mocap bodies"):
-- the file loads with its keyframes' mocap poses, a mocap body is a static body posed by
-- w:set_mocap that contacts never move and see at rest (MuJoCo's semantics: a moving one
-- pushes only through the overlap it makes, resolved by the position correction), it steps
-- exactly like a static body at its pose (step derivatives included), it stays out of the
-- state, clones and batches carry it, and misuse gets named errors.
local t = require "testing"
local lucid = require "lucid"

local FILE = "tests/data/model/mjcf_mocap.xml"
local G_N = 9.80665 -- standard gravity: the default correction speed is sqrt(2 g_n slop)
local SLOP = 1e-4    -- the worlds' slop (the default), given so the bounds below can use it

local function translation(T)
  return T:translation():totable()
end

-- A pose as 12 numbers (rotation matrix, translation), for exact comparisons.
local function flat(T)
  local out = {}
  for _, row in ipairs(T:rotation():totable()) do
    for _, v in ipairs(row) do out[#out + 1] = v end
  end
  for _, v in ipairs(translation(T)) do out[#out + 1] = v end
  return out
end

local function maxabs(M)
  local worst = 0
  for _, row in ipairs(M:totable()) do
    for _, v in ipairs(type(row) == "table" and row or {row}) do
      worst = math.max(worst, math.abs(v))
    end
  end
  return worst
end

local function pose(x, y, z, q)
  return lucid.se3.new(q or {1, 0, 0, 0}, {x, y, z})
end

-- A 0.1 m box on a free joint above a tilted plate: the plate is a mocap body at `plate`
-- (mocap = true; the file's pose is the identity and set_mocap places it) or a body welded to
-- the world at that pose (mocap = false).
local function plate_scene(mocap, plate_pos, plate_quat)
  local pos = mocap and "0 0 0" or plate_pos
  local quat = mocap and "1 0 0 0" or plate_quat
  return string.format([[
<mujoco>
  <worldbody>
    <body name="plate" %s pos="%s" quat="%s">
      <geom type="box" size="0.5 0.5 0.05" friction="0.8"/>
    </body>
    <body name="box" pos="0.05 -0.02 0.3">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="1" friction="0.8"/>
    </body>
  </worldbody>
</mujoco>]], mocap and 'mocap="true"' or "", pos, quat)
end

t.case("a MuJoCo file with mocap bodies loads: names, frames, keyframe poses", function()
  local m = lucid.model.load(FILE)
  t.eq(m.nmocap, 2)
  t.eq(m.nq, 7) -- mocap bodies have no coordinates
  t.eq(m.nbodies, 1)
  local names = m:names("mocap")
  t.eq(names[1], "platform")
  t.eq(names[2], "target")
  -- the keyframe's mpos/mquat (quaternions normalised), and the initial poses when absent
  local _, _, _, mc = m:keyframe("raised")
  t.eq(#mc, 2)
  t.allnear(translation(mc[1]), {0, 0, 0.3}, 0)
  t.allnear(mc[2]:rotation():totable(), {{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}}, 1e-15)
  t.allnear(translation(mc[2]), {2, 0, 1}, 0)
  local _, _, _, initial = m:keyframe("box_only")
  t.allnear(translation(initial[1]), {0, 0, 0.1}, 0)
  t.allnear(translation(initial[2]), {1, 0, 0.5}, 0)
  -- frames on a mocap body (its site, a welded child's site) follow the pose the world holds
  local w = lucid.world{}
  local id = w:add_model(m)
  local links = w:links(id)
  t.truthy(links.platform and links.target and links.box, "w:links names the mocap bodies")
  local site0 = w:frame_pose(id, "marker_site")
  -- target at (1, 0, 0.5) turned 90 degrees about z; marker at (0, 0.2, 0), site 0.1 above it
  t.allnear(translation(site0), {0.8, 0, 0.6}, 1e-15)
  local target0 = w:mocap(id, "target")
  local P = pose(0.3, -0.4, 0.9, {0.9, 0.1, -0.3, 0.2})
  w:set_mocap(id, "target", P)
  local expect = P * (target0:inverse() * site0)
  t.allnear(translation(w:frame_pose(id, "marker_site")), translation(expect), 1e-15)
  t.allnear(translation(w:frame_pose(id, "target_site")),
            translation(P * (target0:inverse() * m:frame_pose(m:neutral(), "target_site"))), 1e-15)
  -- the world body is posed at it; a model placed off the identity takes poses in its frame
  t.allnear(translation(w:pose(links.target)), translation(P), 0)
  local B = pose(1, 2, 3, {0, 0, 0, 1})
  local id2 = w:add_model(m, {pose = B})
  t.allnear(translation(w:pose(w:links(id2).platform)), translation(B * pose(0, 0, 0.1)), 1e-15)
  t.allnear(translation(w:mocap(id2, 1)), {0, 0, 0.1}, 1e-15)
  w:set_mocap(id2, 1, P)
  t.allnear(translation(w:pose(w:links(id2).platform)), translation(B * P), 1e-15)
  t.allnear(translation(w:mocap(id2, 1)), translation(P), 1e-15)
end)

-- The separation of the box's bottom face from the platform's top face (m).
local function box_gap(w, id)
  local bz = w:frame_pose(id, "box"):translation()[3]
  local pz = w:mocap(id, "platform"):translation()[3]
  return (bz - 0.05) - (pz + 0.05)
end

-- Raises the platform by speed * dt before each of n steps; returns the extremes of box_gap.
local function raise(w, id, speed, n, dt)
  local lo, hi = math.huge, -math.huge
  for _ = 1, n do
    local p = translation(w:mocap(id, "platform"))
    w:set_mocap(id, "platform", pose(p[1], p[2], p[3] + speed * dt))
    w:step()
    local d = box_gap(w, id)
    lo, hi = math.min(lo, d), math.max(hi, d)
  end
  return lo, hi
end

t.case("a box resting on a mocap platform stays at rest and is carried up", function()
  local m = lucid.model.load(FILE)
  local w = lucid.world{dt = m.timestep, slop = SLOP}
  local id = w:add_model(m)
  local slop = SLOP
  w:step(300)
  -- at rest: the rest depth slop/2, no motion
  t.near(box_gap(w, id), -slop / 2, 1e-3 * slop)
  t.truthy(w:v(id):norm() < 1e-7, "the box rests: |v| = " .. w:v(id):norm())
  -- raised step by step at half the correction speed v_c (the platform's velocity is zero to
  -- the contact, as in MuJoCo: the overlap each pose makes is resolved at up to v_c), the
  -- box stays on it within the rest band: 0 >= gap >= -(slop + one step of the platform)
  local vc = math.sqrt(2 * G_N * slop)
  local lo, hi = raise(w, id, vc / 2, 500, m.timestep)
  print(string.format("carried at v_c/2 = %.4f m/s: gap in [%.3e, %.3e] m (slop %g)", vc / 2,
                      lo, hi, slop))
  t.truthy(hi <= 0 and lo >= -(slop + vc / 2 * m.timestep),
           string.format("gap left the rest band: [%g, %g]", lo, hi))
  -- faster than v_c the contact pushes at v_c only: the box rises v_c t (MuJoCo's soft
  -- contact also lags, by its own stiffness); a larger correction_speed carries it
  local z0 = w:frame_pose(id, "box"):translation()[3]
  raise(w, id, 0.25, 100, m.timestep)
  local rise = w:frame_pose(id, "box"):translation()[3] - z0
  print(string.format("platform at 0.25 m/s for 0.2 s: the box rose %.5f m (v_c t = %.5f)", rise,
                      vc * 0.2))
  t.near(rise, vc * 0.2, 1e-6)
  local fast = lucid.world{dt = m.timestep, slop = SLOP, correction_speed = 0.5}
  local id2 = fast:add_model(m)
  fast:step(300)
  local lo2, hi2 = raise(fast, id2, 0.25, 100, m.timestep)
  t.truthy(hi2 <= 0 and lo2 >= -(slop + 0.25 * m.timestep),
           string.format("correction_speed 0.5: gap [%g, %g]", lo2, hi2))
end)

t.case("contacts never move a mocap body", function()
  local m = lucid.model.load(FILE)
  local w = lucid.world{dt = m.timestep, slop = SLOP}
  -- the box falls 0.2 m onto the platform (its q is relative to its placement 0.2 m up)
  local id = w:add_model(m, {q = {0, 0, 0.2, 1, 0, 0, 0}, v = {0.3, 0, -1, 0, 2, 0}})
  local P = pose(0.01, 0.02, 0.1, {0.999, 0.02, -0.01, 0.03})
  w:set_mocap(id, "platform", P)
  local set = w:mocap(id, "platform")
  local plate = w:links(id).platform
  local touched = 0
  for _ = 1, 600 do
    w:step()
    for _, c in ipairs(w:contacts()) do
      if c.body1 == plate or c.body2 == plate then touched = touched + 1 end
    end
  end
  t.truthy(touched > 0, "the box never touched the platform")
  t.allnear(flat(w:mocap(id, "platform")), flat(set), 0)
  t.allnear(flat(w:pose(plate)), flat(set), 0)
  t.allnear(w:velocity(plate):totable(), {0, 0, 0, 0, 0, 0}, 0)
end)

t.case("a mocap body steps like a body welded to the world at its pose", function()
  local pos, quat = "0.02 -0.01 0.05", "0.9961947 0.0871557 0 0" -- tilted 10 degrees about x
  local ms = lucid.model.load_string(plate_scene(false, pos, quat))
  local mm = lucid.model.load_string(plate_scene(true))
  local ws, wm = lucid.world{dt = 2e-3, slop = SLOP}, lucid.world{dt = 2e-3, slop = SLOP}
  local is, im = ws:add_model(ms), wm:add_model(mm)
  wm:set_mocap(im, "plate", lucid.se3.new({0.9961947, 0.0871557, 0, 0}, {0.02, -0.01, 0.05}))
  local worst = 0
  for _ = 1, 400 do
    ws:step()
    wm:step()
    worst = math.max(worst, (ws:state() - wm:state()):norm())
  end
  print(string.format("mocap plate vs welded plate: max |x_mocap - x_static| = %.2e", worst))
  t.truthy(#wm:contacts() > 0, "the box is not on the plate")
  -- the same geometry through another composition of poses: rounding at most (measured 0)
  t.truthy(worst <= 1e-12, "the trajectories differ by " .. worst)
  -- step derivatives: the mocap pose is no variable of the step, so they are the static ones
  local Ds, Dm = ws:step_derivatives(), wm:step_derivatives()
  local dA = maxabs(Ds.A - Dm.A)
  print(string.format("step derivatives: max |A_mocap - A_static| = %.2e (max |A| %.2e)", dA,
                      maxabs(Ds.A)))
  t.truthy(dA <= 1e-6 * math.max(1, maxabs(Ds.A)), "dx+/dx differs by " .. dA)
end)

-- A rod hanging from a hinge at the world, released at 1.2 rad on the -x side (it would swing
-- to -1.2), and a mocap block whose face x = 0.25 meets the rod's tip (0.5 m from the hinge)
-- at about -asin(0.25 / 0.5) = -0.52 rad; the swing's lowest q and the rod-block contacts.
local function rod_swing(exclude)
  local m = lucid.model.load_string(string.format([[
<mujoco>
  <worldbody>
    <geom name="mount" type="box" pos="0 0 1.1" size="0.05 0.05 0.05"/>
    <body name="rod" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02" mass="1"/>
    </body>
    <body name="block" mocap="true" pos="0.3 0 0.6">
      <geom type="box" size="0.05 0.2 0.2"/>
    </body>
  </worldbody>
  <contact><exclude body1="%s" body2="rod"/></contact>
</mujoco>]], exclude))
  local w = lucid.world{dt = 2e-3, slop = SLOP}
  local id = w:add_model(m, {q = {1.2}})
  local links = w:links(id)
  local hits, lowest = 0, math.huge
  for _ = 1, 400 do
    w:step()
    lowest = math.min(lowest, w:q(id)[1])
    for _, c in ipairs(w:contacts()) do
      local a, b = c.body1, c.body2
      if (a == links.rod and b == links.block) or (b == links.rod and a == links.block) then
        hits = hits + 1
      end
    end
  end
  return lowest, hits
end

t.case("a link hinged to the world collides with a mocap body unless excluded", function()
  -- MuJoCo's parent filter never takes the world's geoms, and <exclude> names the world here:
  -- neither keeps the rod off the block, which stops its swing
  local lowest, hits = rod_swing("world")
  t.truthy(hits > 0, "the rod passed through the mocap block")
  t.truthy(lowest > -0.6 and lowest < -0.45, "the rod's swing ended at q = " .. lowest)
  -- <exclude> naming the mocap body (MuJoCo's semantics): the rod swings through it
  lowest, hits = rod_swing("block")
  t.eq(hits, 0)
  t.truthy(lowest < -1.1, "the excluded block stopped the rod at q = " .. lowest)
end)

t.case("mocap poses stay out of the state; clones and batches carry them", function()
  local m = lucid.model.load(FILE)
  local w = lucid.world{dt = m.timestep, slop = SLOP}
  local id = w:add_model(m)
  t.eq(#w:state(), 13) -- the box's free joint only
  local P = pose(0, 0, 0.12)
  w:set_mocap(id, "platform", P)
  local x = w:state()
  w:set_state(x)
  t.allnear(flat(w:mocap(id, "platform")), flat(P), 0)
  -- a batch rollout clones the world: it sees the platform where the world has it
  local T = 50
  local X = lucid.batch.rollout(w, {x}, {lucid.zeros(0, T)}, {threads = 2})
  for _ = 1, T do w:step() end
  local final = w:state():totable()
  t.truthy(math.abs(final[3] - x[3]) > 1e-3, "the box did not fall onto the lowered platform")
  for r = 1, #final do t.eq(X:get(r, 1), final[r]) end
end)

t.case("lucid.model.build makes mocap bodies too", function()
  local m = lucid.model.build{
    bodies = {{name = "hand", mocap = true, placement = pose(0, 0, 1),
               shapes = {{shape = lucid.sphere(0.1)}}},
              {name = "ball", placement = pose(0, 0, 0.5), mass = 1, inertia = {4e-3, 4e-3, 4e-3},
               joints = {{name = "free", kind = "free"}}, shapes = {{shape = lucid.sphere(0.1)}}}},
  }
  t.eq(m.nmocap, 1)
  t.eq(m.nq, 7)
  local w = lucid.world{dt = 1e-3, gravity = {0, 0, 0}, slop = SLOP}
  local id = w:add_model(m, {v = {0, 0, 2, 0, 0, 0}}) -- the ball flies up into the hand
  t.allnear(translation(w:mocap(id, "hand")), {0, 0, 1}, 0)
  w:step(300)
  -- it stops against the hand at the rest depth slop/2 (restitution 0: the speculative
  -- contact lands it there) and the hand stays where it was
  t.near(w:frame_pose(id, "ball"):translation()[3], 0.8 + SLOP / 2, 1e-3 * SLOP)
  t.allnear(translation(w:mocap(id, "hand")), {0, 0, 1}, 0)
  t.raises("lucid.model.build: bodies[1].mocap must be a boolean (got number)",
           lucid.model.build, {bodies = {{name = "h", mocap = 1}}})
end)

t.case("misuse gets named errors", function()
  local m = lucid.model.load(FILE)
  local w = lucid.world{}
  local id = w:add_model(m)
  local S, R = "lucid.world:set_mocap", "lucid.world:mocap"
  t.raises(S .. ": model 1 has no mocap body named 'box'", w.set_mocap, w, id, "box", pose(0, 0, 0))
  t.raises(S .. ": mocap index 3 out of range (model 1 has 2 mocap bodies)", w.set_mocap, w, id,
           3, pose(0, 0, 0))
  t.raises(S .. ": mocap index 0 out of range", w.set_mocap, w, id, 0, pose(0, 0, 0))
  t.raises(S .. ": mocap body must be a name or a 1-based index (got table)", w.set_mocap, w,
           id, {}, pose(0, 0, 0))
  t.raises(S .. ": pose must be a lucid.se3", w.set_mocap, w, id, 1, {0, 0, 1})
  t.raises(S .. ": unknown model id 2", w.set_mocap, w, 2, 1, pose(0, 0, 0))
  t.raises(R .. ": model 1 has no mocap body named 'nope'", w.mocap, w, id, "nope")
  t.raises(R .. ": unknown model id 0", w.mocap, w, 0, 1)
  -- what MuJoCo refuses, and what lucid does not support, named with file:line
  local L = "lucid.model.load_string: <string>"
  local function refuses(reason, text)
    t.raises(L .. reason, lucid.model.load_string, text)
  end
  refuses(":2: body 'm': a mocap body cannot have joints", [[<mujoco><worldbody>
    <body name="m" mocap="true"><joint/><geom size="0.1"/></body></worldbody></mujoco>]])
  refuses(":3: body 'm': a mocap body must be a child of the world body", [[<mujoco><worldbody>
    <body name="a"><joint/><geom size="0.1"/>
    <body name="m" mocap="true"><geom size="0.1"/></body></body></worldbody></mujoco>]])
  refuses(":2: body 'c': a body with joints under mocap body 'm' is not supported",
          [[<mujoco><worldbody><body name="m" mocap="true"><geom size="0.1"/>
    <body name="c"><joint/><geom size="0.1"/></body></body></worldbody></mujoco>]])
  refuses(":3: <key> mpos", [[<mujoco><worldbody>
    <body name="m" mocap="true"><geom size="0.1"/></body></worldbody>
    <keyframe><key mpos="0 0"/></keyframe></mujoco>]])
  refuses(":3: keyframe #1: mquat of mocap body 'm' has no direction", [[<mujoco><worldbody>
    <body name="m" mocap="true"><geom size="0.1"/></body></worldbody>
    <keyframe><key mquat="0 0 0 0"/></keyframe></mujoco>]])
end)
