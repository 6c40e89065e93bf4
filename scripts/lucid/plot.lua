-- Line plots written as standalone SVG files (no external tools): convergence curves,
-- trajectories, cost histories.
--
--   plot.lines{file = "out/costs.svg", title = "Gauss-Newton", xlabel = "iteration",
--              ylabel = "cost", logy = true, logx = false,
--              series = {{name = "gumbel", y = history}, {name = "fd", x = xs, y = ys}}}
local check = require "lucid.check"

local plot = {}
local LINES = "lucid.plot.lines"
local spec_kinds = {file = "string", title = "string|number", xlabel = "string|number",
                    ylabel = "string|number", logx = "boolean", logy = "boolean",
                    markers = "boolean", series = "table"}
local series_kinds = {name = "string|number", x = "table", y = "table", color = "string",
                      dash = "string", marker = "string"}
local DASHES = {solid = "", dash = "7,4", dot = "2,3", dashdot = "9,3,2,3", longdash = "14,5"}
local DASH_CYCLE = {"solid", "dash", "dot", "dashdot", "longdash"}
local MARKERS = {"circle", "square", "triangle", "diamond", "cross", "plus", "down", "none"}
local MARKER_CYCLE = {"circle", "square", "triangle", "diamond", "cross", "plus", "down"}

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
    if ser.dash and not DASHES[ser.dash] and not ser.dash:match("^[%d%.]+[%d%., ]*$") then
      check.fail(LINES, "%s.dash must be solid, dash, dot, dashdot, longdash or an SVG dash "
        .. "array \"6,3\" (got '%s')", what, ser.dash)
    end
    if ser.marker then
      local known = false
      for _, m in ipairs(MARKERS) do known = known or m == ser.marker end
      if not known then
        check.fail(LINES, "%s.marker must be one of %s (got '%s')", what, table.concat(MARKERS, ", "),
          ser.marker)
      end
    end
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

-- The range of the finite transformed values of one coordinate over all series.
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

-- An axis: the transform (log10 for a log axis, nil for the values it leaves out), the padded
-- range (4 % of the span on each side, so no curve runs along the frame) and the ticks as
-- {position, label} in transformed units.
local function axis(series, key, log)
  local transform = log and function(v) return v > 0 and math.log(v, 10) or nil end
      or function(v) return v end
  local lo, hi = data_range(series, key, transform)
  local pad = 0.04 * (hi - lo)
  lo, hi = lo - pad, hi + pad
  local ticks = {}
  if log then
    -- one labelled decade every `step`, so that at most about eight labels are drawn
    local step = math.max(1, math.ceil((math.floor(hi) - math.ceil(lo) + 1) / 8))
    for e = math.ceil(lo), math.floor(hi), step do ticks[#ticks + 1] = {e, string.format("1e%d", e)} end
    if #ticks < 3 then -- a short span: 2 and 5 times each decade too
      ticks = {}
      for e = math.floor(lo), math.ceil(hi) do
        for _, m in ipairs{1, 2, 5} do
          local v = e + math.log(m, 10)
          if v >= lo and v <= hi then
            ticks[#ticks + 1] = {v, m == 1 and string.format("1e%d", e) or string.format("%de%d", m, e)}
          end
        end
      end
    end
    if #ticks < 2 then
      ticks = {}
      for _, v in ipairs(linear_ticks(lo, hi, 4)) do ticks[#ticks + 1] = {v, tick_label(10 ^ v)} end
    end
  else
    for _, v in ipairs(linear_ticks(lo, hi, 6)) do
      ticks[#ticks + 1] = {v, tick_label(math.abs(v) < 1e-12 * (hi - lo) and 0 or v)}
    end
  end
  return transform, lo, hi, ticks
end

-- SVG of a marker of the given shape centred at (x, y).
local function marker_svg(shape, x, y, color)
  local r = 3.6
  local filled = string.format('fill="%s" stroke="%s"', color, color)
  local hollow = string.format('fill="none" stroke="%s" stroke-width="1.4"', color) -- shows what is under it
  if shape == "circle" then
    return string.format('<circle cx="%.1f" cy="%.1f" r="%.1f" %s/>', x, y, r, filled)
  elseif shape == "square" then
    return string.format('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s/>', x - r, y - r,
      2 * r, 2 * r, hollow)
  elseif shape == "triangle" or shape == "down" then
    local d = shape == "down" and -1 or 1
    return string.format('<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" %s/>', x, y - d * 1.2 * r,
      x - 1.1 * r, y + d * 0.8 * r, x + 1.1 * r, y + d * 0.8 * r, shape == "down" and hollow or filled)
  elseif shape == "diamond" then
    return string.format('<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" %s/>', x, y - 1.3 * r,
      x + r, y, x, y + 1.3 * r, x - r, y, hollow)
  elseif shape == "cross" or shape == "plus" then
    local a = shape == "cross" and r or 1.3 * r
    local b = shape == "cross" and r or 0
    return string.format('<path d="M%.1f,%.1fL%.1f,%.1fM%.1f,%.1fL%.1f,%.1f" stroke="%s" stroke-width="1.8"/>',
      x - a, y - b, x + a, y + b, x - b, y + a, x + b, y - a, color)
  end
  return ""
end

-- Writes a line plot. spec.series is a list of {name=, y=, x= (optional, default 1..n),
-- color=, dash=, marker=}; with spec.logx / spec.logy, non-positive values are left out of
-- the curve. Series are told apart by colour, dash pattern (solid, dash, dot, dashdot,
-- longdash or an SVG dash array) and markers (circle, square, triangle, diamond, cross, plus,
-- down, none), each cycling with the series' index unless given; markers (spec.markers,
-- default true) sit at about ten points of each curve, staggered between series, so curves
-- that coincide stay visible. Returns the file name.
function plot.lines(spec)
  check_spec(spec)
  -- the legend column is as wide as the longest series name (about 7 px a character)
  local longest = 0
  for k, ser in ipairs(spec.series) do
    longest = math.max(longest, utf8.len(tostring(ser.name or ("series " .. k))) or 0)
  end
  local right = math.max(130, 60 + 7 * longest)
  local W, left, top, bottom = 560 + right, 80, 40, 60
  local H = math.max(440, top + 18 * #spec.series + 40 + bottom)
  local pw, ph = W - left - right, H - top - bottom
  local tx, x0, x1, xticks = axis(spec.series, "x", spec.logx)
  local ty, y0, y1, yticks = axis(spec.series, "y", spec.logy)
  local function px(x) return left + (x - x0) / (x1 - x0) * pw end
  local function py(y) return top + ph - (y - y0) / (y1 - y0) * ph end

  local out = {string.format(
    '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">',
    W, H), string.format('<rect width="%d" height="%d" fill="white"/>', W, H)}
  local function add(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  for _, t in ipairs(xticks) do
    add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e2e2e2"/>', px(t[1]), top, px(t[1]), top + ph)
    add('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', px(t[1]), top + ph + 16, t[2])
  end
  for _, t in ipairs(yticks) do
    add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e2e2e2"/>', left, py(t[1]), left + pw, py(t[1]))
    add('<text x="%d" y="%.1f" text-anchor="end">%s</text>', left - 6, py(t[1]) + 4, t[2])
  end
  add('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>', left, top, pw, ph)
  add('<clipPath id="plot-area"><rect x="%d" y="%d" width="%d" height="%d"/></clipPath>', left, top, pw, ph)
  local count = #spec.series
  for k, s in ipairs(spec.series) do
    local color = s.color or palette[(k - 1) % #palette + 1]
    local dash = s.dash or DASH_CYCLE[(k - 1) % #DASH_CYCLE + 1]
    dash = DASHES[dash] or dash
    local marker = spec.markers == false and "none" or s.marker or MARKER_CYCLE[(k - 1) % #MARKER_CYCLE + 1]
    local points, xy = {}, {}
    for i = 1, #s.y do
      local x, y = tx(s.x and s.x[i] or i), ty(s.y[i])
      if x and y and x == x and y == y and math.abs(x) < math.huge and math.abs(y) < math.huge then
        points[#points + 1] = string.format("%.1f,%.1f", px(x), py(y))
        xy[#xy + 1] = {px(x), py(y)}
      end
    end
    local dash_attr = dash ~= "" and string.format(' stroke-dasharray="%s"', dash) or ""
    if #points > 0 then
      add('<polyline fill="none" stroke="%s" stroke-width="1.8"%s stroke-linejoin="round" '
        .. 'clip-path="url(#plot-area)" points="%s"/>', color, dash_attr, table.concat(points, " "))
    end
    if marker ~= "none" and #xy > 0 then
      -- about ten markers, the k-th series shifted by k/count of the spacing
      local m = math.min(#xy, 10)
      local spacing = #xy / m
      local group = {}
      for j = 0, m - 1 do
        local i = math.floor((j + (k - 1) / count) * spacing) + 1
        if i <= #xy then group[#group + 1] = marker_svg(marker, xy[i][1], xy[i][2], color) end
      end
      add('<g clip-path="url(#plot-area)">%s</g>', table.concat(group))
    end
    local ly = top + 14 + 18 * (k - 1)
    add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2.2"%s/>', left + pw + 10, ly - 4,
      left + pw + 44, ly - 4, color, dash_attr)
    if marker ~= "none" then add("%s", marker_svg(marker, left + pw + 27, ly - 4, color)) end
    add('<text x="%d" y="%d">%s</text>', left + pw + 50, ly, escape(s.name or ("series " .. k)))
  end
  if spec.title then
    add('<text x="%d" y="24" text-anchor="middle" font-size="15">%s</text>', left + pw // 2,
      escape(spec.title))
  end
  if spec.xlabel then
    add('<text x="%d" y="%d" text-anchor="middle">%s</text>', left + pw // 2, H - 16,
      escape(spec.xlabel .. (spec.logx and " (log)" or "")))
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
