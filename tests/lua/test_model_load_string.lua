-- lucid.model.load_string: a model from its MJCF or URDF text is the model its file gives (every
-- body, joint, geom, mass matrix and a few world steps bit for bit), relative <include>s, meshes
-- and height field images resolve against base_dir, and errors read `name:line: reason`.
local t = require "testing"
local lucid = require "lucid"

local DATA = "tests/data/model/"
local F = "lucid.model.load_string: "

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- Two lists (or vectors, or matrix rows) equal element by element, bit for bit.
local function same_list(a, b, what)
  t.eq(#a, #b, what .. ": length")
  for i = 1, #a do t.truthy(a[i] == b[i], string.format("%s[%d]: %s ~= %s", what, i, a[i], b[i])) end
end

local function same_matrix(a, b, what)
  t.eq(a:rows(), b:rows(), what .. ": rows")
  t.eq(a:cols(), b:cols(), what .. ": cols")
  for i = 1, a:rows() do
    for j = 1, a:cols() do
      t.truthy(a:get(i, j) == b:get(i, j), string.format("%s(%d, %d)", what, i, j))
    end
  end
end

-- Every public quantity of the two models equal: sizes, names, joints, limits, masses, the mass
-- matrix at a random configuration, each geom's placement, masks, shape and its extent.
local function same_model(a, b)
  for _, k in ipairs{"nq", "nv", "nu", "na", "nbodies", "njoints", "nframes", "nmocap", "name",
                     "timestep", "filter_parent", "collision"} do
    t.truthy(a[k] == b[k], k)
  end
  same_list(a.gravity, b.gravity, "gravity")
  for _, kind in ipairs{"body", "joint", "frame", "actuator", "tendon"} do
    same_list(a:names(kind), b:names(kind), kind .. " names")
  end
  local ja, jb = a:joints(), b:joints()
  t.eq(#ja, #jb, "joints")
  for i = 1, #ja do
    for _, k in ipairs{"name", "kind", "parent", "body", "idx_q", "idx_v", "nq", "nv",
                       "frictionloss"} do
      t.truthy(ja[i][k] == jb[i][k], "joint " .. i .. " " .. k)
    end
  end
  t.truthy(a:mass() == b:mass(), "mass")
  local la, ua, va, ea = a:limits()
  local lb, ub, vb, eb = b:limits()
  same_list(la, lb, "lower")
  same_list(ua, ub, "upper")
  same_list(va, vb, "velocity")
  same_list(ea, eb, "effort")
  local q = a:random_configuration(lucid.rng(3))
  same_matrix(lucid.dynamics.crba(a, q), lucid.dynamics.crba(b, q), "M(q)")
  local ga, gb = a:geoms(), b:geoms()
  t.eq(#ga, #gb, "geoms")
  for i = 1, #ga do
    local x, y = ga[i], gb[i]
    for _, k in ipairs{"body", "name", "contype", "conaffinity"} do
      t.truthy(x[k] == y[k], "geom " .. i .. " " .. k)
    end
    same_matrix(x.pose:matrix(), y.pose:matrix(), "geom " .. i .. " pose")
    t.eq(x.shape:kind(), y.shape:kind(), "geom " .. i .. " kind")
    local lo1, hi1 = x.shape:aabb()
    local lo2, hi2 = y.shape:aabb()
    same_list(lo1, lo2, "geom " .. i .. " aabb lo")
    same_list(hi1, hi2, "geom " .. i .. " aabb hi")
    if x.shape:kind() == "convex" then
      same_matrix(x.shape:vertices(), y.shape:vertices(), "geom " .. i .. " vertices")
    end
  end
end

-- The state after n steps of a world holding the model at q.
local function rollout(m, q, n)
  local w = lucid.world{dt = 2e-3, gravity = {0, 0, -9.81}}
  w:add_model(m, {q = q})
  w:step(n)
  return w:state()
end

t.case("MJCF: an <include> and meshes under meshdir resolve against base_dir", function()
  for _, file in ipairs{"mjcf_forms.xml", "mjcf_mesh.xml", "hfield_slope_png.xml"} do
    local path = DATA .. file
    local from_file = lucid.model.load(path)
    local from_text = lucid.model.load_string(read(path), {base_dir = DATA})
    same_model(from_file, from_text)
    local q = from_file:random_configuration(lucid.rng(7))
    same_list(rollout(from_file, q, 10), rollout(from_text, q, 10), file .. ": state")
  end
end)

t.case("MJCF: the options of lucid.model.load apply alike (scale, decompose)", function()
  local path = DATA .. "mjcf_mesh.xml"
  local o = {scale = 2, meshes = "decompose", decompose = {max_parts = 4}}
  local from_file = lucid.model.load(path, o)
  o.base_dir = DATA
  same_model(from_file, lucid.model.load_string(read(path), o))
end)

t.case("URDF: package_dirs, floating_base and a relative mesh", function()
  local path = DATA .. "urdf_arm.urdf"
  local o = {package_dirs = {DATA .. "packages"}, floating_base = true}
  local from_file = lucid.model.load(path, o)
  local text = read(path)
  local from_text = lucid.model.load_string(text, o)
  same_model(from_file, from_text)
  local q = from_file:random_configuration(lucid.rng(5))
  same_list(rollout(from_file, q, 10), rollout(from_text, q, 10), "urdf_arm state")
  -- the same mesh named relative to base_dir instead of through its package
  local rel = text:gsub("package://forms_description/", "packages/forms_description/")
  t.truthy(rel ~= text)
  same_model(from_file, lucid.model.load_string(rel, {base_dir = DATA, floating_base = true}))
  same_model(from_file, lucid.model.load_string(rel, {base_dir = DATA:sub(1, -2),
                                                      floating_base = true}))
end)

t.case("base_dir defaults to the current directory; name only names", function()
  local text = read(DATA .. "mjcf_forms.xml")
  -- the include is looked for beside the current directory, and its line named
  t.raises(F .. "<string>:49: cannot read 'mjcf_forms_part.xml'", lucid.model.load_string, text)
  t.raises(F .. DATA .. "mjcf_forms.xml:49: cannot read 'mjcf_forms_part.xml'",
           lucid.model.load_string, text, {name = DATA .. "mjcf_forms.xml"})
  -- a path relative to the current directory resolves without base_dir
  local here = text:gsub('file="mjcf_forms_part.xml"', 'file="' .. DATA .. 'mjcf_forms_part.xml"')
  same_model(lucid.model.load(DATA .. "mjcf_forms.xml"), lucid.model.load_string(here))
  -- an error inside the included file names that file and its line
  t.raises(F .. DATA .. "bad_mjcf_include_missing.xml", lucid.model.load_string,
           '<mujoco>\n<include file="bad_mjcf_include_missing.xml"/>\n</mujoco>',
           {base_dir = DATA})
end)

t.case("errors read name:line: reason", function()
  local bad = "<mujoco>\n<worldbody>\n<body>\n<geom type=\"sphere\" size=\"-1\"/>\n" ..
              "</body>\n</worldbody>\n</mujoco>\n"
  t.raises(F .. "<string>:4: <geom>", lucid.model.load_string, bad)
  t.raises(F .. "arm.xml:4: <geom>", lucid.model.load_string, bad, {name = "arm.xml"})
  -- the same text from a file gives the same message with the file's name
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(bad)
  f:close()
  local ok, from_file = pcall(lucid.model.load, path)
  os.remove(path)
  t.truthy(not ok)
  local ok2, from_text = pcall(lucid.model.load_string, bad, {name = path})
  t.truthy(not ok2)
  t.eq(from_text:gsub("^" .. F, ""), (from_file:gsub("^lucid.model.load: ", "")))
  -- malformed XML: the parser's reason at its line
  t.raises(F .. "<string>:3: XML error: ", lucid.model.load_string,
           "<mujoco>\n<worldbody>\n<geom size=0.1/>\n</worldbody>\n</mujoco>\n")
  t.raises(F .. "<string>:6: XML error: ", lucid.model.load_string,
           "<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>\n")
  t.raises(F .. "<string>:1: XML error: ", lucid.model.load_string, "")
  t.raises(F .. "<string>:1: XML error: ", lucid.model.load_string, "not xml at all")
  t.raises(F .. "<string>:1: the root element <model> is neither <mujoco> (MJCF) nor <robot> (URDF)",
           lucid.model.load_string, "<model/>")
  -- read fine, refused by the compiler, still named: tests/lua/test_model_load.lua
end)

t.case("format: chosen by the root element, or insisted on", function()
  local mjcf = "<mujoco><worldbody><body><joint/><geom size=\"0.1\"/></body></worldbody></mujoco>"
  local urdf = '<robot name="r"><link name="a"/><link name="b"><inertial><mass value="1"/>' ..
               '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>' ..
               '<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint></robot>'
  t.eq(lucid.model.load_string(mjcf).nq, 1)
  t.eq(lucid.model.load_string(mjcf, {format = "mjcf"}).nq, 1)
  t.eq(lucid.model.load_string(urdf).nq, 1)
  t.eq(lucid.model.load_string(urdf, {format = "urdf"}).nq, 1)
  t.raises(F .. "<string>:1: the root element is not <robot>", lucid.model.load_string, mjcf,
           {format = "urdf"})
  t.raises(F .. "<string>:1: the root element is not <mujoco>", lucid.model.load_string, urdf,
           {format = "mjcf"})
end)

t.case("bad arguments and options name the function", function()
  local mjcf = "<mujoco/>"
  t.raises(F .. "text must be a string (got no value)", lucid.model.load_string)
  t.raises(F .. "text must be a string (got number)", lucid.model.load_string, 3)
  t.raises(F .. "options must be a table (got string)", lucid.model.load_string, mjcf, "x")
  t.raises(F .. "unknown option 'path'", lucid.model.load_string, mjcf, {path = "x"})
  t.raises(F .. 'format must be "mjcf" or "urdf" (got sdf)', lucid.model.load_string, mjcf,
           {format = "sdf"})
  t.raises(F .. "name must be a string (got number)", lucid.model.load_string, mjcf, {name = 1})
  t.raises(F .. "base_dir must be a string (got boolean)", lucid.model.load_string, mjcf,
           {base_dir = true})
  t.raises(F .. "scale", lucid.model.load_string, mjcf, {scale = 0})
  t.raises(F .. 'meshes must be "load", "skip" or "decompose" (got x)', lucid.model.load_string,
           mjcf, {meshes = "x"})
  -- the file loader takes none of the string loader's own options
  t.raises("lucid.model.load: unknown option 'base_dir'", lucid.model.load,
           DATA .. "mjcf_forms.xml", {base_dir = DATA})
end)
