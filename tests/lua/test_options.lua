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
  {"lucid.grasp.epsilon", "", function(o)
    return lucid.grasp.epsilon({{1, 0, 0}, {-1, 0, 0}}, {{-1, 0, 0}, {1, 0, 0}}, 0.5, o) end},
  {"lucid.grasp.wrenches", "", function(o)
    return lucid.grasp.wrenches({{1, 0, 0}, {-1, 0, 0}}, {{-1, 0, 0}, {1, 0, 0}}, 0.5, o) end},
  {"lucid.world:step_derivatives", "", function(o)
    local w = lucid.world{}
    w:add_body{shape = sphere, mass = 1}
    return w:step_derivatives(o) end},
  {"lucid.batch.rollout", "", function(o)
    local w = lucid.world{}
    w:add_body{shape = sphere, mass = 1}
    return lucid.batch.rollout(w, {w:state()}, nil, o) end, {steps = 1}},
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

-- The contact options are described once (lucid.contact.options(), runtime/lua/lua_options.c)
-- and read by one parser in lucid.world's contact = {...}, lucid.contact.solve and
-- lucid.contact.derivatives' problem.
local G1, g1, mu1 = lucid.eye(3), {0, 0, -1}, {0.5}
local contact_bindings = {
  {"lucid.world", "contact.", "world", function(o) return lucid.world{contact = o} end},
  {"lucid.contact.solve", "", "solve", function(o)
    local p = {G = G1, g = g1, mu = mu1}
    for k, v in pairs(o) do p[k] = v end
    return lucid.contact.solve(p) end},
  {"lucid.contact.derivatives", "problem.", "solve", function(o)
    local p = {G = G1, g = g1, mu = mu1}
    for k, v in pairs(o) do p[k] = v end
    return lucid.contact.derivatives(p, {lambda = {0, 0, 1}, converged = true}) end},
}

t.case("contact options: unknown keys, wrong types and out-of-range values in every binding", function()
  for _, b in ipairs(contact_bindings) do
    local name, prefix, _, call = b[1], b[2], b[3], b[4]
    t.raises(string.format("%s: unknown option '%stolerance'", name, prefix), call, {tolerance = 1})
    t.raises(string.format("%s: %stol must be a number (got string)", name, prefix), call,
             {tol = "1e-6"})
    t.raises(string.format("%s: %smax_iter must be an integer (got 2.5)", name, prefix), call,
             {max_iter = 2.5})
    t.raises(string.format("%s: %stol must be >= 0 (got -1.0)", name, prefix), call, {tol = -1})
    t.raises(string.format("%s: %skappa must be >= 0 (got -1.0)", name, prefix), call, {kappa = -1})
    t.raises(string.format("%s: unknown %smodel 'soft'", name, prefix:gsub("%.$", " ")), call,
             {model = "soft"})
    t.raises(string.format("%s: invalid %smodel/solver pair lcp:admm", name, prefix:gsub("%.$", " ")),
             call, {model = "lcp", solver = "admm"})
  end
  -- each binding takes its own keys of the table: a solver's tuning is not a world option,
  -- the world's polish flag not a solve option
  t.raises("lucid.world: unknown option 'contact.relaxation'", lucid.world, {contact = {relaxation = 1}})
  t.raises("lucid.contact.solve: unknown option 'polish'", lucid.contact.solve,
           {G = G1, g = g1, mu = mu1, polish = true})
  t.raises("lucid.world: contact.warm_start must be a boolean (got table)", lucid.world,
           {contact = {warm_start = {0, 0, 1}}})
  -- patch_points out of range was mapped to 0 and refused without its value; now it is named
  t.raises("lucid.world: patch_points must be an integer in [1, 16] (got 17)", lucid.world, {patch_points = 17})
end)

-- A value outside each option's range, the range as lucid.contact.options() states it.
local outside = {tol = -1, max_iter = -1, relaxation = 2, alpha = 0, stall_tol = -1,
                 inner_max_iter = 0, compliance = 0, kappa = -1}

t.case("contact options: every range of the table is enforced by every binding taking the key", function()
  local checked = 0
  for _, opt in ipairs(lucid.contact.options()) do
    if opt.range then
      local v = outside[opt.name]
      t.truthy(v ~= nil, "an out-of-range value for " .. opt.name .. " (" .. opt.range .. ")")
      for _, b in ipairs(contact_bindings) do
        local name, prefix, which, call = b[1], b[2], b[3], b[4]
        if opt[which] ~= nil then
          local ok, err = pcall(call, {[opt.name] = v})
          t.truthy(not ok and err:find(name .. ": " .. prefix .. opt.name, 1, true),
                   string.format("%s refuses %s%s = %s: %s", name, prefix, opt.name, v, tostring(err)))
          t.truthy(err:find(opt.range, 1, true) or err:find("out of range", 1, true),
                   "the message states the range: " .. err)
          checked = checked + 1
        end
      end
    end
  end
  t.truthy(checked >= 19, "checked " .. checked)
end)

t.case("contact options: the defaults each binding reads from {}", function()
  local by = {}
  for _, opt in ipairs(lucid.contact.options()) do by[opt.name] = opt end
  t.eq(by.max_iter.world, 200, "world max_iter")
  t.eq(by.max_iter.solve, 1000, "solve max_iter")
  t.eq(by.solver.world, "admm", "world solver")
  t.eq(by.warm_start.world, true, "world warm_start")
  t.truthy(by.warm_start.solve == nil and by.polish.solve == nil, "solve's own warm_start")
  t.truthy(by.relaxation.world == nil, "relaxation is solve's")
  -- what the solve reports matches the table
  local sol = lucid.contact.solve{G = G1, g = g1, mu = mu1}
  t.eq(sol.model, by.model.solve, "model")
  t.eq(sol.solver, by.solver.solve, "solver")
end)

-- The docs list every key of the table, so that neither can drift: docs/world.md's `contact`
-- row and docs/contact.md's fields table (whose numeric defaults must equal the table's).
t.case("contact options: every key of the table is documented with its default", function()
  local function read(path)
    local h = assert(io.open(path), "cannot read " .. path .. " (run from the repository root)")
    local s = h:read("a")
    h:close()
    return s
  end
  local world_row = read("docs/world.md"):match("\n| `contact` |([^\n]*)")
  local contact = read("docs/contact.md")
  t.truthy(world_row, "docs/world.md has a `contact` row")
  for _, opt in ipairs(lucid.contact.options()) do
    if opt.world ~= nil then
      t.truthy(world_row:find(opt.name .. "=", 1, true), "docs/world.md's contact row lists " .. opt.name)
    end
    if opt.solve ~= nil then
      local row = contact:match("\n| `" .. opt.name .. "` |([^\n]*)")
      t.truthy(row, "docs/contact.md's fields table has a row for " .. opt.name)
      local default = row and tonumber(row:match("| ([^|]-) |%s*$"))
      if default and type(opt.solve) == "number" then
        t.eq(default, opt.solve, "docs/contact.md's default of " .. opt.name)
      end
    end
  end
end)

-- The world's options are described once (lucid.world.options(), runtime/world/world_options.c):
-- every range is enforced with the table's words, and docs/world.md's table lists each option
-- with the table's default.
t.case("world options: the table's ranges are enforced and documented with their defaults", function()
  local spec = lucid.world.options()
  t.truthy(#spec.world >= 12 and #spec.single_level == 4, "the world and single-level tables")
  local outside = {number = -2, integer = -2}
  local checked = 0
  for _, opt in ipairs(spec.world) do
    local v = outside[opt.type]
    if v and not (opt.name == "gravity") then
      local ok, err = pcall(lucid.world, {[opt.name] = v})
      if not ok then
        t.truthy(err:find("lucid.world: " .. opt.name .. " must be " .. opt.range, 1, true),
                 opt.name .. ": " .. err)
        checked = checked + 1
      end
    end
  end
  t.truthy(checked >= 10, "out-of-range values refused with the table's words: " .. checked)
  local ok, err = pcall(lucid.world, {single_level = {tol = 0}})
  t.truthy(not ok and err:find("single_level.tol must be > 0", 1, true), tostring(err))
  local h = assert(io.open("docs/world.md"))
  local doc = h:read("a"):gsub("−", "-")
  h:close()
  local function cell(name)
    local row = doc:match("\n| `" .. name .. "` |([^\n]*)")
    t.truthy(row, "docs/world.md's options table has a row for " .. name)
    return row and row:match("| ([^|]-) |%s*$"), row
  end
  for _, opt in ipairs(spec.world) do
    local d = cell(opt.name)
    if d and (opt.type == "number" or opt.type == "integer") then
      t.eq(tonumber(d:match("^(%S+)")), opt.default, "docs/world.md's default of " .. opt.name)
    elseif d and opt.type == "string" then
      t.truthy(d:find('"' .. opt.default .. '"', 1, true), "docs/world.md's default of " .. opt.name)
    elseif d and opt.type == "vec3" then
      local x, y, z = d:match("%(([^,]+), ([^,]+), ([^%)]+)%)")
      t.allnear({tonumber(x), tonumber(y), tonumber(z)}, opt.default, 0, "default of " .. opt.name)
    end
  end
  local sl, sl_row = cell("single_level")
  local defaults = {}
  for v in (sl or ""):gmatch("[^,%s]+") do defaults[#defaults + 1] = v end
  for k, opt in ipairs(spec.single_level) do
    t.truthy(sl_row and sl_row:find(opt.name .. "=", 1, true),
             "docs/world.md's single_level row lists " .. opt.name)
    local d = type(opt.default) == "number" and tonumber(defaults[k]) or defaults[k]
    t.eq(d, type(opt.default) == "number" and opt.default or tostring(opt.default),
         "docs/world.md's default of single_level." .. opt.name)
  end
end)

-- Every table of lucid.options() (runtime/core/option_table.h) is what its reader enforces:
-- a value just outside each option's range, read from the range's words, is refused with
-- "FNAME: PREFIXNAME must be WORDS (got x)", a wrong choice and a non-boolean likewise.
local function world_with_body()
  local w = lucid.world{}
  w:add_body{shape = sphere, mass = 1}
  return w
end
local readers = {
  world = {"lucid.world", "", function(o) return lucid.world(o) end},
  single_level = {"lucid.world", "single_level.", function(o) return lucid.world{single_level = o} end},
  distance = {"lucid.distance", "", function(o) return lucid.distance(sphere, I, box, far, o) end},
  distance_derivatives = {"lucid.distance_derivatives", "", function(o)
    return lucid.distance_derivatives(sphere, I, box, far, o) end},
  contact_patch = {"lucid.contact_patch", "", function(o) return lucid.contact_patch(box, I, box, far, o) end},
  pscaling = {"lucid.pscaling", "", function(o) return lucid.pscaling(sphere, I, box, far, o) end},
  contact_derivatives = {"lucid.contact.derivatives", "opts.", function(o)
    return lucid.contact.derivatives({G = lucid.eye(3), g = {0, 0, -1}, mu = {0.5}},
                                     {lambda = {0, 0, 1}, converged = true}, o) end},
  mesh_decompose = {"lucid.mesh.decompose", "", function(o)
    local V = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
    return lucid.mesh.decompose({vertices = V, triangles = {{1, 3, 2}, {1, 2, 4}, {1, 4, 3}, {2, 3, 4}}}, o)
  end},
  grasp = {"lucid.grasp.epsilon", "", function(o)
    return lucid.grasp.epsilon({{1, 0, 0}, {-1, 0, 0}}, {{-1, 0, 0}, {1, 0, 0}}, 0.5, o) end},
  step_derivatives = {"lucid.world:step_derivatives", "", function(o)
    return world_with_body():step_derivatives(o) end},
  batch = {"lucid.batch.rollout", "", function(o)
    local w = world_with_body()
    local opts = {steps = 1}
    for k, v in pairs(o) do opts[k] = v end
    return lucid.batch.rollout(w, {w:state()}, nil, opts) end},
}

-- A number outside the range its words state ("> 0", "an integer >= 1", "in [0, pi/2)",
-- "an integer in [1, 256] (or 0: ...)"), never the special value; nil for "finite".
local function outside(words)
  local special = tonumber(words:match("%(or (%-?[%d.]+):"))
  local base = words:gsub(" %(or .*%)$", "")
  local hi = base:match("in [%[(][^,]+, ([^%]%)]+)[%])]$")
  if hi then return (hi == "pi/2" and math.pi / 2 or tonumber(hi)) + 1 end
  local op, bound = base:match("([<>]=?) (%S+)$")
  if not op then return nil end
  local v = op:sub(1, 1) == ">" and tonumber(bound) - (op == ">=" and 1 or 0)
                                 or tonumber(bound) + (op == "<=" and 1 or 0)
  if v == special then v = v - 1 end
  return v
end

t.case("every option table's ranges, choices and booleans are enforced by its reader", function()
  local lists = lucid.options()
  local checked, tables, expected = 0, 0, 0
  for key, list in pairs(lists) do
    local r = readers[key]
    t.truthy(r, "a reader for lucid.options()." .. key)
    tables = tables + 1
    local fname, prefix, call = r[1], r[2], r[3]
    for _, opt in ipairs(list) do
      if opt.type ~= "vec3" then expected = expected + 1 end
      local value
      if opt.type == "number" or opt.type == "integer" then value = outside(opt.range)
      elseif opt.type == "string" then value = "zz_none"
      elseif opt.type == "boolean" then value = 1 end
      t.truthy(value ~= nil or opt.range == "finite", key .. "." .. opt.name .. ": no value outside " .. opt.range)
      if value ~= nil then
        local ok, err = pcall(call, {[opt.name] = value})
        local head = string.format("%s: %s%s must be %s (got ", fname, prefix, opt.name, opt.range)
        t.truthy(not ok and err:sub(1, #head) == head,
                 string.format("%s.%s = %s: %s", key, opt.name, tostring(value), tostring(err)))
        checked = checked + 1
      end
    end
  end
  t.eq(tables, 11, "the tables of lucid.options()")
  t.eq(checked, expected, "every option but the 3-vectors (any finite value) checked")
  print(string.format("option tables: %d tables, %d options refused out of range", tables, checked))
end)

t.case("the range words name the values the reader refuses", function()
  t.eq(outside("> 0"), 0)
  t.eq(outside(">= 0 (or -1: automatic)"), -2)
  t.eq(outside("an integer in [1, 256] (or 0: all CPUs)"), 257)
  t.near(outside("in [0, pi/2)"), math.pi / 2 + 1, 0)
  t.eq(outside("finite"), nil)
end)

-- The docs' tables of these options list every option, with the table's range words (or each
-- choice, or "boolean") in its row and the table's default in its last cell; the pages whose
-- table is exactly the option table list nothing else.
local docs_tables = {
  {"distance", "docs/collision.md", "### Options (all optional", false},
  {"distance_derivatives", "docs/collision.md", "`lucid_derivative_option_table`", false},
  {"contact_patch", "docs/collision.md", "`lucid_patch_option_table`", true},
  {"pscaling", "docs/single_level.md", "`lucid_pscaling_option_table`", true},
  {"mesh_decompose", "docs/world.md", "`lucid_decompose_option_table`", false},
  {"contact_derivatives", "docs/contact_derivatives.md", "`lucid_contact_derivative_option_table`",
   false},
  {"grasp", "docs/grasp.md", "`lucid_grasp_option_table`", true},
  {"step_derivatives", "docs/step_derivatives.md", "`lucid_step_derivative_option_table`", true},
  {"batch", "docs/batch.md", "`lucid_batch_option_table`", true},
}

-- The rows of the first table after `anchor` in the file: name -> its cells, backticks removed.
local function docs_rows(path, anchor)
  local h = assert(io.open(path), "cannot read " .. path .. " (run from the repository root)")
  local text = h:read("a")
  h:close()
  local at = text:find(anchor, 1, true)
  t.truthy(at, path .. " has " .. anchor)
  local rows, count, started = {}, 0, false
  for line in text:sub(at or 1):gmatch("[^\n]*") do
    local row = line:match("^%s*(|.*|)%s*$")
    if row then
      started = true
      local cells = {}
      for cell in row:sub(2):gmatch("%s*(.-)%s*|") do cells[#cells + 1] = (cell:gsub("`", "")) end
      local name = cells[1]
      if name ~= "option" and not name:match("^%-+$") then rows[name], count = cells, count + 1 end
    elseif started and line ~= "" then
      break
    end
  end
  return rows, count
end

t.case("the docs' option tables agree with lucid.options(): rows, ranges, defaults", function()
  local lists = lucid.options()
  for _, d in ipairs(docs_tables) do
    local key, path, anchor, exact = d[1], d[2], d[3], d[4]
    local rows, count = docs_rows(path, anchor)
    for _, opt in ipairs(lists[key]) do
      local cells = rows[opt.name]
      t.truthy(cells, string.format("%s's table has a row for %s", path, opt.name))
      if cells then
        local meaning = table.concat(cells, " | ", 2, #cells - 1)
        if opt.type == "string" then
          for choice in opt.range:gmatch('"([^"]+)"') do
            t.truthy(meaning:find('"' .. choice .. '"', 1, true), path .. ": " .. opt.name .. " names " .. choice)
          end
        elseif opt.type == "boolean" then
          t.truthy(meaning:find("boolean", 1, true), path .. ": " .. opt.name .. " is a boolean")
        else
          t.truthy(meaning:find(opt.range, 1, true),
                   string.format("%s: %s's row states '%s': %s", path, opt.name, opt.range, meaning))
        end
        local default = cells[#cells]:match("^(%S+)")
        if opt.type == "vec3" then
          local x, y, z = cells[#cells]:match("^%(([^,]+), ([^,]+), ([^%)]+)%)")
          t.allnear({tonumber(x), tonumber(y), tonumber(z)}, opt.default, 0,
                    path .. ": the default of " .. opt.name)
        elseif type(opt.default) == "number" then
          t.eq(tonumber(default), opt.default, path .. ": the default of " .. opt.name)
        elseif type(opt.default) == "string" then
          t.eq(default, '"' .. opt.default .. '"', path .. ": the default of " .. opt.name)
        else
          t.eq(default, tostring(opt.default), path .. ": the default of " .. opt.name)
        end
      end
    end
    if exact then t.eq(count, #lists[key], path .. ": rows of the " .. key .. " table") end
  end
end)
