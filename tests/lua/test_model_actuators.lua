-- Actuators in MuJoCo's gain/bias form and keyframes (docs/model.md, docs/model_files.md):
-- m:actuators() reports each kind's form; lucid.model.build takes velocity, damper and general
-- actuators and refuses malformed ones by name; m:keyframe returns the file's state with
-- MuJoCo's defaults for absent parts; a velocity servo far too stiff for an explicit step
-- reaches its target velocity (its damping is implicit); a damper brakes as -kv u v.
-- (qfrc_actuator and the keyframes against MuJoCo 2.2.2: tests/c/runtime/model/test_mjcf_actuators.c; the
-- step derivatives: tests/lua/test_step_derivatives.lua.)
local t = require "testing"
local lucid = require "lucid"

local FILE = "tests/data/model/mjcf_actuators.xml"

t.case("m:actuators() gives each kind's gain and bias", function()
  local m = lucid.model.load(FILE)
  local by = {}
  for _, a in ipairs(m:actuators()) do by[a.name] = a end
  t.eq(by.motor.kind, "motor")
  t.allnear(by.motor.gain, {1, 0, 0}) t.allnear(by.motor.bias, {0, 0, 0})
  t.eq(by.position.kind, "position") t.eq(by.position.kp, 30)
  t.allnear(by.position.gain, {30, 0, 0}) t.allnear(by.position.bias, {0, -30, 0})
  t.eq(by.velocity.kind, "velocity")
  t.allnear(by.velocity.gain, {3, 0, 0}) t.allnear(by.velocity.bias, {0, 0, -3})
  t.eq(by.damper.kind, "damper")
  t.allnear(by.damper.gain, {0, 0, -2}) t.allnear(by.damper.ctrl_range, {0, 2})
  t.eq(by.affine.kind, "general")
  t.allnear(by.affine.gain, {2, 0.7, -0.4}) t.allnear(by.affine.bias, {0.5, -3, -1.2})
  -- gaintype fixed reads gainprm[0] only, biastype none nothing (as MuJoCo)
  t.allnear(by.fixed.gain, {1.5, 0, 0}) t.allnear(by.fixed.bias, {0, 0, 0})
  -- a <position> without kp takes gainprm[0] of its class's <general> default
  t.allnear(by.inherited.gain, {7, 0, 0}) t.allnear(by.inherited.bias, {0, -7, 0})
end)

local function arm(actuator)
  actuator.joint = "hinge"
  return lucid.model.build{
    gravity = {0, 0, 0},
    bodies = {{name = "link", mass = 1, com = {0.5, 0, 0}, inertia = {1e-4, 1e-4, 1e-4},
               joints = {{name = "hinge", kind = "revolute", axis = {0, 1, 0}}}}},
    actuators = {actuator},
  }
end

t.case("lucid.model.build: velocity, damper and general actuators, and their errors", function()
  local m = arm{name = "g", kind = "general", gain = {1, 2, 3}, bias = {4, 5, 6}, gear = 2}
  local a = m:actuators()[1]
  t.eq(a.kind, "general") t.eq(a.gear, 2)
  t.allnear(a.gain, {1, 2, 3}) t.allnear(a.bias, {4, 5, 6})
  t.allnear(arm{kind = "velocity", kv = 4}:actuators()[1].bias, {0, 0, -4})
  t.allnear(arm{kind = "damper", kv = 4, ctrl_range = {0, 1}}:actuators()[1].gain, {0, 0, -4})
  local B = "lucid.model.build: "
  t.raises("gain and bias are for kind = \"general\"", arm, {kind = "motor", gain = {1, 0, 0}})
  t.raises("actuators[1].gain: expected an array of 3 numbers", arm, {kind = "general", gain = {1, 2}})
  t.raises("unknown actuator kind 'muscle'", arm, {kind = "muscle"})
  t.raises("a velocity servo needs kv > 0", arm, {kind = "velocity", kv = 0})
  t.raises("a damper needs kv >= 0 and a control range within [0, inf)", arm,
           {kind = "damper", kv = 1, ctrl_range = {-1, 1}})
  t.raises("a damper needs kv >= 0", arm, {kind = "damper", kv = 1})
  t.raises(B, arm, {kind = "general", gain = {0 / 0, 0, 0}})
end)

t.case("m:keyframe: the file's q, v, controls; MuJoCo's defaults where absent", function()
  local m = lucid.model.load(FILE)
  t.eq(m.nkeyframes, 3)
  local q, v, u = m:keyframe("full")
  local q1, v1, u1 = m:keyframe(1)
  t.allnear(q, q1, 0) t.allnear(v, v1, 0) t.allnear(u, u1, 0)
  t.allnear(u, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, 0)
  -- hinge and slide coordinates as in the file; the ball's quaternion normalised
  t.eq(q[8], 0.4) t.eq(q[9], 0.05) t.eq(q[14], 0.7) t.eq(q[15], -0.2)
  local n = math.sqrt(0.8 ^ 2 + 0.2 ^ 2 + 0.3 ^ 2 + 0.4 ^ 2)
  t.allnear({q[10], q[11], q[12], q[13]}, {0.8 / n, 0.2 / n, 0.3 / n, -0.4 / n}, 1e-15)
  -- the free joint's angular velocity is in the body frame in both layouts
  t.allnear({v[4], v[5], v[6]}, {0.4, -0.5, 0.6}, 0)
  -- "pose_only": zero velocity and controls
  local _, v2, u2 = m:keyframe("pose_only")
  t.allnear(v2, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0)
  t.allnear(u2, {0, 0, 0, 0, 0, 0, 0, 0}, 0)
  -- the unnamed third: the neutral configuration (MuJoCo's qpos0)
  local q3, _, u3 = m:keyframe(3)
  t.allnear(q3, m:neutral(), 0)
  t.allnear(u3, {1, -1, 0.5, 1.5, -2, 3, -0.1, 0.2}, 0)
  -- the scale option scales the keyframe's lengths: free positions and linear velocities (the
  -- placement scales too), slide coordinates; angles and angular velocities stay
  local s = lucid.model.load(FILE, {scale = 2})
  local qs, vs = s:keyframe("full")
  for _, i in ipairs{1, 2, 3, 9} do t.near(qs[i], 2 * q[i], 1e-14) end
  for _, i in ipairs{1, 2, 3, 8} do t.near(vs[i], 2 * v[i], 1e-14) end
  for _, i in ipairs{4, 5, 6, 7, 8, 10, 14} do t.near(qs[i], q[i], 1e-14) end
  -- a world started from a keyframe
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(m)
  w:set_q(id, q) w:set_v(id, v) w:set_control(id, u)
  t.allnear(w:q(id), q, 0)
  local F = "lucid.model:keyframe: "
  t.raises(F .. "no keyframe named 'nope'", m.keyframe, m, "nope")
  t.raises(F .. "keyframe index 4 out of range (the model has 3)", m.keyframe, m, 4)
  t.raises(F .. "key must be a keyframe name or a 1-based index (got table)", m.keyframe, m, {})
end)

t.case("a stiff velocity servo reaches its target velocity (implicit damping)", function()
  -- kv dt gear^2 / I = 1e4 * 1e-3 * 1 / 0.2501 = 40: an explicit step would diverge
  local m = arm{kind = "velocity", kv = 1e4}
  local w = lucid.world{dt = 1e-3, gravity = {0, 0, 0}}
  local id = w:add_model(m)
  w:set_control(id, {2})
  for _ = 1, 50 do w:step() end
  t.near(w:v(id)[1], 2, 1e-12)
end)

t.case("a damper brakes as -kv u v: the velocity shrinks by 1 - dt kv u / I per step", function()
  -- joint damping off, no gravity: v+ = v + dt (-kv u v) / I with the force explicit (the
  -- damper's damping is a gain term, explicit as in MuJoCo)
  local kv, u, dt = 0.5, 0.8, 1e-3
  local m = arm{kind = "damper", kv = kv, ctrl_range = {0, 1}}
  local I = 1 * 0.5 ^ 2 + 1e-4
  local w = lucid.world{dt = dt, gravity = {0, 0, 0}}
  local id = w:add_model(m)
  w:set_v(id, {3}) w:set_control(id, {u})
  local v = 3
  for _ = 1, 20 do
    w:step()
    v = v - dt * kv * u * v / I
  end
  t.near(w:v(id)[1], v, 1e-12)
end)
