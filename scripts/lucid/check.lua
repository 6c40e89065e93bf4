-- Argument and option checks shared by the Lua-side library (lucid.task, json, plot, optim,
-- stats), following the convention of the C bindings: every error message starts with the
-- public function's name, and carries the position of the user's call (never a position
-- inside scripts/lucid/).
--
--   local check = require "lucid.check"
--   local o = check.options("lucid.plot.lines", spec, {file = "string", logy = "boolean?"})
--   check.fail("lucid.json.decode", "nesting deeper than %d", 512)
--
-- Kinds: "number" (finite), "integer", "string", "boolean", "function", "table", "any",
-- alternatives joined by "|" ("number|string"); a trailing "?" is ignored (every option is
-- optional unless the caller says otherwise).
local check = {}

-- The error level, for the function calling check.fail, of the innermost frame outside the
-- library scripts (a C frame such as pcall gives no position, which is fine).
local function user_level()
  local level = 3 -- 1: user_level, 2: the function raising, 3: its caller
  while true do
    local info = debug.getinfo(level, "S")
    if not info then return 0 end
    if not info.source:find("^@?scripts/lucid/") then return level - 1 end
    level = level + 1
  end
end

-- Raises "FNAME: message" at the user's call.
function check.fail(fname, fmt, ...)
  error(fname .. ": " .. string.format(fmt, ...), user_level())
end

-- The type of v for messages: a lucid userdata's type name ("lucid.shape"), else type(v).
function check.typename(v)
  if type(v) == "userdata" then
    local mt = getmetatable(v)
    if type(mt) == "string" then return mt end
  end
  return type(v)
end

local function is_kind(v, kind)
  if kind == "any" then return true end
  if kind == "number" then return type(v) == "number" end
  if kind == "integer" then return math.type(v) == "integer" end
  return type(v) == kind
end

-- Checks one value against KIND ("number|string"); WHAT names it in the message.
function check.value(fname, v, kind, what)
  kind = kind:gsub("%?$", "")
  for k in kind:gmatch("[^|]+") do
    if is_kind(v, k) then
      if k == "number" and (v ~= v or v == math.huge or v == -math.huge) then
        check.fail(fname, "%s must be finite (got %s)", what, tostring(v))
      end
      return v
    end
  end
  local words = kind:gsub("|", " or ")
  local article = words:match("^[aeiou]") and "an" or "a"
  check.fail(fname, "%s must be %s %s (got %s)", what, article, words, check.typename(v))
end

-- Checks the option table OPTS (nil means {}) against SPEC {key = kind}: unknown keys and
-- wrong types are errors naming FNAME. WHAT names the table in messages ("spec": "spec.file
-- must be a string"; without it: "option 'file' must be a string").
-- Returns a shallow copy of the options.
function check.options(fname, opts, spec, what)
  local prefix = what and (what .. ".") or nil
  what = what or "options"
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    check.fail(fname, "%s must be a table (got %s)", what, check.typename(opts))
  end
  local copy = {}
  for k, v in pairs(opts) do
    if type(k) ~= "string" then
      check.fail(fname, "option names must be strings (got %s %s)", check.typename(k), tostring(k))
    end
    local kind = spec[k]
    if not kind then
      local names = {}
      for name in pairs(spec) do names[#names + 1] = name end
      table.sort(names)
      check.fail(fname, "unknown option '%s' (expected one of: %s)", k, table.concat(names, ", "))
    end
    copy[k] = check.value(fname, v, kind, prefix and prefix .. k or "option '" .. k .. "'")
  end
  return copy
end

return check
