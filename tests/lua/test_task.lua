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

-- issue 37: sysid's help printed "(default: implicit when ...) (default )"
t.case("usage prints a default once, none for an empty one", function()
  local tk = task.new{name = "defaults", options = {
    {name = "method", kind = "string", default = "", help = "how (default: the fastest)"},
    {name = "count", kind = "integer", default = 3, help = "how many"}}}
  local usage = tk:usage()
  t.truthy(usage:find("how (default: the fastest)\n", 1, true), usage)
  t.truthy(not usage:find("(default )", 1, true), usage)
  t.truthy(usage:find("how many (default 3)", 1, true), usage)
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

-- Runs `lucid FILE ARGS`; returns stdout and stderr together, and the exit code.
local function run_all(file, args)
  local cmd = string.format("'%s' %s %s 2>&1", interpreter, file, args)
  local pipe = assert(io.popen(cmd))
  local out = pipe:read("a")
  local _, _, code = pipe:close()
  return out, code
end

-- issue 16: `--dt -1` gave a raw stack trace and exit code 1.
t.case("every task rejects bad option values with a message and exit code 2", function()
  local tasks = {"contact_pose", "dragged_cube", "face_to_face", "ill_conditioned_stack",
                 "quickstart", "sliding_cube", "timestep_consistency"}
  local runs = 0
  for _, name in ipairs(tasks) do
    local file = "tasks/" .. name .. ".lua"
    local help, code = run_all(file, "--help")
    t.eq(code, 0, name .. " --help")
    local out
    out, code = run_all(file, "--check")
    t.eq(code, 0, name .. " --check: " .. out)
    out, code = run_all(file, "--check --no-such-option 1")
    t.eq(code, 2, name .. " unknown option")
    t.truthy(out:find(name .. ": unknown argument '--no-such-option'", 1, true), out)
    for option, kind in help:gmatch("\n  %-%-([%w_%-]+) (%u+)") do
      local values = kind == "STRING" and {"''", "ncp:nope"} or {"-1", "0", "x", "1e400"}
      for _, v in ipairs(values) do
        out, code = run_all(file, string.format("--check --%s %s", option, v))
        runs = runs + 1
        t.truthy(code == 0 or code == 2, string.format("%s --%s %s: exit %s", name, option, v, code))
        t.truthy(not out:find("stack traceback", 1, true), string.format("%s --%s %s: %s", name, option, v, out))
        if code == 2 then
          t.truthy(out:find(name .. ": --" .. option, 1, true), out)
        end
      end
    end
  end
  for _, c in ipairs({{"sliding_cube", "--dt -1"}, {"sliding_cube", "--v0 -1"},
                      {"dragged_cube", "--dt 0"}, {"face_to_face", "--pairs ncp:nope"},
                      {"timestep_consistency", "--horizon -1"}, {"quickstart", "--n 100000"},
                      {"contact_pose", "--start far"}}) do
    local out, code = run_all("tasks/" .. c[1] .. ".lua", c[2])
    t.eq(code, 2, c[1] .. " " .. c[2] .. ": " .. out)
    t.truthy(not out:find("stack traceback", 1, true), out)
  end
  t.truthy(runs > 40, runs .. " runs")
end)

-- issue 37: the header read "(0 s wall)" (os.time's whole seconds) for runs under a second.
t.case("single_level_drop reports its wall time, also under a second", function()
  local dir = os.tmpname()
  os.remove(dir)
  local args = "--drops 1 --hz 100 --kappas 1e-4 --seconds 0.3 --out " .. dir
  local out, code = run("tasks/single_level_drop.lua", args)
  t.eq(code, 0, out)
  local wall = tonumber(out:match("%(([^%s]+) s wall%)"))
  t.truthy(wall and wall > 0, "header: " .. out:match("[^\n]*"))
  local v = json.decode(run("tasks/single_level_drop.lua", args .. " --json"))
  t.truthy(v.wall_seconds > 0 and v.wall_seconds < 60, "wall_seconds " .. tostring(v.wall_seconds))
  os.execute("rm -rf '" .. dir .. "'")
end)

-- issue 37: robot_tour summed joint-limit contacts and called them steps (13684 "steps" of 1500).
t.case("robot_tour counts the steps with a joint-limit contact, and the contacts apart", function()
  local humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml" -- libmujoco-samples
  local f = io.open(humanoid)
  if not f then t.skip(humanoid .. " is not installed") end
  f:close()
  local out, code = run("tasks/robot_tour.lua", "--json --seconds 0.5 --model " .. humanoid)
  t.eq(code, 0, out)
  local v = json.decode(out)
  t.eq(v.steps, 250)
  t.truthy(v.limit_contact_steps > 0 and v.limit_contact_steps <= v.steps,
           string.format("%d steps with a limit contact of %d", v.limit_contact_steps, v.steps))
  t.truthy(v.limit_contacts >= v.limit_contact_steps and v.limit_contacts <= v.steps * v.max_contacts,
           string.format("%d limit contacts", v.limit_contacts))
  local text = run("tasks/robot_tour.lua", "--seconds 0.5 --model " .. humanoid)
  t.truthy(text:find(string.format("joint-limit contacts in %d of 250 steps (%d in all)",
    v.limit_contact_steps, v.limit_contacts), 1, true), text)
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
