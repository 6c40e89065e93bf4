-- JSON encoding (for `--json` task output) and decoding (for tests and tools).
-- Objects are written with sorted keys so output is reproducible; NaN and Inf, which JSON
-- cannot represent, are written as null. lucid vectors and matrices become (nested) arrays.
local check = require "lucid.check"

local json = {}

-- Nesting limit of arrays and objects, in both directions: deeper input is an error naming
-- the function, not a Lua stack overflow.
json.MAX_DEPTH = 1000

local escapes = {
  ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
}

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function encode_number(x)
  if x ~= x or x == math.huge or x == -math.huge then return "null" end
  if math.type(x) == "integer" then return tostring(x) end
  if x == math.floor(x) and math.abs(x) < 2 ^ 53 then return string.format("%.1f", x) end
  return string.format("%.17g", x)
end

-- A table is written as an array when its keys are exactly 1..n (an empty table is `[]`).
local function is_array(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  for i = 1, n do
    if t[i] == nil then return false end
  end
  return true
end

local encode_value

local function encode_table(t, seen, depth)
  if seen[t] then check.fail("lucid.json.encode", "cannot encode a cyclic table") end
  if depth > json.MAX_DEPTH then
    check.fail("lucid.json.encode", "nesting deeper than %d levels", json.MAX_DEPTH)
  end
  seen[t] = true
  local parts = {}
  if is_array(t) then
    for i = 1, #t do parts[i] = encode_value(t[i], seen, depth) end
    seen[t] = nil
    return "[" .. table.concat(parts, ",") .. "]"
  end
  local keys = {}
  for k in pairs(t) do
    if type(k) ~= "string" and type(k) ~= "number" then
      check.fail("lucid.json.encode", "object keys must be strings or numbers (got %s)", check.typename(k))
    end
    keys[#keys + 1] = k
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for i, k in ipairs(keys) do
    parts[i] = encode_string(tostring(k)) .. ":" .. encode_value(t[k], seen, depth)
  end
  seen[t] = nil
  return "{" .. table.concat(parts, ",") .. "}"
end

function encode_value(v, seen, depth)
  local kind = type(v)
  if v == nil then return "null" end
  if kind == "boolean" then return tostring(v) end
  if kind == "number" then return encode_number(v) end
  if kind == "string" then return encode_string(v) end
  if kind == "table" then return encode_table(v, seen, depth + 1) end
  if check.typename(v) == "lucid.mat" then return encode_table(v:totable(), seen, depth + 1) end
  check.fail("lucid.json.encode", "cannot encode a %s value", check.typename(v))
end

-- Encodes a Lua value (tables, strings, numbers, booleans, nil, lucid vec/mat) as JSON text.
function json.encode(value)
  return encode_value(value, {}, 0)
end

-- Decoder ----------------------------------------------------------------------------------

local function decode_error(text, pos, what)
  check.fail("lucid.json.decode", "%s at character %d", what, pos)
end

local function skip_space(text, pos)
  return text:find("[^ \t\r\n]", pos) or #text + 1
end

local decode_at

local function decode_string(text, pos)
  local out, i = {}, pos + 1
  while true do
    local c = text:sub(i, i)
    if c == "" then decode_error(text, pos, "unterminated string") end
    if c == '"' then return table.concat(out), i + 1 end
    if c == "\\" then
      local e = text:sub(i + 1, i + 1)
      local simple = {b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"',
                      ["\\"] = "\\", ["/"] = "/"}
      if simple[e] then
        out[#out + 1], i = simple[e], i + 2
      elseif e == "u" then
        local hex = text:sub(i + 2, i + 5)
        if not hex:match("^%x%x%x%x$") then decode_error(text, i, "bad \\u escape") end
        out[#out + 1], i = utf8.char(tonumber(hex, 16)), i + 6
      else
        decode_error(text, i, "bad escape")
      end
    else
      out[#out + 1], i = c, i + 1
    end
  end
end

local function decode_list(text, pos, close, item, depth)
  if depth > json.MAX_DEPTH then
    decode_error(text, pos, string.format("nesting deeper than %d levels", json.MAX_DEPTH))
  end
  local result, i = {}, skip_space(text, pos + 1)
  if text:sub(i, i) == close then return result, i + 1 end
  while true do
    i = item(result, i)
    i = skip_space(text, i)
    local c = text:sub(i, i)
    if c == close then return result, i + 1 end
    if c ~= "," then decode_error(text, i, "expected ',' or '" .. close .. "'") end
    i = skip_space(text, i + 1)
  end
end

function decode_at(text, pos, depth)
  pos = skip_space(text, pos)
  local c = text:sub(pos, pos)
  if c == "{" then
    return decode_list(text, pos, "}", function(obj, i)
      if text:sub(i, i) ~= '"' then decode_error(text, i, "expected a string key") end
      local key, j = decode_string(text, i)
      j = skip_space(text, j)
      if text:sub(j, j) ~= ":" then decode_error(text, j, "expected ':'") end
      obj[key], j = decode_at(text, j + 1, depth + 1)
      return j
    end, depth + 1)
  elseif c == "[" then
    return decode_list(text, pos, "]", function(arr, i)
      local v, j = decode_at(text, i, depth + 1)
      arr[#arr + 1] = v
      return j
    end, depth + 1)
  elseif c == '"' then
    return decode_string(text, pos)
  end
  for word, value in pairs({["true"] = true, ["false"] = false, ["null"] = json.null}) do
    if text:sub(pos, pos + #word - 1) == word then return value, pos + #word end
  end
  local number = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
  if number and #number > 0 then
    local v = math.tointeger(tonumber(number)) or tonumber(number)
    if v == nil then decode_error(text, pos, "bad number") end
    return v, pos + #number
  end
  decode_error(text, pos, "unexpected '" .. c .. "'")
end

-- The value JSON `null` decodes to (distinct from nil so arrays keep their length).
json.null = setmetatable({}, {__tostring = function() return "null" end})

-- Decodes JSON text into Lua values.
function json.decode(text)
  if type(text) ~= "string" then
    check.fail("lucid.json.decode", "text must be a string (got %s)", check.typename(text))
  end
  local value, pos = decode_at(text, 1, 0)
  pos = skip_space(text, pos)
  if pos <= #text then decode_error(text, pos, "trailing characters") end
  return value
end

return json
