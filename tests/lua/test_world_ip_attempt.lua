-- The island solve's last attempt, the model's interior point (docs/world.md, "Where ADMM and
-- PGS stall"): a box landing on a corner (tasks/single_level_drop.lua's box, its first
-- orientation at seed 0, 30 Hz) gives on step 25 an NCP where the warm ncp:admm and the PGS
-- after it both spend their 200 iterations without meeting tol 1e-6; before the ip attempt
-- that step (and 5 others of the drop) ended with converged = false.
local t = require "testing"
local lucid = require "lucid"

local Q = {0.34564107551159473, -0.82103156084948159, 0.041273313222340402, -0.45247755372383125}

local function corner_drop()
  local w = lucid.world{dt = 1 / 30, collision = "two_stage"}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  w:add_body{shape = lucid.box(0.2, 0.15, 0.1), mass = 1, friction = 0.5,
             pose = lucid.se3.new(Q, {0, 0, 0.5})}
  return w
end

t.case("a corner landing where ADMM and PGS stall converges through the ip attempt", function()
  local w = corner_drop()
  local max_iter = 200 -- the world's default (docs/world.md)
  for step = 1, 45 do
    w:step()
    local st = w:stats()
    t.truthy(st.converged, "step " .. step .. " converged")
    t.truthy(st.scaled_residual <= 1e-6, "step " .. step .. " scaled residual within tol")
    if step == 25 then
      -- warm ADMM and PGS each ran to their cap, the ip then met tol
      t.truthy(st.iterations > 2 * max_iter, "step 25: ADMM and PGS spent, " .. st.iterations)
      -- the forces applied are those of the island's answer: its NCP criterion, recomputed
      -- here from the problem, is the world's stats.residual
      local P = w:contact_problem()
      t.truthy(#P.mu == 4, "step 25: four corner contacts")
      local r = lucid.contact.residual(P.G, P.g, P.mu, P.lambda)
      t.near(r.abs, st.residual, 1e-9 * st.residual)
    end
  end
end)
