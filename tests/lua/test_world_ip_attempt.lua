-- The island solve's last attempt, the model's interior point (docs/world_step.md, "The island
-- solve"): a box landing on a corner (tasks/single_level_drop.lua's box at 30 Hz, in an
-- orientation found by search) gives on step 11 an NCP where the warm ncp:admm and the PGS
-- after it both spend their 200 iterations without meeting tol 1e-6; the ip attempt meets it.
-- The worlds ask for ncp:admm (the default, ncp:newton, solves this island itself).
local t = require "testing"
local lucid = require "lucid"

local Q = {0.2195789298584524, 0.94584414325039445, 0.17923864895730196, -0.15823228798543373}

local function corner_drop()
  local w = lucid.world{dt = 1 / 30, collision = "two_stage", contact = {solver = "admm"}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  w:add_body{shape = lucid.box(0.2, 0.15, 0.1), mass = 1, friction = 0.5,
             pose = lucid.se3.new(Q, {0, 0, 0.5})}
  return w
end

t.case("a corner landing where ADMM and PGS stall converges through the ip attempt", function()
  local w = corner_drop()
  local max_iter = 200 -- the world's default (docs/world.md)
  local reached = 0
  for step = 1, 45 do
    w:step()
    local st = w:stats()
    t.truthy(st.converged, "step " .. step .. " converged")
    t.truthy(st.scaled_residual <= 1e-6, "step " .. step .. " scaled residual within tol")
    if st.iterations > 2 * max_iter then
      -- warm ADMM and PGS each ran to their cap, the ip then met tol; the forces applied are
      -- those of the island's answer: its NCP criterion, recomputed here from the problem, is
      -- the world's stats.residual
      reached = reached + 1
      local P = w:contact_problem()
      local r = lucid.contact.residual(P.G, P.g, P.mu, P.lambda)
      t.near(r.abs, st.residual, 1e-9 * st.residual)
    end
  end
  t.truthy(reached >= 1, "the ip attempt ran")
end)

t.case("the ip attempt in body space: the same step converges, the same motion as dense", function()
  -- the same drop, dense (sparse_threshold -1: 4 contacts stay dense) and in body space
  -- (threshold 0), both set to the dense world's state each step (which also clears both
  -- warm starts alike): step 11 reaches the ip attempt on both paths (ncp:ip dense,
  -- in contact space from the sparse pieces in body space), both meet tol, and the box moves
  -- alike. The forces themselves are not compared: 4 contacts on one body give a G of rank 6
  -- of 12, so the problem fixes the forces only up to internal ones, which two solvers stopped
  -- at one criterion may leave apart (the wrench on the body, hence its velocity, is fixed)
  local function drop(threshold)
    local w = lucid.world{dt = 1 / 30, collision = "two_stage", sparse_threshold = threshold,
                          contact = {solver = "admm"}}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
    w:add_body{shape = lucid.box(0.2, 0.15, 0.1), mass = 1, friction = 0.5,
               pose = lucid.se3.new(Q, {0, 0, 0.5})}
    return w
  end
  local dense, sparse = drop(-1), drop(0)
  local reached = 0
  for step = 1, 45 do
    local x = dense:state()
    dense:set_state(x)
    sparse:set_state(x)
    dense:step()
    sparse:step()
    local sd, ss = dense:stats(), sparse:stats()
    t.truthy(sd.converged and ss.converged, "step " .. step .. " converged on both paths")
    t.truthy(sparse:contact_problem{G = false}.sparse ~= nil or ss.contacts == 0, "body space")
    t.eq(#sparse:contacts(), #dense:contacts())
    local vd, vs = dense:velocity(2), sparse:velocity(2)
    local gap, big = 0, 0
    for k = 1, 6 do
      gap = math.max(gap, math.abs(vd[k] - vs[k]))
      big = math.max(big, math.abs(vd[k]))
    end
    -- dense: ADMM, PGS, then the ip; body space: ADMM, then the ip at once (its answer was
    -- farther than LUCID_WORLD_PGS_POLISH tol from tol, where PGS rarely meets it)
    if sd.iterations > 400 and ss.iterations > 200 then
      reached = reached + 1
      t.truthy(ss.iterations < 400, "step " .. step .. ": body space skipped PGS, " .. ss.iterations)
      t.truthy(gap <= 1e-8 * big, "step " .. step .. ": velocities after the ip differ by " .. gap)
    end
  end
  t.truthy(reached >= 1, "the ip attempt ran on both paths")
end)
