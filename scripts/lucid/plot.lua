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
                      dash = "string", marker = "string", opacity = "number"}
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
    if ser.opacity and not (ser.opacity > 0 and ser.opacity <= 1) then
      check.fail(LINES, "%s.opacity must be in (0, 1] (got %s)", what, tostring(ser.opacity))
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

-- A "nice" step for about n ticks over span: m * 10^p with m in {1, 2, 5}; integer axes
-- (every value an integer) never step below 1, so they carry no half-integer ticks.
local function nice_step(span, n, integral)
  local raw = span / n
  local p = math.floor(math.log(raw, 10))
  local m = 10
  for _, c in ipairs({1, 2, 5}) do
    if raw <= c * 10 ^ p * (1 + 1e-9) then
      m = c
      break
    end
  end
  if m == 10 then m, p = 1, p + 1 end
  if integral and p < 0 then m, p = 1, 0 end
  return m, p
end

-- The printed form of k * m * 10^(p - e) with the decimals the step m * 10^p needs.
local function scaled_label(k, m, p, e)
  if k == 0 then return "0" end
  return string.format("%." .. math.max(0, e - p) .. "f", k * m * 10.0 ^ (p - e))
end

-- Linear ticks over [lo, hi]: multiples k * step of a nice step (about n of them), labelled
-- with one shared exponent e (10^e, drawn once beside the axis) when the largest tick is under
-- 1e-2 or from 1e4 on, so that labels are distinct and short. Returns the ticks
-- {position, label} and e (0: no shared exponent).
local function linear_ticks(lo, hi, n, integral)
  local m, p = nice_step(hi - lo, n, integral)
  local step = m * 10.0 ^ p
  local k0, k1 = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
  local top = math.max(math.abs(k0), math.abs(k1)) * step
  local e = 0
  if top > 0 and (top < 1e-2 or top >= 1e4) then e = math.floor(math.log(top, 10) + 1e-12) end
  local ticks = {}
  for k = k0, k1 do ticks[#ticks + 1] = {k * step, scaled_label(k, m, p, e)} end
  return ticks, e
end

-- The label of a tick at v = c * 10^d on a log axis: plain ("20", "0.05") when every label of
-- the axis lies in [1e-2, 1e4), else "2e1"; PLAIN says which.
local function log_label(c, d, plain)
  if plain then return string.format("%." .. math.max(0, -d) .. "f", c * 10.0 ^ d) end
  return string.format("%de%d", c, d)
end

-- Log ticks over [lo, hi] (log10 units): a labelled tick at each decade (every step-th
-- decade when more than eight), unlabelled minor ticks at 2..9 times each decade (at the
-- unlabelled decades when only every step-th one is labelled). Under two decades in range, 2 and 5 times a decade are
-- labelled too, then every multiple; under two of those, linear ticks in value.
local function log_ticks(lo, hi)
  local d0, d1 = math.ceil(lo - 1e-9), math.floor(hi + 1e-9)
  local ticks = {}
  local function labelled(list)
    local plain = true
    for _, cd in ipairs(list) do
      local v = cd[1] * 10.0 ^ cd[2]
      plain = plain and v >= 1e-2 and v < 1e4
    end
    local out = {}
    for _, cd in ipairs(list) do out[#out + 1] = {cd[2] + math.log(cd[1], 10), log_label(cd[1], cd[2], plain)} end
    return out
  end
  local function in_range(c, d)
    local v = d + math.log(c, 10)
    return v >= lo - 1e-9 and v <= hi + 1e-9
  end
  if d1 - d0 >= 1 then
    local step = math.max(1, math.ceil((d1 - d0 + 1) / 8))
    local major = {}
    for d = d0, d1, step do major[#major + 1] = {1, d} end
    ticks = labelled(major)
    for d = math.floor(lo), math.ceil(hi) do
      if step > 1 then
        if (d - d0) % step ~= 0 and in_range(1, d) then ticks[#ticks + 1] = {d} end
      else
        for c = 2, 9 do
          if in_range(c, d) then ticks[#ticks + 1] = {d + math.log(c, 10)} end
        end
      end
    end
    return ticks
  end
  for _, set in ipairs({{1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}) do
    local list = {}
    for d = math.floor(lo), math.ceil(hi) do
      for _, c in ipairs(set) do
        if in_range(c, d) then list[#list + 1] = {c, d} end
      end
    end
    if #list >= 2 then
      ticks = labelled(list)
      for d = math.floor(lo), math.ceil(hi) do
        for c = 1, 9 do
          local listed = false
          for _, cd in ipairs(list) do listed = listed or (cd[1] == c and cd[2] == d) end
          if not listed and in_range(c, d) then ticks[#ticks + 1] = {d + math.log(c, 10)} end
        end
      end
      return ticks
    end
  end
  return nil
end

-- The range of the finite transformed values of one coordinate over all series, and whether
-- every value is an integer (iteration counts, indices).
local function data_range(series, key, transform)
  local lo, hi, integral = math.huge, -math.huge, true
  for _, s in ipairs(series) do
    for i = 1, #s.y do
      local raw = key == "x" and (s.x and s.x[i] or i) or s.y[i]
      local v = transform(raw)
      if v and v == v and v > -math.huge and v < math.huge then
        lo, hi = math.min(lo, v), math.max(hi, v)
        integral = integral and raw == math.floor(raw)
      end
    end
  end
  if lo > hi then lo, hi = 0, 1 end
  if lo == hi then lo, hi = lo - 0.5, hi + 0.5 end
  return lo, hi, integral
end

-- An axis: the transform (log10 for a log axis, nil for the values it leaves out), the padded
-- range (4 % of the span on each side, so no curve runs along the frame), the ticks as
-- {position, label} in transformed units (minor ticks: {position}) and the shared exponent of
-- the labels (0: none).
local function axis(series, key, log)
  local transform = log and function(v) return v > 0 and math.log(v, 10) or nil end
      or function(v) return v end
  local lo, hi, integral = data_range(series, key, transform)
  local pad = 0.04 * (hi - lo)
  lo, hi = lo - pad, hi + pad
  if not log then
    local ticks, e = linear_ticks(lo, hi, 6, integral)
    return transform, lo, hi, ticks, e
  end
  local ticks = log_ticks(lo, hi)
  if ticks then return transform, lo, hi, ticks, 0 end
  -- under two labelled multiples of a decade: linear ticks in value, placed on the log scale
  local linear, e = linear_ticks(10 ^ lo, 10 ^ hi, 6, integral)
  ticks = {}
  for _, t in ipairs(linear) do
    if t[1] > 0 then ticks[#ticks + 1] = {math.log(t[1], 10), t[2]} end
  end
  return transform, lo, hi, ticks, e
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
-- color=, dash=, marker=, opacity= (of the line, in (0, 1])}; with spec.logx / spec.logy,
-- non-positive values are left out of the curve. Series are told apart by colour, dash pattern (solid, dash, dot, dashdot,
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
  local tx, x0, x1, xticks, xexp = axis(spec.series, "x", spec.logx)
  local ty, y0, y1, yticks, yexp = axis(spec.series, "y", spec.logy)
  local function px(x) return left + (x - x0) / (x1 - x0) * pw end
  local function py(y) return top + ph - (y - y0) / (y1 - y0) * ph end

  local out = {string.format(
    '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">',
    W, H), string.format('<rect width="%d" height="%d" fill="white"/>', W, H)}
  local function add(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  -- grid lines: darker at labelled ticks; minor ticks also get a short mark on the frame
  for _, t in ipairs(xticks) do
    local x = px(t[1])
    add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>', x, top, x, top + ph,
      t[2] and "#e2e2e2" or "#f3f3f3")
    if t[2] then
      add('<text class="xtick" x="%.1f" y="%d" text-anchor="middle">%s</text>', x, top + ph + 16, t[2])
    else
      add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333"/>', x, top + ph - 4, x, top + ph)
    end
  end
  for _, t in ipairs(yticks) do
    local y = py(t[1])
    add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>', left, y, left + pw, y,
      t[2] and "#e2e2e2" or "#f3f3f3")
    if t[2] then
      add('<text class="ytick" x="%d" y="%.1f" text-anchor="end">%s</text>', left - 6, y + 4, t[2])
    else
      add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#333"/>', left, y, left + 4, y)
    end
  end
  -- a shared exponent multiplies every label of its axis
  if yexp ~= 0 then
    add('<text class="yexp" x="%d" y="%d" text-anchor="start">&#215;1e%d</text>', left, top - 6, yexp)
  end
  if xexp ~= 0 then
    add('<text class="xexp" x="%d" y="%d" text-anchor="end">&#215;1e%d</text>', left + pw, top + ph + 32, xexp)
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
    local opacity_attr = s.opacity and string.format(' stroke-opacity="%g"', s.opacity) or ""
    if #points > 0 then
      add('<polyline fill="none" stroke="%s" stroke-width="1.8"%s%s stroke-linejoin="round" '
        .. 'clip-path="url(#plot-area)" points="%s"/>', color, dash_attr, opacity_attr,
        table.concat(points, " "))
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
