-- An OBJ file's vertices and the triangles (polygons fanned) that keep(i) selects, as the
-- {vertices, triangles} table lucid.mesh.decompose takes.
return function(path, keep)
  local V, F = {}, {}
  for line in io.lines(path) do
    local tag, rest = line:match("^(%S+)%s+(.*)$")
    if tag == "v" then
      local x, y, z = rest:match("(%S+)%s+(%S+)%s+(%S+)")
      V[#V + 1] = {tonumber(x), tonumber(y), tonumber(z)}
    elseif tag == "f" then
      local idx = {}
      for ref in rest:gmatch("%S+") do idx[#idx + 1] = tonumber(ref:match("^(-?%d+)")) end
      for k = 2, #idx - 1 do F[#F + 1] = {idx[1], idx[k], idx[k + 1]} end
    end
  end
  local kept = {}
  for i, f in ipairs(F) do if keep(i) then kept[#kept + 1] = f end end
  return {vertices = V, triangles = kept}
end
