-- The robots' scenes of issue 32's everyday table, shared by bench_solve_choice.lua,
-- probe_robot_islands.lua and bench_newton_cold.lua: each builds its world with world(dt) (the
-- caller's contact options) and returns it with a control(step) to call before each step
-- (nil: none), or nil and why the scene cannot be built (a file not found).
local lucid = require "lucid"
local scenes = {}

-- MuJoCo's humanoid dropped on its floor (controls 0).
function scenes.humanoid(world)
  local m = lucid.model.load("/usr/share/mujoco/model/humanoid/humanoid.xml")
  local w = world(m.timestep)
  w:add_model(m)
  return w
end

-- A 7-dof arm (tasks/models/arm7.xml, capsule links, position servos, the file's floor and box)
-- sweeping its first joint through its box and four more on the floor; also returns their ids.
function scenes.arm7(world)
  local arm = lucid.model.load("tasks/models/arm7.xml")
  local w = world(arm.timestep)
  local id, boxes, h = w:add_model(arm), {}, 0.04
  for i = 1, 4 do
    boxes[i] = w:add_body{shape = lucid.box(h, h, h), mass = 1000 * 8 * h ^ 3, friction = 0.5,
                          pose = lucid.se3.new({1, 0, 0, 0}, {0.72 * math.cos(0.25 * i),
                                                              0.72 * math.sin(0.25 * i), h})}
  end
  return w, function(s)
    w:set_control(id, {1.2 * math.sin(2 * math.pi * s * arm.timestep / 4), 1.7, 0, -0.5, 0, 0.9, 0})
  end, boxes
end

-- The Allegro hand closing on its cube (allegro_cube.xml's recipe: joints 1-3 of each finger
-- and the thumb at 1.2 rad, the thumb base at 1.3); needs ../shared or LUCID_SHARED_DIR.
function scenes.allegro(world)
  local shared = os.getenv("LUCID_SHARED_DIR") or "../shared"
  local file = shared .. "/data/robots/allegro_cube.xml"
  local ok, am = pcall(lucid.model.load, file)
  if not ok then return nil, file .. " not found" end
  local w = world(am.timestep)
  local id, u = w:add_model(am), {}
  for i, n in ipairs(am:names("actuator")) do
    u[i] = n == "tha0" and 1.3 or (n:match("a0$") and 0 or 1.2)
  end
  w:set_control(id, u)
  return w
end

return scenes
