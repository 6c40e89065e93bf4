-- Dense against body-space contact solves by island size: the measurement behind the world's
-- automatic sparse_threshold (docs/world.md). One island per scene (a tower of h boxes, or a
-- layer of k x k touching boxes under a layer of (k-1) x (k-1)); each scene settles for
-- `settle` steps, then both paths step `steps` times from the same state (set_state), and
-- the mean time per step is printed with the island's contacts and the ratio dense / sparse
-- (the smaller of 3 alternating repetitions per path: the machine is shared).
--   build/lucid tests/bench/bench_crossover.lua [SOLVER ...] [--max-grid=K]
--   (default ncp:admm ccp:newton ncp:pgs; grids up to 4)
local lucid = require "lucid"

local settle, steps = 60, 10
local function at(x, y, z, a)
  return lucid.se3.new({math.cos(a / 2), 0, 0, math.sin(a / 2)}, {x, y, z})
end

local function scene(kind, size, solver, threshold)
  local model, name = solver:match("(%w+):(%w+)")
  local w = lucid.world{dt = 2e-3, sparse_threshold = threshold,
                        contact = {model = model, solver = name}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  local box = lucid.box(0.05, 0.05, 0.05)
  if kind == "tower" then
    for i = 0, size - 1 do
      w:add_body{shape = box, friction = 0.5, pose = at(0, 0, 0.05 + 0.1001 * i, 0.01 * i)}
    end
  else
    local k = size
    for i = 0, k - 1 do
      for j = 0, k - 1 do
        w:add_body{shape = box, friction = 0.5,
                   pose = at(0.1005 * i, 0.1005 * j, 0.05, 0.02 * ((i + j) % 4))}
      end
    end
    for i = 0, k - 2 do
      for j = 0, k - 2 do
        w:add_body{shape = box, friction = 0.5, pose = at(0.1005 * i + 0.05, 0.1005 * j + 0.05,
                                                          0.1501, 0.01 * (i % 3))}
      end
    end
  end
  return w
end

local function time_steps(w, x)
  w:set_state(x)
  w:step(2) -- warm the buffers and the warm start alike for both paths
  local t0 = lucid.clock()
  local contacts = 0
  for _ = 1, steps do
    w:step()
    contacts = contacts + w:stats().contacts
  end
  return (lucid.clock() - t0) / steps * 1e3, contacts / steps, w:stats()
end

-- --max-grid K: the grid scenes up to k = K only (the dense interior point takes seconds a
-- step on grid 4)
local solvers, max_grid = {}, 4
for _, a in ipairs(arg) do
  local k = a:match("^%-%-max%-grid=(%d+)$")
  if k then max_grid = tonumber(k) else solvers[#solvers + 1] = a end
end
if #solvers == 0 then solvers = {"ncp:admm", "ccp:newton", "ncp:pgs"} end
print(string.format("%-10s %-6s %4s %9s %11s %11s %8s", "solver", "scene", "size", "contacts",
                    "dense ms", "sparse ms", "d/s"))
for _, solver in ipairs(solvers) do
  local cases = {{"tower", 1}, {"tower", 2}, {"tower", 4}, {"tower", 8}, {"tower", 16},
                 {"grid", 2}, {"grid", 3}, {"grid", 4}}
  for _, c in ipairs(cases) do
    if c[1] == "grid" and c[2] > max_grid then break end
    local base = scene(c[1], c[2], solver, 1000000)
    base:step(settle)
    local x = base:state()
    local dense_ms, sparse_ms, contacts, sd, ss = math.huge, math.huge
    for _ = 1, 3 do
      local ms, n, st = time_steps(scene(c[1], c[2], solver, 1000000), x)
      if ms < dense_ms then dense_ms, contacts, sd = ms, n, st end
      ms, _, st = time_steps(scene(c[1], c[2], solver, 0), x)
      if ms < sparse_ms then sparse_ms, ss = ms, st end
    end
    print(string.format("%-10s %-6s %4d %9.1f %11.3f %11.3f %8.2f   islands %d/%d conv %s/%s",
                        solver, c[1], c[2], contacts, dense_ms, sparse_ms, dense_ms / sparse_ms,
                        sd.islands, ss.islands, tostring(sd.converged), tostring(ss.converged)))
  end
end
