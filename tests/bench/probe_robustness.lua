-- Issue 32's robustness scenes under every contact model x solver pair (lucid.contact's Table
-- III, tests/lua/testing.lua's CONTACT_PAIRS): a planar two-link arm landing on its floor, a
-- one-link pendulum landing on it, a turntable spinning on the ground, the Allegro hand over a floor (through its palm, fingers
-- pressed on it, grasping its cube, the whole hand dropped on it), tumbling heavy boxes
-- (bodies and MJCF free joints; also at max_iter 3, where most steps end unconverged).
-- For each scene x pair: ok or the error, the steps with a non-finite state, the deepest
-- penetration of a contact (limits excluded), the largest energy gain over the start
-- (kinetic + potential + the position servos' 1/2 kp (u - gear q)^2) divided by the start's
-- energy above its rest, the unconverged steps, and the steps where a contact deeper than
-- 1 mm was left without any normal force while the island was not separating.
-- Usage: ./lucid tests/bench/probe_robustness.lua [--scene NAME] [--pair MODEL:SOLVER] [--json]
--        [--floor-friction MU] [--correction-speed VC]
-- (the last two set the Allegro scenes' floor friction and world correction_speed: the
-- defaults' cause studies in docs/benchmarks/robustness.md)
local lucid = require "lucid"

local PAIRS = {{"ncp", "newton"}, {"ncp", "admm"}, {"ncp", "pgs"}, {"ncp", "ip"}, {"ncp", "staggered"},
               {"ccp", "admm"}, {"ccp", "pgs"}, {"ccp", "newton"}, {"ccp", "ip"},
               {"lcp", "pgs"}, {"raisim", "bisection"}}
local SHARED = (os.getenv("LUCID_SHARED_DIR") or "../shared") .. "/data/robots/"

local only, only_pair, json = nil, nil, false
local floor_friction, correction_speed -- nil: the defaults
for i = 1, #arg do
  if arg[i] == "--scene" then only = arg[i + 1] end
  if arg[i] == "--pair" then only_pair = arg[i + 1] end
  if arg[i] == "--floor-friction" then floor_friction = assert(tonumber(arg[i + 1]), "--floor-friction: a number") end
  if arg[i] == "--correction-speed" then correction_speed = assert(tonumber(arg[i + 1]), "--correction-speed: a number") end
  if arg[i] == "--json" then json = true end
end

local function read(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end

local PLANAR = [[
<mujoco model="planar2">
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="l1" pos="0 0 0.6">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="1"/>
      <body name="l2" pos="0.5 0 0">
        <joint name="j2" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>]]

-- The floor is added as a static halfspace of the world, not a geom of the file.
local PENDULUM = [[
<mujoco model="pendulum">
  <option timestep="0.005"/>
  <worldbody>
    <body name="l1" pos="0 0 0.3">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" mass="1"/>
    </body>
  </worldbody>
</mujoco>]]

local TURNTABLE = [[
<mujoco model="turntable">
  <option timestep="0.005"/>
  <worldbody>
    <body name="table" pos="0 0 0.018">
      <joint name="spin" type="hinge" axis="0 0 1"/>
      <geom type="box" size="0.3 0.3 0.02" mass="2"/>
    </body>
  </worldbody>
</mujoco>]]

-- A free box as an MJCF model on its plane (the free joint's slot, not w:add_body's).
local function box_mjcf(size, mass)
  return string.format([[
<mujoco model="box">
  <worldbody>
    <geom name="floor" type="plane" size="10 10 0.1"/>
    <body name="box" pos="0 0 %g">
      <freejoint/>
      <geom type="box" size="%g %g %g" mass="%g"/>
    </body>
  </worldbody>
</mujoco>]], 1.2 * size, size / 2, size / 2, size / 2, mass)
end

-- The Allegro hand with a free palm (a floating 16-joint tree): the shared hand file's text edited.
local function free_allegro()
  local hand = read(SHARED .. "allegro_right_hand.xml")
  return (hand:gsub('(<body name="palm"[^>]*>)', '%1\n      <freejoint name="palm"/>', 1))
end

local function servo_energy(w, id, m)
  if not m or m.nu == 0 then return 0 end
  local q, u, e = w:q(id), w:controls(), 0 -- the one model's inputs come first
  for i, a in ipairs(m:actuators()) do
    if a.kind == "position" then
      local r = a.ctrl_range -- the world clamps the input into it
      local ui = r and math.min(math.max(u[i], r[1]), r[2]) or u[i]
      e = e + 0.5 * a.kp * (ui - a.gear * q[a.coord]) ^ 2
    end
  end
  return e
end

-- scene: {name, dt, steps, build(pair_options) -> w, id, m, [on_step(w, k)], rest = E at rest}
local SCENES = {}
local function scene(s) SCENES[#SCENES + 1] = s end

scene{name = "planar arm on its floor", dt = 0.005, steps = 400, build = function(c)
  local m = lucid.model.load_string(PLANAR)
  local w = lucid.world{dt = 0.005, contact = c}
  return w, w:add_model(m), m
end}

-- One hinge: each contact's block has rank 1 (its point moves along one direction).
scene{name = "pendulum on its floor", dt = 0.005, steps = 200, build = function(c)
  local m = lucid.model.load_string(PENDULUM)
  local w = lucid.world{dt = 0.005, contact = c}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  return w, w:add_model(m), m
end}

scene{name = "turntable on the ground", dt = 0.005, steps = 200, build = function(c)
  local m = lucid.model.load_string(TURNTABLE)
  local w = lucid.world{dt = 0.005, contact = c}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  return w, w:add_model(m, {q = {0}, v = {2}}), m
end}

local function allegro(c, floor_z)
  local m = lucid.model.load(SHARED .. "allegro_right_hand.xml")
  local w = lucid.world{dt = 0.002, contact = c, correction_speed = correction_speed}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, floor_z), friction = floor_friction}
  return w, w:add_model(m), m
end

scene{name = "Allegro, floor through the palm", dt = 0.002, steps = 100, build = function(c)
  return allegro(c, 0)
end}

scene{name = "Allegro grasping its cube", dt = 0.002, steps = 300, build = function(c)
  local m = lucid.model.load(SHARED .. "allegro_cube.xml")
  local w = lucid.world{dt = 0.002, contact = c}
  local id = w:add_model(m)
  w:step(150) -- the cube lands on the palm (with the world's pair), then the fingers close
  w:set_control(id, {0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 1.3, 1.2, 1.2, 1.2})
  return w, id, m
end}

-- The hand on a free joint (its q relative to the palm's placement, whose x is the world's
-- z), released with the palm's lowest point 7 cm above the floor: on its back, or turned over
-- (palm and fingers down).
local function dropped(flip)
  return function(c)
    local m = lucid.model.load_string(free_allegro(), {base_dir = SHARED})
    local w = lucid.world{dt = 0.002, contact = c}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
    local q = m:neutral()
    q[1] = 0.1
    local lower = m:limits() -- the thumb's base has q = 0 below its range
    for i = 8, m.nq do q[i] = math.max(q[i], lower[i]) end
    if flip then q[4], q[5], q[6], q[7] = 0, 0, 1, 0 end -- a half turn about the world's y
    return w, w:add_model(m, {q = q}), m
  end
end
scene{name = "Allegro dropped on its back", dt = 0.002, steps = 300, build = dropped(false)}
scene{name = "Allegro dropped palm down", dt = 0.002, steps = 300, build = dropped(true)}

local function tumbling(size, mass, twist, spin, height)
  return function(c)
    local w = lucid.world{dt = 0.005, contact = c}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
    local h = size / 2
    local pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, height * size}) * lucid.se3.exp(lucid.vec(twist))
    w:add_body{shape = lucid.box(h, h, h), mass = mass, pose = pose, velocity = spin}
    return w
  end
end
local T1, S1 = {0, 0, 0, 0.3, 0.5, 0.2}, {0, 0, 0, 3, -2, 1}
local T2, S2 = {0, 0, 0, -0.7, 0.2, 0.9}, {0, 0, 0, -1, 4, 2}
scene{name = "1 m 1000 kg box, tumbling", dt = 0.005, steps = 300, build = tumbling(1, 1000, T1, S1, 1.2)}
scene{name = "1 m 1000 kg box, tumbling (2)", dt = 0.005, steps = 300, build = tumbling(1, 1000, T2, S2, 1.2)}
scene{name = "1 m 1000 kg box from 3 m", dt = 0.005, steps = 300, build = tumbling(1, 1000, T1, S1, 3)}
scene{name = "10 cm 100 kg box, tumbling", dt = 0.005, steps = 300,
      build = tumbling(0.1, 100, T1, {0, 0, 0, 30, -20, 10}, 1.2)}
scene{name = "10 cm 100 kg box from 1 m", dt = 0.005, steps = 300,
      build = tumbling(0.1, 100, T1, {0, 0, 0, 30, -20, 10}, 10)}
scene{name = "1 m 1000 kg box, max_iter 3", dt = 0.005, steps = 300, max_iter = 3,
      build = tumbling(1, 1000, T1, S1, 1.2)}
scene{name = "1 m 1000 kg MJCF free box", dt = 0.005, steps = 300, build = function(c)
  local m = lucid.model.load_string(box_mjcf(1, 1000))
  local w = lucid.world{dt = 0.005, contact = c}
  local q = m:neutral()
  local turn = lucid.se3.exp(lucid.vec(T1))
  local r = turn:quat()
  q[4], q[5], q[6], q[7] = r[1], r[2], r[3], r[4]
  -- the free joint's twist is in the body frame: the same world spin as the bodies'
  local wb = turn:rotation():T() * lucid.vec{S1[4], S1[5], S1[6]}
  return w, w:add_model(m, {q = q, v = {0, 0, 0, wb[1], wb[2], wb[3]}}), m
end}

local function energy(w, id, m)
  local e = w:energy()
  return e.kinetic + e.potential + servo_energy(w, id, m)
end

local function finite_state(w)
  local x = w:state()
  for i = 1, #x do if x[i] ~= x[i] or math.abs(x[i]) == math.huge then return false end end
  return true
end

local function run(s, pair)
  local c = {model = pair[1], solver = pair[2], max_iter = s.max_iter}
  local r = {unconverged = 0, bad = 0, unforced = 0, depth = 0, gain = 0}
  local t0 = os.clock()
  local ok, err = pcall(function()
    local w, id, m, on_step = s.build(c)
    local e0 = energy(w, id, m)
    local low = e0
    for k = 1, s.steps do
      if on_step then on_step(w, k) end
      w:step()
      if not finite_state(w) then r.bad = r.bad + 1 end
      local st = w:stats()
      if not st.converged then r.unconverged = r.unconverged + 1 end
      local forced, deep = false, false
      for _, ct in ipairs(w:contacts()) do
        if not ct.limit and not ct.frictionloss then
          r.depth = math.max(r.depth, -ct.separation)
          if ct.lambda[3] > 0 then forced = true end
          if ct.separation < -1e-3 then deep = true end
        end
      end
      if deep and not forced then r.unforced = r.unforced + 1 end
      local e = energy(w, id, m)
      low = math.min(low, e)
      r.gain = math.max(r.gain, e - e0)
    end
    -- the energy the start holds above the lowest reached (what a landing may dissipate)
    r.scale = e0 - low
  end)
  r.seconds = os.clock() - t0
  if not ok then r.error = tostring(err):gsub("\n.*", "") end
  return r
end

local rows = {}
print(string.format("%-32s %-17s %-6s %5s %9s %9s %9s %6s %5s %6s", "scene", "pair", "status",
                    "nanst", "depth_mm", "gain_J", "gain/E", "unconv", "nolam", "cpu_s"))
for _, s in ipairs(SCENES) do
  if not only or s.name:find(only, 1, true) then
    for _, pair in ipairs(PAIRS) do
      if only_pair and only_pair ~= pair[1] .. ":" .. pair[2] then goto next_pair end
      local r = run(s, pair)
      local name = pair[1] .. ":" .. pair[2]
      rows[#rows + 1] = {scene = s.name, pair = name, result = r}
      if r.error then
        print(string.format("%-32s %-17s ERROR  %s", s.name, name, r.error))
      else
        local ratio = r.scale > 1e-9 and string.format("%9.2e", r.gain / r.scale) or "        -"
        print(string.format("%-32s %-17s %-6s %5d %9.3f %9.2e %s %6d %5d %6.2f", s.name, name,
                            r.bad == 0 and "ok" or "NaN", r.bad, 1e3 * r.depth, r.gain, ratio,
                            r.unconverged, r.unforced, r.seconds))
      end
      io.stdout:flush()
      ::next_pair::
    end
  end
end
if json then print(lucid.json.encode(rows)) end
