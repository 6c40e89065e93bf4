-- w:islands(): which answer of the island solve each island's forces are, on which backend, and
-- its criteria. The reports must add up to w:stats() (islands, contacts, iterations, converged,
-- the largest scaled residual), name an attempt that was made, and follow the options that
-- choose the backend and the solver.
local t = require "testing"
local lucid = require "lucid"

-- A column of five boxes and one box apart from it on a floor: two islands once they land.
local function scene(options)
  local w = lucid.world(options)
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  for i = 1, 5 do
    w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1,
               pose = lucid.se3.new({1, 0, 0, 0}, {0.01 * i, 0, 0.1 + 0.21 * (i - 1)})}
  end
  w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1,
             pose = lucid.se3.new({1, 0, 0, 0}, {2, 0, 0.1})}
  return w
end

-- Checks one step's reports against its stats; returns the reports.
local function check_step(w)
  local st, islands = w:stats(), w:islands()
  t.eq(#islands, st.islands, "one report per island")
  local contacts, iterations, converged, worst = 0, 0, true, 0
  for _, is in ipairs(islands) do
    contacts = contacts + is.contacts
    iterations = iterations + is.iterations
    converged = converged and is.converged
    worst = math.max(worst, is.residual)
    t.truthy(is.dim == 3 or is.dim == 4 or is.dim == 6, "rows per contact")
    t.truthy(is.backend == "dense" or is.backend == "body", "backend")
    local made = is.answer == "zero"
    for _, a in ipairs(is.attempts) do made = made or a == is.answer end
    t.truthy(made, "the applied answer is one of the attempts made (" .. is.answer .. ")")
  end
  t.eq(contacts, st.contacts, "the islands hold every contact")
  t.eq(iterations, st.iterations, "iterations add up")
  t.eq(converged, st.converged, "converged when every island met tol")
  t.eq(worst, st.scaled_residual, "the stats' residual is the largest island's")
  return islands
end

local function run(w, steps)
  local last
  for _ = 1, steps do
    w:step()
    last = check_step(w)
  end
  return last
end

t.case("the default solve: reports add up, the settled column keeps the warm answer", function()
  local w = scene{dt = 0.005}
  local islands = run(w, 120)
  t.eq(#islands, 2)
  for _, is in ipairs(islands) do
    t.eq(is.backend, "dense")
    t.eq(is.answer, "warm")
    t.truthy(is.converged)
  end
end)

t.case("the default ncp:newton: dense Newton up to 32 contacts, ADMM to 64, body-space Newton above", function()
  local w = scene{dt = 0.005}
  for _, is in ipairs(run(w, 120)) do t.eq(is.solver, "newton", is.contacts .. " contacts") end
  local tall = lucid.world{dt = 0.005} -- a column of 10 boxes: 40 contacts, one island
  tall:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  for i = 1, 10 do
    tall:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1,
                  pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.1 + 0.201 * (i - 1)})}
  end
  local islands = run(tall, 120)
  t.eq(#islands, 1)
  t.truthy(islands[1].contacts > 32, "one island above dense Newton's size")
  t.eq(islands[1].solver, "admm")
  t.eq(islands[1].backend, "dense", "ADMM's own crossover keeps 40 contacts dense")
  for _, is in ipairs(run(scene{dt = 0.005, sparse_threshold = 0}, 80)) do
    t.eq(is.backend, "body")
    t.eq(is.solver, "newton", "the body-space Newton of the NCP")
  end
  for _, is in ipairs(run(scene{dt = 0.005, contact = {solver = "admm"}}, 80)) do t.eq(is.solver, "admm") end
end)

t.case("an ADMM held to one iteration: the answer comes from a later attempt", function()
  local w = scene{dt = 0.005, contact = {solver = "admm", max_iter = 1, warm_start = false}}
  local later = 0
  for _ = 1, 60 do
    w:step()
    for _, is in ipairs(check_step(w)) do
      if is.answer == "pgs" or is.answer == "ip" then
        later = later + 1
        t.truthy(#is.attempts >= 2, "a later answer follows the first attempt")
      end
    end
  end
  t.truthy(later > 0, "some island kept a PGS or interior-point answer")
end)

t.case("sparse_threshold = 0 solves every island in body space", function()
  local w = scene{dt = 0.005, sparse_threshold = 0}
  for _, is in ipairs(run(w, 80)) do t.eq(is.backend, "body") end
end)

t.case("PGS worlds make one attempt", function()
  local w = scene{dt = 0.005, contact = {solver = "pgs"}}
  for _, is in ipairs(run(w, 80)) do
    t.truthy(is.answer == "warm" or is.answer == "zero")
    t.truthy(#is.attempts <= 2, "warm, and cold only when the warm answer failed")
  end
end)

t.case("the single-level pipeline reports its Newton solves", function()
  local w = scene{dt = 0.005, collision = "single_level"}
  local islands = run(w, 80)
  t.truthy(#islands > 0)
  for _, is in ipairs(islands) do
    t.eq(is.answer, "newton")
    t.eq(is.attempts[1], "newton")
  end
end)

t.case("a step without contacts has no islands", function()
  local w = lucid.world{dt = 0.005}
  w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1}
  w:step()
  t.eq(#w:islands(), 0)
end)

t.case("rows per contact follow torsional and rolling friction in both pipelines", function()
  for _, collision in ipairs{"two_stage", "single_level"} do
    for _, case in ipairs{{{}, 3}, {{torsion = 0.01}, 4}, {{torsion = 0.01, rolling = 0.002}, 6}} do
      local w = lucid.world{dt = 0.005, collision = collision}
      w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
      local desc = {shape = lucid.sphere(0.1), mass = 1, friction = 0.5,
                    pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.1})}
      for k, v in pairs(case[1]) do desc[k] = v end
      w:add_body(desc)
      w:step()
      local islands = check_step(w)
      t.eq(#islands, 1)
      t.eq(islands[1].dim, case[2], collision)
    end
  end
end)
