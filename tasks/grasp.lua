-- Grasp synthesis on real objects (issue 12, part 2).
--
-- --problem fingertips: k = 3 or 4 spherical fingertips (radius 1 cm) placed on a convex
-- object by Gauss-Newton (lucid.optim.gauss_newton) on a differentiable force-closure
-- objective. Unknowns per finger i: the fingertip centre c_i (object frame) and its contact
-- force f_i = lambda_i n_i + beta_i1 t1_i + beta_i2 t2_i, where p_i, n_i are the witness point
-- on the object and the normal (into the object) of lucid.distance(fingertip, c_i, object),
-- differentiated through lucid.ad (finite-difference collision derivatives: the sphere-polytope
-- normal is continuous, piecewise smooth). Residuals:
--   touch      d_i / (0.01 rho)                    fingertips on the surface
--   balance    sum_i f_i,  sum_i (p_i - com) x f_i / rho   internal forces in equilibrium
--   cone       max(0, |beta_i| - 0.7 mu lambda_i)   strictly inside the friction cone
--   normal     max(0, 0.2 - lambda_i),  sum_i lambda_i - k   non-trivial forces
--   spread     max(0, 0.5 rho - |c_i - c_j|)        fingertips apart
-- (rho: the object's radius about its centre of mass). A zero residual is a certificate of
-- force closure: contact forces strictly inside the friction cones balance each other, and
-- three or more non-collinear point contacts with friction span every wrench (Murray, Li and
-- Sastry, Prop. 5.2) -- DexGraspNet's ||G c|| energy with the forces as unknowns, which a polytope's
-- few normal directions need. Each grasp is then scored by the Ferrari-Canny epsilon computed
-- exactly (lucid.grasp.epsilon: qhull hull of the 6-D wrench space, mu-cones linearised with 8
-- edges, torques about the centre of mass times 1/rho), independently of the objective.
-- A grasp whose epsilon is 0 is restarted from a new random start (--restarts).
--
-- --problem hand: see the hand section below.
--
-- Objects: --objects builtin (a box, a capsule hull and an ellipsoid hull, built here) or
-- meshes (the hulls of the shared meshes, LUCID_MESHES_DIR or <repo>/../shared/data/meshes,
-- each scaled so its largest extent is uniform in [5, 15] cm); --object FILE for one mesh file.
-- --decompose: each mesh is its convex parts (lucid.mesh.decompose; --objects builtin adds an
-- open bin built here), so fingertips and links may touch inside a concavity. The distance to
-- the object is then the least over its parts, with the nearest part's witness and normal
-- (the nearest point of a union is on its boundary); the mass, the centre of mass and the
-- simulated body are the parts' composite; epsilon is unchanged (points and normals).
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"
local stats = require "lucid.stats"

local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."

local t = task.new{
  name = "grasp",
  summary = "Grasp synthesis: fingertips or a hand on convex objects by Gauss-Newton on a "
    .. "force-closure objective; exact Ferrari-Canny epsilon; hand grasps checked in simulation.",
  options = {
    {name = "problem", kind = "string", default = "fingertips", choices = {"fingertips", "hand"},
     help = "fingertips on an object, or a hand model (--model)"},
    {name = "objects", kind = "string", default = "builtin", choices = {"builtin", "meshes"},
     help = "'builtin' (box, capsule and ellipsoid hulls) or 'meshes' (the shared meshes)"},
    {name = "object", kind = "string", default = "", file = true,
     help = "one mesh file (OBJ/STL, its convex hull) instead of --objects"},
    {name = "full", kind = "flag", help = "benchmark size: every shared mesh, 10 grasps each"},
    {name = "decompose", kind = "flag",
     help = "objects as their convex parts (lucid.mesh.decompose), not their hulls; --objects "
       .. "builtin adds an open bin"},
    {name = "max-parts", kind = "integer", default = 64, min = 1, max = 1048576,
     help = "--decompose: most parts per object"},
    {name = "concavity", kind = "number", default = 0.01, positive = true, max = 100,
     help = "--decompose: stop once the parts' volume is within this fraction of the mesh's"},
    {name = "holes", kind = "string", default = "close", choices = {"close", "refuse"},
     help = "--decompose: an open mesh's holes are capped first, or it is not decomposed"},
    {name = "grasps", kind = "integer", default = 3, min = 1, max = 10000,
     help = "grasps per object"},
    {name = "fingers", kind = "integer", default = 3, min = 3, max = 4,
     help = "fingertips (fingertips problem)"},
    {name = "mu", kind = "number", default = 0.5, positive = true, max = 10,
     help = "friction coefficient"},
    {name = "edges", kind = "integer", default = 8, min = 3, max = 64,
     help = "edges of each linearised friction cone (epsilon)"},
    {name = "torsion", kind = "number", default = 0, min = 0, max = 1,
     help = "soft-finger torsional friction of the fingertips in epsilon (m; 0: point contacts)"},
    {name = "iterations", kind = "integer", default = 60, min = 1,
     help = "Gauss-Newton iterations per attempt"},
    {name = "restarts", kind = "integer", default = 4, min = 0,
     help = "new random starts for a grasp whose epsilon is 0"},
    {name = "model", kind = "string", default = here .. "/models/gripper3.xml", file = true,
     help = "hand model (hand problem): MJCF with position servos"},
    {name = "squeeze", kind = "number", default = 1, min = 0, max = 100,
     help = "factor on the hand's squeeze (the servo offsets that apply the synthesised forces; 0: "
       .. "servos hold the contact configuration only)"},
    task.replay_option("the first hand grasp: closing, then 1 s with the object's weight along -z"),
    {name = "verbose", kind = "flag",
     help = "print each attempt's stop reason and each simulated displacement on stderr"},
    {name = "plot", kind = "string", default = "out/grasp",
     help = "prefix of the SVG plots ('' for none)"},
  },
}
local opts = t:parse(arg)
local rng = t.rng

-- ---- objects ------------------------------------------------------------------------------

local function exists(path)
  local f = io.open(path, "r")
  if f then f:close() end
  return f ~= nil
end

local function fail(message)
  io.stderr:write("grasp: ", message, "\n")
  os.exit(2)
end

local function meshes_dir()
  local root = here .. "/.."
  local candidates = {root .. "/../shared/data/meshes", root .. "/../../shared/data/meshes"}
  local shared = os.getenv("LUCID_SHARED_DIR")
  if shared and shared ~= "" then table.insert(candidates, 1, shared .. "/data/meshes") end
  local env = os.getenv("LUCID_MESHES_DIR")
  if env and env ~= "" then table.insert(candidates, 1, env) end
  for _, dir in ipairs(candidates) do
    if exists(dir .. "/manifest.tsv") then return dir end
  end
  fail("no shared meshes (set LUCID_MESHES_DIR to the folder holding manifest.tsv, or "
       .. "LUCID_SHARED_DIR)")
end

local function mesh_files(dir)
  local files, first = {}, true
  for line in io.lines(dir .. "/manifest.tsv") do
    if not first and line ~= "" then files[#files + 1] = line:match("^([^\t]+)") end
    first = false
  end
  return files
end

local function decompose_options(scale)
  return {max_parts = opts["max-parts"], concavity = opts.concavity, holes = opts.holes,
          scale = scale}
end

-- The convex parts of a mesh (a file or a {vertices=, triangles=} table; an open one's holes
-- closed unless --holes refuse) as shapes, or
-- nil and the reason; one part is no decomposition (nil, nil).
local function decomposed(mesh, scale)
  local ok, parts = pcall(lucid.mesh.decompose, mesh, decompose_options(scale))
  if not ok then return nil, tostring(parts) end
  if #parts == 1 then return nil end
  local shapes = {}
  for i, p in ipairs(parts) do shapes[i] = p.shape end
  return shapes
end

-- The hull of a mesh file scaled so its largest extent is uniform in [5, 15] cm; a file that
-- is not a readable OBJ/STL mesh (or whose hull is flat) is an error naming it. With
-- --decompose also its parts: a mesh that cannot be decomposed is an error for --object, else
-- (strict false) its hull, with a warning.
local function scaled_mesh(path, strict)
  if not path:lower():match("%.obj$") and not path:lower():match("%.stl$") then
    fail(string.format("object '%s' is not a convex mesh: expected an .obj or .stl file", path))
  end
  local ok, raw = pcall(lucid.load_mesh, path)
  if not ok then fail(string.format("object '%s' is not a convex mesh: %s", path, tostring(raw))) end
  local lo, hi = raw:aabb()
  local extent = math.max(hi[1] - lo[1], hi[2] - lo[2], hi[3] - lo[3])
  local scale = rng:uniform(0.05, 0.15) / extent
  local hull = lucid.load_mesh(path, {scale = scale})
  if not opts.decompose then return hull end
  local parts, why = decomposed(path, scale)
  if why and strict then fail(string.format("object '%s' cannot be decomposed: %s", path, why)) end
  if why then io.stderr:write(string.format("grasp: %s: its hull (not decomposed: %s)\n", path, why)) end
  return hull, parts
end

-- Points on a surface of revolution-like shape, for the built-in hulls.
local function fibonacci(n, f)
  local pts = {}
  for i = 0, n - 1 do
    local z = 1 - 2 * (i + 0.5) / n
    local r, phi = math.sqrt(1 - z * z), i * math.pi * (3 - math.sqrt(5))
    pts[#pts + 1] = f(r * math.cos(phi), r * math.sin(phi), z)
  end
  return pts
end

-- An open bin (--decompose): outer half-extents ax x ay, height h, walls and floor t thick,
-- its cavity open at the top (z = h); a closed triangle mesh facing outwards.
local function open_bin(ax, ay, h, t)
  local V, F = {}, {}
  local function ring(x, y, z) -- counter-clockwise seen from +z
    local first = #V
    for _, s in ipairs({{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}) do V[#V + 1] = {s[1] * x, s[2] * y, z} end
    return first
  end
  local ob, ot = ring(ax, ay, 0), ring(ax, ay, h)
  local it, ib = ring(ax - t, ay - t, h), ring(ax - t, ay - t, t)
  V[#V + 1] = {0, 0, 0}
  local cb = #V
  V[#V + 1] = {0, 0, t}
  local ci = #V
  for i = 0, 3 do
    local j = (i + 1) % 4
    local o0, o1, t0, t1 = ob + i + 1, ob + j + 1, ot + i + 1, ot + j + 1
    local i0, i1, b0, b1 = it + i + 1, it + j + 1, ib + i + 1, ib + j + 1
    for _, tri in ipairs({{o0, o1, t1}, {o0, t1, t0}, {t0, t1, i1}, {t0, i1, i0}, {i0, i1, b1},
                          {i0, b1, b0}, {b0, b1, ci}, {o1, o0, cb}}) do
      F[#F + 1] = tri -- outer wall, rim, inner wall, cavity floor, bottom
    end
  end
  return {vertices = V, triangles = F}
end

local function builtin_objects()
  local box = {}
  for _, sx in ipairs({-1, 1}) do
    for _, sy in ipairs({-1, 1}) do
      for _, sz in ipairs({-1, 1}) do box[#box + 1] = {0.04 * sx, 0.025 * sy, 0.02 * sz} end
    end
  end
  local capsule = fibonacci(160, function(x, y, z)
    return {0.025 * x, 0.025 * y, 0.025 * z + (z >= 0 and 0.035 or -0.035)}
  end)
  local ellipsoid = fibonacci(160, function(x, y, z) return {0.055 * x, 0.035 * y, 0.025 * z} end)
  local list = {{name = "box", shape = lucid.convex(box)},
                {name = "capsule_hull", shape = lucid.convex(capsule)},
                {name = "ellipsoid_hull", shape = lucid.convex(ellipsoid)}}
  if opts.decompose then
    local bin = open_bin(0.04, 0.03, 0.05, 0.01)
    local parts, why = decomposed(bin, 1)
    if not parts then fail("the built-in bin cannot be decomposed: " .. tostring(why)) end
    list[#list + 1] = {name = "bin", shape = lucid.convex(bin.vertices), parts = parts}
  end
  return list
end

-- Centre of mass (uniform density) and radius about it of a convex hull: tetrahedra from a
-- vertex to each fan triangle of each face.
local function mass_properties(shape)
  local V = shape:vertices()
  local function vertex(i) return lucid.vec{V:get(1, i), V:get(2, i), V:get(3, i)} end
  local o = vertex(1)
  local volume, moment = 0, lucid.vec{0, 0, 0}
  for _, f in ipairs(shape:faces()) do
    local ids = f.vertices
    for k = 2, #ids - 1 do
      local a, b, c = vertex(ids[1]) - o, vertex(ids[k]) - o, vertex(ids[k + 1]) - o
      local v = (a[1] * (b[2] * c[3] - b[3] * c[2]) - a[2] * (b[1] * c[3] - b[3] * c[1])
                 + a[3] * (b[1] * c[2] - b[2] * c[1])) / 6
      volume = volume + v
      moment = moment + (a + b + c) * (v / 4)
    end
  end
  local com = o + moment / volume
  local radius = 0
  for i = 1, V:cols() do radius = math.max(radius, (vertex(i) - com):norm()) end
  return com, math.abs(volume), radius
end

-- The centre of mass and volume of an object (its parts' composite when decomposed) and its
-- radius about that centre (the hull's farthest vertex).
local function object_mass_properties(o)
  local com, volume = mass_properties(o.shape)
  if o.parts then
    local moment = lucid.vec{0, 0, 0}
    volume = 0
    for _, p in ipairs(o.parts) do
      local c, v = mass_properties(p)
      volume, moment = volume + v, moment + c * v
    end
    com = moment / volume
  end
  local V, radius = o.shape:vertices(), 0
  for i = 1, V:cols() do
    radius = math.max(radius, (lucid.vec{V:get(1, i), V:get(2, i), V:get(3, i)} - com):norm())
  end
  return com, volume, radius
end

local function load_objects()
  local list
  if opts.object ~= "" then
    if not exists(opts.object) then fail(string.format("object '%s': no such file", opts.object)) end
    local shape, parts = scaled_mesh(opts.object, true)
    list = {{name = opts.object:match("([^/]*)$"), shape = shape, parts = parts}}
  elseif opts.objects == "meshes" or opts.full then
    local dir = meshes_dir()
    list = {}
    for _, file in ipairs(mesh_files(dir)) do
      local shape, parts = scaled_mesh(dir .. "/" .. file, false)
      list[#list + 1] = {name = file:match("([^/]*)%.%w+$"), shape = shape, parts = parts}
    end
  else
    list = builtin_objects()
  end
  for _, o in ipairs(list) do
    if o.shape:kind() ~= "convex" then
      fail(string.format("object '%s' is not a convex mesh (%s)", o.name, o.shape:kind()))
    end
    o.com, o.volume, o.radius = object_mass_properties(o)
    -- the simulated body: the parts as a composite, else the hull
    o.body_shape = o.shape
    if o.parts then
      o.body_shape = {}
      for i, p in ipairs(o.parts) do o.body_shape[i] = {shape = p} end
    end
    local lo, hi = o.shape:aabb()
    o.extent = math.max(hi[1] - lo[1], hi[2] - lo[2], hi[3] - lo[3])
  end
  return list
end

-- ---- fingertips -----------------------------------------------------------------------------

local TIP_RADIUS = 0.01
local tip = lucid.sphere(TIP_RADIUS)
local IDENTITY = lucid.se3.identity()
local QUERY = {derivatives = {method = "finite_differences", step = 1e-7}}
local MU_SAFE = 0.7 -- forces within 0.7 mu: inside the 8-edge polygon (cos(pi/8) = 0.92)

local function fingertip_pose(c) return lucid.se3.exp(lucid.ad.concat{c, 0, 0, 0}) end

-- The object's part nearest to `shape` at the plain pose T (the object at T_o): the hull when
-- the object is not decomposed. A union's distance is its parts' least, and the nearest part's
-- witness and normal are the union's (its nearest point is on the union's boundary).
local function nearest_part(o, shape, T, T_o)
  if not o.parts then return o.shape end
  local best, best_d = o.parts[1], math.huge
  for _, p in ipairs(o.parts) do
    local d = lucid.distance(shape, T, p, T_o).distance
    if d < best_d then best, best_d = p, d end
  end
  return best
end

local function at(c) return lucid.se3.new({1, 0, 0, 0}, c) end

-- Orthonormal tangents of the unit n (Duff et al. 2017), differentiable in n; the branch on
-- the sign of n_z is taken on its value.
local function tangents(n)
  local sign = n:value()[3] >= 0 and 1 or -1
  local a = -1 / (sign + n[3])
  local b = n[1] * n[2] * a
  local t1 = lucid.ad.concat{1 + sign * n[1] * n[1] * a, sign * b, -sign * n[1]}
  local t2 = lucid.ad.concat{b, sign + n[2] * n[2] * a, -n[2]}
  return t1, t2
end

local function cross(a, b)
  return lucid.ad.concat{a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3],
                         a[1] * b[2] - a[2] * b[1]}
end

local function hinge(r) return r:value()[1] > 0 and r or 0 * r end

-- The residual of the fingertip objective (header) for object o and k fingers.
local function fingertip_residual(o, k)
  local mu_s = MU_SAFE * opts.mu
  local w_touch = 1 / (0.01 * o.radius)
  local spread = 0.5 * o.radius
  return function(x)
    local out, force, torque, lambda_sum, centres = {}, nil, nil, 0, {}
    for i = 1, k do
      local base = 6 * (i - 1)
      local c = x:slice(base + 1, base + 3)
      local beta, lambda = x:slice(base + 4, base + 5), x[base + 6]
      local part = nearest_part(o, tip, at(c:value()), IDENTITY)
      local r = lucid.distance(tip, fingertip_pose(c), part, IDENTITY, QUERY)
      local n = r.normal
      local t1, t2 = tangents(n)
      local f = n * lambda + t1 * beta[1] + t2 * beta[2]
      local tau = cross(r.p2 - o.com, f) / o.radius
      force = force and force + f or f
      torque = torque and torque + tau or tau
      lambda_sum = lambda_sum + lambda
      out[#out + 1] = r.distance * w_touch
      out[#out + 1] = hinge(beta:norm() - lambda * mu_s)
      out[#out + 1] = hinge(0.2 - lambda)
      centres[i] = c
    end
    out[#out + 1] = force
    out[#out + 1] = torque
    out[#out + 1] = lambda_sum - k
    for i = 1, k do
      for j = i + 1, k do
        out[#out + 1] = hinge(spread - (centres[i] - centres[j]):norm()) / o.radius
      end
    end
    return lucid.ad.concat(out)
  end
end

local function random_unit()
  while true do
    local v = lucid.vec{rng:normal(), rng:normal(), rng:normal()}
    local n = v:norm()
    if n > 1e-6 then return v / n end
  end
end

-- A start: directions from the centre of mass spread evenly (k = 3: 120 degrees apart in a
-- random plane; k = 4: a random regular tetrahedron), jittered, each fingertip moved onto the
-- surface along them (from outside, or for a decomposed object from a random depth).
local function fingertip_start(o, k)
  local R = lucid.se3.random(rng):rotation()
  local dirs = {}
  if k == 3 then
    for i = 1, 3 do
      local a = 2 * math.pi * (i - 1) / 3
      dirs[i] = R * lucid.vec{math.cos(a), math.sin(a), 0}
    end
  else
    local s = 1 / math.sqrt(3)
    for i, d in ipairs({{s, s, s}, {s, -s, -s}, {-s, s, -s}, {-s, -s, s}}) do
      dirs[i] = R * lucid.vec(d)
    end
  end
  local x = {}
  for i = 1, k do
    local d = dirs[i] + random_unit() * 0.25
    d = d / d:norm()
    -- a decomposed object: at a random depth along d, so that a start in a concavity's free
    -- space slides onto its inner surface (one inside the solid slides out)
    local depth = o.parts and rng:uniform() or 1
    local c = o.com + d * (depth * (o.radius + TIP_RADIUS))
    for _ = 1, 3 do -- slide onto the surface along the normal
      local r = lucid.distance(tip, at(c), nearest_part(o, tip, at(c), IDENTITY), IDENTITY)
      c = c + r.normal * r.distance
    end
    for a = 1, 3 do x[#x + 1] = c[a] end
    x[#x + 1], x[#x + 2], x[#x + 3] = 0, 0, 1
  end
  return lucid.vec(x)
end

-- Whether a contact of `shape` at T is in a concavity: more than 1 mm inside the hull.
local function in_concavity(o, shape, T, T_o)
  return o.parts ~= nil and lucid.distance(shape, T, o.shape, T_o).distance < -0.001
end

-- Contact points (on the object), inward normals and fingertip distances at x, and how many
-- fingertips touch in a concavity.
local function fingertip_contacts(o, k, x)
  local points, normals, dmax, concave = {}, {}, 0, 0
  for i = 1, k do
    local T = at(lucid.vec{x[6 * i - 5], x[6 * i - 4], x[6 * i - 3]})
    local r = lucid.distance(tip, T, nearest_part(o, tip, T, IDENTITY), IDENTITY)
    points[i], normals[i] = r.p2, r.normal
    dmax = math.max(dmax, math.abs(r.distance))
    if in_concavity(o, tip, T, IDENTITY) then concave = concave + 1 end
  end
  return points, normals, dmax, concave
end

-- Epsilon of contacts given in the object frame, or in a frame where the object's centre of
-- mass is at `center`.
local function epsilon_of(o, points, normals, center)
  return lucid.grasp.epsilon(points, normals, opts.mu,
                             {edges = opts.edges, center = center or o.com,
                              torque_scale = 1 / o.radius, torsion = opts.torsion})
end

-- One grasp: attempts until epsilon > 0 or the restarts are spent.
local function fingertip_grasp(o, k)
  local residual = fingertip_residual(o, k)
  local result = {attempts = 0}
  for attempt = 1, opts.restarts + 1 do
    local x, info = lucid.optim.gauss_newton(residual, fingertip_start(o, k), {
      max_iter = opts.iterations, damping = "adaptive", lambda = 1e-6, min_cost = 1e-14,
      tol = 0})
    local points, normals, dmax, concave = fingertip_contacts(o, k, x)
    local eps, q = epsilon_of(o, points, normals)
    result = {attempts = attempt, epsilon = eps, margin = q.margin, cost = info.cost,
              concave = concave,
              iterations = (result.iterations or 0) + info.iterations, distance = dmax,
              history = result.history or info.history, first_epsilon = result.first_epsilon or eps,
              points = points, normals = normals}
    if eps > 0 then break end
  end
  return result
end

-- ---- hand ------------------------------------------------------------------------------------
--
-- --problem hand: a hand model (MJCF or URDF; default tasks/models/gripper3.xml, lucid's own
-- three-finger gripper; e.g. --model ../shared/data/robots/allegro_right_hand.xml) with its base
-- fixed at the world origin. Unknowns: the object's pose in the hand frame (the inverse of the
-- hand's base pose relative to the object: T_ref exp(xi), xi in R^6), the joint angles q and
-- one contact force per fingertip (as above). Fingertips: the last geom of each leaf body.
-- Residuals: the fingertip terms above with the fingertip geoms' lucid.distance (both poses
-- differentiable: a link's pose at q is T_b(q0) exp(J_b(q0) (q - q0)), exact to first order,
-- J_b the local frame Jacobian), clearance max(0, 1 mm - d) / (0.01 rho) for every other
-- link geom (the palm included), and joint limits max(0, q - upper), max(0, lower - q) x 100.
-- An attempt is kept when epsilon > 0, every link is at signed distance >= -1 mm and every
-- fingertip within 1 mm of the object; otherwise a new random start (--restarts).
-- Hand self-collision: max(0, 1 mm - d) for every pair of the hand's geoms the world collides
-- (not a parent and its child), less pairs overlapping at the neutral configuration.
-- Each kept grasp is then CHECKED IN SIMULATION (lucid.world, dt 2 ms, friction mu): the hand's
-- position servos (m:actuators(): one per joint dof) get the targets that make the joints
-- apply the synthesised contact forces (squeeze_targets below) for 0.3 s without gravity;
-- then, from that state, gravity (9.81 m/s^2 on the object and the hand) points along each of
-- +-x, +-y, +-z for 1 s. Success: the object's centre of mass moves less than 2 cm in each of
-- the six runs (relative to where the closing left it). The object's density is 500 kg/m^3
-- (its mass from the hull's volume, its inertia from the world at uniform density).
-- Timings are process CPU seconds (os.clock): the task runs on one core.

local CLEARANCE = 0.001
local self_pairs
local DENSITY = 500

local body_kinematics

-- Pairs of the hand's own geoms that the world collides (not on one body, not a parent and its
-- child under the model's m.filter_parent: with "adjacent" a root link counts as the child of
-- the static geoms, with "parent" not, with "none" no pair is a parent's), less those already closer
-- than the clearance at the model's neutral configuration: overlaps built into the model, like
-- the MJCF <exclude> pairs that m:geoms() cannot tell.
function self_pairs(H, joints)
  local parent = {}
  local body_of = {}
  for _, j in ipairs(joints) do body_of[j.name] = j.body end
  local rule = H.m.filter_parent
  for _, j in ipairs(joints) do
    local p = j.parent and body_of[j.parent] or (rule == "adjacent" and "<static>" or nil)
    parent[j.body] = rule ~= "none" and p or nil
  end
  local kin = body_kinematics(H, H.m:neutral())
  local pairs = {}
  for a = 1, #H.geoms do
    for b = a + 1, #H.geoms do
      local ga, gb = H.geoms[a], H.geoms[b]
      local ba, bb = ga.body or "<static>", gb.body or "<static>"
      if ba ~= bb and parent[ba] ~= bb and parent[bb] ~= ba then
        local Ta = ga.body and kin[ga.body].T * ga.pose or ga.pose
        local Tb = gb.body and kin[gb.body].T * gb.pose or gb.pose
        if lucid.distance(ga.shape, Ta, gb.shape, Tb).distance >= CLEARANCE then
          pairs[#pairs + 1] = {a, b}
        end
      end
    end
  end
  return pairs
end

local function load_hand()
  local ok, m = pcall(lucid.model.load, opts.model, {meshes = "skip"})
  if not ok then fail(string.format("--model '%s': %s", opts.model, tostring(m))) end
  if m.nu == 0 then
    fail(string.format("--model '%s' has no actuators: the hand problem closes the fingers "
                       .. "with position servos (MJCF <position>)", opts.model))
  end
  local servo = {}
  for _, a in ipairs(m:actuators()) do
    if a.kind ~= "position" then
      fail(string.format("--model '%s': actuator '%s' is a %s; the hand problem closes the "
                         .. "fingers with position servos (MJCF <position>)", opts.model, a.name, a.kind))
    end
    servo[a.dof] = a
  end
  for i = 1, m.nv do
    if not servo[i] then
      fail(string.format("--model '%s': joint dof %d has no position servo; the hand problem "
                         .. "needs one per dof", opts.model, i))
    end
  end
  local joints = m:joints()
  for _, j in ipairs(joints) do
    if j.kind ~= "revolute" and j.kind ~= "prismatic" then
      fail(string.format("--model '%s': joint '%s' is %s; the hand problem needs a fixed base "
                         .. "and 1-dof joints", opts.model, j.name, j.kind))
    end
  end
  local has_child = {}
  for _, j in ipairs(joints) do if j.parent then has_child[j.parent] = true end end
  local leaf = {}
  for _, j in ipairs(joints) do if not has_child[j.name] then leaf[j.body] = true end end
  local geoms, last_of = {}, {}
  for _, g in ipairs(m:geoms()) do
    if g.contype ~= 0 or g.conaffinity ~= 0 then
      geoms[#geoms + 1] = g
      if g.body and leaf[g.body] then last_of[g.body] = #geoms end
    end
  end
  local tips = {}
  for _, idx in pairs(last_of) do geoms[idx].tip = true end
  for i, g in ipairs(geoms) do if g.tip then tips[#tips + 1] = i end end
  if #tips < 2 then fail(string.format("--model '%s': fewer than 2 fingertips found", opts.model)) end
  local lower, upper = m:limits()
  local bodies = {}
  for _, g in ipairs(geoms) do if g.body then bodies[g.body] = true end end
  local H = {m = m, geoms = geoms, tips = tips, lower = lower, upper = upper, nq = m.nq,
             bodies = bodies, servo = servo}
  H.pairs = self_pairs(H, joints)
  return H
end

-- Poses and local Jacobians of the bodies carrying geoms at q.
function body_kinematics(H, q)
  local kin = {}
  for b in pairs(H.bodies) do
    kin[b] = {T = H.m:frame_pose(q, b), J = H.m:frame_jacobian(q, b, "local")}
  end
  return kin
end

-- The pose of geom g at the differentiable q (value q0): T_b(q0) exp(J_b(q0) (q - q0)) pose_g.
local function geom_pose(g, kin, dq)
  if not g.body then return g.pose end
  local k = kin[g.body]
  return k.T * lucid.se3.exp(k.J * dq) * g.pose
end

local function hand_residual(H, o, T_ref)
  local mu_s = MU_SAFE * opts.mu
  local w_touch = 1 / (0.01 * o.radius)
  local nq, k = H.nq, #H.tips
  return function(x)
    local xv = x:value()
    local q0 = {}
    for i = 1, nq do q0[i] = xv[6 + i] end
    q0 = lucid.vec(q0)
    local q = x:slice(7, 6 + nq)
    local dq = q - q0
    local kin = body_kinematics(H, q0)
    local T_o = T_ref * lucid.se3.exp(x:slice(1, 6))
    local T_o0 = T_ref * lucid.se3.exp({xv[1], xv[2], xv[3], xv[4], xv[5], xv[6]})
    local com = T_o:act(o.com)
    local out, force, torque, lambda_sum, t = {}, nil, nil, 0, 0
    for _, g in ipairs(H.geoms) do
      local part = nearest_part(o, g.shape, g.body and kin[g.body].T * g.pose or g.pose, T_o0)
      local r = lucid.distance(g.shape, geom_pose(g, kin, dq), part, T_o, QUERY)
      if g.tip then
        t = t + 1
        local base = 6 + nq + 3 * (t - 1)
        local beta, lambda = x:slice(base + 1, base + 2), x[base + 3]
        local n = r.normal
        local t1, t2 = tangents(n)
        local f = n * lambda + t1 * beta[1] + t2 * beta[2]
        local tau = cross(r.p2 - com, f) / o.radius
        force = force and force + f or f
        torque = torque and torque + tau or tau
        lambda_sum = lambda_sum + lambda
        out[#out + 1] = r.distance * w_touch
        out[#out + 1] = hinge(beta:norm() - lambda * mu_s)
        out[#out + 1] = hinge(0.2 - lambda)
      else
        out[#out + 1] = hinge(CLEARANCE - r.distance) * w_touch
      end
    end
    out[#out + 1] = force
    out[#out + 1] = torque
    out[#out + 1] = lambda_sum - k
    for _, pair in ipairs(H.pairs) do -- differentiated only when within 1 cm
      local ga, gb = H.geoms[pair[1]], H.geoms[pair[2]]
      local Ta = ga.body and kin[ga.body].T * ga.pose or ga.pose
      local Tb = gb.body and kin[gb.body].T * gb.pose or gb.pose
      if lucid.distance(ga.shape, Ta, gb.shape, Tb).distance < 0.01 then
        local r = lucid.distance(ga.shape, geom_pose(ga, kin, dq), gb.shape, geom_pose(gb, kin, dq),
                                 QUERY)
        out[#out + 1] = hinge(CLEARANCE - r.distance) * w_touch
      else
        out[#out + 1] = 0
      end
    end
    for i = 1, nq do
      out[#out + 1] = hinge(q[i] - H.upper[i]) * 100
      out[#out + 1] = hinge(H.lower[i] - q[i]) * 100
    end
    return lucid.ad.concat(out)
  end
end

-- Signed distances of every geom at (q, T_o): fingertip contacts and the worst link.
local function hand_contacts(H, o, q, T_o)
  local kin = body_kinematics(H, q)
  local points, normals, tip_gap, min_distance, concave = {}, {}, 0, math.huge, 0
  for _, g in ipairs(H.geoms) do
    local Tg = g.body and kin[g.body].T * g.pose or g.pose
    local r = lucid.distance(g.shape, Tg, nearest_part(o, g.shape, Tg, T_o), T_o)
    min_distance = math.min(min_distance, r.distance)
    if g.tip then
      points[#points + 1], normals[#normals + 1] = r.p2, r.normal
      tip_gap = math.max(tip_gap, math.abs(r.distance))
      if in_concavity(o, g.shape, Tg, T_o) then concave = concave + 1 end
    end
  end
  local min_self = math.huge
  for _, pair in ipairs(H.pairs) do
    local ga, gb = H.geoms[pair[1]], H.geoms[pair[2]]
    local Ta = ga.body and kin[ga.body].T * ga.pose or ga.pose
    local Tb = gb.body and kin[gb.body].T * gb.pose or gb.pose
    min_self = math.min(min_self, lucid.distance(ga.shape, Ta, gb.shape, Tb).distance)
  end
  return points, normals, tip_gap, min_distance, min_self, concave
end

-- Servo targets that make the hand apply the synthesised contact forces: joint torques
-- tau = sum_i J_i^T f_i (J_i the world linear Jacobian of contact point i on its link, f_i the
-- force on the object), the forces scaled so that their total normal force is m g / epsilon
-- (with epsilon the Q1 metric, contact forces of total normal force N resist every wrench of
-- norm epsilon N: this squeeze holds the object's weight in any direction; epsilon floored at
-- 0.001), at least 1 N;
-- a position servo's torque is gear kp (u - gear q), so u = gear q + tau / (gear kp), clipped
-- to the control range.
local function squeeze_targets(H, o, x, T_ref, eps)
  local nq = H.nq
  local q = {}
  for i = 1, nq do q[i] = x[6 + i] end
  q = lucid.vec(q)
  local T_o = T_ref * lucid.se3.exp({x[1], x[2], x[3], x[4], x[5], x[6]})
  local kin = body_kinematics(H, q)
  local tau = {}
  for i = 1, nq do tau[i] = 0 end
  local t = 0
  for _, g in ipairs(H.geoms) do
    if g.tip then
      t = t + 1
      local base = 6 + nq + 3 * (t - 1)
      local Tg = kin[g.body].T * g.pose
      local r = lucid.distance(g.shape, Tg, nearest_part(o, g.shape, Tg, T_o), T_o)
      local n = r.normal
      local sign = n[3] >= 0 and 1 or -1
      local a = -1 / (sign + n[3])
      local b = n[1] * n[2] * a
      local t1 = lucid.vec{1 + sign * n[1] * n[1] * a, sign * b, -sign * n[1]}
      local t2 = lucid.vec{b, sign + n[2] * n[2] * a, -n[2]}
      local f = n * x[base + 3] + t1 * x[base + 1] + t2 * x[base + 2]
      local J = H.m:frame_jacobian(q, g.body, "local_world_aligned")
      local arm = r.p1 - kin[g.body].T:translation()
      for j = 1, nq do
        local v = lucid.vec{J:get(1, j), J:get(2, j), J:get(3, j)}
        local w = lucid.vec{J:get(4, j), J:get(5, j), J:get(6, j)}
        local vp = v + lucid.vec{w[2] * arm[3] - w[3] * arm[2], w[3] * arm[1] - w[1] * arm[3],
                                 w[1] * arm[2] - w[2] * arm[1]}
        tau[j] = tau[j] + vp:dot(f)
      end
    end
  end
  local scale = math.max(1, DENSITY * o.volume * 9.81 / math.max(eps, 1e-3)) / #H.tips
  local u = {}
  for j = 1, nq do
    local a = H.servo[j]
    u[j] = a.gear * q[j] + opts.squeeze * scale * tau[j] / (a.gear * a.kp)
    if a.ctrl_range then u[j] = math.min(math.max(u[j], a.ctrl_range[1]), a.ctrl_range[2]) end
  end
  return u
end

local function hand_start(H, o)
  local q_open, q_mid = {}, {}
  for i = 1, H.nq do
    local lo, hi = H.lower[i], H.upper[i]
    if lo == -math.huge or hi == math.huge then lo, hi = -1, 1 end
    local jitter = rng:uniform()
    if math.abs(lo + hi) <= 0.05 * (hi - lo) then
      -- a range symmetric about 0 (a finger's sideways joint): start in its middle
      q_open[i] = 0.1 * (jitter - 0.5) * (hi - lo)
      q_mid[i] = 0
    else
      q_open[i] = lo + (0.15 + 0.1 * jitter) * (hi - lo)
      q_mid[i] = lo + 0.35 * (hi - lo)
    end
  end
  local kin = body_kinematics(H, lucid.vec(q_mid))
  local centre = lucid.vec{0, 0, 0}
  for _, i in ipairs(H.tips) do
    local g = H.geoms[i]
    centre = centre + (kin[g.body].T * g.pose):translation() / #H.tips
  end
  local R = lucid.se3.random(rng):rotation()
  -- the object's centre of mass at the grasp centre: T_ref com = centre
  local T_ref = lucid.se3.new(R, centre - R * o.com)
  local x = {0, 0, 0, 0, 0, 0}
  for i = 1, H.nq do x[#x + 1] = q_open[i] end
  for _ = 1, #H.tips do x[#x + 1], x[#x + 2], x[#x + 3] = 0, 0, 1 end
  return lucid.vec(x), T_ref
end

-- An HTML replay (lucid.viewer) of a grasp: the closing, then the object's weight along -z
-- for 1 s, in one world (a force on the object, not the world's gravity: an illustration of the
-- check, which runs each direction in a world of its own).
local function replay_grasp(H, o, q, T_o, u, file)
  local dt = 0.002
  local w = lucid.world{gravity = {0, 0, 0}, dt = dt}
  local hid = w:add_model(H.m, {q = q})
  local bid = w:add_body{shape = o.body_shape, pose = T_o, friction = opts.mu,
                         mass = DENSITY * o.volume}
  local rec = t:record(w, file, dt)
  w:set_control(hid, u)
  w:step(math.floor(0.3 / dt + 0.5))
  for _ = 1, math.floor(1 / dt + 0.5) do
    w:apply_force(bid, {0, 0, -9.81 * DENSITY * o.volume})
    w:step()
  end
  return t:write_replay(rec, file, "grasp: " .. o.name .. " in " .. opts.model)
end

-- Closes the servos, then gravity along each axis direction; the largest displacement.
local function simulate_grasp(H, o, q, T_o, u)
  local dt = 0.002
  local function new_world(g)
    local w = lucid.world{gravity = g, dt = dt}
    local hid = w:add_model(H.m, {q = q})
    local bid = w:add_body{shape = o.body_shape, pose = T_o, friction = opts.mu,
                           mass = DENSITY * o.volume}
    return w, hid, bid
  end
  local w, hid, bid = new_world({0, 0, 0})
  w:set_control(hid, u)
  w:step(math.floor(0.3 / dt + 0.5))
  local settled = w:state()
  local c0 = w:pose(bid):act(o.com)
  local closing_motion = (c0 - T_o:act(o.com)):norm()
  local worst = 0
  for _, d in ipairs({{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}) do
    local wg, hg, bg = new_world({9.81 * d[1], 9.81 * d[2], 9.81 * d[3]})
    wg:set_state(settled)
    wg:set_control(hg, u)
    wg:step(math.floor(1 / dt + 0.5))
    worst = math.max(worst, (wg:pose(bg):act(o.com) - c0):norm())
    if opts.verbose then
      io.stderr:write(string.format("  gravity %2d %2d %2d: moved %.4f m, %d contacts\n", d[1], d[2],
        d[3], (wg:pose(bg):act(o.com) - c0):norm(), #wg:contacts()))
    end
  end
  if opts.verbose then
    io.stderr:write(string.format("  closing moved the object %.4f m; mass %.3f kg\n",
      closing_motion, DENSITY * o.volume))
  end
  return worst, closing_motion
end

local function hand_grasp(H, o)
  local result
  local iterations = 0
  for attempt = 1, opts.restarts + 1 do
    local x0, T_ref = hand_start(H, o)
    local x, info = lucid.optim.gauss_newton(hand_residual(H, o, T_ref), x0, {
      max_iter = opts.iterations, damping = "adaptive", lambda = 1e-6, min_cost = 1e-14, tol = 0})
    iterations = iterations + info.iterations
    if opts.verbose then
      io.stderr:write(string.format("%s attempt %d: %s %d iterations cost %.3g\n", o.name, attempt,
        info.reason, info.iterations, info.cost))
    end
    local q = {}
    for i = 1, H.nq do q[i] = x[6 + i] end
    q = lucid.vec(q)
    local T_o = T_ref * lucid.se3.exp({x[1], x[2], x[3], x[4], x[5], x[6]})
    local points, normals, tip_gap, min_distance, min_self, concave = hand_contacts(H, o, q, T_o)
    local eps = epsilon_of(o, points, normals, T_o:act(o.com))
    result = {attempts = attempt, epsilon = eps, cost = info.cost, iterations = iterations,
              concave = concave,
              targets = squeeze_targets(H, o, x, T_ref, eps),
              tip_gap = tip_gap, penetration = math.max(0, -min_distance), q = q, T_o = T_o,
              self_penetration = math.max(0, -min_self),
              history = result and result.history or info.history,
              first_ok = result and result.first_ok}
    local ok = eps > 0 and min_distance >= -0.001 and min_self >= -0.001 and tip_gap <= 0.001
    if result.first_ok == nil then result.first_ok = ok end
    result.ok = ok
    if ok then break end
  end
  return result
end

-- ---- run ------------------------------------------------------------------------------------

local objects = load_objects()

-- --decompose: an object's parts and its contacts in a concavity (> 1 mm inside the hull).
local function decomposition_figures(row, o, concave)
  if not opts.decompose then return end
  row.parts = o.parts and #o.parts or 1
  row.concave_contacts = concave
end
local per_object = opts.full and math.max(opts.grasps, 10) or opts.grasps
local total = #objects * per_object

-- A grasp's epsilon and contacts (object frame) for --json under --decompose, so that the
-- certificate can be checked against the object's own surface.
local function contact_list(r)
  local points, normals = {}, {}
  for i, p in ipairs(r.points) do
    points[i] = {p[1], p[2], p[3]}
    normals[i] = {r.normals[i][1], r.normals[i][2], r.normals[i][3]}
  end
  return {epsilon = r.epsilon, points = points, normals = normals}
end

local function run_fingertips()
  local k = opts.fingers
  local bar = t:progress(total, "fingertip grasps")
  local rows, all_eps, first_closure, closure, seconds, histories = {}, {}, 0, 0, 0, {}
  local worst_distance, iterations, attempts, concave = 0, 0, 0, 0
  for _, o in ipairs(objects) do
    local eps, fc, concave_o, contacts = {}, 0, 0, {}
    local start = os.clock()
    for g = 1, per_object do
      local r = fingertip_grasp(o, k)
      contacts[g] = contact_list(r)
      eps[g] = r.epsilon
      all_eps[#all_eps + 1] = r.epsilon
      if r.epsilon > 0 then fc, closure = fc + 1, closure + 1 end
      if r.first_epsilon > 0 then first_closure = first_closure + 1 end
      worst_distance = math.max(worst_distance, r.distance)
      concave_o = concave_o + r.concave
      iterations, attempts = iterations + r.iterations, attempts + r.attempts
      if g == 1 and #histories < 6 then histories[#histories + 1] = {name = o.name, y = r.history} end
      bar:step()
    end
    local s = os.clock() - start
    seconds = seconds + s
    local q = stats.summary(eps)
    rows[#rows + 1] = {object = o.name, extent = o.extent, grasps = per_object,
                       force_closure_rate = fc / per_object, epsilon_median = q.median,
                       epsilon_min = q.min, epsilon_max = q.max, seconds = s}
    decomposition_figures(rows[#rows], o, concave_o)
    if opts.decompose then rows[#rows].contacts = contacts end
    concave = concave + concave_o
  end
  bar:done()
  local q = stats.summary(all_eps)
  local summary = {
    grasps = total, objects = #objects, fingers = k, mu = opts.mu,
    force_closure_rate = closure / total, first_attempt_force_closure_rate = first_closure / total,
    epsilon_median = q.median, epsilon_D1 = q.D1, epsilon_min = q.min, epsilon_max = q.max,
    max_fingertip_distance = worst_distance, mean_iterations = iterations / total,
    mean_attempts = attempts / total, grasps_per_second_per_core = total / seconds,
  }
  if opts.decompose then summary.concave_contacts = concave end
  return summary, rows, all_eps, histories
end

local function run_hand()
  local H = load_hand()
  local bar = t:progress(total, "hand grasps")
  local rows, all_eps, closure, ok_count, first_ok, success, seconds, sim_seconds = {}, {}, 0, 0, 0, 0, 0, 0
  local worst_pen, worst_gap, iterations, attempts, histories = 0, 0, 0, 0, {}
  local worst_self, concave = 0, 0
  for _, o in ipairs(objects) do
    local eps, fc, sc, pen, concave_o = {}, 0, 0, 0, 0
    local s_opt, s_sim = 0, 0
    for g = 1, per_object do
      local start = os.clock()
      local r = hand_grasp(H, o)
      s_opt = s_opt + os.clock() - start
      eps[g] = r.epsilon
      all_eps[#all_eps + 1] = r.epsilon
      if r.epsilon > 0 then fc, closure = fc + 1, closure + 1 end
      if r.ok then ok_count = ok_count + 1 end
      if r.first_ok then first_ok = first_ok + 1 end
      pen = math.max(pen, r.penetration)
      worst_self = math.max(worst_self, r.self_penetration)
      worst_gap = math.max(worst_gap, r.tip_gap)
      concave_o = concave_o + r.concave
      iterations, attempts = iterations + r.iterations, attempts + r.attempts
      start = os.clock()
      local moved = simulate_grasp(H, o, r.q, r.T_o, r.targets)
      if opts.replay and #rows == 0 and g == 1 then replay_grasp(H, o, r.q, r.T_o, r.targets, opts.replay) end
      s_sim = s_sim + os.clock() - start
      if r.ok and moved < 0.02 then sc, success = sc + 1, success + 1 end -- valid and held
      if g == 1 and #histories < 6 then histories[#histories + 1] = {name = o.name, y = r.history} end
      bar:step()
    end
    worst_pen = math.max(worst_pen, pen)
    seconds, sim_seconds = seconds + s_opt, sim_seconds + s_sim
    local q = stats.summary(eps)
    rows[#rows + 1] = {object = o.name, extent = o.extent, grasps = per_object,
                       force_closure_rate = fc / per_object, success_rate = sc / per_object,
                       epsilon_median = q.median, epsilon_min = q.min, epsilon_max = q.max,
                       max_penetration = pen, seconds = s_opt, simulation_seconds = s_sim}
    decomposition_figures(rows[#rows], o, concave_o)
    concave = concave + concave_o
  end
  bar:done()
  local q = stats.summary(all_eps)
  local summary = {
    grasps = total, objects = #objects, model = opts.model, fingertips = #H.tips, mu = opts.mu,
    force_closure_rate = closure / total, valid_rate = ok_count / total,
    first_attempt_valid_rate = first_ok / total, simulated_success_rate = success / total,
    epsilon_median = q.median, epsilon_min = q.min, epsilon_max = q.max,
    max_penetration = worst_pen, max_self_penetration = worst_self, max_fingertip_gap = worst_gap,
    mean_iterations = iterations / total, mean_attempts = attempts / total,
    grasps_per_second_per_core = total / seconds,
    checked_grasps_per_second_per_core = total / (seconds + sim_seconds),
  }
  if opts.decompose then summary.concave_contacts = concave end
  return summary, rows, all_eps, histories
end

local summary, rows, all_eps, histories
if opts.problem == "fingertips" then
  summary, rows, all_eps, histories = run_fingertips()
else
  summary, rows, all_eps, histories = run_hand()
end

local plots = {}
if opts.plot ~= "" then
  local sorted = {}
  for i, e in ipairs(all_eps) do sorted[i] = e end
  table.sort(sorted)
  local x = {}
  for i = 1, #sorted do x[i] = i / #sorted end
  plots.epsilon = plot.lines{file = opts.plot .. "_" .. opts.problem .. "_epsilon.svg",
    title = string.format("Ferrari-Canny epsilon of %d %s grasps (mu = %g)", #sorted,
                          opts.problem, opts.mu),
    xlabel = "fraction of grasps", ylabel = "epsilon (sorted)", series = {{name = "epsilon", x = x, y = sorted}}}
  if histories and #histories > 0 then
    plots.cost = plot.lines{file = opts.plot .. "_" .. opts.problem .. "_cost.svg",
      title = "Gauss-Newton cost of the first grasp of each object", xlabel = "iteration",
      ylabel = "cost", logy = true, series = histories}
  end
end

local figures = {summary = summary, objects = rows, seed = t.seed, problem = opts.problem,
                 torque_scale = "1 / rho (rho: object radius about its centre of mass)",
                 cone_edges = opts.edges, torsion = opts.torsion, plots = plots}
local function print_decomposition()
  if not opts.decompose then return end
  local list = {}
  for _, r in ipairs(rows) do
    list[#list + 1] = string.format("%s %d parts, %d in a concavity", r.object, r.parts,
                                    r.concave_contacts)
  end
  print("decomposed (contacts more than 1 mm inside the hull): " .. table.concat(list, "; "))
end

local function print_fingertips()
  local table_rows = {}
  for _, r in ipairs(rows) do
    table_rows[#table_rows + 1] = {r.object, r.extent * 100, r.force_closure_rate * 100,
                                   r.epsilon_min, r.epsilon_median, r.epsilon_max, r.seconds}
  end
  print(task.format_table({"object", "extent cm", "closure %", "eps min", "eps median",
                           "eps max", "seconds"}, table_rows))
  print_decomposition()
  print(string.format("overall: force closure (epsilon > 0) %.1f%% (%.1f%% at the first attempt), "
    .. "epsilon median %.3g, min %.3g; worst fingertip distance %.2g m; %.1f iterations, "
    .. "%.2f attempts per grasp; %.2f grasps/s/core", 100 * summary.force_closure_rate,
    100 * summary.first_attempt_force_closure_rate, summary.epsilon_median, summary.epsilon_min,
    summary.max_fingertip_distance, summary.mean_iterations, summary.mean_attempts,
    summary.grasps_per_second_per_core))
end

local function print_hand()
  local table_rows = {}
  for _, r in ipairs(rows) do
    table_rows[#table_rows + 1] = {r.object, r.extent * 100, r.force_closure_rate * 100,
                                   r.success_rate * 100, r.epsilon_min, r.epsilon_median,
                                   r.max_penetration * 1000, r.seconds, r.simulation_seconds}
  end
  print(task.format_table({"object", "extent cm", "closure %", "held %", "eps min", "eps median",
                           "pen. mm", "opt. s", "sim. s"}, table_rows))
  print_decomposition()
  print(string.format("overall (%s, %d fingertips): force closure %.1f%%, valid (closure, "
    .. "penetration <= 1 mm, fingertips within 1 mm) %.1f%% (%.1f%% at the first attempt), "
    .. "valid and held in simulation %.1f%%; epsilon median %.3g; max penetration %.2g mm "
    .. "(hand self-penetration %.2g mm); "
    .. "%.1f iterations, %.2f attempts per grasp; %.2f grasps/s/core (synthesis), %.2f with "
    .. "the simulated check", summary.model, summary.fingertips,
    100 * summary.force_closure_rate, 100 * summary.valid_rate,
    100 * summary.first_attempt_valid_rate, 100 * summary.simulated_success_rate,
    summary.epsilon_median, 1000 * summary.max_penetration,
    1000 * summary.max_self_penetration, summary.mean_iterations,
    summary.mean_attempts, summary.grasps_per_second_per_core,
    summary.checked_grasps_per_second_per_core))
end

t:report(figures, function()
  print(string.format("grasp synthesis (%s): %d objects x %d grasps, mu %g, seed %d",
    opts.problem, #objects, per_object, opts.mu, t.seed))
  if opts.problem == "fingertips" then print_fingertips() else print_hand() end
  for name, file in pairs(plots) do print(name .. " plot: " .. file) end
end)
