-- lucid.grasp (the Ferrari-Canny epsilon), m:geoms(), and tasks/grasp.lua end to end: a known
-- box grasp is in force closure, non-closure grasps score exactly 0, bad arguments are errors
-- naming the function; the task's fingertip and hand problems reach their thresholds on fixed
-- seeds, its --help / --json contract, and its errors for bad problems, objects and models.
local t = require "testing"
local lucid = require "lucid"
local json = require "lucid.json"

local interpreter = arg[-1]
local prefix = os.tmpname()
local temp_files = {}
t.teardown(function()
  for _, f in ipairs(temp_files) do os.remove(f) end
  os.remove(prefix)
end)

local function temp(suffix, text)
  local name = prefix .. suffix
  local f = assert(io.open(name, "w"))
  f:write(text)
  f:close()
  temp_files[#temp_files + 1] = name
  return name
end

-- Runs tasks/grasp.lua; returns stdout, stderr and the exit code.
local function run(args, env)
  local err = prefix .. ".stderr"
  temp_files[#temp_files + 1] = err
  local cmd = string.format("%s'%s' tasks/grasp.lua %s 2>'%s'", env or "", interpreter, args, err)
  local pipe = assert(io.popen(cmd))
  local out = pipe:read("a")
  local _, _, code = pipe:close()
  local f = io.open(err)
  local stderr = f and f:read("a") or ""
  if f then f:close() end
  return out, stderr, code
end

-- Four fingertips on a 10 cm cube: two on +x, two on -x, spread in y and z.
local BOX_POINTS = {{0.05, 0.02, 0.01}, {0.05, -0.02, -0.01}, {-0.05, 0.02, -0.01},
                    {-0.05, -0.02, 0.01}}
local BOX_NORMALS = {{-1, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {1, 0, 0}}

t.case("a known box grasp is in force closure; epsilon is invariant to how it is given", function()
  local eps, info = lucid.grasp.epsilon(BOX_POINTS, BOX_NORMALS, 0.5)
  t.truthy(eps > 0.05, "epsilon " .. eps)
  t.truthy(info.force_closure and not info.degenerate)
  t.eq(info.margin, eps)
  t.eq(info.edges, 8)
  t.near(info.torque_scale, 1 / math.sqrt(0.05 ^ 2 + 0.02 ^ 2 + 0.01 ^ 2), 1e-12)
  -- the default torque scale is 1 / max |p - c|: giving it explicitly changes nothing, and a
  -- 3 x k matrix is the same as a list
  local P = lucid.zeros(3, 4)
  local N = lucid.zeros(3, 4)
  for j = 1, 4 do
    for i = 1, 3 do
      P:set(i, j, BOX_POINTS[j][i])
      N:set(i, j, BOX_NORMALS[j][i] * 2) -- normalised inside
    end
  end
  t.eq(lucid.grasp.epsilon(P, N, 0.5, {torque_scale = info.torque_scale}), eps)
  -- more friction, more edges: a larger (or equal) wrench space
  t.truthy(lucid.grasp.epsilon(BOX_POINTS, BOX_NORMALS, 0.8) > eps)
  -- the wrenches: k m columns, unit normal force along each normal
  local W, s = lucid.grasp.wrenches(BOX_POINTS, BOX_NORMALS, 0.5, {edges = 4})
  t.eq(W:rows(), 6)
  t.eq(W:cols(), 16)
  t.eq(s, info.torque_scale)
  for c = 1, 16 do
    local n = BOX_NORMALS[(c - 1) // 4 + 1]
    t.near(W:get(1, c) * n[1] + W:get(2, c) * n[2] + W:get(3, c) * n[3], 1, 1e-14)
  end
end)

t.case("soft fingers: 3 m + 2 wrenches a contact, torsion about the normal", function()
  -- two antipodal fingertips: no closure as point contacts, closure as soft fingers
  local P2, N2 = {{0.05, 0, 0}, {-0.05, 0, 0}}, {{-1, 0, 0}, {1, 0, 0}}
  local eps, info = lucid.grasp.epsilon(P2, N2, 0.8, {torsion = 0.01})
  t.truthy(eps > 0 and info.force_closure, "soft antipodal grasp")
  t.eq(info.torsion, 0.01)
  local W, s = lucid.grasp.wrenches(P2, N2, 0.8, {edges = 4, torsion = 0.01})
  t.eq(W:cols(), 2 * (3 * 4 + 2))
  -- the last two columns of contact 1 are its poles: f = n, torque s (r x n -+ gamma n)
  for k, sign in ipairs{-1, 1} do
    local c = 14 - 2 + k
    t.near(W:get(1, c), -1, 1e-15)
    t.near(W:get(4, c), s * sign * 0.01 * -1, 1e-15)
  end
end)

t.case("non-closure grasps have epsilon exactly 0", function()
  local eps, info = lucid.grasp.epsilon({{0.05, 0, 0}, {-0.05, 0, 0}}, {{-1, 0, 0}, {1, 0, 0}}, 0.8)
  t.eq(eps, 0)
  t.truthy(info.degenerate and not info.force_closure, "two antipodal contacts span 5 dims")
  eps, info = lucid.grasp.epsilon({{0, 0, 0.05}, {0.02, 0, 0.05}, {0, 0.02, 0.05}},
                                  {{0, 0, -1}, {0, 0, -1}, {0, 0, -1}}, 0.8)
  t.eq(eps, 0)
  t.truthy(not info.force_closure)
  -- frictionless: no four point contacts hold a box
  eps = lucid.grasp.epsilon(BOX_POINTS, BOX_NORMALS, 0)
  t.eq(eps, 0)
end)

t.case("torque_scale = 0 is the automatic scale, as in C (1 / the farthest contact from c)", function()
  local eps, info = lucid.grasp.epsilon(BOX_POINTS, BOX_NORMALS, 0.5)
  local eps0, info0 = lucid.grasp.epsilon(BOX_POINTS, BOX_NORMALS, 0.5, {torque_scale = 0})
  t.eq(eps0, eps)
  t.eq(info0.torque_scale, info.torque_scale)
  local far = 0
  for _, p in ipairs(BOX_POINTS) do far = math.max(far, math.sqrt(p[1]^2 + p[2]^2 + p[3]^2)) end
  t.near(info0.torque_scale, 1 / far, 1e-15)
  local _, s = lucid.grasp.wrenches(BOX_POINTS, BOX_NORMALS, 0.5, {torque_scale = 0})
  t.eq(s, info.torque_scale)
end)

t.case("lucid.grasp.epsilon rejects bad arguments by name", function()
  local function raises(pattern, ...)
    local ok, err = pcall(lucid.grasp.epsilon, ...)
    t.truthy(not ok, "expected an error")
    t.truthy(tostring(err):find("lucid.grasp.epsilon", 1, true), tostring(err))
    t.truthy(tostring(err):find(pattern, 1, true), tostring(err))
  end
  raises("unknown option 'edge'", BOX_POINTS, BOX_NORMALS, 0.5, {edge = 4})
  -- the options' rules are lucid_grasp_option_table's (lucid.options().grasp)
  raises("edges must be an integer in [3, 64] (got 2)", BOX_POINTS, BOX_NORMALS, 0.5, {edges = 2})
  raises("edges must be an integer in [3, 64] (got 65)", BOX_POINTS, BOX_NORMALS, 0.5, {edges = 65})
  raises("torque_scale must be > 0 (or 0: automatic", BOX_POINTS, BOX_NORMALS, 0.5, {torque_scale = -1})
  raises("center must have 3 entries", BOX_POINTS, BOX_NORMALS, 0.5, {center = {0, 0}})
  raises("center must be finite", BOX_POINTS, BOX_NORMALS, 0.5, {center = {0, 0, 1 / 0}})
  raises("torsion must be >= 0 (got -0.01)", BOX_POINTS, BOX_NORMALS, 0.5, {torsion = -0.01})
  raises("torsion must be a number", BOX_POINTS, BOX_NORMALS, 0.5, {torsion = "x"})
  local ok, err = pcall(lucid.grasp.wrenches, BOX_POINTS, BOX_NORMALS, 0.5, {torsion = -0.01})
  t.truthy(not ok and err:find("lucid.grasp.wrenches: torsion must be >= 0 (got -0.01)", 1, true),
           tostring(err))
  raises("4 points but 3 normals", BOX_POINTS, {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}}, 0.5)
  raises("mu must be >= 0", BOX_POINTS, BOX_NORMALS, -0.1)
  raises("mu", BOX_POINTS, BOX_NORMALS, 0 / 0)
  raises("normals[2] is zero", BOX_POINTS, {{1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {1, 0, 0}}, 0.5)
  raises("points is empty", {}, {}, 0.5)
  raises("points[1]", {{1, 0}}, {{1, 0, 0}}, 0.5)
  raises("points must be a list", "box", BOX_NORMALS, 0.5)
  raises("3 x k matrix", lucid.zeros(2, 4), BOX_NORMALS, 0.5)
end)

t.case("m:geoms() gives the collision shapes in their bodies' frames", function()
  local m = lucid.model.load("tasks/models/gripper3.xml")
  local geoms = m:geoms()
  t.eq(#geoms, 10)
  t.eq(geoms[1].body, nil) -- the palm: static
  t.eq(geoms[1].shape:kind(), "cylinder")
  local q = lucid.zeros(m.nq)
  local tips = 0
  for _, g in ipairs(geoms) do
    if g.name and g.name:match("_fingertip$") then
      tips = tips + 1
      t.eq(g.shape:kind(), "sphere")
      -- at q = 0 the fingers stand straight up on a 5 cm circle: tips at z = 0.02 + 0.07 + 0.058
      local p = (m:frame_pose(q, g.body) * g.pose):translation()
      t.near(math.sqrt(p[1] ^ 2 + p[2] ^ 2), 0.05, 1e-12)
      t.near(p[3], 0.148, 1e-12)
    end
  end
  t.eq(tips, 3)
  -- a convex-mesh geom comes back as its own copy of the hull, placed in its body's frame
  local hull = lucid.convex{{0, 0, 0}, {0.1, 0, 0}, {0, 0.1, 0}, {0, 0, 0.1}, {0.05, 0.05, 0.05}}
  local at = lucid.se3.new({1, 0, 0, 0}, {0.01, 0.02, 0.03})
  local mm = lucid.model.build{bodies = {{name = "b", mass = 1, inertia = {1, 1, 1},
    joints = {{name = "j", kind = "revolute", axis = {0, 0, 1}}},
    shapes = {{shape = hull, pose = at}}}}}
  local g = mm:geoms()[1]
  t.eq(g.body, "b")
  t.eq(g.shape:kind(), "convex")
  local A, B = g.shape:vertices(), hull:vertices()
  t.eq(A:cols(), B:cols())
  for j = 1, B:cols() do
    for i = 1, 3 do t.eq(A:get(i, j), B:get(i, j)) end
  end
  t.near((g.pose:translation() - at:translation()):norm(), 0, 1e-15)
  mm = nil -- the copy outlives the model and its own mesh
  collectgarbage()
  collectgarbage()
  t.eq(g.shape:vertices():cols(), 5)
end)

t.case("m:actuators() gives each servo's joint, dof and gains", function()
  local m = lucid.model.load("tasks/models/gripper3.xml")
  local acts = m:actuators()
  t.eq(#acts, 6)
  local joints = m:joints()
  for i, a in ipairs(acts) do
    t.eq(a.kind, "position")
    t.eq(a.kp, 5)
    t.eq(a.gear, 1)
    t.eq(a.dof, i)
    t.eq(a.coord, i)
    t.eq(a.joint, joints[i].name)
    t.eq(a.name, joints[i].name)
    t.eq(a.force_range, nil)
  end
  t.eq(acts[1].ctrl_range[1], -0.6)
  t.eq(acts[2].ctrl_range[2], 1.6)
  local motor = lucid.model.build{
    bodies = {{name = "b", mass = 1, inertia = {1, 1, 1},
               joints = {{name = "j", kind = "revolute", axis = {0, 0, 1}}}}},
    actuators = {{name = "m", joint = "j", gear = 2}}}
  local a = motor:actuators()[1]
  t.eq(a.kind, "motor")
  t.eq(a.gear, 2)
  t.eq(a.joint, "j")
end)

t.case("fingertips: every grasp of the built-in objects is in force closure (seed 1)", function()
  local out, stderr, code = run("--grasps 2 --seed 1 --json --plot " .. prefix)
  t.eq(code, 0, stderr)
  local r = json.decode(out)
  local s = r.summary
  t.eq(s.grasps, 6)
  t.eq(s.force_closure_rate, 1)
  t.truthy(s.epsilon_min > 0.005, "epsilon min " .. s.epsilon_min)
  t.truthy(s.max_fingertip_distance < 1e-3, "fingertips on the surface")
  t.truthy(s.grasps_per_second_per_core > 0)
  t.eq(#r.objects, 3)
  for _, p in pairs(r.plots) do temp_files[#temp_files + 1] = p end
  local f = io.open(r.plots.epsilon)
  t.truthy(f and f:read("a"):find("<svg", 1, true), "epsilon plot written")
  if f then f:close() end
end)

t.case("hand: the gripper's grasps are valid and hold in simulation (seed 2)", function()
  local replay = prefix .. ".replay.html"
  temp_files[#temp_files + 1] = replay
  local out, stderr, code = run("--problem hand --grasps 1 --seed 2 --json --plot '' --replay '"
                                .. replay .. "'")
  t.eq(code, 0, stderr)
  local f = io.open(replay)
  t.truthy(f and f:read("a"):find("grasp: box", 1, true), "replay page written")
  if f then f:close() end
  local s = json.decode(out).summary
  t.eq(s.grasps, 3)
  t.eq(s.valid_rate, 1)
  t.truthy(s.simulated_success_rate >= 2 / 3, "held " .. s.simulated_success_rate)
  t.truthy(s.max_penetration <= 1e-3, "penetration " .. s.max_penetration)
  -- without the squeeze the servos only hold the contact configuration: nothing presses on the
  -- object, gravity pulls it out, and the check says so
  out, stderr, code = run("--problem hand --grasps 1 --seed 2 --json --plot '' --squeeze 0")
  t.eq(code, 0, stderr)
  s = json.decode(out).summary
  t.eq(s.valid_rate, 1)
  t.eq(s.simulated_success_rate, 0)
end)

-- The task's built-in open bin (--decompose): outer 8 x 6 x 5 cm, walls and floor 1 cm. The
-- signed distance to its solid: outside the outer box, or inside the cavity (open above).
local function box_distance(p, lo, hi)
  local out, inside = 0, -math.huge
  for i = 1, 3 do
    local d = math.max(lo[i] - p[i], p[i] - hi[i])
    out, inside = out + math.max(d, 0) ^ 2, math.max(inside, d)
  end
  return math.sqrt(out) + math.min(inside, 0)
end
local function bin_distance(p)
  return math.max(box_distance(p, {-0.04, -0.03, 0}, {0.04, 0.03, 0.05}),
                  -box_distance(p, {-0.03, -0.02, 0.01}, {0.03, 0.02, 1}))
end

t.case("--decompose: fingertips touch inside the bin's cavity, on its surface, in force closure (seed 3)", function()
  local out, stderr, code = run("--decompose --grasps 4 --seed 3 --json --plot ''")
  t.eq(code, 0, stderr)
  local r = json.decode(out)
  t.eq(r.summary.force_closure_rate, 1)
  t.truthy(r.summary.max_fingertip_distance < 1e-3)
  local bin
  for _, o in ipairs(r.objects) do
    if o.object == "bin" then bin = o else t.eq(o.parts, 1, o.object .. " is convex") end
  end
  t.truthy(bin and bin.parts > 1, "the bin is decomposed")
  local inside, worst = 0, 0
  for _, g in ipairs(bin.contacts) do
    -- force closure does not depend on the torque reference: recomputed from the contacts
    t.truthy(lucid.grasp.epsilon(g.points, g.normals, 0.5, {center = {0, 0, 0.0217}}) > 0)
    for _, p in ipairs(g.points) do
      worst = math.max(worst, math.abs(bin_distance(p)))
      -- more than 1 mm inside the hull (the outer box): in the cavity
      if math.abs(p[1]) < 0.039 and math.abs(p[2]) < 0.029 and p[3] > 0.001 and p[3] < 0.049 then
        inside = inside + 1
      end
    end
  end
  t.truthy(worst < 1e-3, "contacts on the bin's own surface (worst " .. worst .. " m)")
  t.eq(inside, bin.concave_contacts, "contacts in the cavity")
  t.truthy(inside > 0, "some fingertips touch inside the cavity")
end)

t.case("--decompose --object FILE: a closed mesh's parts; an open mesh is an error", function()
  local V, F = {}, {}
  for _, z in ipairs({0, 0.05}) do -- a U channel: two walls on a floor, 8 cm long
    for _, xy in ipairs({{-0.03, 0}, {0.03, 0}, {0.03, 0.04}, {0.02, 0.04}, {0.02, 0.01},
                         {-0.02, 0.01}, {-0.02, 0.04}, {-0.03, 0.04}}) do
      V[#V + 1] = string.format("v %g %g %g", xy[1], z, xy[2])
    end
  end
  -- the profile (in x, z at y = 0 and 0.05) fanned from vertex 1 and its sides
  for _, tri in ipairs({{1, 2, 5}, {2, 3, 4}, {2, 4, 5}, {1, 5, 6}, {1, 6, 8}, {6, 7, 8}}) do
    F[#F + 1] = string.format("f %d %d %d", tri[1], tri[2], tri[3])
    F[#F + 1] = string.format("f %d %d %d", tri[1] + 8, tri[3] + 8, tri[2] + 8)
  end
  for i = 1, 8 do
    local j = i % 8 + 1
    F[#F + 1] = string.format("f %d %d %d", i, j + 8, j)
    F[#F + 1] = string.format("f %d %d %d", i, i + 8, j + 8)
  end
  local closed = temp(".channel.obj", table.concat(V, "\n") .. "\n" .. table.concat(F, "\n") .. "\n")
  local out, stderr, code = run("--decompose --object '" .. closed .. "' --grasps 1 --seed 1 --json --plot ''")
  t.eq(code, 0, stderr)
  local o = json.decode(out).objects[1]
  t.truthy(o.parts >= 3, "a U channel needs 3 parts or more (" .. o.parts .. ")")
  t.eq(o.force_closure_rate, 1)
  local open = temp(".open.obj", table.concat(V, "\n") .. "\n" .. table.concat(F, "\n", 2) .. "\n")
  local _, err
  _, err, code = run("--decompose --holes refuse --object '" .. open .. "'")
  t.eq(code, 2)
  t.truthy(err:find("cannot be decomposed", 1, true) and err:find("not closed", 1, true), err)
  -- by default its hole (the missing triangle) is closed and it is the channel again
  out, err, code = run("--decompose --object '" .. open .. "' --grasps 1 --seed 1 --json --plot ''")
  t.eq(code, 0, err)
  t.eq(json.decode(out).objects[1].parts, o.parts, "the capped channel's parts")
  -- without --decompose the open mesh is its hull, as before
  _, err, code = run("--object '" .. open .. "' --grasps 1 --plot ''")
  t.eq(code, 0, err)
end)

t.case("--help and the summary table", function()
  local out, _, code = run("--help")
  t.eq(code, 0)
  for _, word in ipairs({"usage: lucid tasks/grasp.lua", "--problem STRING", "--full", "--seed",
                         "--json", "--model STRING"}) do
    t.truthy(out:find(word, 1, true), word)
  end
  out, _, code = run("--grasps 1 --plot ''")
  t.eq(code, 0)
  t.truthy(out:find("force closure (epsilon > 0)", 1, true), out)
  t.truthy(out:find("capsule_hull", 1, true), out)
end)

t.case("bad input: unknown problems, non-mesh objects, models without actuators", function()
  local _, err, code = run("--problem juggle")
  t.eq(code, 2)
  t.truthy(err:find("--problem must be one of fingertips, hand", 1, true), err)
  local text = temp(".txt", "not a mesh\n")
  _, err, code = run("--object '" .. text .. "'")
  t.eq(code, 2)
  t.truthy(err:find("is not a convex mesh", 1, true), err)
  local flat = temp(".obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n")
  _, err, code = run("--object '" .. flat .. "'")
  t.eq(code, 2)
  t.truthy(err:find("is not a convex mesh", 1, true), err)
  _, err, code = run("--object " .. prefix .. ".missing.obj")
  t.eq(code, 2)
  t.truthy(err:find("--object names no readable file", 1, true), err)
  local passive = temp(".xml", [[<mujoco model="passive"><compiler autolimits="true"/><worldbody><body name="b">
    <joint name="j" axis="0 1 0" range="-1 1"/><geom type="sphere" size="0.01"/></body>
    </worldbody></mujoco>]])
  _, err, code = run("--problem hand --model '" .. passive .. "'")
  t.eq(code, 2)
  t.truthy(err:find("has no actuators", 1, true), err)
  local motor = temp(".motor.xml", [[<mujoco model="motor"><compiler autolimits="true"/>
    <worldbody><body name="b"><joint name="j" axis="0 1 0" range="-1 1"/>
    <geom type="sphere" size="0.01"/></body></worldbody>
    <actuator><motor name="m" joint="j"/></actuator></mujoco>]])
  _, err, code = run("--problem hand --model '" .. motor .. "'")
  t.eq(code, 2)
  t.truthy(err:find("actuator 'm' is a motor", 1, true), err)
end)
