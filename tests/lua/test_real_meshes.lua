-- The real meshes of ../shared/data/meshes (LUCID_MESHES_DIR overrides): their own test so
-- that a missing data set shows as skipped (exit 77) without hiding the other shape tests.
local t = require "testing"
local lucid = require "lucid"

t.case("real meshes load with the manifest's hull sizes", function()
  local dir = os.getenv("LUCID_MESHES_DIR") or "../shared/data/meshes"
  local manifest = io.open(dir .. "/manifest.tsv")
  if not manifest then t.skip(dir .. "/manifest.tsv not found") end
  local rows = 0
  for line in manifest:lines() do
    local file, hull = line:match("^([^\t]+)\t%d+\t%d+\t(%d+)")
    if file then
      local s = lucid.load_mesh(dir .. "/" .. file)
      t.eq(s:vertices():cols(), tonumber(hull), file)
      rows = rows + 1
    end
  end
  manifest:close()
  t.truthy(rows > 0)
end)

return t
