-- ADMM warm started from a lambda alone (no dual: lucid.contact.solve derives the multiplier
-- from it) on island problems written by bench_pile_dump.lua, from two starts: the interior
-- point's cold answer and PGS's after 200 iterations from the file's lambda; alpha 1.0 and 1.5,
-- 1000 iterations, tol 1e-7. Prints per run converged, iterations, diverged and the model
-- criterion; a raised error is printed instead (issue 32: it had been `non-finite number`).
--   ./lucid tests/bench/bench_admm_warm_lambda.lua FILE...
-- Recorded in docs/benchmarks/solve_choice.md.
local lucid = require "lucid"
for _, file in ipairs(arg) do
  local P = dofile(file)
  local G = lucid.mat(P.G)
  local ip = lucid.contact.solve{G = G, g = P.g, mu = P.mu, R = P.R, model = "ncp", solver = "ip", tol = 1e-7, max_iter = 200}
  local pgs = lucid.contact.solve{G = G, g = P.g, mu = P.mu, R = P.R, model = "ncp", solver = "pgs", tol = 1e-7, max_iter = 200, warm_start = P.lambda}
  for _, run in ipairs{{"ip", ip.lambda}, {"pgs", pgs.lambda}} do
    local name, start = run[1], run[2]
    for _, alpha in ipairs{1.0, 1.5} do
      local ok, sol = pcall(lucid.contact.solve, {G = G, g = P.g, mu = P.mu, R = P.R, model = "ncp", solver = "admm",
         tol = 1e-7, max_iter = 1000, warm_start = start, alpha = alpha})
      print(file:match("[^/]*$"), name, alpha, ok and string.format("%s %d div=%s %.2e", sol.converged, sol.iterations, sol.diverged, sol.model_residual.abs) or sol)
    end
  end
end
