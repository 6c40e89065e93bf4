-- Line plots written as standalone SVG files (no external tools): convergence curves,
-- trajectories, cost histories.
--
--   plot.lines{file = "out/costs.svg", title = "Gauss-Newton", xlabel = "iteration",
--              ylabel = "cost", logy = true,
--              series = {{name = "gumbel", y = history}, {name = "fd", x = xs, y = ys}}}
local check = require "lucid.check"

local plot = {}
local LINES = "lucid.plot.lines"
local spec_kinds = {file = "string", title = "string|number", xlabel = "string|number",
                    ylabel = "string|number", logy = "boolean", series = "table"}
local series_kinds = {name = "string|number", x = "table", y = "table", color = "string"}

-- A list of numbers (NaN and infinities allowed: they are left out of the curve).
local function check_numbers(list, what)
  for i = 1, #list do
    if type(list[i]) ~= "number" then
      check.fail(LINES, "%s[%d] must be a number (got %s)", what, i, check.typename(list[i]))
    end
  end
end

local function check_spec(spec)
  if type(spec) ~= "table" then check.fail(LINES, "spec must be a table (got %s)", check.typename(spec)) end
  check.options(LINES, spec, spec_kinds, "spec")
  if type(spec.file) ~= "string" or spec.file == "" or spec.file:find("\0", 1, true) then
    check.fail(LINES, "spec.file must be a non-empty file name (got %s)", check.typename(spec.file))
  end
  if type(spec.series) ~= "table" or #spec.series == 0 then
    check.fail(LINES, "spec.series must be a non-empty list")
  end
  for k, ser in ipairs(spec.series) do
    local what = string.format("spec.series[%d]", k)
    if type(ser) ~= "table" then check.fail(LINES, "%s must be a table (got %s)", what, check.typename(ser)) end
    check.options(LINES, ser, series_kinds, what)
    if type(ser.y) ~= "table" then check.fail(LINES, "%s.y must be a list of numbers", what) end
    check_numbers(ser.y, what .. ".y")
    if ser.x then
      check_numbers(ser.x, what .. ".x")
      if #ser.x < #ser.y then
        check.fail(LINES, "%s.x has %d entries for %d values of y", what, #ser.x, #ser.y)
      end
    end
  end
end

local palette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                 "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

local function escape(s)
  return (tostring(s):gsub("[&<>\"]", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
                                        ['"'] = "&quot;"}))
end

-- "Nice" tick values covering [lo, hi] (about n of them).
local function linear_ticks(lo, hi, n)
  local span = hi - lo
  if span <= 0 then return {lo} end
  local raw = span / n
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs({1, 2, 5, 10}) do
    if raw <= m * mag then
      step = m * mag
      break
    end
  end
  local ticks = {}
  for v = math.ceil(lo / step) * step, hi + 1e-9 * span, step do ticks[#ticks + 1] = v end
  return ticks
end

local function tick_label(v)
  if v ~= 0 and (math.abs(v) >= 1e4 or math.abs(v) < 1e-2) then return string.format("%.0e", v) end
  return string.format("%.4g", v)
end

local function data_range(series, key, transform)
  local lo, hi = math.huge, -math.huge
  for _, s in ipairs(series) do
    for i = 1, #s.y do
      local v = transform(key == "x" and (s.x and s.x[i] or i) or s.y[i])
      if v and v == v and v > -math.huge and v < math.huge then
        lo, hi = math.min(lo, v), math.max(hi, v)
      end
    end
  end
  if lo > hi then lo, hi = 0, 1 end
  if lo == hi then lo, hi = lo - 0.5, hi + 0.5 end
  return lo, hi
end

-- Writes a line plot. spec.series is a list of {name=, y=, x= (optional, default 1..n)};
-- with spec.logy, non-positive values are left out of the curve. Returns the file name.
function plot.lines(spec)
  check_spec(spec)
  -- the legend column is as wide as the longest series name (about 7 px a character)
  local longest = 0
  for k, ser in ipairs(spec.series) do
    longest = math.max(longest, utf8.len(tostring(ser.name or ("series " .. k))) or 0)
  end
  local right = math.max(120, 50 + 7 * longest)
  local W, H, left, top, bottom = 560 + right, 440, 80, 40, 60
  local pw, ph = W - left - right, H - top - bottom
  local ty = spec.logy and function(v) return v > 0 and math.log(v, 10) or nil end
      or function(v) return v end
  local x0, x1 = data_range(spec.series, "x", function(v) return v end)
  local y0, y1 = data_range(spec.series, "y", ty)
  local function px(x) return left + (x - x0) / (x1 - x0) * pw end
  local function py(y) return top + ph - (y - y0) / (y1 - y0) * ph end

  local out = {string.format(
    '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">',
    W, H), string.format('<rect width="%d" height="%d" fill="white"/>', W, H)}
  local function add(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  add('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>', left, top, pw, ph)
  for _, v in ipairs(linear_ticks(x0, x1, 6)) do
    add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>', px(v), top, px(v), top + ph)
    add('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', px(v), top + ph + 16, tick_label(v))
  end
  local yticks = spec.logy and {} or linear_ticks(y0, y1, 6)
  if spec.logy then
    -- one labelled decade every `step`, so that at most about eight labels are drawn
    local step = math.max(1, math.ceil((math.floor(y1) - math.ceil(y0) + 1) / 8))
    for e = math.ceil(y0), math.floor(y1), step do yticks[#yticks + 1] = e end
    if #yticks == 0 then yticks = linear_ticks(y0, y1, 4) end
  end
  for _, v in ipairs(yticks) do
    add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>', left, py(v), left + pw, py(v))
    local label = spec.logy and (math.type(v) == "integer" or v == math.floor(v))
        and string.format("1e%d", math.floor(v)) or tick_label(spec.logy and 10 ^ v or v)
    add('<text x="%d" y="%.1f" text-anchor="end">%s</text>', left - 6, py(v) + 4, label)
  end
  for k, s in ipairs(spec.series) do
    local color = s.color or palette[(k - 1) % #palette + 1]
    local points = {}
    for i = 1, #s.y do
      local x, y = s.x and s.x[i] or i, ty(s.y[i])
      if y and y == y and y > -math.huge and y < math.huge then
        points[#points + 1] = string.format("%.1f,%.1f", px(x), py(y))
      end
    end
    if #points > 0 then
      add('<polyline fill="none" stroke="%s" stroke-width="1.8" points="%s"/>', color,
        table.concat(points, " "))
    end
    local ly = top + 14 + 18 * (k - 1)
    add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>', left + pw + 12, ly - 4,
      left + pw + 32, ly - 4, color)
    add('<text x="%d" y="%d">%s</text>', left + pw + 38, ly, escape(s.name or ("series " .. k)))
  end
  if spec.title then
    add('<text x="%d" y="24" text-anchor="middle" font-size="15">%s</text>', left + pw // 2,
      escape(spec.title))
  end
  if spec.xlabel then
    add('<text x="%d" y="%d" text-anchor="middle">%s</text>', left + pw // 2, H - 16, escape(spec.xlabel))
  end
  if spec.ylabel then
    add('<text x="18" y="%d" text-anchor="middle" transform="rotate(-90 18 %d)">%s</text>',
      top + ph // 2, top + ph // 2, escape(spec.ylabel .. (spec.logy and " (log)" or "")))
  end
  out[#out + 1] = "</svg>\n"
  local dir = spec.file:match("^(.*)/[^/]*$")
  if dir then os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "' 2>/dev/null") end
  local f, err = io.open(spec.file, "w")
  if not f then check.fail(LINES, "cannot write %s: %s", spec.file, tostring(err)) end
  f:write(table.concat(out, "\n"))
  f:close()
  return spec.file
end

return plot
