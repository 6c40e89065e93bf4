-- lucid.contact_patch: boxes on boxes and planes (analytic corners, the rotated octagon's
-- area), capsules and spheres, swap invariance, options and errors.
local t = require "testing"
local lucid = require "lucid"

local function pose(angle_z, x, y, z, axis)
  axis = axis or {0, 0, 1}
  local s = math.sin(angle_z / 2)
  return lucid.se3.new({math.cos(angle_z / 2), s * axis[1], s * axis[2], s * axis[3]}, {x, y, z})
end

local function v3(v) return {v[1], v[2], v[3]} end

-- Every expected point is matched by a distinct patch point (field p1 or p2).
local function same_points(points, expected, field, tol)
  t.eq(#points, #expected, "point count")
  local used = {}
  for _, e in ipairs(expected) do
    local found
    for j, p in ipairs(points) do
      local q = p[field]
      if not used[j] and math.abs(q[1] - e[1]) <= tol and math.abs(q[2] - e[2]) <= tol
        and math.abs(q[3] - e[3]) <= tol then
        found = j
        break
      end
    end
    t.truthy(found, string.format("point (%g, %g, %g) missing", e[1], e[2], e[3]))
    used[found] = true
  end
end

local function check_invariants(patch)
  local n = patch.normal
  t.near(n:norm(), 1, 1e-12)
  for _, p in ipairs(patch.points) do
    for i = 1, 3 do t.near(p.p2[i] - p.p1[i], p.separation * n[i], 1e-12) end
  end
end

local gaps = {0, 1e-3, -1e-3}

t.case("box resting on a box gives the four corners at the analytic gap", function()
  local bottom, top = lucid.box(0.5, 0.5, 0.5), lucid.box(0.3, 0.3, 0.2)
  for _, gap in ipairs(gaps) do
    local patch = lucid.contact_patch(bottom, lucid.se3.identity(), top, pose(0, 0.1, -0.05, 0.7 + gap))
    check_invariants(patch)
    t.allnear(v3(patch.normal), {0, 0, 1}, 1e-12)
    local corners = {}
    for _, sx in ipairs{-1, 1} do
      for _, sy in ipairs{-1, 1} do
        corners[#corners + 1] = {0.1 + 0.3 * sx, -0.05 + 0.3 * sy, 0.5 + gap}
      end
    end
    same_points(patch.points, corners, "p2", 1e-12)
    for _, p in ipairs(patch.points) do t.near(p.separation, gap, 1e-12) end
  end
end)

t.case("equal boxes turned by 30 degrees give the octagon", function()
  local a, b = lucid.box(0.5, 0.5, 0.5), lucid.box(0.5, 0.5, 0.25)
  local th = math.pi / 6
  local patch = lucid.contact_patch(a, lucid.se3.identity(), b, pose(th, 0, 0, 0.75))
  check_invariants(patch)
  t.eq(#patch.points, 8)
  -- order by angle, then the shoelace area against the square minus its four cut corners
  local pts = {}
  for _, p in ipairs(patch.points) do pts[#pts + 1] = {p.p2[1], p.p2[2]} end
  table.sort(pts, function(u, v) return math.atan(u[2], u[1]) < math.atan(v[2], v[1]) end)
  local area = 0
  for i = 1, #pts do
    local u, v = pts[i], pts[i % #pts + 1]
    area = area + 0.5 * (u[1] * v[2] - v[1] * u[2])
  end
  local h = 0.5
  local l1, l2 = h * (1 - (1 - math.cos(th)) / math.sin(th)), h * (1 - (1 - math.sin(th)) / math.cos(th))
  t.near(area, 4 * h * h - 2 * l1 * l2, 1e-12)
  for _, p in ipairs(pts) do -- every vertex is on the boundary of both squares' intersection
    local u = math.cos(th) * p[1] + math.sin(th) * p[2]
    local w = -math.sin(th) * p[1] + math.cos(th) * p[2]
    local inner = math.max(math.abs(p[1]), math.abs(p[2]), math.abs(u), math.abs(w))
    t.near(inner, 0.5, 1e-12)
  end
end)

t.case("box on a plane: face, edge and corner", function()
  local ground, box = lucid.halfspace({0, 0, 1}, 0), lucid.box(0.2, 0.3, 0.1)
  local flat = lucid.contact_patch(ground, lucid.se3.identity(), box, pose(0, 0, 0, 0.1 + 1e-3))
  check_invariants(flat)
  t.eq(#flat.points, 4)
  for _, p in ipairs(flat.points) do
    t.near(p.separation, 1e-3, 1e-12)
    t.near(math.abs(p.p2[1]), 0.2, 1e-12)
    t.near(math.abs(p.p2[2]), 0.3, 1e-12)
  end
  -- tilted about x: the lower edge, y = -0.3 side, at height z - 0.3 sin a - 0.1 cos a
  local a = 0.3
  local tilted = lucid.contact_patch(ground, lucid.se3.identity(), box, pose(a, 0, 0, 0.2, {1, 0, 0}))
  check_invariants(tilted)
  local zlow = 0.2 - 0.3 * math.sin(a) - 0.1 * math.cos(a)
  local ylow = -0.3 * math.cos(a) + 0.1 * math.sin(a)
  same_points(tilted.points, {{-0.2, ylow, zlow}, {0.2, ylow, zlow}}, "p2", 1e-12)
  -- on a corner
  local c = 1 / math.sqrt(3)
  local T = pose(0.6, 0, 0, 0.3, {c, -c, c})
  local corner = lucid.contact_patch(ground, lucid.se3.identity(), box, T)
  t.eq(#corner.points, 1)
  local lowest = math.huge
  for _, sx in ipairs{-1, 1} do
    for _, sy in ipairs{-1, 1} do
      for _, sz in ipairs{-1, 1} do
        lowest = math.min(lowest, T:act({0.2 * sx, 0.3 * sy, 0.1 * sz})[3])
      end
    end
  end
  t.near(corner.points[1].separation, lowest, 1e-9)
end)

t.case("capsule lying on a plane gives its two ends, a sphere one point", function()
  local ground, cap = lucid.halfspace({0, 0, 1}, 0), lucid.capsule(0.1, 0.4)
  local patch = lucid.contact_patch(ground, lucid.se3.identity(), cap, pose(math.pi / 2, 0, 0, 0.1 - 1e-3, {0, 1, 0}))
  check_invariants(patch)
  same_points(patch.points, {{-0.4, 0, -1e-3}, {0.4, 0, -1e-3}}, "p2", 1e-12)
  same_points(patch.points, {{-0.4, 0, 0}, {0.4, 0, 0}}, "p1", 1e-12)
  local ball = lucid.sphere(0.25)
  local one = lucid.contact_patch(lucid.box(1, 1, 1), lucid.se3.identity(), ball, pose(0, 0.2, 0.3, 1.3))
  t.eq(#one.points, 1)
  t.allnear(v3(one.points[1].p2), {0.2, 0.3, 1.05}, 1e-9)
  t.near(one.points[1].separation, 0.05, 1e-9)
end)

t.case("swapping the shapes flips the normal and keeps the points", function()
  local a, b = lucid.box(0.5, 0.5, 0.5), lucid.cylinder(0.2, 0.3)
  local T1, T2 = pose(0.2, 0.1, 0, 0), pose(0.1, 0.2, 0.1, 0.8 - 1e-3)
  local p, q = lucid.contact_patch(a, T1, b, T2), lucid.contact_patch(b, T2, a, T1)
  t.eq(#p.points, 16)
  t.allnear(v3(p.normal), {-q.normal[1], -q.normal[2], -q.normal[3]}, 1e-12)
  local expected = {}
  for i, x in ipairs(q.points) do expected[i] = v3(x.p2) end
  same_points(p.points, expected, "p1", 1e-9)
end)

t.case("margin and angular tolerance options", function()
  local ground, box = lucid.halfspace({0, 0, 1}, 0), lucid.box(0.2, 0.3, 0.1)
  local T = pose(0.005, 0, 0, 0.1, {1, 0, 0})
  t.eq(#lucid.contact_patch(ground, lucid.se3.identity(), box, T).points, 2)
  t.eq(#lucid.contact_patch(ground, lucid.se3.identity(), box, T, {margin = 0.01}).points, 4)
  local steep = pose(0.05, 0, 0, 0.12, {1, 0, 0})
  t.eq(#lucid.contact_patch(ground, lucid.se3.identity(), box, steep, {margin = 0.1}).points, 2)
  t.eq(#lucid.contact_patch(ground, lucid.se3.identity(), box, steep,
    {margin = 0.1, angular_tolerance = 0.1}).points, 4)
end)

t.case("bad arguments raise errors naming lucid.contact_patch", function()
  local box, I = lucid.box(1, 1, 1), lucid.se3.identity()
  local T = pose(0, 0, 0, 2)
  t.raises("lucid.contact_patch: shape 1 must be a lucid shape", lucid.contact_patch, 1, I, box, T)
  t.raises("lucid.contact_patch: pose 2 must be a lucid.se3 pose", lucid.contact_patch, box, I, box, {})
  t.raises("lucid.contact_patch: options must be a table", lucid.contact_patch, box, I, box, T, 3)
  t.raises("lucid.contact_patch: margin must be >= 0", lucid.contact_patch, box, I, box, T, {margin = -1})
  t.raises("lucid.contact_patch: margin", lucid.contact_patch, box, I, box, T, {margin = 0 / 0})
  t.raises("lucid.contact_patch: angular_tolerance must be in [0, pi/2) (got 2.0)",
    lucid.contact_patch, box, I, box, T, {angular_tolerance = 2})
  t.raises("lucid.contact_patch: angular_tolerance must be in [0, pi/2) (got 1.5707963267949)",
    lucid.contact_patch, box, I, box, T, {angular_tolerance = math.pi / 2})
  t.raises("lucid.contact_patch: angular_tolerance must be a number (got string)",
    lucid.contact_patch, box, I, box, T, {angular_tolerance = "0.1"})
  -- the reader follows lucid_patch_option_table
  t.raises("lucid.contact_patch: unknown option 'max_point' (expected one of: margin, "
    .. "angular_tolerance, max_points)", lucid.contact_patch, box, I, box, T, {max_point = 2})
  local h = lucid.halfspace({0, 0, 1}, 0)
  t.raises("lucid.contact_patch: both shapes are halfspaces", lucid.contact_patch, h, I, h, T)
end)

-- Regression: max_points was documented (contact_patch.h) but rejected as an unknown option.
t.case("max_points reduces a face-face patch and is range-checked", function()
  local box, I = lucid.box(0.1, 0.1, 0.1), lucid.se3.identity()
  local T = pose(0, 0, 0, 0.199)
  t.eq(#lucid.contact_patch(box, I, box, T).points, 4)
  for k = 1, 4 do t.eq(#lucid.contact_patch(box, I, box, T, {max_points = k}).points, k) end
  t.raises("lucid.contact_patch: max_points must be an integer in [1, 16] (got 0)",
    lucid.contact_patch, box, I, box, T, {max_points = 0})
  t.raises("lucid.contact_patch: max_points must be an integer in [1, 16] (got 17)",
    lucid.contact_patch, box, I, box, T, {max_points = 17})
  t.raises("lucid.contact_patch: max_points must be an integer", lucid.contact_patch, box, I, box,
    T, {max_points = 1.5})
end)
