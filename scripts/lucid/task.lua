-- Conventions shared by every runnable task in tasks/: `--help`, `--seed N`, `--json`,
-- task-specific options, a progress bar that draws only on a terminal (never with --json),
-- readable tables and JSON output.
--
--   local task = require "lucid.task"
--   local t = task.new{name = "demo", summary = "One line.", options = {
--     {name = "problems", kind = "integer", default = 10, min = 1, help = "number of problems"},
--     {name = "meshes", kind = "flag", help = "use the mesh data set"}}}
--   local opts = t:parse(arg)            -- exits 0 after --help, 2 on a bad option
--
-- Option kinds: "integer", "number", "string", "flag" and "numbers" (a comma-separated list
-- of numbers, '' for none, given as a list by t:parse; its default is written as on the
-- command line).
-- Option names are lowercase words joined by hyphens ("fd-targets"); the old underscore
-- spelling ("--fd_targets") is still accepted, with a warning. Each option declares what a
-- valid value is, and t:parse checks every option before the task runs:
--   min / max       inclusive bounds of a number (of each element of a "numbers" list);
--   positive = true the number (each element) is > 0;
--   choices = {...} the string is one of these words (a near miss gets "did you mean");
--   file = true     the string names a readable file ('' too when the default is '');
--   check = function(value, values, given) return nil or "why it is wrong" end
--                   anything else, relations with other options included: `values` holds
--                   every option's value, `given[name]` is true when the command line set it.
-- A bad option prints one line (the task, the option, why, "did you mean" for a near-miss
-- name) and exits with code 2, never a stack trace. `--check` validates the options and
-- exits 0 without running the task.
--   local bar = t:progress(opts.problems, "solving")
--   for i = 1, opts.problems do ...; bar:step() end
--   bar:done()
--   t:report(figures, function() print(...) end)  -- JSON with --json, else the summary
local lucid = require "lucid"
local json = require "lucid.json"
local check = require "lucid.check"

local task = {}
local Task = {}
Task.__index = Task

local builtin_options = {
  {name = "seed", kind = "integer", default = 0, min = 0, help = "seed of the random generator"},
  {name = "json", kind = "flag", help = "print one JSON object with the task's figures"},
  {name = "check", kind = "flag", help = "check the options and exit (0 when they are valid)"},
  {name = "help", kind = "flag", help = "show this help and exit"},
}

local NEW = "lucid.task.new"
local spec_kinds = {name = "string", summary = "string", options = "table"}
local option_kinds = {name = "string", kind = "string", default = "any", help = "string",
                      min = "number", max = "number", positive = "boolean", check = "function",
                      choices = "table", file = "boolean"}
local KINDS = {integer = true, number = true, string = true, flag = true, numbers = true}

local function check_self(self, class, fname)
  if getmetatable(self) ~= class then
    check.fail(fname, "self must be a %s (got %s; use obj:method())",
      class == Task and "task" or "progress bar", check.typename(self))
  end
end

-- ---- values -----------------------------------------------------------------------------

-- Why the number x breaks the option's bounds, or nil.
local function out_of_bounds(o, x)
  if o.min and x < o.min then return string.format("must be at least %.10g", o.min) end
  if o.max and x > o.max then return string.format("must be at most %.10g", o.max) end
  if o.positive and not (x > 0) then return "must be positive" end
  return nil
end

-- The number written `text` for option o (an integer for kind "integer"), or nil and why.
local function to_number(o, text)
  local x = tonumber(text)
  if o.kind == "integer" then
    x = x and math.tointeger(x)
    if x == nil then return nil, "expects an integer" end
  elseif x == nil or x ~= x or x == math.huge or x == -math.huge then
    return nil, "expects a finite number"
  end
  local why = out_of_bounds(o, x)
  if why then return nil, why end
  return x
end

-- Optimal-string-alignment distance (edits: insert, delete, substitute, swap neighbours).
local function distance(a, b)
  local d = {}
  for i = 0, #a do d[i] = {[0] = i} end
  for j = 1, #b do d[0][j] = j end
  for i = 1, #a do
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      local v = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and a:byte(i) == b:byte(j - 1) and a:byte(i - 1) == b:byte(j) then
        v = math.min(v, d[i - 2][j - 2] + 1)
      end
      d[i][j] = v
    end
  end
  return d[#a][#b]
end

-- "; did you mean X?" for the words nearest `word` (at most a third of its letters off, at
-- least one), or "" when none is near. `prefix` is written before each word ("--").
local function did_you_mean(word, words, prefix)
  local best, near = math.max(1, #word // 3) + 1, {}
  for _, w in ipairs(words) do
    local d = distance(word, w)
    if d < best then best, near = d, {w} elseif d == best then near[#near + 1] = w end
  end
  if #near == 0 then return "" end
  for i, w in ipairs(near) do near[i] = prefix .. w end
  return "; did you mean " .. table.concat(near, " or ") .. "?"
end

-- The value written `text` for option o, or nil, why and a "did you mean" hint (checks the
-- kind, bounds, choices and files; `check` functions run once every option is known).
local function convert(o, text)
  if o.kind == "integer" or o.kind == "number" then return to_number(o, text) end
  if o.kind == "numbers" then
    local list = {}
    if text == "" then return list end -- the empty list
    for word in (text .. ","):gmatch("([^,]*),") do
      local x, why = to_number(o, word)
      if x == nil then
        return nil, string.format("'%s' in the list %s", word,
          why == "expects a finite number" and "is not a finite number" or why)
      end
      list[#list + 1] = x
    end
    return list
  end
  if o.choices then
    for _, c in ipairs(o.choices) do if text == c then return text end end
    return nil, "must be one of " .. table.concat(o.choices, ", "), did_you_mean(text, o.choices, "")
  end
  if o.file and not (text == "" and o.default == "") then
    local f = io.open(text, "r")
    local readable = f and (f:read(0) ~= nil or f:read("a") == "") -- nil for a folder
    if f then f:close() end
    if not readable then return nil, "names no readable file" end
  end
  return text
end

-- ---- the task description --------------------------------------------------------------

-- Validates one entry of spec.options.
local function check_option(o, i)
  local what = string.format("spec.options[%d]", i)
  if type(o) ~= "table" then check.fail(NEW, "%s must be a table (got %s)", what, check.typename(o)) end
  check.options(NEW, o, option_kinds, what)
  if type(o.name) ~= "string" or not o.name:match("^%l[%l%d]*$") and
      not o.name:match("^%l[%l%d]*%-[%l%d%-]*[%l%d]$") or o.name:find("--", 1, true) then
    check.fail(NEW, "%s.name must be lowercase words joined by '-' (got %s)", what, tostring(o.name))
  end
  if not KINDS[o.kind] then
    check.fail(NEW, "option '%s' has an unknown kind %s (expected integer, number, numbers, "
      .. "string or flag)", o.name, tostring(o.kind))
  end
  if o.choices then
    if o.kind ~= "string" or #o.choices == 0 then
      check.fail(NEW, "option '%s': choices need kind string and at least one word", o.name)
    end
    for k, c in ipairs(o.choices) do check.value(NEW, c, "string", o.name .. ".choices[" .. k .. "]") end
  end
  if o.default ~= nil and o.kind ~= "flag" then
    local want = o.kind == "integer" and "integer" or o.kind == "number" and "number" or "string"
    check.value(NEW, o.default, want, "the default of option '" .. o.name .. "'")
    local _, why = convert(o, tostring(o.default))
    if why and not o.file then check.fail(NEW, "the default of option '%s' %s", o.name, why) end
  end
end

-- Creates a task description. spec.name, spec.summary and spec.options (see above).
function task.new(spec)
  if type(spec) ~= "table" then check.fail(NEW, "spec must be a table (got %s)", check.typename(spec)) end
  check.options(NEW, spec, spec_kinds, "spec")
  if type(spec.name) ~= "string" then check.fail(NEW, "spec.name must be a string") end
  local t = setmetatable({name = spec.name, summary = spec.summary or "", options = {}}, Task)
  local seen = {}
  for _, list in ipairs({spec.options or {}, builtin_options}) do
    for i, o in ipairs(list) do
      check_option(o, i)
      if seen[o.name] then check.fail(NEW, "option '%s' is declared twice", o.name) end
      seen[o.name] = true
      t.options[#t.options + 1] = o
    end
  end
  return t
end

-- What the help says a valid value is: "; in [1, 16]", "; one of a, b" or "".
local function constraint_text(o)
  if o.choices then return "; one of " .. table.concat(o.choices, ", ") end
  if o.file then return "; a readable file" end
  if not (o.min or o.max or o.positive) then return "" end
  local lo = o.min and string.format("[%.10g", o.min) or "(-inf"
  if o.positive and not (o.min and o.min > 0) then lo = "(0" end
  local hi = o.max and string.format("%.10g]", o.max) or "inf)"
  return string.format("; %sin %s, %s", o.kind == "numbers" and "each " or "", lo, hi)
end

function Task:usage()
  check_self(self, Task, "lucid.task:usage")
  local lines = {string.format("usage: lucid tasks/%s.lua [options]", self.name), "",
                 self.summary, "", "options:"}
  for _, o in ipairs(self.options) do
    local flag = "--" .. o.name .. (o.kind == "flag" and "" or " " .. o.kind:upper())
    -- an empty default means "not given": the help says what happens then
    local default = (o.kind ~= "flag" and o.default ~= nil and o.default ~= "")
        and string.format(" (default %s)", tostring(o.default)) or ""
    lines[#lines + 1] = string.format("  %-22s %s%s%s", flag, o.help or "", constraint_text(o), default)
  end
  return table.concat(lines, "\n")
end

-- ---- parsing ----------------------------------------------------------------------------

local function fail_usage(t, message)
  io.stderr:write(string.format("%s: %s (see --help)\n", t.name, message))
  os.exit(2)
end

-- The option named `name` on the command line: exact, or its underscore spelling (a warning).
local function resolve(t, by_name, name)
  if by_name[name] then return by_name[name] end
  local hyphens = name:gsub("_", "-")
  if hyphens ~= name and by_name[hyphens] then
    io.stderr:write(string.format("%s: --%s is deprecated, write --%s\n", t.name, name, hyphens))
    return by_name[hyphens]
  end
  return nil
end

-- Runs option o's check function on its value; fails the parse with its reason.
local function run_check(t, o, values, given)
  local ok, why = pcall(o.check, values[o.name], values, given)
  if not ok then why = tostring(why):gsub("^[^:]*:%d+: ", "") end
  if why then
    local shown = o.kind == "numbers" and table.concat(values[o.name], ",") or tostring(values[o.name])
    fail_usage(t, string.format("--%s: %s (got '%s')", o.name, tostring(why), shown))
  end
end

-- Parses the script's `arg` table. Accepts "--name value" and "--name=value".
-- Returns a table of option values; sets self.json, self.seed and self.rng.
function Task:parse(args)
  check_self(self, Task, "lucid.task:parse")
  if type(args) ~= "table" then
    check.fail("lucid.task:parse", "args must be a table (got %s)", check.typename(args))
  end
  local values, by_name, given, names = {}, {}, {}, {}
  for _, o in ipairs(self.options) do
    by_name[o.name], names[#names + 1] = o, o.name
    if o.kind == "flag" then values[o.name] = false
    elseif o.kind == "numbers" and o.default ~= nil then values[o.name] = convert(o, o.default)
    else values[o.name] = o.default end
  end
  local i = 1
  while args[i] do
    local word = args[i]
    if type(word) ~= "string" then fail_usage(self, "argument " .. i .. " is not a string") end
    local name, inline = word:match("^%-%-([%w_%-]+)=(.*)$")
    name = name or word:match("^%-%-([%w_%-]+)$")
    local o = name and resolve(self, by_name, name)
    if not o then
      local hint = name and did_you_mean(name:gsub("_", "-"), names, "--") or ""
      fail_usage(self, "unknown argument '" .. word .. "'" .. hint)
    end
    if o.kind == "flag" then
      if inline then fail_usage(self, "--" .. o.name .. " takes no value") end
      values[o.name] = true
    else
      local text = inline
      if not text then
        i = i + 1
        text = args[i]
        if text == nil then fail_usage(self, "--" .. o.name .. " expects a value") end
      end
      local value, why, hint = convert(o, text)
      if value == nil then
        fail_usage(self, string.format("--%s %s (got '%s')%s", o.name, why, text, hint or ""))
      end
      values[o.name] = value
    end
    given[o.name] = true
    i = i + 1
  end
  if values.help then
    print(self:usage())
    os.exit(0)
  end
  for _, o in ipairs(self.options) do
    if o.check then run_check(self, o, values, given) end
  end
  if values.check then os.exit(0) end
  self.json, self.seed = values.json, values.seed
  if lucid.rng then self.rng = lucid.rng(values.seed) end
  return values
end

-- Replays of simulation tasks (lucid.viewer): task.replay_option(what) declares
-- `--replay FILE` ("write an HTML replay of WHAT to FILE"); rec = t:record(w, file, dt) starts
-- recording world w (time step dt) when file is given (nil otherwise), keeping about 200 frames
-- a simulated second; t:write_replay(rec, file, title) stops it, writes the page and prints
-- "replay: FILE (N frames)" (nothing when rec is nil). Returns the file name.
function task.replay_option(what)
  check.value("lucid.task.replay_option", what, "string", "what")
  return {name = "replay", kind = "string",
          help = "write an HTML replay (lucid.viewer) of " .. what .. " to FILE"}
end

function Task:record(w, file, dt)
  check_self(self, Task, "lucid.task:record")
  if file == nil then return nil end
  check.value("lucid.task:record", file, "string", "file")
  check.value("lucid.task:record", dt, "number", "dt")
  if check.typename(w) ~= "lucid.world" then
    check.fail("lucid.task:record", "w must be a lucid.world (got %s)", check.typename(w))
  end
  if not (dt > 0) then check.fail("lucid.task:record", "dt must be positive (got %s)", dt) end
  return w:record{every = math.max(1, math.min(1000000000, math.floor(0.005 / dt + 0.5)))}
end

function Task:write_replay(rec, file, title)
  check_self(self, Task, "lucid.task:write_replay")
  if rec == nil then return nil end
  if check.typename(rec) ~= "lucid.record" then
    check.fail("lucid.task:write_replay", "rec must be a lucid.record (got %s)", check.typename(rec))
  end
  check.value("lucid.task:write_replay", file, "string", "file")
  if title ~= nil then check.value("lucid.task:write_replay", title, "string", "title") end
  if check.typename(rec) ~= "lucid.record" then
    check.fail("lucid.task:write_replay", "rec must be a lucid.record (got %s)", check.typename(rec))
  end
  local ok, info = pcall(rec.info, rec)
  if not ok then check.fail("lucid.task:write_replay", "rec: %s", tostring(info)) end
  if info.recording then rec:stop() end
  lucid.viewer.write(file, rec, {title = title})
  -- say where the page went (on stderr under --json, whose stdout is the figures alone)
  local out = self.json and io.stderr or io.stdout
  out:write(string.format("replay: %s (%d frames)\n", file, #rec))
  return file
end

-- A check function for options listing contact model:solver pairs ("ncp:admm,lcp:pgs"):
-- nil when every pair is one lucid.world accepts, else why not.
function task.check_pairs(text)
  if type(text) ~= "string" then return "expected a string" end
  local count = 0
  for pair in text:gmatch("[^,]+") do
    local model, solver = pair:match("^(%w+):(%w+)$")
    if not model then return string.format("'%s' is not a model:solver pair", pair) end
    local ok, err = pcall(lucid.world, {contact = {model = model, solver = solver}})
    if not ok then return (tostring(err):gsub("^lucid%.world: ", "")) end
    count = count + 1
  end
  if count == 0 then return "no model:solver pair given" end
  return nil
end

-- A check function for options that become lucid.world options: make(value) returns the
-- options table; nil when lucid.world accepts it, else its reason (lucid.world's own bounds,
-- so a task never restates them).
function task.world_check(make)
  check.value("lucid.task.world_check", make, "function", "make")
  return function(value)
    local ok, err = pcall(lucid.world, make(value))
    if ok then return nil end
    return (tostring(err):gsub("^lucid%.world: ", ""))
  end
end

-- Progress -----------------------------------------------------------------------------

local Progress = {}
Progress.__index = Progress

local function format_seconds(s)
  if s >= 3600 then return string.format("%dh%02dm", s // 3600, (s % 3600) // 60) end
  if s >= 60 then return string.format("%dm%02ds", s // 60, math.floor(s % 60)) end
  return string.format("%.1fs", s)
end

-- A progress bar on stderr for `total` steps. It draws only when stderr is a terminal and
-- the task is not in --json mode, and at most ten times a second.
function Task:progress(total, label)
  check_self(self, Task, "lucid.task:progress")
  if math.type(total) ~= "integer" or total < 0 then
    check.fail("lucid.task:progress", "total must be a non-negative integer (got %s)", tostring(total))
  end
  if label ~= nil then check.value("lucid.task:progress", label, "string", "label") end
  local visible = not self.json and lucid.isatty(2)
  return setmetatable({total = math.max(total, 1), label = label or self.name, count = 0,
                       start = lucid.clock(), last_draw = -math.huge, visible = visible},
                      Progress)
end

function Progress:draw()
  check_self(self, Progress, "lucid.task.progress:draw")
  local elapsed = lucid.clock() - self.start
  local fraction = math.min(self.count / self.total, 1)
  local width = 30
  local filled = math.floor(fraction * width + 0.5)
  local eta = fraction > 0 and elapsed * (1 - fraction) / fraction or 0
  io.stderr:write(string.format("\r%s [%s%s] %d/%d %s, ETA %s\027[K", self.label,
    string.rep("#", filled), string.rep(".", width - filled), self.count, self.total,
    format_seconds(elapsed), format_seconds(eta)))
  io.stderr:flush()
  self.last_draw = lucid.clock()
end

-- Advances by n steps (default 1).
function Progress:step(n)
  check_self(self, Progress, "lucid.task.progress:step")
  if n ~= nil and math.type(n) ~= "integer" then
    check.fail("lucid.task.progress:step", "n must be an integer (got %s)", check.typename(n))
  end
  self.count = self.count + (n or 1)
  if self.visible and lucid.clock() - self.last_draw >= 0.1 then self:draw() end
end

-- Draws the final state and ends the line.
function Progress:done()
  check_self(self, Progress, "lucid.task.progress:done")
  if not self.visible then return end
  self:draw()
  io.stderr:write("\n")
end

-- Output -------------------------------------------------------------------------------

-- With --json, prints `figures` as one JSON object on stdout; otherwise calls summary().
function Task:report(figures, summary)
  check_self(self, Task, "lucid.task:report")
  if summary ~= nil and type(summary) ~= "function" then
    check.fail("lucid.task:report", "summary must be a function (got %s)", check.typename(summary))
  end
  if self.json then
    io.stdout:write(json.encode(figures), "\n")
  elseif summary then
    summary()
  end
end

-- Formats rows (lists of cells) under headers as an aligned text table. Numbers are
-- printed with `number_format` (default "%.3g").
function task.format_table(headers, rows, number_format)
  local fname = "lucid.task.format_table"
  check.value(fname, headers, "table", "headers")
  check.value(fname, rows, "table", "rows")
  if number_format ~= nil then
    check.value(fname, number_format, "string", "number_format")
    if not pcall(string.format, number_format, 1.5) then
      check.fail(fname, "number_format '%s' is not a format for one number", number_format)
    end
  end
  for r = 1, #rows do
    if type(rows[r]) ~= "table" then
      check.fail(fname, "rows[%d] must be a table (got %s)", r, check.typename(rows[r]))
    end
  end
  local cells, widths = {}, {}
  local function text(v)
    if type(v) == "number" and math.type(v) ~= "integer" then
      return string.format(number_format or "%.3g", v)
    end
    return tostring(v)
  end
  for r, row in ipairs({headers, table.unpack(rows)}) do
    cells[r] = {}
    for c = 1, #headers do
      cells[r][c] = text(row[c] == nil and "" or row[c])
      widths[c] = math.max(widths[c] or 0, utf8.len(cells[r][c]) or #cells[r][c])
    end
  end
  local lines = {}
  for r, row in ipairs(cells) do
    local padded = {}
    for c, cell in ipairs(row) do
      local pad = string.rep(" ", widths[c] - (utf8.len(cell) or #cell))
      padded[c] = c == 1 and cell .. pad or pad .. cell
    end
    lines[#lines + 1] = table.concat(padded, "  ")
    if r == 1 then
      local rule = {}
      for c = 1, #widths do rule[c] = string.rep("-", widths[c]) end
      lines[#lines + 1] = table.concat(rule, "  ")
    end
  end
  return table.concat(lines, "\n")
end

return task
