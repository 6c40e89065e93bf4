-- Task conventions, checked by running real tasks in a subprocess.
local t = require "testing"
local json = require "lucid.json"
local task = require "lucid.task"

local interpreter = arg[-1]

-- Runs `lucid FILE ARGS` with stdout captured; returns stdout, exit code.
local function run(file, args)
  local cmd = string.format("'%s' %s %s 2>/dev/null", interpreter, file, args)
  local pipe = assert(io.popen(cmd))
  local out = pipe:read("a")
  local _, _, code = pipe:close()
  return out, code
end

local demo = os.tmpname() .. ".lua"
do
  local f = assert(io.open(demo, "w"))
  f:write([[
local task = require "lucid.task"
local t = task.new{name = "demo", summary = "A demo.", options = {
  {name = "count", kind = "integer", default = 3, min = 1, help = "how many"},
  {name = "scale", kind = "number", default = 0.5, help = "a scale"},
  {name = "fast", kind = "flag", help = "go fast"}}}
local o = t:parse(arg)
local bar = t:progress(o.count, "demo")
for _ = 1, o.count do bar:step() end
bar:done()
t:report({count = o.count, scale = o.scale, fast = o.fast, seed = t.seed,
          draw = t.rng:uniform()}, function() print("summary: " .. o.count) end)
]])
  f:close()
end

t.case("--help prints usage and exits 0", function()
  local out, code = run(demo, "--help")
  t.eq(code, 0)
  t.truthy(out:find("usage: lucid tasks/demo.lua", 1, true))
  t.truthy(out:find("--count INTEGER", 1, true))
  t.truthy(out:find("--seed INTEGER", 1, true))
  t.truthy(out:find("--json", 1, true))
end)

t.case("--json prints exactly one JSON object holding the figures", function()
  local out, code = run(demo, "--json --count=5 --scale 2e-3 --fast --seed 7")
  t.eq(code, 0)
  local v = json.decode(out)
  t.eq(v.count, 5)
  t.eq(v.scale, 2e-3)
  t.eq(v.fast, true)
  t.eq(v.seed, 7)
end)

t.case("the seed makes runs reproducible", function()
  local a = json.decode(run(demo, "--json --seed 3"))
  local b = json.decode(run(demo, "--json --seed 3"))
  local c = json.decode(run(demo, "--json --seed 4"))
  t.eq(a.draw, b.draw)
  t.truthy(a.draw ~= c.draw, "different seeds give different draws")
end)

t.case("without --json the summary is printed and no progress reaches a pipe", function()
  local out, code = run(demo, "--count 2")
  t.eq(code, 0)
  t.eq(out, "summary: 2\n")
end)

t.case("bad options exit 2 with a message", function()
  for _, bad in ipairs({"--nope", "--count", "--count abc", "--count 1.5", "--count 0",
                        "--seed -1", "--fast=1", "stray"}) do
    local _, code = run(demo, bad)
    t.eq(code, 2, bad)
  end
end)

t.case("format_table aligns columns", function()
  local text = task.format_table({"name", "value"}, {{"a", 1.23456}, {"longer", 10}})
  t.eq(text, "name    value\n------  -----\na        1.23\nlonger     10")
end)

t.case("quickstart --json reports accurate solves and round trips", function()
  local out, code = run("tasks/quickstart.lua", "--json --n 50 --poses 300 --seed 2")
  t.eq(code, 0)
  local v = json.decode(out)
  t.eq(v.n, 50)
  t.truthy(v.cholesky.relative_error < 1e-12, "cholesky error " .. v.cholesky.relative_error)
  t.truthy(v.lu.relative_error < 1e-12, "lu error " .. v.lu.relative_error)
  t.truthy(v.worst_exp_log_roundtrip < 1e-12, "round trip " .. v.worst_exp_log_roundtrip)
  t.near(v.point[1], -0.1, 1e-12)
  t.near(v.point[2], 0.2, 1e-12)
  t.near(v.point[3], 1.7, 1e-12)
end)

t.teardown(function() os.remove(demo) end)
