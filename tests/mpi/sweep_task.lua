-- A parameter sweep written once for serial runs and MPI runs alike (tests/mpi/run.sh runs it
-- both ways and diffs the outputs): boxes pushed across the ground with a range of friction
-- coefficients and forces, each simulated for 0.2 s, results printed to 17 digits. It also
-- checks lucid.mpi's collective operations against closed forms for whatever the size is.
local lucid = require "lucid"
local mpi = lucid.mpi
local rank, size = mpi.rank(), mpi.size()
assert(rank >= 0 and rank < size)
-- tests/mpi/run.sh says how many ranks the run must have (so an MPI run that silently fell
-- back to one rank fails)
local expected = tonumber(os.getenv("LUCID_EXPECT_RANKS") or "")
assert(not expected or size == expected, "expected " .. tostring(expected) .. " ranks, got " .. size)
assert(mpi.enabled == (size > 1) or size == 1)

-- collectives: closed forms in rank and size
local s = mpi.allreduce({rank + 1, 2 * rank}, "sum")
assert(s[1] == size * (size + 1) / 2 and s[2] == size * (size - 1), "allreduce sum")
assert(mpi.allreduce(lucid.vec{rank}, "max")[1] == size - 1, "allreduce max")
assert(mpi.allreduce({rank}, "min")[1] == 0, "allreduce min")
local g = mpi.gather(lucid.vec{rank, rank * rank}, 0)
if rank == 0 then
  assert(#g == size)
  for r = 1, size do assert(g[r][1] == r - 1 and g[r][2] == (r - 1) ^ 2, "gather") end
else
  assert(g == nil)
end
mpi.barrier()

-- the sweep
local items = {}
for _, mu in ipairs{0.1, 0.3, 0.6} do
  for _, f in ipairs{1, 3, 6, 9} do items[#items + 1] = {mu = mu, force = f} end
end
local results = mpi.sweep(items, function(p, i)
  local w = lucid.world{dt = 2e-3}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = p.mu}
  local id = w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1, friction = p.mu,
                        pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.05})}
  for _ = 1, 100 do
    w:apply_force(id, {p.force, 0, 0})
    w:step()
  end
  return {index = i, x = w:pose(id):translation(), v = w:velocity(id)[1],
          label = string.format("mu=%.1f f=%d", p.mu, p.force), by = mpi.rank()}
end)
assert(#results == #items)
print(string.format("sweep of %d pushed boxes", #items))
for i, r in ipairs(results) do
  assert(r.index == i and r.by == (i - 1) % size, "item " .. i .. " computed by its rank")
  print(string.format("%-12s x = %.17g  v = %.17g", r.label, r.x[1], r.v))
end
