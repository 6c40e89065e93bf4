-- A small test framework for the Lua suites: cases, numeric closeness, expected errors.
local testing = {}
local cases = {}
local teardowns = {}

-- Registers a test case.
function testing.case(name, fn)
  cases[#cases + 1] = {name = name, fn = fn}
end

-- Registers a function run after every case (e.g. removing temporary files).
function testing.teardown(fn)
  teardowns[#teardowns + 1] = fn
end

-- Ends the current case as skipped (a missing data set or optional dependency). A file with
-- a skipped case and no failure exits 77, which ctest reports as skipped (SKIP_RETURN_CODE),
-- never as passed.
local SKIP = setmetatable({}, {__tostring = function() return "skipped" end})
function testing.skip(reason)
  error(setmetatable({reason = reason}, getmetatable(SKIP)), 0)
end

local function is_skip(err)
  return type(err) == "table" and getmetatable(err) == getmetatable(SKIP)
end

local function fail(msg, level)
  error(msg, (level or 1) + 2)
end

function testing.truthy(v, msg)
  if not v then fail(msg or "expected a true value") end
end

function testing.eq(actual, expected, msg)
  if actual ~= expected then
    fail(string.format("%sexpected %s, got %s", msg and (msg .. ": ") or "",
      tostring(expected), tostring(actual)))
  end
end

-- |actual - expected| <= tol * max(1, |expected|)
function testing.near(actual, expected, tol, msg)
  tol = tol or 1e-12
  local scale = math.max(1, math.abs(expected))
  if type(actual) ~= "number" or not (math.abs(actual - expected) <= tol * scale) then
    fail(string.format("%sexpected %.17g within %g, got %s", msg and (msg .. ": ") or "",
      expected, tol, tostring(actual)))
  end
end

-- Elementwise closeness of two array-likes (Lua tables or lucid vectors/matrices via totable).
function testing.allnear(actual, expected, tol, msg)
  local function flat(x)
    if type(x) ~= "table" then x = x:totable() end
    local out = {}
    for _, v in ipairs(x) do
      if type(v) == "table" then
        for _, w in ipairs(v) do out[#out + 1] = w end
      else
        out[#out + 1] = v
      end
    end
    return out
  end
  local a, e = flat(actual), flat(expected)
  if #a ~= #e then fail(string.format("length %d ~= %d", #a, #e)) end
  for i = 1, #e do
    local scale = math.max(1, math.abs(e[i]))
    if not (math.abs(a[i] - e[i]) <= (tol or 1e-12) * scale) then
      fail(string.format("%sentry %d: expected %.17g, got %.17g", msg and (msg .. ": ") or "",
        i, e[i], a[i]))
    end
  end
end

-- fn must raise an error whose message contains `pattern` (plain text).
function testing.raises(pattern, fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then fail("expected an error containing '" .. pattern .. "', got none") end
  err = tostring(err)
  if not err:find(pattern, 1, true) then
    fail("expected an error containing '" .. pattern .. "', got: " .. err)
  end
end

-- Runs every case; returns "passed", "failed" or "skipped" (no failure, at least one skip).
function testing.run(file)
  local passed, failed, skipped = 0, 0, 0
  for _, c in ipairs(cases) do
    local ok, err = xpcall(c.fn, function(e) return is_skip(e) and e or debug.traceback(e) end)
    if ok then
      passed = passed + 1
      print("ok   " .. c.name)
    elseif is_skip(err) then
      skipped = skipped + 1
      print("SKIP " .. c.name .. "\n     " .. tostring(err.reason))
    else
      failed = failed + 1
      print("FAIL " .. c.name .. "\n     " .. tostring(err):gsub("\n", "\n     "))
    end
  end
  for _, fn in ipairs(teardowns) do fn() end
  print(string.format("%s: %d passed, %d failed, %d skipped", file:match("[^/]*$"), passed,
    failed, skipped))
  return failed > 0 and "failed" or skipped > 0 and "skipped" or "passed"
end

-- Whether a file can be opened for reading.
function testing.exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

-- Every contact model x solver pair of the world (docs/contact.md, Table III and the ip).
testing.CONTACT_PAIRS = {{"ncp", "newton"}, {"ncp", "admm"}, {"ncp", "pgs"}, {"ncp", "ip"}, {"ncp", "staggered"},
                         {"ccp", "admm"}, {"ccp", "pgs"}, {"ccp", "newton"}, {"ccp", "ip"},
                         {"lcp", "pgs"}, {"raisim", "bisection"}}

return testing
