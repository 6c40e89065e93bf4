-- lucid.mpi in a serial run (rank 0 of 1): the same code path as under mpirun (results are
-- serialised and deserialised by sweep), so exactness of the round trip is tested here; the
-- two-rank run is tests/mpi/run.sh (ctest mpi/sweep_task).
local t = require "testing"
local lucid = require "lucid"
local mpi = lucid.mpi

t.case("serial: rank 0 of 1", function()
  t.eq(mpi.rank(), 0)
  t.eq(mpi.size(), 1)
  t.eq(mpi.enabled, false)
  mpi.barrier()
end)

t.case("sweep returns fn's results in item order, bit for bit", function()
  local items = {}
  for i = 1, 7 do items[i] = i / 3 end
  local r = mpi.sweep(items, function(x, i)
    return {x = x, i = i, third = 1 / 3 * i, int = 2 ^ 53 // 1 + i, big = math.maxinteger,
            s = "a\0b" .. i, yes = true, no = false, tiny = 5e-324, inf = math.huge,
            v = lucid.vec{x, -x, 0.1}, m = lucid.mat{{1, 2, 3}, {4, 5, x}}, nested = {{{i}}}}
  end)
  t.eq(#r, 7)
  for i = 1, 7 do
    t.eq(r[i].x, i / 3)
    t.eq(r[i].i, i)
    t.eq(math.type(r[i].i), "integer")
    t.eq(r[i].third, 1 / 3 * i)
    t.eq(r[i].int, 2 ^ 53 // 1 + i)
    t.eq(math.type(r[i].int), "float")
    t.eq(r[i].big, math.maxinteger)
    t.eq(r[i].s, "a\0b" .. i)
    t.eq(r[i].yes, true)
    t.eq(r[i].no, false)
    t.eq(r[i].tiny, 5e-324)
    t.eq(r[i].inf, math.huge)
    t.eq(tostring(r[i].v), tostring(lucid.vec{i / 3, -i / 3, 0.1}))
    t.eq(#r[i].v, 3)
    t.eq(r[i].m:rows(), 2)
    t.eq(r[i].m:get(2, 3), i / 3)
    t.eq(r[i].nested[1][1][1], i)
  end
  local nan = mpi.sweep({1}, function() return 0 / 0 end)[1]
  t.truthy(nan ~= nan, "NaN survives")
  t.eq(#mpi.sweep({}, function() return 1 end), 0)
end)

t.case("gather and allreduce of vectors", function()
  local g = mpi.gather(lucid.vec{1, 2, 3})
  t.eq(#g, 1)
  t.eq(tostring(g[1]), tostring(lucid.vec{1, 2, 3}))
  t.eq(mpi.gather({4, 5})[1][2], 5)
  t.eq(#mpi.gather({})[1], 0)
  local s = mpi.allreduce({1.5, -2}, "sum")
  t.eq(s[1], 1.5)
  t.eq(s[2], -2)
  t.eq(tostring(mpi.allreduce(lucid.vec{3}, "max")), tostring(lucid.vec{3}))
  local big = {}
  for i = 1, 10000 do big[i] = i * 0.5 end
  local b = mpi.allreduce(big, "min")
  t.eq(#b, 10000)
  t.eq(b[10000], 5000)
end)

t.case("errors name the function", function()
  t.raises("lucid.mpi.sweep: cannot send a function value", mpi.sweep, {1},
           function() return print end)
  t.raises("lucid.mpi.sweep: rank 0: boom", mpi.sweep, {1, 2}, function(_, i)
    if i == 2 then error("boom", 0) end
    return i
  end)
  t.raises("lucid.mpi.sweep: items must be a table", mpi.sweep, 3, print)
  t.raises("lucid.mpi.sweep: fn must be a function", mpi.sweep, {}, 3)
  local cycle = {}
  cycle.self = cycle
  t.raises("lucid.mpi.sweep: value nested too deeply", mpi.sweep, {1}, function() return cycle end)
  t.raises("lucid.mpi.allreduce: op must be", mpi.allreduce, {1}, "prod")
  t.raises("lucid.mpi.allreduce: entry 2 is not a number", mpi.allreduce, {1, "x"})
  t.raises("lucid.mpi.gather: root must be a rank in [0, 0]", mpi.gather, {1}, 1)
  t.raises("lucid.mpi.gather: expected a lucid.vec or a table of numbers", mpi.gather, "x")
end)
