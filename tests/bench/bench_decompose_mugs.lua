-- lucid.mesh.decompose on the shared real mugs, whose holes are closed first (holes =
-- "close"): parts, their volume against the closed mesh's, and the time, for a list of
-- max_parts (docs/benchmarks/decompose.md).
--   ./build/lucid tests/bench/bench_decompose_mugs.lua [SHARED_DIR] [max_parts ...]
-- SHARED_DIR defaults to $LUCID_SHARED_DIR, then ../shared. coffee_cup.obj is a cup, a saucer
-- and the coffee's surface, an open sheet facing up that bounds no solid (its cap would close
-- a negative volume: refused); it is decomposed without that sheet (its triangles 3601-3814).
local shared = arg[1] or os.getenv("LUCID_SHARED_DIR") or "../shared"
local budgets = {}
for i = 2, #arg do budgets[#budgets + 1] = tonumber(arg[i]) end
if #budgets == 0 then budgets = {32, 64, 128, 256} end
local dir = shared .. "/data/meshes/"

package.path = "tests/lua/?.lua;" .. package.path
-- An OBJ file's vertices and triangles, without triangles first..last.
local function read_obj(path, first, last)
  return require "obj_triangles"(path, function(i) return i < first or i > last end)
end

local meshes = {
  {"sh3d-katorlegaz/coffee_mug_kl.obj", dir .. "sh3d-katorlegaz/coffee_mug_kl.obj"},
  {"sh3d-blendswap-cc-0/coffee_cup.obj without the coffee",
   read_obj(dir .. "sh3d-blendswap-cc-0/coffee_cup.obj", 3601, 3814)},
}
local ok, err = pcall(lucid.mesh.decompose, dir .. "sh3d-blendswap-cc-0/coffee_cup.obj")
print("coffee_cup.obj as it is: " .. (ok and "decomposed" or err))
print("mesh | max_parts | parts | holes (edges) | mesh volume | parts volume | excess | cpu s")
for _, m in ipairs(meshes) do
  for _, n in ipairs(budgets) do
    local t0 = os.clock()
    local parts, info = lucid.mesh.decompose(m[2], {max_parts = n})
    print(("%s | %d | %d | %d (%d) | %.6g | %.6g | %+.2f %% | %.1f"):format(m[1], n, #parts,
          info.holes_closed, info.hole_edges, info.mesh_volume, info.parts_volume,
          100 * (info.parts_volume / info.mesh_volume - 1), os.clock() - t0))
  end
end
