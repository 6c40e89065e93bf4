-- The Allegro hand closing on its cube (allegro_cube.xml's recipe, dt 2 ms) at solver
-- tolerance tol: at each checkpoint the largest joint speed, the steps since the last checkpoint
-- that missed tol, and for each pressing contact of the last island its friction utilisation
-- |lambda_t| / (mu lambda_n) (1 on the cone's edge) and its slip speed |(G lambda + g)_t|.
-- Shows how the servos' slides approach the cone's edge and where the solve stops them.
-- Usage: ./lucid tests/bench/probe_hold_settle.lua [tol]
local lucid = require "lucid"
local path = (os.getenv("LUCID_SHARED_DIR") or "../shared") .. "/data/robots/allegro_cube.xml"
local tol = tonumber(arg[1] or 1e-10)
local w = lucid.world{dt = 0.002, contact = {tol = tol, max_iter = 5000}}
local id = w:add_model(lucid.model.load(path))
w:set_control(id, {0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 1.3, 1.2, 1.2, 1.2})
local names = {}
for k, v in pairs(w:links(id)) do names[v] = k end
local done = 0
for _, n in ipairs{300, 600, 1000, 1500, 3000, 6000, 10000} do
  local missed = 0
  for _ = done + 1, n do
    w:step()
    if not w:stats().converged then missed = missed + 1 end
  end
  done = n
  local p = w:contact_problem()
  local u = p.G * p.lambda + p.g
  local v, vmax = w:v(id), 0
  for k = 1, #v do vmax = math.max(vmax, math.abs(v[k])) end
  print(string.format("step %5d (%4.1f s): max |qdot| %.2e, %d steps missed tol, residual %.1e", n,
                      n * 0.002, vmax, missed, w:stats().residual))
  local cs = w:contacts()
  for i = 1, #p.mu do
    local ln = p.lambda[3 * i]
    if ln > 1e-6 then
      local c = cs[p.contacts[i]]
      local lt = math.sqrt(p.lambda[3 * i - 2] ^ 2 + p.lambda[3 * i - 1] ^ 2)
      print(string.format("  contact %2d %-11s %-11s lambda_n %7.3f  1 - utilisation %9.2e  slip %.2e m/s",
                          p.contacts[i], names[c.body1], names[c.body2], ln, 1 - lt / (p.mu[i] * ln),
                          math.sqrt(u[3 * i - 2] ^ 2 + u[3 * i - 1] ^ 2)))
    end
  end
end
