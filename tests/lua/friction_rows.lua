-- Helpers for tests of dry-friction rows (joint and tendon frictionloss, docs/world.md "Robots in
-- the world"): finding the row among the last step's contacts and the velocity bound a stuck
-- row's answer guarantees.
local M = {}

-- The first dry-friction row of the last step (a tendon's when `tendon` is true), or nil.
function M.row(w, tendon)
  for _, c in ipairs(w:contacts()) do
    if c.frictionloss and (not tendon or c.tendon) then return c end
  end
end

-- The bound on a stuck row's velocity the solver's answer guarantees, for a world of step dt:
-- its force lambda inside the cone (|lambda_t| < lambda_n), sigma + Gamma within delta of the
-- dual cone K* and |lambda . (sigma + Gamma)| = c. For d' in K*,
-- lambda . d' >= (lambda_n - |lambda_t|) |d'_t|, so
-- |sigma_t| <= (c + |lambda| delta) / (lambda_n - |lambda_t|) + delta, and c, delta <= res
-- (w:stats().residual): |v| = dt |sigma_t| <= dt res ((1 + |lambda|) / (lambda_n - |lambda_t|) + 1).
-- A force on the cone's edge (within tol 1e-6 of f) is sliding's: bound 0.
function M.stuck_bound(w, c, dt)
  local res, l = w:stats().residual, c.lambda
  if l[3] - math.abs(l[1]) <= 1e-6 * c.frictionloss then return 0 end
  local norm = math.sqrt(l[1] ^ 2 + l[2] ^ 2 + l[3] ^ 2)
  return dt * res * ((1 + norm) / (l[3] - math.abs(l[1])) + 1)
end

return M
