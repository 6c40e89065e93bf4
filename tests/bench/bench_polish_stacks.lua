-- Nine stacks of four 10 cm boxes, spinning about the vertical, on a plane, every island in body
-- space (sparse_threshold 0): iterations a step, converged steps and CPU ms a step over 600
-- steps of 5 ms, for contacts of dim 3, 4 (torsion 0.02 m) or 6 (and rolling 0.01 m).
-- Usage: POLISH=0|1 ./lucid tests/bench/bench_polish_stacks.lua [dim=4]
local lucid = require "lucid"
local dim = tonumber(arg[1] or 4)
local polish = os.getenv("POLISH") ~= "0"
local function run(thr)
  local w = lucid.world{dt = 0.005, sparse_threshold = thr, contact = {polish = polish}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  for i = 1, 3 do for j = 1, 3 do for k = 1, 4 do
    local t = {shape = lucid.box(0.05, 0.05, 0.05), mass = 1, friction = 0.5,
      pose = lucid.se3.new({1, 0, 0, 0}, {0.3 * i + 0.01 * k, 0.3 * j, 0.05 + 0.1001 * (k - 1)}),
      velocity = {0, 0, 0, 0, 0, 3 * ((i + j + k) % 3 - 1)}}
    if dim >= 4 then t.torsion = 0.02 end
    if dim == 6 then t.rolling = 0.01 end
    w:add_body(t)
  end end end
  local it, conv, n, t0 = 0, 0, 0, os.clock()
  for s = 1, 600 do
    w:step(1)
    local st = w:stats()
    it = it + st.iterations; n = n + 1; if st.converged then conv = conv + 1 end
  end
  print(string.format("dim %d polish %s: %.1f iterations/step, %d/%d converged, %.3f ms/step",
                      dim, tostring(polish), it / n, conv, n, (os.clock() - t0) / n * 1e3))
end
run(0)
