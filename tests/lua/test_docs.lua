-- Every public function of the `lucid` table is documented inside the repository (docs/,
-- README.md, autodiff/README.md), so a new function cannot land undocumented. A function
-- lucid.a.b counts as documented when the docs contain
--   * its full name `lucid.a.b`, or
--   * its short form `a.b` after a non-identifier character (`task.new` after
--     `local task = require "lucid.task"`), or
--   * on a line that names the table (`lucid.a.`), `b` as a listed name: between backticks,
--     commas, slashes, spaces and an opening parenthesis (`lucid.so3.exp(w)`, `log(R)`,
--     `hat(w)`; `lucid.ad.exp/log/sqrt`).
local t = require "testing"
local lucid = require "lucid"

local function read_docs()
  local files = {"README.md", "autodiff/README.md"}
  local p = assert(io.popen("find docs -name '*.md' | sort"))
  for f in p:lines() do files[#files + 1] = f end
  p:close()
  local texts = {}
  for _, f in ipairs(files) do
    local h = assert(io.open(f), "cannot read " .. f .. " (run from the repository root)")
    texts[#texts + 1] = h:read("a")
    h:close()
  end
  return table.concat(texts, "\n"), #files
end

local function escape(s) return (s:gsub("%p", "%%%0")) end

local function documented(text, name)
  if text:find(name, 1, true) then return true end
  local parent, leaf = name:match("^(.*)%.([^.]+)$")
  local short = parent:match("([%w_]+)$") .. "." .. leaf
  if ("\n" .. text):find("[^%w_.]" .. escape(short) .. "[^%w_]") then return true end
  for line in text:gmatch("[^\n]+") do
    if line:find(parent .. ".", 1, true) and
       ((" " .. line .. " "):find("[`,/%s]" .. escape(leaf) .. "[`,/%(%s]")) then
      return true
    end
  end
  return false
end

-- Every function reachable from `lucid` through nested tables, by full name.
local function public_functions()
  local names, seen = {}, {}
  local function walk(tbl, prefix, depth)
    if seen[tbl] or depth > 4 then return end
    seen[tbl] = true
    for k, v in pairs(tbl) do
      if type(k) == "string" and not k:match("^_") then
        local name = prefix .. "." .. k
        if type(v) == "function" then names[#names + 1] = name
        elseif type(v) == "table" then walk(v, name, depth + 1) end
      end
    end
  end
  walk(lucid, "lucid", 0)
  table.sort(names)
  return names
end

t.case("every function of the lucid table is documented in the repository", function()
  local text, nfiles = read_docs()
  t.truthy(nfiles > 5, "the docs were found")
  local names = public_functions()
  t.truthy(#names > 50, "the lucid table was enumerated (" .. #names .. " functions)")
  local missing = {}
  for _, name in ipairs(names) do
    if not documented(text, name) then missing[#missing + 1] = name end
  end
  t.truthy(#missing == 0, "undocumented (add them to docs/): " .. table.concat(missing, ", "))
end)

t.case("the rule is not vacuous", function()
  local text = "`lucid.world{...}`; `lucid.so3.exp(w)`, `log(R)`, `hat(w)`\n`task.new{...}`"
  t.truthy(documented(text, "lucid.world"))
  t.truthy(documented(text, "lucid.so3.log"))
  t.truthy(documented(text, "lucid.task.new"))
  t.truthy(not documented(text, "lucid.so3.jr"))
  t.truthy(not documented(text, "lucid.batch.rollout"))
  t.truthy(not documented(text, "lucid.se3.log"))
end)

-- README.md's Lua snippets, each run as a file (`./lucid FILE`) from the repository root: they
-- run, and print what their comments say.
local function readme_snippets()
  local h = assert(io.open("README.md"))
  local text = h:read("a")
  h:close()
  local out = {}
  for code in text:gmatch("```lua\n(.-)```") do
    local file = os.tmpname() .. ".lua"
    local f = assert(io.open(file, "w"))
    f:write(code)
    f:close()
    local pipe = assert(io.popen(string.format("'%s' %s 2>&1", arg[-1], file)))
    local printed = pipe:read("a")
    local ok = pipe:close()
    os.remove(file)
    out[#out + 1] = {code = code, printed = printed, ok = ok}
  end
  return out
end

t.case("README's Lua snippets run and print what their comments say", function()
  local snippets = readme_snippets()
  t.truthy(#snippets >= 3, "the snippets were found (" .. #snippets .. ")")
  local rollout
  for k, s in ipairs(snippets) do
    t.truthy(s.ok, "README snippet " .. k .. " fails: " .. s.printed)
    if s.code:find("lucid.ad.grad", 1, true) then rollout = s.printed end
  end
  t.truthy(snippets[1].printed:find("^lucid.vec{%-0.1, 0.2, 1.7}\n"), snippets[1].printed)
  -- the rollout: a sliding box, its gradient against a central difference and dt^2 (11 - t) / m
  t.truthy(rollout, "the differentiation snippet is found")
  local lines = {}
  for line in rollout:gmatch("[^\n]+") do lines[#lines + 1] = line end
  t.eq(lines[1], "12\t6\t4\tsliding")
  t.eq(#lines, 3, rollout)
  for i, step in ipairs{1, 10} do
    local s, g, fd = lines[i + 1]:match("^(%d+)\t(%S+)\t(%S+)$")
    t.eq(tonumber(s), step)
    local expected = 1e-6 * (11 - step)
    t.near(tonumber(g), expected, 1e-4 * expected, "gradient at step " .. step)
    t.near(tonumber(fd), expected, 1e-4 * expected, "central difference at step " .. step)
  end
end)

-- The C tests' paths named anywhere in the repository's text (docs, READMEs, comments, data
-- files): `tests/c/` followed by path characters, a sentence's final dot dropped.
local function c_test_paths(text)
  local out = {}
  for p in text:gmatch("tests/c/[%w_./-]*") do out[#out + 1] = (p:gsub("%.+$", "")) end
  return out
end

-- The paths that `extract` finds in the files grep selects by `pattern` and that do not exist
-- ("file:line: path"), with how many paths and files were read.
local function missing_paths(pattern, extract)
  local p = assert(io.popen("grep -rIlE '" .. pattern .. "' README.md docs autodiff runtime " ..
    "solvers scripts tasks tests cmake CMakeLists.txt .ci lucid 2>/dev/null | sort"))
  local missing, nfiles, npaths = {}, 0, 0
  for file in p:lines() do
    nfiles = nfiles + 1
    local h = assert(io.open(file), "cannot read " .. file .. " (run from the repository root)")
    local n = 0
    for line in h:lines() do
      n = n + 1
      for _, path in ipairs(extract(line)) do
        npaths = npaths + 1
        if not t.exists(path) then missing[#missing + 1] = file .. ":" .. n .. ": " .. path end
      end
    end
    h:close()
  end
  p:close()
  return missing, npaths, nfiles
end

t.case("every tests/c/ path the repository names exists", function()
  local missing, npaths, nfiles = missing_paths("tests/c/", c_test_paths)
  t.truthy(nfiles > 20 and npaths > 100,
    string.format("the references were found (%d paths in %d files)", npaths, nfiles))
  t.truthy(#missing == 0, "paths under tests/c/ that do not exist (moved? README.md, Layout):\n  "
    .. table.concat(missing, "\n  "))
end)

t.case("the tests/c/ path rule is not vacuous", function()
  local dir = "tests/c/"
  local found = c_test_paths("see `" .. dir .. "runtime/math/test_so3.c`. And " .. dir ..
    "test_so3.c.")
  t.eq(#found, 2)
  t.eq(found[1], dir .. "runtime/math/test_so3.c")
  t.truthy(t.exists(found[1]))
  t.eq(found[2], dir .. "test_so3.c")
  t.truthy(not t.exists(found[2]), "the old flat path is gone")
end)

-- The library's source files named in the repository's text: runtime/, solvers/ or autodiff/
-- followed by a path to a .c or .h file, not inside a longer path (tests/c/runtime/...) and not
-- a test's name (test_*.c: tests/c's, checked above).
local function source_paths(text)
  local out = {}
  for _, root in ipairs {"runtime/", "solvers/", "autodiff/"} do
    for at, p in text:gmatch("()(" .. root .. "[%w_/]+%.[ch])%f[^%w_]") do
      local inside = at > 1 and text:sub(at - 1, at - 1):match("[%w_./-]")
      if not inside and not p:match("/test_[%w_]*%.[ch]$") then out[#out + 1] = p end
    end
  end
  return out
end

t.case("every source file the docs and comments name exists", function()
  local missing, npaths = missing_paths("(runtime|solvers|autodiff)/", source_paths)
  t.truthy(npaths > 200, string.format("the references were found (%d paths)", npaths))
  t.truthy(#missing == 0, "source files named but not in the tree (moved or renamed?):\n  "
    .. table.concat(missing, "\n  "))
  local A = "autodiff" .. "/" -- spelled apart: the case reads this file too
  local sample = source_paths("see runtime/world/world.c, tests/c/runtime/math/test_so3.c, " ..
    A .. "test_x.c and " .. A .. "no_such_file.h.")
  t.eq(#sample, 2)
  t.eq(sample[1], "runtime/world/world.c")
  t.eq(sample[2], A .. "no_such_file.h")
end)
