-- Issue 32: why probe_hfield_pile_launch.lua (K = 1) launches a box. Usage:
--   ./lucid tests/bench/probe_hfield_wedge.lua ray      the first step's unconverged island
--       (the last one solved) re-solved by lucid.contact.solve at growing max_iter: with
--       friction, its largest force grows with the iterations (no solution), without it or
--       without the correction it does not; then the forces of the longest solve (the ray)
--   ./lucid tests/bench/probe_hfield_wedge.lua launch [STEP [BODY]]   body BODY's contacts,
--       forces, net contact force and the unconverged islands at the steps STEP-2..STEP+1
local mode, S, B = arg[1] or "ray", tonumber(arg[2] or "594"), tonumber(arg[3] or "5")

local function world(vc)
  local e = {}
  for r = 1, 41 do e[r] = {} for c = 1, 41 do e[r][c] = 0.02 * math.sin(r - 1) * math.cos(c - 1) end end
  local opts = {dt = 1e-3}
  if vc then opts.correction_speed = vc end
  local w = lucid.world(opts)
  w:add_static{shape = lucid.heightfield{elevation = e, size = {1, 1, 0.5, 0.2}}, friction = 1}
  for i = 0, 19 do
    w:add_body{shape = i % 2 == 0 and lucid.cylinder(0.05, 0.1) or lucid.box(0.05, 0.04, 0.03),
               mass = 1, friction = 1,
               pose = lucid.se3.new({1, 0, 0, 0}, {-0.8 + 0.08 * i, 0.05 * (i % 5), 0.3}) *
                      lucid.se3.exp({0, 0, 0, 1.2, 0.3, 0})}
  end
  return w
end

local function describe(c)
  local pr = c.prism and string.format(" prism (%d,%d,%d%s)", c.prism.row, c.prism.col, c.prism.tri,
                                       c.prism.top and ", top" or "") or ""
  return string.format("%d-%d sep %.4f n (%.3f,%.3f,%.3f)%s", c.body1, c.body2, c.separation,
                       c.normal[1], c.normal[2], c.normal[3], pr)
end

if mode == "ray" then
  local ray
  for _, vc in ipairs({false, 0}) do
    local w = world(vc)
    w:step()
    local p = w:contact_problem()
    local n = #p.mu
    for _, frictionless in ipairs({false, true}) do
      local mu = {}
      for i = 1, n do mu[i] = frictionless and 0 or p.mu[i] end
      for _, solver in ipairs({"admm", "newton"}) do
        local line = {}
        for _, it in ipairs({100, 1000, 10000, 100000}) do
          local sol = lucid.contact.solve{G = p.G, g = p.g, mu = mu, R = p.R, model = "ccp",
                                          solver = solver, tol = 1e-9, max_iter = it}
          local big = 0
          for i = 1, 3 * n do big = math.max(big, math.abs(sol.lambda[i])) end
          line[#line + 1] = string.format("%d: %.3g", it, big)
          if vc == false and not frictionless and solver == "admm" then ray = {sol = sol, p = p, w = w} end
        end
        print(string.format("correction %s, %d contacts, %s, ccp:%s: max|lambda| at max_iter %s",
                            vc == 0 and "0" or "default", n, frictionless and "mu 0" or "mu 1", solver,
                            table.concat(line, ", ")))
      end
    end
  end
  local cs, big = ray.w:contacts(), 0
  for i = 1, #ray.p.mu do big = math.max(big, ray.sol.lambda[3 * i]) end
  print("the ray (ccp:admm, 1e5 iterations), contacts above 1e-3 of the largest normal force:")
  for i = 1, #ray.p.mu do
    local l = ray.sol.lambda
    if l[3 * i] > 1e-3 * big then
      print(string.format("  %s  lambda/max (%.3f,%.3f,%.3f) |lambda_T|/lambda_N %.3f",
                          describe(cs[ray.p.contacts[i]]), l[3 * i - 2] / big, l[3 * i - 1] / big,
                          l[3 * i] / big, math.sqrt(l[3 * i - 2]^2 + l[3 * i - 1]^2) / l[3 * i]))
    end
  end
else
  local w = world(false)
  for _ = 1, S - 3 do w:step() end
  for s = S - 2, S + 1 do
    w:step()
    local v, F, big = w:velocity(B), {0, 0, 0}, 0
    print(string.format("step %d: body %d v (%.3g,%.3g,%.3g) m/s, w (%.3g,%.3g,%.3g) rad/s", s, B,
                        v[1], v[2], v[3], v[4], v[5], v[6]))
    for _, c in ipairs(w:contacts()) do
      local sg = (c.body2 == B and 1) or (c.body1 == B and -1) or 0
      if sg ~= 0 and c.lambda[3] > 0 then
        print(string.format("  %s  lambda (%.3g,%.3g,%.3g)", describe(c), c.lambda[1], c.lambda[2], c.lambda[3]))
      end
      for j = 1, 3 do F[j] = F[j] + sg * c.force[j]; if sg ~= 0 then big = math.max(big, math.abs(c.force[j])) end end
    end
    print(string.format("  net contact force (%.3g,%.3g,%.3g) N, largest component %.3g N", F[1], F[2], F[3], big))
    for _, I in ipairs(w:islands()) do
      if not I.converged then
        print(string.format("  unconverged island: %d contacts, %s, answer %s, residual %.3g", I.contacts,
                            I.backend, I.answer, I.residual))
      end
    end
    local st = w:stats()
    print(string.format("  energy_ratio %.4g, energy_jump %s", st.energy_ratio, tostring(st.energy_jump)))
  end
end
