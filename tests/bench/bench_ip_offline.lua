-- Solves island problems written by bench_pile_dump.lua with one solver (default ncp:ip, cold,
-- tol 1e-6: the island solve's tol on its scaled problem) and counts those meeting tol.
--   ./lucid tests/bench/bench_ip_offline.lua FILE... [--solver MODEL:SOLVER] [--warm]
local lucid = require "lucid"
local files, pair, warm = {}, "ncp:ip", false
local k = 1
while k <= #arg do
  if arg[k] == "--solver" then
    pair, k = arg[k + 1], k + 1
  elseif arg[k] == "--warm" then
    warm = true
  else
    files[#files + 1] = arg[k]
  end
  k = k + 1
end
local model, solver = pair:match("(%w+):(%w+)")
local met = 0
for _, file in ipairs(files) do
  local P = dofile(file)
  local sol = lucid.contact.solve{G = lucid.mat(P.G), g = P.g, mu = P.mu, R = P.R, model = model, solver = solver,
                                  tol = 1e-6, max_iter = 200, warm_start = warm and P.lambda or nil}
  if sol.converged then met = met + 1 end
  print(string.format("%s, %d contacts: %s in %d iterations, criterion %.2e%s", file:match("[^/]*$"), P.n,
                      sol.converged and "met tol" or "missed tol", sol.iterations, sol.model_residual.abs,
                      sol.stalled and " (stalled)" or ""))
end
print(string.format("%s: %d of %d met tol", pair, met, #files))
