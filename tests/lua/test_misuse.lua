-- Misuse fuzzer: every public function and method of `lucid` called with random wrong
-- arguments (nil, wrong types, NaN, inf, huge numbers, negative sizes, empty tables, tables
-- with junk keys, wrong userdata, too few / too many arguments). It runs in-process, so a
-- crash fails the test; every error must be a string that starts with the name of the
-- function called (its first token, up to ": "). Deterministic (fixed seed) and bounded.
local t = require "testing"

local SEED = tonumber(os.getenv("LUCID_MISUSE_SEED") or "") or 20261124
local CALLS_PER_FUNCTION = tonumber(os.getenv("LUCID_MISUSE_CALLS") or "") or 400

-- Sample objects ------------------------------------------------------------------------

local function tetra() return lucid.convex{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}} end

local samples = {
  vec3 = lucid.vec{1, 2, 3}, vec6 = lucid.vec{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, vec0 = lucid.zeros(0),
  mat3 = lucid.eye(3), mat23 = lucid.mat{{1, 2, 3}, {4, 5, 6}},
  sphere = lucid.sphere(1), box = lucid.box(1, 2, 3), convex = tetra(),
  plane = lucid.halfspace({0, 0, 1}, 0),
  world = lucid.world{}, rng = lucid.rng(1), pose = lucid.se3.identity(),
}
samples.world:add_static{shape = samples.plane}
samples.world:add_body{shape = samples.convex, mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 2})}
samples.model = lucid.model.build{bodies = {
  {name = "a", mass = 1, inertia = {1, 1, 1}, joints = {{name = "free", kind = "free"}}},
  {name = "b", parent = "a", mass = 1, inertia = {1, 1, 1}, joints = {{name = "ball", kind = "spherical"}},
   shapes = {{shape = samples.convex}}},
  {name = "c", parent = "b", mass = 1, inertia = {1, 1, 1}, joints = {{name = "hinge", kind = "revolute", range = {-1, 1}}}}},
  frames = {{name = "tip", body = "c"}}, actuators = {{name = "m", joint = "hinge"}}}
samples.q = samples.model:neutral()
samples.v = lucid.zeros(samples.model.nv)
samples.task = lucid.task.new{name = "misuse", summary = "fuzz"}
samples.progress = samples.task:progress(3)
samples.record = lucid.world{}:record() -- lucid.record methods and lucid.viewer.write

local thread = coroutine.create(function() end)
local junk_list = table.pack(
  nil, true, false, 0, -1, 1, 2, 3, 0.5, -2.5, 0 / 0, math.huge, -math.huge, 1e308, -1e308,
  1e18, -1e18, math.maxinteger, math.mininteger, 2 ^ 53, 1e-320, "", "x", "1e-6", "3",
  "forward", "ncp", {}, {1, 2, 3}, {junk = 1}, {{}}, {1, "a"}, {0 / 0, 1, 2}, {math.huge},
  {{1, 2, 3}, {4, 5}}, {x = {}, [1] = 2}, function() end, function() return 1 end, function() error("callback: junk", 0) end,
  thread, lucid.json.null)
local junk_n = junk_list.n
local sample_names = {}
for k in pairs(samples) do sample_names[#sample_names + 1] = k end
table.sort(sample_names)
for _, k in ipairs(sample_names) do junk_n = junk_n + 1; junk_list[junk_n] = samples[k] end

-- The callbacks given to functions that take functions: their own errors are tagged, and a
-- function that passes them on unchanged (or prefixed by its own name) is right.
local function callback(body)
  return function(...)
    local r = table.pack(pcall(body, ...))
    if not r[1] then error("callback: " .. tostring(r[2]), 0) end
    return table.unpack(r, 2, r.n)
  end
end

-- Valid calls to mutate from: name -> list of argument lists. A mutation replaces one
-- argument by junk, drops or adds arguments, or adds a junk key to a table argument.
local valid = {
  ["lucid.vec"] = {{{1, 2, 3}}}, ["lucid.mat"] = {{{{1, 2}, {3, 4}}}}, ["lucid.zeros"] = {{3}, {2, 2}},
  ["lucid.eye"] = {{3}}, ["lucid.sphere"] = {{1}}, ["lucid.box"] = {{1, 1, 1}},
  ["lucid.ellipsoid"] = {{1, 2, 3}}, ["lucid.capsule"] = {{1, 1}}, ["lucid.cylinder"] = {{1, 1}},
  ["lucid.cone"] = {{1, 1}}, ["lucid.halfspace"] = {{{0, 0, 1}, 0}},
  ["lucid.convex"] = {{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}},
  ["lucid.load_mesh"] = {{"/nonexistent.obj", {scale = 1}}},
  ["lucid.distance"] = {{samples.sphere, samples.pose, samples.box, lucid.se3.new({1, 0, 0, 0}, {5, 0, 0}), {tol = 1e-8}}},
  ["lucid.collide"] = {{samples.sphere, samples.pose, samples.box, samples.pose, {}}},
  ["lucid.pscaling"] = {{samples.convex, samples.pose, samples.plane, lucid.se3.new({1, 0, 0, 0}, {0, 0, -2}), {derivatives = true}}},
  ["lucid.distance_batch"] = {{samples.sphere, samples.box, {samples.pose}, {lucid.se3.new({1, 0, 0, 0}, {5, 0, 0})}, {}}},
  ["lucid.distance_derivatives"] = {{samples.sphere, samples.pose, samples.box, lucid.se3.new({1, 0, 0, 0}, {5, 0, 0}), {method = "finite_differences"}}},
  ["lucid.contact_patch"] = {{samples.box, samples.pose, samples.box, lucid.se3.new({1, 0, 0, 0}, {0, 0, 3.99}), {}}},
  ["lucid.contact.solve"] = {{{G = lucid.eye(3), g = {0, 0, -1}, mu = {0.5}, tol = 1e-8}}},
  ["lucid.contact.residual"] = {{lucid.eye(3), {0, 0, -1}, {0.5}, {0, 0, 1}, {model = "ncp"}}},
  ["lucid.world"] = {{{dt = 1e-3, contact = {model = "ncp", solver = "admm"}}}},
  ["lucid.rng"] = {{1}}, ["lucid.se3.new"] = {{{1, 0, 0, 0}, {0, 0, 0}}},
  ["lucid.se3.exp"] = {{{0, 0, 0, 0.1, 0.2, 0.3}}}, ["lucid.so3.exp"] = {{{0.1, 0.2, 0.3}}},
  ["lucid.se3.random"] = {{samples.rng}},
  ["lucid.ad.jacobian"] = {{callback(function(x) return x * 2 end), {1, 2}, {mode = "forward"}}},
  ["lucid.ad.grad"] = {{callback(function(x) return x:dot(x) end), {1, 2}}},
  ["lucid.ad.primitive"] = {{{forward = callback(function(x) return x end), jvp = callback(function(_, dx) return dx end)}}},
  ["lucid.json.encode"] = {{{a = 1}}}, ["lucid.json.decode"] = {{"[1, 2]"}},
  ["lucid.task.new"] = {{{name = "x", summary = "y", options = {{name = "n", kind = "integer", default = 1}}}}},
  ["lucid.task.format_table"] = {{{"a", "b"}, {{1, 2}}, "%.2f"}},
  ["lucid.stats.quantile"] = {{{1, 2, 3}, 0.5}}, ["lucid.stats.summary"] = {{{1, 2, 3}}},
  ["lucid.optim.gauss_newton"] = {{callback(function(x) return x - lucid.vec{1, 2} end), {0, 0}, {max_iter = 3}}},
  ["lucid.plot.lines"] = {{{file = "/nonexistent-lucid-dir/\0", series = {{y = {1, 2}}}}}},
  ["lucid.world:add_body"] = {function() return {lucid.world{}, {shape = samples.sphere, mass = 1}} end},
  ["lucid.world:add_static"] = {function() return {lucid.world{}, {shape = samples.plane}} end},
  ["lucid.world:apply_force"] = {{samples.world, 2, {0, 0, 1}}},
  ["lucid.world:step"] = {{samples.world, 1}}, ["lucid.world:pose"] = {{samples.world, 2}},
  ["lucid.world:set_state"] = {{samples.world, samples.world:state()}},
  ["lucid.rng:uniform"] = {{samples.rng, 3}}, ["lucid.rng:integer"] = {{samples.rng, 1, 6}},
  ["lucid.shape:support"] = {{samples.convex, {1, 0, 0}}},
  ["lucid.shape:neighbors"] = {{samples.convex, 1}}, ["lucid.shape:aabb"] = {{samples.box, samples.pose}},
  ["lucid.se3:act"] = {{samples.pose, {1, 2, 3}}},
  ["lucid.mat:get"] = {{samples.mat3, 1, 1}}, ["lucid.mat:set"] = {{lucid.eye(2), 1, 1, 2}},
  ["lucid.mat:solve"] = {{samples.mat3, samples.vec3}}, ["lucid.mat:lstsq"] = {{samples.mat23, {1, 2}}},
  ["lucid.mat:cholsolve"] = {{samples.mat3, samples.vec3}},
  ["lucid.model.build"] = {{{bodies = {{name = "a", mass = 1, inertia = {1, 1, 1}, joints = {{kind = "planar", axis = {0, 0, 1}}},
    shapes = {{shape = samples.sphere, friction = 0.5}}}}, gravity = {0, 0, -1}, timestep = 0.01}}},
  ["lucid.dynamics.rnea"] = {{samples.model, samples.q, samples.v, samples.v}},
  ["lucid.dynamics.aba"] = {{samples.model, samples.q, samples.v, samples.v}},
  ["lucid.dynamics.crba"] = {{samples.model, samples.q}},
  ["lucid.dynamics.nle"] = {{samples.model, samples.q, samples.v}},
  ["lucid.dynamics.energy"] = {{samples.model, samples.q, samples.v}},
  ["lucid.dynamics.com"] = {{samples.model, samples.q}},
  ["lucid.dynamics.rnea_derivatives"] = {{samples.model, samples.q, samples.v, samples.v}},
  ["lucid.dynamics.aba_derivatives"] = {{samples.model, samples.q, samples.v, samples.v}},
  ["lucid.model:integrate"] = {{samples.model, samples.q, samples.v, 0.1}},
  ["lucid.model:difference"] = {{samples.model, samples.q, samples.q}},
  ["lucid.model:frame_pose"] = {{samples.model, samples.q, "tip"}},
  ["lucid.model:frame_jacobian"] = {{samples.model, samples.q, "tip", "world"}},
  ["lucid.model:names"] = {{samples.model, "frame"}},
  ["lucid.model:random_configuration"] = {{samples.model, samples.rng}},
  ["lucid.model:normalize"] = {{samples.model, samples.q}},
}

-- The name an error must start with: the function's path, or for methods the type's
-- prefix joined to the method name.
local function first_token(msg)
  return msg:match("^(.-): ") or msg
end

local function name_ok(msg, fn_name, prefixes, method)
  if msg:find("scripts/lucid/", 1, true) or msg:find("got userdata", 1, true) then
    return false -- an internal position, or a type left unnamed
  end
  local tok = first_token(msg)
  if tok == "callback" then return true end
  if not prefixes then
    local rest = tok:sub(#fn_name + 1)
    return tok:sub(1, #fn_name) == fn_name and (rest == "" or rest:match("^[%s%.:%(%[']"))
  end
  for _, p in ipairs(prefixes) do
    if tok:sub(1, #p) == p then
      local rest = tok:sub(#p + 1)
      if method == "__index" or method == "__newindex" then
        if rest:find("[", 1, true) or rest:find(method, 1, true) then return true end
      elseif rest:find(method, 1, true) then
        return true
      end
    end
  end
  return false
end

-- Fuzzing ------------------------------------------------------------------------------

local stats = {calls = 0, errors = 0, functions = 0}
local failures = {}
local real_exit, real_stderr, real_open, real_execute = os.exit, io.stderr, io.open, os.execute
local sink = {write = function(self) return self end, flush = function() end}

local function pick() return junk_list[math.random(junk_n)] end

local function mutate(args, n)
  local a = {}
  for i = 1, n do a[i] = args[i] end
  local r = math.random(6)
  if r <= 3 and n > 0 then
    a[math.random(n)] = pick()
  elseif r == 4 then
    n = n + 1
    a[n] = pick()
  elseif r == 5 and n > 0 then
    n = n - 1
  else
    local tables = {}
    for i = 1, n do if type(a[i]) == "table" and getmetatable(a[i]) == nil then tables[#tables + 1] = i end end
    if #tables > 0 then
      local i = tables[math.random(#tables)]
      local copy = {}
      for k, v in pairs(a[i]) do copy[k] = v end
      local keys = {}
      for k in pairs(copy) do if type(k) == "string" then keys[#keys + 1] = k end end
      table.sort(keys)
      if #keys > 0 and math.random(2) == 1 then
        copy[keys[math.random(#keys)]] = pick() -- a known option with a wrong value
      else
        copy["zz_junk" .. math.random(3)] = pick()
      end
      a[i] = copy
    else
      n = n + 1
      a[n] = pick()
    end
  end
  return a, n
end

local VERBOSE = os.getenv("LUCID_MISUSE_VERBOSE")
local function fuzz(fn_name, fn, prefixes, method, self_sample)
  if VERBOSE then io.stderr:write(fn_name, "\n") end
  stats.functions = stats.functions + 1
  local examples = valid[fn_name]
  for _ = 1, CALLS_PER_FUNCTION do
    local args, n
    if examples and math.random(2) == 1 then
      local ex = examples[math.random(#examples)]
      if type(ex) == "function" then ex = ex() end
      local m = 0
      for k in pairs(ex) do m = math.max(m, k) end
      args, n = mutate(ex, m)
    else
      n = math.random(0, 5)
      args = {}
      for i = 1, n do args[i] = pick() end
      if self_sample and math.random(3) > 1 then args[1] = self_sample end
      if self_sample == samples.world and (fn_name:find("add_") or fn_name:find("set_state")) then
        args[1] = lucid.world{} -- keep the shared sample world small and at rest
      end
    end
    -- no exits, no files written (plot.lines), no commands run, no noise on stderr
    os.exit, io.stderr = function() error("os.exit called", 0) end, sink
    io.open, os.execute = function() return nil, "no files while fuzzing" end, function() end
    local ok, err = pcall(fn, table.unpack(args, 1, n))
    os.exit, io.stderr, io.open, os.execute = real_exit, real_stderr, real_open, real_execute
    stats.calls = stats.calls + 1
    if not ok then
      stats.errors = stats.errors + 1
      if err ~= "os.exit called" then
        local good = type(err) == "string" and name_ok(err, fn_name, prefixes, method)
        if not good then
          failures[#failures + 1] = string.format("%s: %s", fn_name, tostring(err):sub(1, 200))
          if os.getenv("LUCID_MISUSE_VERBOSE") then for i = 1, n do io.stderr:write(" arg", i, "=", tostring(args[i]), " ", tostring(getmetatable(args[i])), "\n") end end
        end
      end
    end
  end
end

-- Module functions: every function reachable from the `lucid` table.
local function walk(tbl, path, seen, out)
  if seen[tbl] then return end
  seen[tbl] = true
  local keys = {}
  for k in pairs(tbl) do if type(k) == "string" then keys[#keys + 1] = k end end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = tbl[k]
    if type(v) == "function" then
      out[#out + 1] = {path .. "." .. k, v}
    elseif type(v) == "table" then
      walk(v, path .. "." .. k, seen, out)
    end
  end
end

-- Methods and metamethods of a userdata or object type, from a sample object.
local function methods_of(obj)
  local mt = debug.getmetatable(obj)
  local out = {}
  local index = mt.__index
  if type(index) == "function" then
    local _, up = debug.getupvalue(index, 1)
    if type(up) == "table" then index = up end
  end
  if type(index) == "table" then
    for k, v in pairs(index) do
      if type(v) == "function" then out[#out + 1] = {k, v, ":"} end
    end
  end
  for k, v in pairs(mt) do
    if type(k) == "string" and k:sub(1, 2) == "__" and type(v) == "function" and k ~= "__gc" then
      out[#out + 1] = {k, v, "."}
    end
  end
  table.sort(out, function(a, b) return a[1] < b[1] end)
  return out
end

local types = {
  {"lucid.mat", samples.vec3, {"lucid.mat", "lucid.vec"}},
  {"lucid.shape", samples.convex, {"lucid.shape"}},
  {"lucid.world", samples.world, {"lucid.world"}},
  {"lucid.rng", samples.rng, {"lucid.rng"}},
  {"lucid.se3", samples.pose, {"lucid.se3"}},
  {"lucid.model", samples.model, {"lucid.model"}},
  {"lucid.task", samples.task, {"lucid.task"}},
  {"lucid.task.progress", samples.progress, {"lucid.task"}},
  {"lucid.record", samples.record, {"lucid.record"}},
}

local function fuzz_type(prefix, obj, prefixes)
  for _, m in ipairs(methods_of(obj)) do
    local name, fn, sep = m[1], m[2], m[3]
    fuzz(prefix .. sep .. name, fn, prefixes, name, obj)
  end
end

local covered = {}

t.case("misuse fuzzer: every function names itself and nothing crashes", function()
  math.randomseed(SEED)
  local start = os.clock()
  local fns = {}
  walk(lucid, "lucid", {}, fns)
  for _, f in ipairs(fns) do
    covered[f[1]] = true
    fuzz(f[1], f[2])
  end
  for _, ty in ipairs(types) do fuzz_type(ty[1], ty[2], ty[3]) end
  -- differentiable values and poses live only inside an evaluation
  local done = false
  lucid.ad.jacobian(function(x)
    if not done then
      done = true
      samples.advar = x
      fuzz_type("lucid.ad.var", x, {"lucid.ad"})
      local pose = lucid.se3.exp(x)
      fuzz_type("lucid.ad.se3", pose, {"lucid.se3", "lucid.ad"})
      -- module functions given a live differentiable value
      junk_list[#junk_list + 1], junk_n = x, junk_n + 1
      junk_list[#junk_list + 1], junk_n = pose, junk_n + 1
      for _, f in ipairs(fns) do fuzz(f[1], f[2]) end
      junk_n = junk_n - 2
    end
    return x
  end, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6})
  collectgarbage()
  print(string.format("misuse fuzzer: %d calls, %d errors, %d functions and methods (%d distinct), %.2f s",
    stats.calls, stats.errors, stats.functions, stats.functions, os.clock() - start))
  if #failures > 0 then
    local per, shown = {}, {}
    for _, f in ipairs(failures) do
      local fname = f:match("^(%S+):")
      per[fname] = (per[fname] or 0) + 1
      if per[fname] <= 3 then shown[#shown + 1] = f end
    end
    error(string.format("%d misuse errors do not name their function, e.g.:\n  %s", #failures,
      table.concat(shown, "\n  ")))
  end
end)

-- The examples of issue 16 that named no function (or the wrong one), each a regression test.
t.case("issue 16 examples: every message names the function called", function()
  -- __tostring metamethods called with a wrong self ("bad argument #1 to '?'" before)
  for _, obj in ipairs({lucid.vec{1}, lucid.sphere(1), lucid.world{}, lucid.rng(1), lucid.se3.identity()}) do
    local mt = debug.getmetatable(obj)
    local ok, err = pcall(mt.__tostring, 42)
    t.truthy(not ok and err:find("^" .. mt.__name:gsub("%.", "%%.") .. "[:.]__tostring: "), err)
  end
  lucid.ad.jacobian(function(x)
    for _, v in ipairs({x, lucid.se3.exp(x)}) do
      local mt = debug.getmetatable(v)
      local ok, err = pcall(mt.__tostring, 42)
      t.truthy(not ok and err:find("^lucid%.ad%.[%w.]*:__tostring: "), err)
    end
    -- a differentiable value where a number list is expected: its type is named
    t.raises("lucid.contact.solve: g must be a lucid.vec or a table of 3 numbers (got lucid.ad.var)",
      lucid.contact.solve, {G = lucid.eye(3), g = x:slice(1, 3), mu = {0.5}})
    return x
  end, {0, 0, 0, 0, 0, 0})
  t.raises("lucid.task.format_table: headers must be a table (got number)", lucid.task.format_table, 1)
  -- 100,000 nested brackets: a depth error, not a stack overflow
  local deep = string.rep("[", 100000) .. string.rep("]", 100000)
  t.raises("lucid.json.decode: nesting deeper than 1000 levels", lucid.json.decode, deep)
  local nested = {}
  for _ = 1, 100000 do nested = {nested} end
  t.raises("lucid.json.encode: nesting deeper than 1000 levels", lucid.json.encode, nested)
  local ok_depth = "[" .. string.rep("[", 999) .. string.rep("]", 999) .. "]"
  t.truthy(type(lucid.json.decode(ok_depth)) == "table", "1000 levels decode")
  -- errors raised by the Lua library carry the caller's position, not scripts/lucid/...
  local ok, err = pcall(function()
    local r = lucid.stats.quantile({1, 2}, 2)
    return r
  end)
  t.truthy(not ok and err:find("^[^:]*test_misuse%.lua:%d+: lucid%.stats%.quantile: "), err)
end)

-- Issue 38's input classes, fuzzed: the calls below are valid until one number is changed.

-- Strings in numeric tables: each call takes a table of numbers; one entry, chosen at random,
-- is replaced by its string spelling (decimal or hex), which Lua would convert silently.
-- Every such call must fail and name its function.
local numeric_calls = {
  {"lucid.vec", function(x) return lucid.vec(x) end, {1, 2, 3}},
  {"lucid.mat", function(x) return lucid.mat{x, {4, 5, 6}} end, {1, 2, 3}},
  {"lucid.halfspace", function(x) return lucid.halfspace(x, 0) end, {0, 0, 1}},
  {"lucid.convex", function(x) return lucid.convex{x, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}} end, {0, 0, 0}},
  {"lucid.world", function(x) return lucid.world{gravity = x} end, {0, 0, -9.81}},
  {"lucid.world:add_body", function(x) return lucid.world{}:add_body{shape = lucid.sphere(1), velocity = x} end,
   {1, 0, 0, 0, 0, 0}},
  {"lucid.world:add_body", function(x) return lucid.world{}:add_body{shape = lucid.sphere(1), mass = 1, inertia = x} end,
   {1, 1, 1}},
  {"lucid.world:set_state", function(x)
    local w = lucid.world{}
    w:add_body{shape = lucid.sphere(1)}
    return w:set_state(x)
  end, {0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
  {"lucid.world:set_controls", function(x)
    local w = lucid.world{}
    w:add_body{shape = lucid.sphere(1)}
    return w:set_controls(x)
  end, {0, 0, 1, 0, 0, 0}},
  {"lucid.se3.new", function(x) return lucid.se3.new(x, {0, 0, 0}) end, {1, 0, 0, 0}},
  {"lucid.se3.new", function(x) return lucid.se3.new({1, 0, 0, 0}, x) end, {1, 2, 3}},
  {"lucid.contact.solve", function(x) return lucid.contact.solve{G = lucid.eye(3), g = x, mu = {0.5}} end, {0, 0, -1}},
}

t.case("misuse fuzzer: a string among numbers is refused, never converted", function()
  math.randomseed(SEED + 38)
  local spell = {function(v) return tostring(v) end, function(v) return string.format("%q", v) end,
                 function(v) return string.format("0x%x", math.floor(math.abs(v))) end}
  for _, c in ipairs(numeric_calls) do
    local name, call, valid_entries = c[1], c[2], c[3]
    t.truthy(pcall(call, valid_entries), name .. ": the unmutated call must succeed")
    for _ = 1, 20 do
      local x = {}
      for i, v in ipairs(valid_entries) do x[i] = v end
      local k = math.random(#x)
      x[k] = spell[math.random(#spell)](x[k])
      local ok, err = pcall(call, x)
      t.truthy(not ok, string.format("%s accepted the string '%s' at entry %d", name, x[k], k))
      t.truthy(first_token(err) == name and err:find("must be a number", 1, true),
               name .. ": " .. tostring(err))
    end
  end
end)

-- A random unit quaternion, and the same direction scaled by 10^e.
local function random_quat()
  local q, n = {}, 0
  repeat
    for i = 1, 4 do q[i] = math.random() * 2 - 1 end
    n = math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2)
  until n > 0.1
  for i = 1, 4 do q[i] = q[i] / n end
  return q
end

t.case("misuse fuzzer: quaternions of any finite non-zero magnitude have their direction", function()
  math.randomseed(SEED + 39)
  for _ = 1, 200 do
    local u = random_quat()
    local e = math.random(-300, 300)
    local q = {}
    for i = 1, 4 do q[i] = u[i] * 10.0 ^ e end
    -- lucid.se3.new normalises (a rotation matrix has no sign: compare R u R^T on the x axis)
    local T = lucid.se3.new(q, {0, 0, 0})
    local U = lucid.se3.new(u, {0, 0, 0})
    t.allnear(T:rotation(), U:rotation(), 1e-14, string.format("|q| = 1e%d", e))
    -- a free body's pose and the world state accept it, and store the unit quaternion
    local w = lucid.world{}
    local id = w:add_body{shape = lucid.sphere(1), pose = lucid.se3.new(q, {0, 0, 5})}
    t.allnear(w:pose(id):rotation(), U:rotation(), 1e-14, "add_body pose, |q| = 1e" .. e)
    local x = w:state()
    for i = 1, 4 do x[3 + i] = q[i] end
    w:set_state(x)
    t.allnear(w:pose(id):rotation(), U:rotation(), 1e-14, "set_state, |q| = 1e" .. e)
    -- a model's free joint: normalised to the unit quaternion of the same direction
    local qm = samples.model:normalize({0, 0, 0, q[1], q[2], q[3], q[4], 1, 0, 0, 0, 0})
    local sign = (qm[4] * u[1] + qm[5] * u[2] + qm[6] * u[3] + qm[7] * u[4]) < 0 and -1 or 1
    for i = 1, 4 do t.near(qm[3 + i], sign * u[i], 1e-15, "model:normalize, |q| = 1e" .. e) end
  end
  -- a subnormal quaternion has lost its direction: refused like a zero one
  t.raises("lucid.se3.new: quaternion must be non-zero", lucid.se3.new, {5e-324, 5e-324, 0, 0})
  t.raises("has a zero quaternion", samples.model.normalize, samples.model,
           {0, 0, 0, 5e-324, 0, 0, 0, 1, 0, 0, 0, 0})
  -- zero (and NaN / Inf) stay refused, and the message shows the numbers given
  t.raises("lucid.se3.new: quaternion must be non-zero (got {0.0, 0.0, 0.0, 0.0})", lucid.se3.new, {0.0, 0.0, 0.0, 0.0})
  t.raises("lucid.se3.new: quaternion must be finite", lucid.se3.new, {1, 0 / 0, 0, 0})
  t.raises("lucid.se3.new: quaternion must be finite", lucid.se3.new, {1e308, math.huge, 0, 0})
end)

t.case("misuse fuzzer: poses beyond the range of geometry are refused, within it kept", function()
  math.randomseed(SEED + 40)
  for _ = 1, 100 do
    local e = math.random(-300, 300)
    local t3 = {0, 0, 0}
    t3[math.random(3)] = (math.random(2) == 1 and 1 or -1) * 10.0 ^ e
    local T = lucid.se3.new(random_quat(), t3) -- a pose of any finite translation
    local w = lucid.world{}
    local ok, id = pcall(w.add_body, w, {shape = lucid.sphere(1), pose = T})
    if 10.0 ^ e <= 1e40 then
      t.truthy(ok, "a translation of 1e" .. e .. " is in range: " .. tostring(id))
      t.allnear(w:pose(id):translation(), t3, 0, "add_body keeps the translation 1e" .. e)
      t.allnear(w:pose(id):rotation(), T:rotation(), 1e-15, "add_body keeps the rotation")
    else
      t.truthy(not ok and first_token(id) == "lucid.world:add_body", "1e" .. e .. ": " .. tostring(id))
    end
  end
end)

-- Principal moments (a, b, c) rotated by a random rotation R: R diag(a, b, c) R^T as rows.
local function rotated_inertia(a, b, c)
  local R = lucid.se3.new(random_quat(), {0, 0, 0}):rotation()
  local I = R * lucid.mat{{a, 0, 0}, {0, b, 0}, {0, 0, c}} * R:T()
  local rows = {}
  for i = 1, 3 do rows[i] = {I:get(i, 1), I:get(i, 2), I:get(i, 3)} end
  return rows
end

t.case("misuse fuzzer: inertias violating the triangle inequality are refused", function()
  math.randomseed(SEED + 41)
  for _ = 1, 200 do
    local scale = 10.0 ^ math.random(-6, 6)
    local a, b = (0.1 + math.random()) * scale, (0.1 + math.random()) * scale
    local bad = (a + b) * (1 + 1e-3 + math.random()) -- c > a + b by at least 0.1 %
    local good = math.abs(a - b) + (a + b - math.abs(a - b)) * math.random() -- |a - b| <= c <= a + b
    local m = {a, b, bad}
    local k = math.random(3)
    m[k], m[3] = m[3], m[k]
    t.raises("lucid.world:add_body: inertia is not physical", function()
      return lucid.world{}:add_body{mass = 1, inertia = m}
    end)
    t.raises("lucid.world:add_body: inertia is not physical", function()
      return lucid.world{}:add_body{mass = 1, inertia = rotated_inertia(m[1], m[2], m[3])}
    end)
    t.truthy(pcall(function() return lucid.world{}:add_body{mass = 1, inertia = rotated_inertia(a, b, good)} end),
             string.format("a physical inertia (%g, %g, %g) must be accepted", a, b, good))
  end
  -- the limits are physical: a thin rod (0, 1, 1) rotated, and a flat disk (1, 1, 2)
  t.truthy(pcall(function() return lucid.world{}:add_body{mass = 1, inertia = rotated_inertia(1, 1, 2)} end), "disk")
end)

-- The inputs of issue 38 item 2, one regression test each.
t.case("issue 38 inputs: the documented errors are raised", function()
  t.raises("lucid.world:set_state: state[1] must be a number (got string)", function()
    local w = lucid.world{}
    w:add_body{shape = lucid.sphere(1)}
    w:set_state{"0x10", 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}
  end)
  t.raises("lucid.world:add_body: inertia is not physical: its principal moments violate A + B >= C",
           function() return lucid.world{}:add_body{mass = 1, inertia = {1, 1, 5}} end)
  t.raises("lucid.world: sparse_threshold must be >= 0 (or -1: automatic, per solver) (got -5)", lucid.world, {sparse_threshold = -5})
  t.truthy(lucid.world{sparse_threshold = -1} and lucid.world{sparse_threshold = 0}, "-1 and 0 stay valid")
  for _, s in ipairs({1e300, 1e-300}) do
    local T = lucid.se3.new({s, 0, 0, 0}, {0, 0, 0})
    t.allnear(T:rotation(), lucid.eye(3), 0, "|q| = " .. s)
  end
end)
