-- Metatables and finalisers of every lucid userdata type: getmetatable gives the type name
-- (the real metatable and its __gc are out of plain Lua's reach), and a finaliser called by
-- hand (through the debug library), twice, on an object still in use, or on the wrong value
-- never crashes: the object then raises a clear error, and what holds it keeps working.
local t = require "testing"

local function tetra() return lucid.convex{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}} end

-- A value of every userdata type, by type name (AD values only exist inside an evaluation).
local function samples()
  local s = {
    ["lucid.mat"] = lucid.vec{1, 2, 3}, ["lucid.shape"] = tetra(), ["lucid.world"] = lucid.world{},
    ["lucid.rng"] = lucid.rng(3), ["lucid.se3"] = lucid.se3.identity(),
    ["lucid.model"] = lucid.model.build{bodies = {{name = "a", mass = 1, inertia = {1, 1, 1},
      joints = {{kind = "revolute"}}, shapes = {{shape = tetra()}}}}},
  }
  lucid.eye(2):chol() -- creates the dense workspace
  lucid.ad.grad(function(x) return x:dot(x) end, {1}) -- creates the spare tape
  for _, v in pairs(debug.getregistry()) do
    local mt = debug.getmetatable(v)
    if type(v) == "userdata" and mt and tostring(mt.__name):find("^lucid") then s[mt.__name] = v end
  end
  local i = 1
  while true do
    local name, v = debug.getupvalue(lucid.distance, i)
    if not name then break end
    if type(v) == "userdata" then s[debug.getmetatable(v).__name] = v end
    i = i + 1
  end
  return s
end

t.case("getmetatable returns the type name for every lucid userdata", function()
  local s = samples()
  for _, name in ipairs({"lucid.mat", "lucid.shape", "lucid.world", "lucid.rng", "lucid.se3", "lucid.model",
                         "lucid.dense_workspace", "lucid.ad.tape", "lucid.derivative_workspace"}) do
    t.truthy(s[name] ~= nil, "sample of " .. name)
    t.eq(getmetatable(s[name]), name, name .. " metatable")
    t.truthy(debug.getmetatable(s[name]).__metatable == name)
  end
  lucid.ad.jacobian(function(x)
    t.eq(getmetatable(x), "lucid.ad.var")
    t.eq(getmetatable(lucid.se3.exp(x)), "lucid.ad.se3")
    return x
  end, {0, 0, 0, 0, 0, 0})
  -- the metamethods cannot be fetched from the placeholder
  t.raises("attempt to call a nil value", function() getmetatable(tetra()).__gc(tetra()) end)
end)

t.case("__gc by hand on a convex shape a world uses: the world keeps stepping", function()
  local s = tetra()
  local w = lucid.world{}
  local id = w:add_body{shape = s, mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.5})}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  local gc = debug.getmetatable(s).__gc
  gc(s)
  gc(s) -- twice
  w:step(20) -- was a heap-use-after-free (mesh_aabb) before the mesh was pinned
  t.truthy(w:pose(id):translation()[3] < 0.5, "the body fell")
  t.raises("lucid.shape:support: self is a finalized shape", s.support, s, {1, 0, 0})
  t.raises("lucid.shape:__tostring: self is a finalized shape", tostring, s)
  t.raises("lucid.world:add_body: shape is a finalized shape", w.add_body, w, {shape = s, mass = 1})
  t.raises("lucid.distance: s1 is a finalized shape", lucid.distance, s, lucid.se3.identity(),
    lucid.sphere(1), lucid.se3.identity())
  -- finalising the world afterwards (by hand, twice) then collecting everything is clean
  local wgc = debug.getmetatable(w).__gc
  wgc(w)
  wgc(w)
  t.raises("lucid.world:step: the world has been finalized", w.step, w)
  t.eq(tostring(w), "lucid.world (finalized)")
  s, w = nil, nil
  collectgarbage()
  collectgarbage()
end)

t.case("a shape shared by two worlds outlives the first world's finaliser", function()
  local s = tetra()
  local w1, w2 = lucid.world{}, lucid.world{}
  w1:add_body{shape = s, mass = 1}
  w2:add_body{shape = s, mass = 1}
  w2:add_static{shape = lucid.halfspace({0, 0, 1}, -1)}
  debug.getmetatable(s).__gc(s)
  debug.getmetatable(w1).__gc(w1)
  w2:step(5)
  s, w1 = nil, nil
  collectgarbage()
  w2:step(5)
  t.truthy(w2:pose(1):translation()[3] < 0, "the body in the second world fell")
end)

t.case("a world whose shape references are cut by debug.setuservalue keeps its meshes", function()
  local w = lucid.world{}
  w:add_body{shape = tetra(), mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.5})}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  debug.setuservalue(w, {}, 1) -- the shapes are now garbage for Lua
  collectgarbage()
  collectgarbage()
  w:step(20) -- the world's own reference keeps the mesh
  t.truthy(w:pose(1):translation()[3] < 0.5, "the body fell")
end)

t.case("finalisers ignore wrong arguments and are idempotent for every type", function()
  local s = samples()
  for name, v in pairs(s) do
    local gc = debug.getmetatable(v).__gc
    if gc then
      for _, junk in ipairs({1, "x", {}, lucid.vec{1}, lucid.rng(1)}) do gc(junk) end
      gc()
      gc(v)
      gc(v)
      t.truthy(true, name)
    end
  end
  -- every state-wide object was finalised by hand: the functions that use them still
  -- answer with an error naming them or work again, and nothing crashes
  local ok, err = pcall(lucid.eye(2).chol, lucid.eye(2))
  t.truthy(ok or err:find("^lucid.mat:chol: "), tostring(err))
  local g = lucid.ad.grad(function(x) return x:dot(x) end, {3})
  t.eq(g, 9, "a finalised spare tape is replaced")
  ok, err = pcall(lucid.distance_derivatives, lucid.sphere(1), lucid.se3.identity(),
    lucid.sphere(1), lucid.se3.new({1, 0, 0, 0}, {3, 0, 0}))
  t.truthy(ok or err:find("^lucid.distance_derivatives: "), tostring(err))
  ok, err = pcall(lucid.distance, lucid.sphere(1), lucid.se3.identity(), lucid.sphere(1),
    lucid.se3.new({1, 0, 0, 0}, {3, 0, 0}), {derivatives = {method = "finite_differences"}})
  t.truthy(ok or err:find("^lucid.distance: "), tostring(err))
  collectgarbage()
end)

t.case("a tape finalised by hand during its own evaluation is left alone", function()
  local tape
  for _, v in pairs(debug.getregistry()) do
    if type(v) == "userdata" and getmetatable(v) == "lucid.ad.tape" then tape = v end
  end
  if not tape then lucid.ad.grad(function(x) return x:dot(x) end, {1}) end
  for _, v in pairs(debug.getregistry()) do
    if type(v) == "userdata" and getmetatable(v) == "lucid.ad.tape" then tape = v end
  end
  local r, J = lucid.ad.jacobian(function(x)
    debug.getmetatable(tape).__gc(tape)
    return x * 2
  end, {1, 2})
  t.allnear(r, {2, 4})
  t.allnear(J, {{2, 0}, {0, 2}})
end)

t.case("every registered lucid metatable's __gc takes junk quietly", function()
  local count = 0
  for name, mt in pairs(debug.getregistry()) do
    if type(name) == "string" and name:find("^lucid") and type(mt) == "table" and mt.__gc then
      for _, junk in ipairs({1, "x", {}, lucid.vec{1}, lucid.sphere(1), lucid.world{}}) do
        mt.__gc(junk)
      end
      mt.__gc()
      t.eq(mt.__metatable, name, name .. " is protected")
      count = count + 1
    end
  end
  -- shape, world, ad tape, contact / dense / derivative workspaces
  t.truthy(count >= 6, count .. " finalisers")
end)
