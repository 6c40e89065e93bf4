-- tasks/grasp.lua on the 30 shared meshes (../shared/data/meshes; LUCID_MESHES_DIR or
-- LUCID_SHARED_DIR override): one fingertip grasp per hull, the issue's target of epsilon > 0
-- for at least 95% of them, and a non-convex-mesh file among them is an error. Its own file so
-- that a missing data set shows as skipped without hiding tests/lua/test_grasp.lua.
local t = require "testing"
local json = require "lucid.json"

local interpreter = arg[-1]

local function meshes_dir()
  local env = os.getenv("LUCID_MESHES_DIR")
  if env and env ~= "" then return env end
  local shared = os.getenv("LUCID_SHARED_DIR")
  return (shared and shared ~= "" and shared or "../shared") .. "/data/meshes"
end

t.case("fingertips on the 30 shared meshes: epsilon > 0 for at least 95% (seed 4)", function()
  local dir = meshes_dir()
  local f = io.open(dir .. "/manifest.tsv")
  if not f then t.skip(dir .. "/manifest.tsv not found (set LUCID_SHARED_DIR)") end
  f:close()
  local cmd = string.format("LUCID_MESHES_DIR='%s' '%s' tasks/grasp.lua --objects meshes "
                            .. "--grasps 1 --seed 4 --json --plot '' 2>/dev/null", dir, interpreter)
  local pipe = assert(io.popen(cmd))
  local out = pipe:read("a")
  local _, _, code = pipe:close()
  t.eq(code, 0)
  local r = json.decode(out)
  t.eq(r.summary.objects, 30)
  t.truthy(r.summary.force_closure_rate >= 0.95, "force closure " .. r.summary.force_closure_rate)
  t.truthy(r.summary.max_fingertip_distance < 1e-3)
  for _, o in ipairs(r.objects) do
    t.truthy(o.extent >= 0.05 - 1e-9 and o.extent <= 0.15 + 1e-9, o.object .. " scaled to 5-15 cm")
  end
end)
