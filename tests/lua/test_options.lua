-- Every option table of the C bindings and of the Lua-side library rejects an unknown key
-- (naming the function and listing the known options) and a wrong-typed value of each known
-- option (naming the function and the option). The known keys are read back from the
-- unknown-key message, so an option added later is walked too.
local t = require "testing"

local I = lucid.se3.identity()
local far = lucid.se3.new({1, 0, 0, 0}, {5, 0, 0})
local sphere, box = lucid.sphere(1), lucid.box(1, 1, 1)
local thread = coroutine.create(function() end) -- a value no option accepts

-- name, prefix of nested keys in messages, function(opts) calling it with opts in place,
-- the required options (merged under the option tried)
local cases = {
  {"lucid.load_mesh", "", function(o) return lucid.load_mesh("/nonexistent.obj", o) end},
  {"lucid.world", "", function(o) return lucid.world(o) end},
  {"lucid.world", "contact.", function(o) return lucid.world{contact = o} end},
  {"lucid.world:add_body", "", function(o) return lucid.world{}:add_body(o) end,
   {shape = sphere, mass = 1}},
  {"lucid.world:add_static", "", function(o) return lucid.world{}:add_static(o) end,
   {shape = lucid.halfspace({0, 0, 1}, 0)}},
  {"lucid.contact.solve", "", function(o) return lucid.contact.solve(o) end,
   {G = lucid.eye(3), g = {0, 0, -1}, mu = {0.5}}},
  {"lucid.contact.residual", "", function(o)
    return lucid.contact.residual(lucid.eye(3), {0, 0, -1}, {0.5}, {0, 0, 1}, o) end},
  {"lucid.distance", "", function(o) return lucid.distance(sphere, I, box, far, o) end},
  {"lucid.distance", "derivatives.", function(o)
    return lucid.distance(sphere, I, box, far, {derivatives = o}) end},
  {"lucid.collide", "", function(o) return lucid.collide(sphere, I, box, far, o) end},
  {"lucid.distance_batch", "", function(o)
    return lucid.distance_batch(sphere, box, lucid.mat{{1}, {0}, {0}, {0}, {0}, {0}, {0}},
      lucid.mat{{1}, {0}, {0}, {0}, {5}, {0}, {0}}, o) end},
  {"lucid.distance_derivatives", "", function(o)
    return lucid.distance_derivatives(sphere, I, box, far, o) end},
  {"lucid.contact_patch", "", function(o) return lucid.contact_patch(box, I, box, far, o) end},
  {"lucid.pscaling", "", function(o) return lucid.pscaling(sphere, I, box, far, o) end},
  {"lucid.ad.jacobian", "", function(o) return lucid.ad.jacobian(function(x) return x end, {1}, o) end},
  {"lucid.ad.grad", "", function(o) return lucid.ad.grad(function(x) return x:dot(x) end, {1}, o) end},
  {"lucid.ad.primitive", "spec.", function(o) return lucid.ad.primitive(o) end,
   {forward = function(x) return x end, jvp = function(_, dx) return dx end}},
  {"lucid.task.new", "", function(o) return lucid.task.new(o) end, {name = "x"}},
  {"lucid.task.new", "", function(o) return lucid.task.new{name = "x", options = {o}} end,
   {name = "n", kind = "integer"}},
  {"lucid.plot.lines", "", function(o) return lucid.plot.lines(o) end,
   {file = "/nonexistent-lucid/x.svg", series = {{y = {1}}}}},
  {"lucid.plot.lines", "", function(o)
    return lucid.plot.lines{file = "/nonexistent-lucid/x.svg", series = {o}} end, {y = {1}}},
  {"lucid.optim.gauss_newton", "", function(o)
    return lucid.optim.gauss_newton(function(x) return x end, {1}, o) end},
}

local function known_keys(name, prefix, call)
  local ok, err = pcall(call, {zz_unknown = 1})
  t.truthy(not ok, name .. " accepted an unknown option")
  local head = string.format("%s: unknown option '%szz_unknown' (expected one of: ", name, prefix)
  t.truthy(err:sub(1, #head) == head, "unknown-option message of " .. name .. ": " .. err)
  local keys = {}
  for k in err:sub(#head + 1):match("^(.-)%)$"):gmatch("[^, ]+") do keys[#keys + 1] = k end
  t.truthy(#keys > 0, name .. " lists its options")
  return keys
end

t.case("every option table rejects unknown keys and wrong-typed values by name", function()
  local walked = 0
  for _, c in ipairs(cases) do
    local name, prefix, call, base = c[1], c[2], c[3], c[4] or {}
    for _, key in ipairs(known_keys(name, prefix, call)) do
      local opts = {}
      for k, v in pairs(base) do opts[k] = v end
      opts[key] = thread
      local ok, err = pcall(call, opts)
      t.truthy(not ok, string.format("%s accepted %s%s = <thread>", name, prefix, key))
      t.truthy(err:sub(1, #name + 2) == name .. ": ", "message names " .. name .. ": " .. err)
      t.truthy(err:find(key, 1, true), string.format("message names the option %s: %s", key, err))
      t.truthy(not err:find("scripts/lucid/", 1, true), "no internal position: " .. err)
      walked = walked + 1
    end
    -- option names must be strings
    local ok, err = pcall(call, {1})
    t.truthy(not ok and err:sub(1, #name + 2) == name .. ": ", name .. " with a list: " .. tostring(err))
  end
  print(string.format("option walk: %d option tables, %d options", #cases, walked))
  t.truthy(walked >= 100, "walked " .. walked .. " options")
end)

-- The examples of issue 16, each of which passed silently before.
t.case("misspelt options and numbers given as strings are errors", function()
  t.raises("lucid.load_mesh: unknown option 'scal' (expected one of: scale)", lucid.load_mesh,
    "x.obj", {scal = 0.01})
  t.raises("lucid.plot.lines: unknown option 'ylable'", lucid.plot.lines,
    {file = "/nonexistent-lucid/x.svg", ylable = "cost", series = {{y = {1}}}})
  t.raises("lucid.task.new: unknown option 'summry'", lucid.task.new, {name = "x", summry = "y"})
  t.raises("lucid.contact.solve: tol must be a number (got string)", lucid.contact.solve,
    {G = lucid.eye(3), g = {0, 0, -1}, mu = {0.5}, tol = "1e-6"})
  t.raises("lucid.distance: tol must be a number (got string)", lucid.distance, sphere, I, box,
    far, {tol = "1e-6"})
  t.raises("lucid.world: dt must be a number (got string)", lucid.world, {dt = "0.01"})
  t.raises("lucid.world: contact.warm_start must be a boolean (got string)", lucid.world,
    {contact = {warm_start = "no"}})
  t.raises("lucid.sphere: radius must be a number (got string)", lucid.sphere, "1")
  t.raises("lucid.contact_patch: unknown option 'margn'", lucid.contact_patch, box, I, box, far,
    {margn = 0.1})
  t.raises("lucid.ad.jacobian: unknown option 'mdoe'", lucid.ad.jacobian,
    function(x) return x end, {1}, {mdoe = "forward"})
  t.raises("lucid.contact.residual: unknown option 'modle'", lucid.contact.residual, lucid.eye(3),
    {0, 0, -1}, {0.5}, {0, 0, 1}, {modle = "ccp"})
end)
