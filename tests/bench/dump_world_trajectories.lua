-- Every state of a few scenes (and w:step_derivatives' A and B on some steps) in %a, one line
-- per step, for a bitwise comparison of two builds (docs/benchmarks/world_data.md):
--   OPENBLAS_NUM_THREADS=1 build/lucid tests/bench/dump_world_trajectories.lua > out.txt
local lucid = require "lucid"
local out = {}
local function dump(tag, x)
  local t = {}
  for i = 1, #x do t[#t + 1] = string.format("%a", x[i]) end
  out[#out + 1] = tag .. " " .. table.concat(t, " ")
end
local function mat(tag, M)
  local t = {}
  for i = 1, M:rows() do
    for j = 1, M:cols() do t[#t + 1] = string.format("%a", M:get(i, j)) end
  end
  out[#out + 1] = tag .. " " .. table.concat(t, " ")
end
local function run(name, w, steps, deriv_every)
  for k = 1, steps do
    if deriv_every and k % deriv_every == 0 then
      local D = w:step_derivatives()
      mat(name .. " A" .. k, D.A); mat(name .. " B" .. k, D.B)
    else
      w:step()
    end
    dump(name .. " " .. k, w:state())
  end
end
local pile = dofile("tests/bench/pile_scene.lua")
run("pile_ncp_admm", (pile(40, "ncp", "admm")), 300, 50)
run("pile_ccp_pgs", (pile(24, "ccp", "pgs")), 200)
local w = lucid.world{dt = 0.002}
w:add_model(lucid.model.load("/usr/share/mujoco/model/humanoid/humanoid.xml"))
run("humanoid", w, 400, 100)
local s = lucid.world{dt = 0.005, collision = "single_level"}
s:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
for i = 1, 3 do
  s:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1,
             pose = lucid.se3.new({1, 0, 0, 0}, {0.01 * i, 0, 0.12 * i})}
end
run("single_level", s, 200)
io.write(table.concat(out, "\n"), "\n")
