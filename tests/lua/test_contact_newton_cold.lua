-- ncp:newton from zero on the islands where the semismooth Newton's monotone line search
-- crawled or stalled (docs/benchmarks/solve_choice.md, "ncp:newton from zero"): the Allegro
-- hand's grasp of its cube at steps 300, 500 and 600 (11 wedged contacts; 55, 114 and 200
-- iterations without meeting tol before the non-monotone search) and the pile's 4-contact
-- island where ADMM, PGS and the ip stall. Each must meet tol 1e-6 within the world's budget
-- (200 iterations), the NCP criterion recomputed here from the problem.
local t = require "testing"
local lucid = require "lucid"

local TOL, MAX_ITER = 1e-6, 200 -- the world's tol and budget (docs/world.md)
local FILES = {"allegro_s300_n11.lua", "allegro_s500_n11.lua", "allegro_s600_n11.lua",
               "pile40_s147_n4.lua"}

for _, name in ipairs(FILES) do
  t.case("ncp:newton from zero meets tol on " .. name, function()
    local P = dofile("tests/data/contact/" .. name)
    local G = lucid.mat(P.G)
    local sol = lucid.contact.solve{G = G, g = P.g, mu = P.mu, R = P.R, model = "ncp",
                                    solver = "newton", tol = TOL, max_iter = MAX_ITER}
    t.truthy(sol.converged, name .. ": converged within the budget")
    t.truthy(sol.iterations <= MAX_ITER, name .. ": iterations " .. sol.iterations)
    local r = lucid.contact.residual(G, P.g, P.mu, sol.lambda, {R = P.R})
    t.truthy(r.abs <= TOL, string.format("%s: NCP criterion %.3g", name, r.abs))
  end)
end
