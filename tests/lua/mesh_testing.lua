-- What the mesh decomposition tests share (test_mesh_decompose.lua and its real meshes,
-- test_mesh_decompose_real.lua): a closed mesh's volume and a decomposition without the
-- warning that holes were closed.
local lucid = require "lucid"

local M = {}

-- A closed triangle mesh's own volume ({vertices, triangles}): the divergence theorem, signed
-- tetrahedra with the origin.
function M.volume(mesh)
  local v = 0
  for _, tri in ipairs(mesh.triangles) do
    local a, b, c = mesh.vertices[tri[1]], mesh.vertices[tri[2]], mesh.vertices[tri[3]]
    v = v + (a[1] * (b[2] * c[3] - b[3] * c[2]) - a[2] * (b[1] * c[3] - b[3] * c[1])
             + a[3] * (b[1] * c[2] - b[2] * c[1])) / 6
  end
  return v
end

-- lucid.mesh.decompose(mesh, opts) with Lua warnings off (the holes it closed are expected).
function M.quiet_decompose(mesh, opts)
  warn("@off")
  local ok, parts, info = pcall(lucid.mesh.decompose, mesh, opts)
  warn("@on")
  if not ok then error(parts, 0) end
  return parts, info
end

return M
