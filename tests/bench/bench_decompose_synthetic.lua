-- lucid.mesh.decompose on the synthetic mug of tests/lua/test_mesh_decompose.lua (its mug(),
-- loaded from that file) for four option sets: parts, volume against the mesh's, CPU seconds
-- (docs/benchmarks/decompose.md). Run from the repository root:
--   ./build/lucid tests/bench/bench_decompose_synthetic.lua
local src = assert(io.open("tests/lua/test_mesh_decompose.lua")):read("a")
local a = src:find("local function mug%(")
local b = src:find("%-%- A 100 x 100 x 50 mm block")
local mug = load(src:sub(a, b - 1) .. "\nreturn mug")()
for _, o in ipairs{{max_parts = 32, concavity = 1e-3}, {}, {max_parts = 128, concavity = 1e-3},
                   {max_parts = 256, concavity = 0.05}} do
  local t0 = os.clock()
  local parts, info = lucid.mesh.decompose(mug(), o)
  print(("synthetic mug max_parts %s concavity %s: %d parts %+.2f %% %.1f s"):format(
        o.max_parts or "default", o.concavity or "default", #parts,
        100 * (info.parts_volume / info.mesh_volume - 1), os.clock() - t0))
end
