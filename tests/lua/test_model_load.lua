-- lucid.model.load: MJCF and URDF chosen by content, the options of docs/model_files.md (package_dirs,
-- meshes, floating_base, scale, inertia) with their checks, and errors that name the function and the
-- file:line of the fault. The loaders' values are checked in C (test_mjcf_load against MuJoCo,
-- test_urdf_load); here: what Lua sees of them.
local t = require "testing"
local lucid = require "lucid"

local DATA = "tests/data/model/"
local ARM = DATA .. "urdf_arm.urdf"
local PKG = {DATA .. "packages"}

local exists = t.exists

t.case("an MJCF file: the forms model", function()
  local m = lucid.model.load(DATA .. "mjcf_forms.xml")
  -- free root (7/6), two hinges, a slide, a ball (4/3), a hinge, an included slide
  t.eq(m.nq, 7 + 1 + 1 + 1 + 4 + 1 + 1)
  t.eq(m.nv, 6 + 1 + 1 + 1 + 3 + 1 + 1)
  t.eq(m.nu, 4)
  t.eq(m.name, "forms")
  t.near(m.timestep, 0.004, 0)
  t.allnear({m.gravity[1], m.gravity[2], m.gravity[3]}, {0.1, -0.2, -9.7}, 0)
  local names = m:names("actuator")
  t.eq(names[1], "a_j1")
  t.eq(names[4], "a_j4")
end)

t.case("a URDF file: package_dirs, floating_base, joints and actuators", function()
  local m = lucid.model.load(ARM, {package_dirs = PKG})
  t.eq(m.nq, 2)
  t.eq(m.nu, 2) -- one motor per revolute/continuous joint
  t.near(m:mass(), 2.0, 1e-15) -- the base is welded to the world: not counted
  local j = m:names("joint")
  t.eq(j[1], "shoulder")
  t.eq(j[2], "elbow")
  local lo, hi = m:limits()
  t.near(lo[1], -2, 0)
  t.near(hi[1], 2, 0)
  t.truthy(hi[2] == math.huge, "continuous joint: no upper limit")
  local f = lucid.model.load(ARM, {package_dirs = PKG, floating_base = true})
  t.eq(f.nq, 9)
  t.eq(f.nv, 8)
  t.eq(f.nu, 2)
end)

t.case("scale: lengths times s, masses kept", function()
  local a = lucid.model.load(ARM, {package_dirs = PKG})
  local b = lucid.model.load(ARM, {package_dirs = PKG, scale = 2})
  t.near(b:mass(), a:mass(), 0)
  local q = {0.3, -0.4}
  local pa, pb = a:frame_pose(q, "tool"), b:frame_pose(q, "tool")
  local ta, tb = pa:translation(), pb:translation()
  for i = 1, 3 do t.near(tb[i], 2 * ta[i], 1e-15) end
end)

t.case("meshes: an unreadable mesh is an error naming file and line, or skipped", function()
  t.raises("lucid.model.load: " .. ARM .. ":10: cannot load mesh", lucid.model.load, ARM)
  local m = lucid.model.load(ARM, {meshes = "skip"})
  t.eq(m.nq, 2)
  t.eq(lucid.model.load(ARM, {meshes = "load", package_dirs = PKG}).nq, 2)
end)

t.case("option checking", function()
  local F = "lucid.model.load: "
  t.raises(F .. "unknown option 'bogus'", lucid.model.load, ARM, {bogus = 1})
  t.raises(F .. "unknown option 'Scale'", lucid.model.load, ARM, {Scale = 1})
  t.raises(F .. "options must be a table (got string)", lucid.model.load, ARM, "skip")
  t.raises(F .. "path must be a string (got no value)", lucid.model.load)
  t.raises(F .. "path must be a string (got table)", lucid.model.load, {})
  t.raises(F .. "package_dirs must be a list of strings (got string)", lucid.model.load, ARM,
           {package_dirs = "x"})
  t.raises(F .. "package_dirs[2] must be a string (got number)", lucid.model.load, ARM,
           {package_dirs = {"a", 3}})
  t.raises(F .. 'meshes must be "load", "skip" or "decompose" (got maybe)', lucid.model.load,
           ARM, {meshes = "maybe"})
  t.raises(F .. 'meshes must be "load", "skip" or "decompose" (got boolean)', lucid.model.load,
           ARM, {meshes = true})
  t.raises(F .. "floating_base must be a boolean (got number)", lucid.model.load, ARM,
           {floating_base = 1})
  t.raises(F .. "scale", lucid.model.load, ARM, {scale = 0, package_dirs = PKG})
  t.raises(F .. "scale", lucid.model.load, ARM, {scale = -1, package_dirs = PKG})
  t.raises(F .. "scale", lucid.model.load, ARM, {scale = 0 / 0, package_dirs = PKG})
  t.raises(F .. "scale", lucid.model.load, ARM, {scale = "2", package_dirs = PKG})
end)

t.case("file errors name the function, the file and the line", function()
  local F = "lucid.model.load: "
  t.raises(F .. DATA .. "no_such.urdf: cannot read the file", lucid.model.load,
           DATA .. "no_such.urdf")
  t.raises(F .. DATA .. "bad_urdf_cycle.urdf:3: link 'b' is not connected", lucid.model.load,
           DATA .. "bad_urdf_cycle.urdf")
  t.raises(F .. DATA .. "bad_mjcf_tendon.xml:9: <site>: unknown site 'a'",
           lucid.model.load, DATA .. "bad_mjcf_tendon.xml")
  -- read fine, refused by the compiler (a massless leaf on a moving joint), still named
  t.raises("lucid.model.load_string: leaf.urdf:4: joint 'j': moves no mass",
           lucid.model.load_string,
           '<robot name="r">\n<link name="a"/>\n<link name="b"/>\n' ..
           '<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>\n</robot>\n',
           {name = "leaf.urdf"})
end)

t.case("URDF noise: inertia repaired or refused (strict), friction and mimic stored", function()
  local F = "lucid.model.load: "
  local noise = DATA .. "urdf_noise.urdf"
  local m = lucid.model.load(noise, {inertia = "repair"})
  local joints = {}
  for _, j in ipairs(m:joints()) do joints[j.name] = j end
  t.eq(joints.hip.frictionloss, 0.3)
  t.eq(joints.yaw.frictionloss, 0)
  t.eq(joints.knee.mimic.joint, "hip")
  t.eq(joints.knee.mimic.multiplier, -2)
  t.eq(joints.knee.mimic.offset, 0.1)
  t.truthy(joints.hip.mimic == nil)
  t.raises(F .. noise .. ":16: <inertia>: not positive definite", lucid.model.load, noise,
           {inertia = "strict"})
  -- the warnings reach stderr, each naming file:line (the C tests check every one's text)
  local script = os.tmpname() .. ".lua"
  local f = assert(io.open(script, "w"))
  f:write(string.format("lucid.model.load(%q)\n", noise))
  f:close()
  local pipe = assert(io.popen(arg[-1] .. " " .. script .. " 2>&1"))
  local out = pipe:read("a")
  pipe:close()
  os.remove(script)
  t.truthy(not out:find("dry friction", 1, true), out) -- simulated by the world: no warning
  t.truthy(out:find("lucid: " .. noise .. ":16: warning: <inertia>: not positive definite", 1, true), out)
  local _, lines = out:gsub("\n", "")
  t.eq(lines, 6, out) -- the mimic and the dry friction are simulated: no warning
  t.raises(F .. 'inertia must be "repair" or "strict" (got loose)', lucid.model.load, noise,
           {inertia = "loose"})
  t.raises(F .. 'inertia must be "repair" or "strict" (got boolean)', lucid.model.load, noise,
           {inertia = true})
end)

-- Loads MJCF text: true and the model, or false and the message (naming "<string>").
local function load_text(text)
  return pcall(lucid.model.load_string, text)
end

t.case("issue 38: magnitudes and nesting are refused in lucid's words, with file and line", function()
  -- a pos beyond the range of geometry is named where it is read, not as a singular matrix
  for _, el in ipairs({'<body pos="1e300 0 0"><joint type="free"/><geom size="1"/></body>',
                       '<body><joint type="hinge" pos="0 -1e41 0"/><geom size="1"/></body>',
                       '<body><joint type="free"/><geom size="1" pos="0 0 2e40"/></body>'}) do
    local ok, err = load_text("<mujoco>\n<worldbody>\n" .. el .. "\n</worldbody>\n</mujoco>\n")
    t.truthy(not ok, "refused: " .. el)
    t.truthy(err:find("<string>:3: <", 1, true) and err:find("pos: ", 1, true) and
             err:find("beyond the representable range of geometry", 1, true), err)
  end
  t.truthy(load_text('<mujoco><worldbody><body pos="1e3 0 0"><joint type="free"/><geom size="1"/></body></worldbody></mujoco>'),
           "a pos in range is read")
  -- nesting: 255 levels of bodies are read, one more is refused with the limit named
  local function nested(n)
    return "<mujoco><worldbody>" .. string.rep("<body>", n) .. string.rep("</body>", n) ..
           "</worldbody></mujoco>"
  end
  t.truthy(load_text(nested(255)), "255 nested bodies")
  local ok, err = load_text(nested(256))
  t.truthy(not ok and err:find("elements are nested more than 257 deep, the most lucid reads", 1, true)
           and not err:find("XML_PARSE_HUGE", 1, true), tostring(err))
end)

t.case("MuJoCo's humanoid and the shared robots", function()
  local humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml"
  if not exists(humanoid) then t.skip(humanoid .. " missing (Debian libmujoco-samples)") end
  local m = lucid.model.load(humanoid)
  t.eq(m.nq, 28)
  t.eq(m.nv, 27)
  t.eq(m.nu, 21)
  local shared = os.getenv("LUCID_SHARED_DIR") or "../shared"
  local allegro = shared .. "/data/robots/allegro_right_hand.xml"
  if not exists(allegro) then t.skip(allegro .. " missing (../shared absent)") end
  local a = lucid.model.load(allegro)
  t.eq(a.nq, 16)
  t.eq(a.nu, 16)
  local u = lucid.model.load(shared .. "/data/robots/ur5.urdf", {meshes = "skip"})
  t.eq(u.nq, 6)
  t.eq(u.nu, 6)
  local c = lucid.model.load(shared .. "/data/robots/allegro_cube.xml")
  t.eq(c.nq, 23)
  t.eq(c.nv, 22)
end)



t.case("m.filter_parent: MuJoCo's parent filter for MJCF, adjacency for URDF", function()
  local m = lucid.model.load(DATA .. "mjcf_filter.xml")
  t.eq(m.filter_parent, "parent")
  t.eq(lucid.model.load(DATA .. "mjcf_filter_noparent.xml").filter_parent, "none")
  t.eq(lucid.model.load(ARM, {package_dirs = PKG}).filter_parent, "adjacent")
  -- arm, hinged to the world, lies through the worldbody's pillar: MuJoCo's rule collides them
  local w = lucid.world{dt = 0.001}
  w:add_model(m)
  w:step() -- the step's contacts
  local names, found = {}, false
  for i, g in ipairs(m:geoms()) do names[i] = g.name end
  for _, c in ipairs(w:contacts()) do
    local a, b = names[c.geom1], names[c.geom2]
    found = found or (a == "arm_geom" and b == "pillar") or (a == "pillar" and b == "arm_geom")
  end
  t.truthy(found, "arm_geom and pillar are not in contact")
end)

t.case("<option collision>: all, predefined and dynamic read (m.collision); others refused", function()
  local body = '<worldbody><body><joint type="free"/><geom size="1"/></body></worldbody>'
  t.eq(select(2, load_text('<mujoco>' .. body .. '</mujoco>')).collision, "all")
  for _, v in ipairs({"all", "predefined", "dynamic"}) do
    local ok, m = load_text('<mujoco><option collision="' .. v .. '"/>' .. body .. '</mujoco>')
    t.truthy(ok, m)
    t.eq(m.collision, v)
  end
  local ok, err = load_text('<mujoco><option collision="pairs"/>' .. body .. '</mujoco>')
  t.truthy(not ok and err:find("'pairs' is not all, predefined or dynamic", 1, true), err)
  ok, err = load_text('<mujoco><contact><pair geom1="a" geom2="b"/></contact>' .. body .. '</mujoco>')
  t.truthy(not ok and err:find("<pair>: unknown geom 'a'", 1, true), err)
end)

t.case("<contact><pair>: m:pairs() and the world's contacts take the pair's parameters", function()
  local m = lucid.model.load(DATA .. "mjcf_pair_all.xml")
  local names = {}
  for i, g in ipairs(m:geoms()) do names[i] = g.name end
  local pairs_ = {}
  for _, p in ipairs(m:pairs()) do
    local a, b = names[p.geom1], names[p.geom2]
    pairs_[a < b and a .. "|" .. b or b .. "|" .. a] = p
  end
  t.eq(#m:pairs(), 4) -- the welded pair palm-lower is skipped with a warning
  local ghost = pairs_["floor|ghost"]
  t.eq(ghost.name, "ghost")
  t.eq(ghost.condim, 6)
  t.eq(ghost.friction, 0.8)
  t.eq(ghost.torsion, 0.01)
  t.eq(ghost.rolling, 0.003)
  t.eq(ghost.margin, 0.005)
  t.eq(ghost.gap, 0.001)
  t.eq(pairs_["cube1|cube2"].condim, 4) -- class grip
  t.eq(pairs_["cube1|cube2"].friction, 0.4)
  t.eq(pairs_["cube1|cube2"].torsion, 0.02) -- main's third number under grip's two
  t.eq(pairs_["lower|upper"].condim, 1)
  local w = lucid.world{dt = 0.001, margin = 0}
  w:add_model(m)
  w:step()
  local seen = {}
  for _, c in ipairs(w:contacts()) do
    if c.geom1 and c.geom2 then
      local a, b = names[c.geom1], names[c.geom2]
      local key = a < b and a .. "|" .. b or b .. "|" .. a
      seen[key] = seen[key] or {friction = c.friction, n = 0}
      seen[key].n = seen[key].n + 1
    end
  end
  t.truthy(seen["lower|upper"], "the parent filter's pair under <pair> makes no contact")
  t.eq(seen["lower|upper"].friction, 0) -- condim 1
  t.eq(seen["ball|floor"].friction, 0.3) -- the pair's, not the geoms' 1
  t.eq(seen["ball|floor"].n, 1) -- once, not once per rule
  t.eq(seen["crate|floor"].friction, 1) -- no pair: the geoms' mix
end)
