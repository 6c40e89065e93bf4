-- The layering rule of README.md ("Layering"), checked on every `#include "..."` and
-- `#include <lapacke.h>` / `<cblas.h>` of the .c and .h files under runtime/, solvers/ and
-- autodiff/:
--   * a file includes headers of its own folder and of folders on a lower floor;
--   * no file includes another folder's *_internal.h;
--   * only solvers/dense includes LAPACKE or CBLAS;
--   * includes are spelled from the repository root, so the check sees every one.
local t = require "testing"

-- The floors, bottom first. runtime/lua and runtime/ itself (main.c, lucid.h, mpi_host) sit on
-- top and may include any folder's public headers.
local FLOORS = {
  {"runtime/core"},
  {"runtime/math", "solvers/dense"},
  {"runtime/shapes"},
  {"solvers/collision", "solvers/contact", "solvers/grasp", "runtime/model"},
  {"autodiff"},
  {"runtime/world"},
  {"runtime/lua"},
  {"runtime"},
}

-- Violations allowed, each with its reason (none today). This list may only shrink: an entry
-- that no longer occurs fails the test, so a fix removes it.
local EXCEPTIONS = {
}

local FLOOR = {}
for level, folders in ipairs(FLOORS) do
  for _, f in ipairs(folders) do FLOOR[f] = level end
end

-- The folder of a path: runtime/X or solvers/X for files two deep, else its first component.
local function folder(path)
  local top, sub = path:match("^(%w+)/([%w_]+)/")
  if top == "runtime" or top == "solvers" then return top .. "/" .. sub end
  return path:match("^([%w_]+)/")
end

local exists = t.exists

-- The rule's verdict on one include of `file` (nil when allowed).
local function violation(file, inc)
  if inc == "<lapacke.h>" or inc == "<cblas.h>" then
    if folder(file) ~= "solvers/dense" then return "LAPACKE/CBLAS outside solvers/dense" end
    return nil
  end
  if not exists(inc) then return "not a path from the repository root" end
  local from, to = folder(file), folder(inc)
  if from == to then return nil end
  if inc:match("_internal%.h$") then return "another folder's internal header" end
  if not FLOOR[from] or not FLOOR[to] then return "a folder outside the floors" end
  if FLOOR[to] >= FLOOR[from] then return "a folder on the same or a higher floor" end
  return nil
end

-- Every include of every .c/.h file under runtime/, solvers/ and autodiff/, as
-- {file, include} pairs; the include keeps its <> for the system headers checked.
local function includes()
  local out, nfiles = {}, 0
  local p = assert(io.popen("find runtime solvers autodiff -name '*.[ch]' | sort"))
  for file in p:lines() do
    nfiles = nfiles + 1
    local h = assert(io.open(file), "cannot read " .. file .. " (run from the repository root)")
    for line in h:lines() do
      local inc = line:match('^%s*#%s*include%s*"([^"]+)"')
      if not inc then
        inc = line:match("^%s*#%s*include%s*(<[%w_]+%.h>)")
        if inc ~= "<lapacke.h>" and inc ~= "<cblas.h>" then inc = nil end
      end
      if inc then out[#out + 1] = {file, inc} end
    end
    h:close()
  end
  p:close()
  return out, nfiles
end

t.case("every include follows the layering rule (or is a listed exception)", function()
  local all, nfiles = includes()
  t.truthy(nfiles > 200 and #all > 500,
    string.format("the sources were read (%d files, %d includes)", nfiles, #all))
  local new, seen = {}, {}
  for _, e in ipairs(all) do
    local why = violation(e[1], e[2])
    if why then
      local key = e[1] .. " -> " .. e[2]
      if EXCEPTIONS[key] then seen[key] = true
      else new[#new + 1] = key .. " (" .. why .. ")" end
    end
  end
  t.truthy(#new == 0, "includes that break the layering rule of README.md:\n  " ..
    table.concat(new, "\n  "))
  local stale = {}
  for key in pairs(EXCEPTIONS) do
    if not seen[key] then stale[#stale + 1] = key end
  end
  table.sort(stale)
  t.truthy(#stale == 0, "exceptions that no longer occur (remove them from the list):\n  " ..
    table.concat(stale, "\n  "))
end)

-- The internal headers a header brings in with it: those it includes, directly or through
-- other headers of the repository (memoised in `memo`).
local function internal_closure(header, direct, memo, visiting)
  if memo[header] then return memo[header] end
  if visiting[header] then return {} end
  visiting[header] = true
  local out = {}
  for _, inc in ipairs(direct[header] or {}) do
    if inc:match("_internal%.h$") then out[inc] = true end
    for h in pairs(internal_closure(inc, direct, memo, visiting)) do out[h] = true end
  end
  visiting[header] = nil
  memo[header] = out
  return out
end

t.case("no file reaches another folder's internal header through a public one", function()
  local all = includes()
  local direct = {}
  for _, e in ipairs(all) do
    direct[e[1]] = direct[e[1]] or {}
    table.insert(direct[e[1]], e[2])
  end
  local memo, bad = {}, {}
  for _, e in ipairs(all) do
    for h in pairs(internal_closure(e[2], direct, memo, {})) do
      if folder(h) ~= folder(e[1]) and h ~= e[2] then
        bad[#bad + 1] = e[1] .. " -> " .. e[2] .. " -> ... " .. h
      end
    end
  end
  table.sort(bad)
  t.truthy(#bad == 0, "public headers that carry another folder's internals:\n  " ..
    table.concat(bad, "\n  "))
end)

t.case("the rule rejects what it should", function()
  t.truthy(violation("runtime/model/mjcf_load.c", "runtime/world/world.h"), "model -> world")
  t.truthy(violation("solvers/contact/contact_pgs.c", "solvers/collision/gjk.h"),
    "solver -> solver")
  t.truthy(violation("runtime/math/se3.c", "runtime/shapes/shape.h"), "math -> shapes")
  t.truthy(violation("runtime/lua/lua_world.c", "runtime/world/world_internal.h"),
    "another folder's internal header")
  t.truthy(violation("runtime/world/world.c", "world_internal.h"), "a relative include")
  t.truthy(violation("runtime/world/world_step.c", "<cblas.h>"), "CBLAS outside solvers/dense")
  t.truthy(not violation("runtime/world/world.c", "runtime/world/world_internal.h"),
    "own folder's internal header")
  t.truthy(violation("autodiff/contact_derivatives.c", "runtime/world/world.h"),
    "autodiff -> world")
  t.truthy(not violation("runtime/world/step_derivatives.c", "autodiff/contact_derivatives.h"),
    "world -> autodiff")
  t.truthy(not violation("runtime/lua/lua_world.c", "autodiff/tape.h"), "lua -> autodiff")
  t.truthy(not violation("solvers/dense/dense_lu.c", "<lapacke.h>"), "LAPACKE in solvers/dense")
end)

-- tests/c mirrors the source folders (README.md, Layout): a C test lives in the folder F of
-- tests/c for a source folder F (runtime/X, solvers/X, autodiff), and includes a header of F,
-- directly or through the shared helpers of tests/c/common/, which hold headers only.
local function quoted_includes(file)
  local out = {}
  local h = io.open(file)
  if not h then return out end
  for line in h:lines() do
    local inc = line:match('^%s*#%s*include%s*"([^"]+)"')
    if inc then out[#out + 1] = inc end
  end
  h:close()
  return out
end

-- Whether `file` reaches a header of `dir` through its includes and tests/c/common/'s.
local function reaches(file, dir, seen)
  seen = seen or {}
  for _, inc in ipairs(quoted_includes(file)) do
    if inc:sub(1, #dir + 1) == dir .. "/" then return true end
    if inc:match("^tests/c/common/") and not seen[inc] then
      seen[inc] = true
      if reaches(inc, dir, seen) then return true end
    end
  end
  return false
end

-- The verdict on one file of tests/c at `path` (nil when it belongs there); `source`, the file
-- read for its includes, defaults to `path`.
local function misplaced(path, source)
  local dir, name = path:match("^tests/c/(.+)/([^/]+)$")
  if not dir then return "directly in tests/c/ (put it in the folder of the code it tests)" end
  if dir == "common" then
    if not name:match("%.h$") and not name:match("%.hpp$") then
      return "tests/c/common/ holds helper headers only"
    end
    return nil
  end
  if not name:match("^test_[%w_]+%.c$") and not name:match("^test_[%w_]+%.cpp$") then
    return "not a test_*.c or test_*.cpp"
  end
  if not FLOOR[dir] or dir == "runtime" then return "tests/c/" .. dir .. " is no source folder" end
  if not reaches(source or path, dir) then return "includes no header of " .. dir end
  return nil
end

t.case("tests/c mirrors the source folders", function()
  local p = assert(io.popen("find tests/c -type f | sort"))
  local bad, n = {}, 0
  for path in p:lines() do
    n = n + 1
    local why = misplaced(path)
    if why then bad[#bad + 1] = path .. " (" .. why .. ")" end
  end
  p:close()
  t.truthy(n > 80, "the C tests were found (" .. n .. " files)")
  t.truthy(#bad == 0, "C tests out of place (README.md, Layout):\n  " .. table.concat(bad, "\n  "))
end)

t.case("the tests/c layout rule rejects what it should", function()
  local C = "tests/c" .. "/" -- spelled apart: test_docs checks the paths written whole
  t.truthy(misplaced(C .. "test_gjk.c"), "a flat test")
  t.truthy(misplaced(C .. "collision/test_gjk.c"), "no source folder")
  t.truthy(misplaced(C .. "common/test_gjk.c"), "a test among the helpers")
  t.truthy(misplaced(C .. "solvers/contact/test_so3.c", C .. "runtime/math/test_so3.c"),
    "a test beside code it does not test")
  t.truthy(misplaced(C .. "autodiff/test_gjk.c", C .. "solvers/collision/test_gjk.c"),
    "nor through the helpers")
  t.truthy(misplaced(C .. "runtime/model/test_x.lua"), "not a C test")
  t.truthy(not misplaced(C .. "solvers/collision/test_gjk.c"), "through test_collision_util.h")
  t.truthy(not misplaced(C .. "runtime/math/test_so3.c"), "a direct include")
end)
