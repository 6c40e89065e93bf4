-- MJCF sensors (docs/model_files.md, docs/model.md m:sensors(), docs/world.md w:sensors): the
-- listing, the values' layout and their meaning at the world's current state (w:q, w:v, the
-- actuator's force, w:frame_pose, the model's pose included), and the refusals naming file:line.
-- The comparisons with MuJoCo 2.2.2 are tests/c/runtime/model/test_mjcf_sensors.c.
local t = require "testing"
local lucid = require "lucid"

local FILE = "tests/data/model/mjcf_sensors.xml"
local DATA = "tests/data/model/"

t.case("m:sensors lists each sensor's type, object, dim and adr in the file's order", function()
  local s = lucid.model.load(FILE):sensors()
  t.eq(#s, 21)
  t.eq(s[1].name, "q_wrist"); t.eq(s[1].type, "jointpos"); t.eq(s[1].object, "wrist")
  t.eq(s[1].objtype, "joint"); t.eq(s[1].dim, 1); t.eq(s[1].adr, 1)
  t.eq(s[5].type, "actuatorfrc"); t.eq(s[5].object, "servo"); t.eq(s[5].objtype, "actuator")
  t.eq(s[7].type, "framepos"); t.eq(s[7].objtype, "xbody"); t.eq(s[7].adr, 7)
  t.eq(s[8].type, "framequat"); t.eq(s[8].dim, 4); t.eq(s[8].adr, 10)
  t.eq(s[12].object, "tip"); t.eq(s[12].objtype, "site")
  t.eq(s[3].name, ""); t.eq(s[16].adr, 38); t.eq(s[16].noise, 0)
  t.eq(s[17].name, "w_tip"); t.eq(s[17].type, "gyro"); t.eq(s[17].objtype, "site")
  t.eq(s[17].adr, 42); t.eq(s[21].type, "velocimeter"); t.eq(s[21].adr, 54)
end)

t.case("w:sensors reads the world's current state (model pose included)", function()
  local m = lucid.model.load(FILE)
  local w = lucid.world{dt = m.timestep}
  local pose = lucid.se3.exp(lucid.vec{0.3, -0.2, 0.1, 0.2, 0.4, -0.1})
  local id = w:add_model(m, {q = {0.1, 0.4, -0.3, 0.7}, v = {0.5, -1, 2, 0.3}, pose = pose})
  w:set_control(id, {0.4, 1.5})
  for _ = 1, 20 do w:step() end
  local y, q, v = w:sensors(id), w:q(id), w:v(id)
  local s = m:sensors()
  t.eq(#y:totable(), 56)
  local idx = {}
  for i, j in ipairs(m:names("joint")) do idx[j] = i end
  t.eq(y[1], q[idx.wrist]); t.eq(y[2], v[idx.slide]); t.eq(y[3], q[idx.slide])
  t.eq(y[4], v[idx.elbow_x])
  t.eq(y[6], 1.5) -- the motor's force is its control: gear scales its moment only (MuJoCo)
  for k = 7, 16 do
    local T = w:frame_pose(id, s[k].object)
    if s[k].type == "framepos" then
      t.allnear({y[s[k].adr], y[s[k].adr + 1], y[s[k].adr + 2]}, T:translation(), 1e-15, s[k].object)
    else
      local r, sign = T:quat():totable(), 1
      if r[1] < 0 then sign = -1 end
      for i = 1, 4 do t.near(y[s[k].adr + i - 1], sign * r[i], 1e-15, s[k].object) end
      t.truthy(y[s[k].adr] >= 0, "w >= 0")
    end
  end
  -- a site on the world does not move; the tip's speed is nonzero after the steps
  t.allnear({y[54], y[55], y[56]}, {0, 0, 0}, 0, "velocimeter on the world")
  t.truthy(math.abs(y[42]) + math.abs(y[43]) + math.abs(y[44]) > 0, "gyro of the tip")
end)

t.case("w:sensors follows set_state, set_q and set_v (the kinematics are refreshed)", function()
  local m = lucid.model.load(FILE)
  local w = lucid.world{dt = m.timestep}
  local id = w:add_model(m, {v = {1, -2, 3, 0.5}})
  w:set_control(id, {0.5, -0.2})
  local s0, y0 = w:state(), w:sensors(id):totable()
  for _ = 1, 10 do w:step() end
  local y1 = w:sensors(id):totable()
  t.truthy(math.abs(y1[7] - y0[7]) > 1e-6, "the steps moved the lower body")
  w:set_state(s0)
  t.allnear(w:sensors(id), y0, 0, "after set_state")
  w:set_q(id, w:q(id)) -- unchanged q: unchanged values
  t.allnear(w:sensors(id), y0, 0, "after set_q")
  w:set_v(id, {0, 0, 0, 0})
  local y2 = w:sensors(id):totable()
  for k = 42, 56 do t.eq(y2[k], 0, "velocity sensor " .. k .. " at rest") end
end)

-- A sensor lucid does not compute changes no physics: the model loads, the sensor is left out
-- of w:sensors, and a warning names file:line and why.
t.case("MuJoCo's other sensors are skipped with a warning naming file:line", function()
  local cases = {{"mjcf_sensor_skip_kind.xml", "<magnetometer>: skipped (lucid computes jointpos"},
                 {"mjcf_sensor_skip_objtype.xml", "<framequat>: skipped (objtype body, geom"},
                 {"mjcf_sensor_skip_ref.xml", "<framepos>: skipped (frame sensors relative"}}
  for _, c in ipairs(cases) do
    local script = os.tmpname() .. ".lua"
    local f = assert(io.open(script, "w"))
    f:write(string.format("print(#lucid.model.load(%q):sensors())\n", DATA .. c[1]))
    f:close()
    local pipe = assert(io.popen(arg[-1] .. " " .. script .. " 2>&1"))
    local out = pipe:read("a")
    pipe:close()
    os.remove(script)
    t.truthy(out:find("lucid: " .. DATA .. c[1] .. ":11: warning: " .. c[2], 1, true), out)
    t.truthy(out:find("\n0\n", 1, true) or out:match("^0\n") or out:find("\n0$"), out)
  end
end)

-- The step sensors (accelerometer, force, torque) read the last step: NaN before one and after
-- the state is set; at rest the floor's contact force is not the joint's, the pivot's is the
-- weight. MuJoCo comparisons in free motion: tests/c/runtime/model/test_mjcf_sensors.c.
t.case("force, torque, touch: a box on the floor loads its slide with nothing, a rod its pivot", function()
  local m = lucid.model.load(DATA .. "mjcf_step_sensors_contact.xml")
  local w = lucid.world{dt = m.timestep}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  local id = w:add_model(m)
  local y = w:sensors(id)
  for k = 1, 20 do t.truthy(y[k] ~= y[k], "NaN before a step: " .. k) end
  for _ = 1, 500 do w:step() end
  y = w:sensors(id)
  local g, box, rod = 9.81, 3, 2
  -- the floor holds the box: the slide transmits no force and no torque
  t.allnear({y[1], y[2], y[3]}, {0, 0, 0}, 1e-6 * box * g, "force on the box's slide")
  t.allnear({y[4], y[5], y[6]}, {0, 0, 0}, 1e-6 * box * g, "torque on the box's slide")
  -- at rest the accelerometer reads -g in the site's frame (tilted 20 degrees about y)
  local a = math.rad(20)
  t.allnear({y[7], y[8], y[9]}, {-g * math.sin(a), 0, g * math.cos(a)}, 1e-6 * g, "accelerometer")
  -- the pivot carries the rod's weight, no torque (its centre hangs below), in the site's frame
  -- (turned 30 degrees about x)
  local b = math.rad(30)
  t.allnear({y[10], y[11], y[12]}, {0, rod * g * math.sin(b), rod * g * math.cos(b)}, 1e-12 * rod * g,
            "force at the pivot")
  t.allnear({y[13], y[14], y[15]}, {0, 0, 0}, 1e-12 * rod * g, "torque at the pivot")
  -- touch (MuJoCo's rule: a contact counts when its ray, from its point along the normal away
  -- from the body, meets the site's zone): the weight on the covering site and the one below,
  -- nothing on the centre's
  t.near(y[16], box * g, 1e-6 * box * g, "touch covering the box")
  t.eq(y[17], 0, "touch at the centre")
  t.near(y[18], box * g, 1e-6 * box * g, "touch below the floor")
  t.near(y[19], box * g, 1e-6 * box * g, "touch of a cylinder below the floor")
  t.eq(y[20], 0, "touch of a capsule beside the box")
  w:set_v(id, w:v(id))
  y = w:sensors(id)
  for k = 1, 20 do t.truthy(y[k] ~= y[k], "NaN after set_v: " .. k) end
  w:step()
  t.truthy(w:sensors(id)[10] == w:sensors(id)[10], "a value again after a step")
end)

t.case("step sensors on a mocap site and touch on a world site are NaN", function()
  local m = lucid.model.load(DATA .. "mjcf_step_sensors_nan.xml")
  local w = lucid.world{dt = m.timestep}
  local id = w:add_model(m)
  w:step()
  local y = w:sensors(id)
  for k = 1, 5 do t.truthy(y[k] ~= y[k], "NaN: " .. k) end
  t.allnear({y[6], y[7], y[8]}, {0, 0, 9.81}, 1e-15, "accelerometer on the world")
end)

t.case("force and torque on a body without a joint are skipped with a warning", function()
  local file = DATA .. "mjcf_sensor_skip_welded.xml"
  local script = os.tmpname() .. ".lua"
  local f = assert(io.open(script, "w"))
  f:write(string.format("local s = lucid.model.load(%q):sensors() print(#s, s[1].type)\n", file))
  f:close()
  local pipe = assert(io.popen(arg[-1] .. " " .. script .. " 2>&1"))
  local out = pipe:read("a")
  pipe:close()
  os.remove(script)
  t.truthy(out:find("lucid: " .. file .. ":13: warning: <force>: skipped (the site's body has no joint", 1,
                    true), out)
  t.truthy(out:find("1\taccelerometer", 1, true), out)
end)

t.case("refusals name the file, the line and the reason", function()
  local F = "lucid.model.load: " .. DATA
  t.raises(F .. "bad_mjcf_sensor_kind.xml:11: <sensor>: unknown sensor <touchy>",
           lucid.model.load, DATA .. "bad_mjcf_sensor_kind.xml")
  t.raises(F .. "mjcf_sensor_unknown_joint.xml:11: jointpos 'qa': no joint named 'nope'",
           lucid.model.load, DATA .. "mjcf_sensor_unknown_joint.xml")
  t.raises(F .. "mjcf_sensor_unknown_site.xml:11: framepos #1: no site named 'nope'",
           lucid.model.load, DATA .. "mjcf_sensor_unknown_site.xml")
  t.raises(F .. "bad_mjcf_sensor_noise.xml:11: <jointvel>: noise and cutoff must be >= 0",
           lucid.model.load, DATA .. "bad_mjcf_sensor_noise.xml")
  local w = lucid.world{}
  t.raises("lucid.world:sensors: unknown model id 1", w.sensors, w, 1)
end)
