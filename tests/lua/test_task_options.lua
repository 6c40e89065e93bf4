-- Every task in tasks/ validates every option before it runs (issue 37): wrong types, values
-- out of the declared range, near-miss option names and choices, unreadable files and the
-- concrete cases of the issue give exit code 2 and one line naming the task and the option,
-- never a Lua error (the interpreter's stack trace). The sweep reads each task's --help (kind,
-- range, choices) and runs the task file in this process with os.exit and io.stderr captured
-- and --check given, so that only option parsing runs; a few cases run as real subprocesses.
local t = require "testing"

local interpreter = arg[-1]

-- Runs tasks/NAME.lua with `args` (a list) in this process. Returns the exit code (or
-- "error" when a Lua error escaped, "returned" when the file ran to its end) and what it wrote.
local function run_in_process(name, args)
  local file = "tasks/" .. name .. ".lua"
  local chunk = assert(loadfile(file))
  local text = {}
  local sink = {write = function(self, ...)
    for _, s in ipairs({...}) do text[#text + 1] = tostring(s) end
    return self
  end, flush = function() end}
  local saved = {exit = os.exit, stderr = io.stderr, print = print, arg = arg}
  os.exit = function(code) error({exit_code = code}, 0) end
  io.stderr = sink
  print = function(...) sink:write(table.concat({...}, "\t"), "\n") end
  local argv = {[-1] = interpreter, [0] = file, table.unpack(args)}
  arg = argv
  local ok, err = pcall(chunk, table.unpack(args))
  os.exit, io.stderr, print, arg = saved.exit, saved.stderr, saved.print, saved.arg
  local out = table.concat(text)
  if ok then return "returned", out end
  if type(err) == "table" and err.exit_code ~= nil then return err.exit_code, out end
  return "error", out .. tostring(err)
end

local function task_names()
  local names = {}
  local pipe = assert(io.popen("ls tasks/*.lua"))
  for line in pipe:lines() do names[#names + 1] = line:match("tasks/(.-)%.lua$") end
  pipe:close()
  table.sort(names)
  return names
end

-- The options in a task's --help: {name, kind, lo, lo_open, hi, hi_open, choices, file}.
local function options_of(help)
  local list = {}
  for line in help:gmatch("[^\n]+") do
    local name, kind = line:match("^  %-%-([%w%-]+) (%u+) ")
    if name and name ~= "seed" then
      local o = {name = name, kind = kind}
      local open1, lo, hi, close = line:match("; e?a?c?h? ?in ([%[%(])(%S+), (%S+)([%]%)])")
      if open1 then
        o.lo, o.lo_open = tonumber(lo), open1 == "("
        o.hi, o.hi_open = tonumber(hi), close == ")"
        if lo == "-inf" then o.lo = nil end
        if hi == "inf" then o.hi = nil end
      end
      local choices = line:match("; one of ([%w_, ]+)")
      if choices then
        o.choices = {}
        for c in choices:gmatch("[%w_]+") do o.choices[#o.choices + 1] = c end
      end
      o.file = line:find("; a readable file", 1, true) ~= nil
      list[#list + 1] = o
    end
  end
  return list
end

-- Values out of o's range: just past each finite bound (integers by one).
local function out_of_range(o)
  local bad = {}
  local step = o.kind == "INTEGER" and 1 or nil
  if o.lo then
    bad[#bad + 1] = o.lo_open and o.lo or o.lo - (step or math.max(math.abs(o.lo) * 0.5, 1e-300))
    if o.lo == 0 and not o.lo_open and not step then bad[#bad] = -1e-3 end
  end
  if o.hi then
    bad[#bad + 1] = o.hi_open and o.hi or o.hi + (step or math.max(math.abs(o.hi), 1))
  end
  for i, v in ipairs(bad) do
    bad[i] = math.type(v) == "integer" and tostring(v) or string.format("%.17g", v)
  end
  return bad
end

local function wrong_types(o)
  if o.kind == "INTEGER" then return {"x", "2.5", "1e400"} end
  if o.kind == "NUMBER" then return {"x", "1e400", "nan", "0x"} end
  if o.kind == "NUMBERS" then return {"x", "1,x", "1,,2", "nan"} end
  return {}
end

-- Checks a run that must be refused: exit 2, one line naming the task and the option (a
-- deprecation warning may precede it), the "did you mean" hint when `hint` is given.
local function refused(name, args, option, hint)
  local code, out = run_in_process(name, args)
  local what = name .. " " .. table.concat(args, " ")
  t.eq(code, 2, what .. ": " .. out)
  local lines = {}
  for line in out:gmatch("[^\n]+") do
    if not line:find("is deprecated, write", 1, true) then lines[#lines + 1] = line end
  end
  t.eq(#lines, 1, what .. ": one line expected, got: " .. out)
  t.truthy(lines[1]:find(name .. ": " .. option, 1, true), what .. ": " .. out)
  if hint then t.truthy(lines[1]:find("did you mean " .. hint .. "?", 1, true), what .. ": " .. out) end
end

t.case("every task refuses bad values, near-miss names and choices at --check", function()
  local names = task_names()
  t.truthy(#names >= 14, #names .. " tasks")
  local runs = 0
  for _, name in ipairs(names) do
    local code, help = run_in_process(name, {"--help"})
    t.eq(code, 0, name .. " --help: " .. help)
    code = run_in_process(name, {"--check"})
    t.eq(code, 0, name .. " --check")
    refused(name, {"--check", "--no-such-option", "1"}, "unknown argument '--no-such-option'")
    local options = options_of(help)
    local by_name = {}
    for _, o in ipairs(options) do by_name[o.name] = o end
    for _, o in ipairs(options) do
      for _, v in ipairs(wrong_types(o)) do refused(name, {"--check", "--" .. o.name, v}, "--" .. o.name) end
      for _, v in ipairs(out_of_range(o)) do refused(name, {"--check", "--" .. o.name, v}, "--" .. o.name) end
      if o.choices then
        local near = o.choices[1]:sub(1, -2)
        refused(name, {"--check", "--" .. o.name, near}, "--" .. o.name, o.choices[1])
      end
      if o.file then refused(name, {"--check", "--" .. o.name, "/nonexistent/file"}, "--" .. o.name) end
      -- a near-miss name: the last letter dropped
      local miss = o.name:sub(1, -2)
      if #miss >= 3 and not by_name[miss] then
        refused(name, {"--check", "--" .. miss, "1"}, "unknown argument '--" .. miss .. "'", "--" .. o.name)
      end
      runs = runs + 1
    end
  end
  t.truthy(runs >= 70, runs .. " options swept")
end)

t.case("the old underscore spellings work with a warning", function()
  local cases = {{"face_to_face", "patch_points", "3"}, {"ill_conditioned_stack", "max_iter", "5"},
                 {"trajopt", "fd_targets", "3", "--baseline"}, {"robot_tour", "package_dir", "/tmp"},
                 {"contact_pose", "surface_targets"}}
  for _, c in ipairs(cases) do
    local args = {"--check", "--" .. c[2], c[3], c[4]}
    local code, out = run_in_process(c[1], args)
    t.eq(code, 0, c[1] .. " --" .. c[2] .. ": " .. out)
    t.truthy(out:find(c[1] .. ": --" .. c[2] .. " is deprecated, write --" .. c[2]:gsub("_", "-"), 1, true), out)
  end
  -- a bad value under the old name is refused under the new name
  refused("face_to_face", {"--check", "--patch_points", "40"}, "--patch-points")
end)

-- The issue's cases: each passed --check (or ran) before and failed later, with a trace or not.
t.case("issue 37: the values that used to run or fail at run time are refused up front", function()
  refused("timestep_consistency", {"--check", "--reference", "3e-5"}, "--reference")
  t.eq(run_in_process("timestep_consistency", {"--check", "--reference", "2e-5"}), 0)
  t.eq(run_in_process("timestep_consistency", {"--check", "--reference", "1e-4"}), 0)
  refused("face_to_face", {"--check", "--patch-points", "40"}, "--patch-points")
  refused("face_to_face", {"--check", "--patch-points", "2.5"}, "--patch-points")
  t.eq(run_in_process("face_to_face", {"--check", "--patch-points", "16"}), 0)
  refused("single_level_drop", {"--check", "--kappas", "abc"}, "--kappas")
  refused("single_level_drop", {"--check", "--kappas", "1e-6,-1"}, "--kappas")
  refused("single_level_drop", {"--check", "--hz", "0"}, "--hz")
  refused("single_level_drop", {"--check", "--hz", ""}, "--hz")
  t.eq(run_in_process("single_level_drop", {"--check", "--kappas", ""}), 0) -- two-stage rows only
  refused("single_level_drop", {"--check", "--hz", "1", "--seconds", "0.2"}, "--hz")
  refused("timestep_consistency", {"--check", "--horizon", "0.001"}, "--horizon")
  refused("robot_tour", {"--check", "--seconds", "0.0001"}, "--seconds")
  refused("trajopt", {"--check", "--fd-targets", "3"}, "--fd-targets")
  refused("trajopt", {"--check", "--methods", "implicit,relaxed:abc"}, "--methods")
  refused("sysid", {"--check", "--data", "push,tos"}, "--data")
  refused("grasp", {"--check", "--object", "/tmp"}, "--object") -- a folder is no file
end)

-- The same, end to end: the interpreter's exit code and stderr, without --check.
t.case("without --check: exit code 2, one line, no stack traceback", function()
  for _, c in ipairs({{"face_to_face", "--patch_points 40"}, {"single_level_drop", "--kappas abc"},
                      {"single_level_drop", "--hz 0"}, {"timestep_consistency", "--reference 3e-5"},
                      {"face_to_face", "--patch-points 2.5"}}) do
    local pipe = assert(io.popen(string.format("'%s' tasks/%s.lua %s 2>&1", interpreter, c[1], c[2])))
    local out = pipe:read("a")
    local _, _, code = pipe:close()
    t.eq(code, 2, c[1] .. " " .. c[2] .. ": " .. out)
    t.truthy(not out:find("traceback", 1, true), out)
    local _, lines = out:gsub("\n", "")
    t.truthy(lines <= 2, out) -- the error, after a deprecation warning for an old spelling
  end
end)

t.case("task.new holds declarations to the convention", function()
  local task = require "lucid.task"
  local function declare(o) return pcall(task.new, {name = "x", options = {o}}) end
  local ok, err = declare({name = "max_iter", kind = "integer", default = 1})
  t.truthy(not ok and err:find("lowercase words joined by '-'", 1, true), tostring(err))
  ok, err = declare({name = "n", kind = "integer", default = 0, min = 1})
  t.truthy(not ok and err:find("the default of option 'n' must be at least 1", 1, true), tostring(err))
  ok, err = declare({name = "p", kind = "string", default = "c", choices = {"a", "b"}})
  t.truthy(not ok and err:find("must be one of a, b", 1, true), tostring(err))
  ok, err = declare({name = "k", kind = "numbers", default = "1,-1", positive = true})
  t.truthy(not ok and err:find("must be positive", 1, true), tostring(err))
  t.truthy(declare({name = "fd-targets", kind = "integer", default = 3, min = 1}))
  -- a list without a default is nil until given
  local tk = task.new{name = "x", options = {{name = "hz", kind = "numbers", positive = true}}}
  local saved = os.exit
  os.exit = function(code) error("exit " .. tostring(code), 0) end
  local ok1, none = pcall(tk.parse, tk, {})
  local ok2, some = pcall(tk.parse, tk, {"--hz", "10,30"})
  os.exit = saved
  t.truthy(ok1 and none.hz == nil, tostring(none))
  t.truthy(ok2 and some.hz[1] == 10 and some.hz[2] == 30, tostring(some))
end)
