local t = require "testing"
local plot = require "lucid.plot"

t.case("writes an SVG with one polyline per series and a legend", function()
  local file = os.tmpname() .. "_dir/sub/plot.svg"
  plot.lines{file = file, title = "costs <1>", logy = true, xlabel = "it", ylabel = "cost",
             series = {{name = "a", y = {1, 1e-2, 1e-4, 0}}, {name = "b", x = {1, 2}, y = {3, 4}}}}
  local f = assert(io.open(file))
  local svg = f:read("a")
  f:close()
  t.truthy(svg:find("^<svg"), "starts with <svg")
  local _, polylines = svg:gsub("<polyline", "")
  t.eq(polylines, 2)
  t.truthy(svg:find("costs &lt;1&gt;", 1, true), "title is escaped")
  t.truthy(svg:find(">1e-4<", 1, true), "log ticks are labelled by decade")
  os.remove(file)
end)

t.case("bad specs raise errors naming the function", function()
  t.raises("lucid.plot.lines: spec.file", plot.lines, {series = {{y = {1}}}})
  t.raises("lucid.plot.lines: spec.series", plot.lines, {file = "x.svg", series = {}})
  t.raises("lucid.plot.lines: cannot write", plot.lines,
    {file = "/proc/nonexistent/x.svg", series = {{y = {1}}}})
end)

local function read(file)
  local f = assert(io.open(file))
  local svg = f:read("a")
  f:close()
  os.remove(file)
  return svg
end

t.case("coinciding series stay visible: dashes and staggered markers differ", function()
  local file = os.tmpname() .. ".svg"
  local y = {}
  for i = 1, 50 do y[i] = i * i end
  plot.lines{file = file, series = {{name = "a", y = y}, {name = "b", y = y}, {name = "c", y = y}}}
  local svg = read(file)
  local dashes = {}
  for d in svg:gmatch('<polyline[^>]-stroke%-dasharray="([^"]+)"') do dashes[#dashes + 1] = d end
  t.eq(#dashes, 2, "series 2 and 3 are dashed, series 1 solid")
  t.truthy(dashes[1] ~= dashes[2], "different dash patterns")
  -- markers of the same data at different points: the circles' and squares' centres differ
  local circles, squares = {}, {}
  local frame_right = 560 -- left margin 80 + plot width 480; the legend's markers are beyond
  for x in svg:gmatch('<circle cx="([%d%.]+)"') do
    if tonumber(x) < frame_right then circles[x] = true end
  end
  for x in svg:gmatch('<rect x="([%d%.]+)" y="[%d%.]+" width="7.2"') do
    if tonumber(x) < frame_right then squares[tonumber(x) + 3.6] = true end
  end
  local n, shared = 0, 0
  for x in pairs(squares) do
    n = n + 1
    if circles[string.format("%.1f", x)] then shared = shared + 1 end
  end
  t.truthy(n >= 9, "about ten markers per series")
  t.eq(shared, 0, "no square sits on a circle")
end)

t.case("log axes on x and y, with padding inside the frame", function()
  local file = os.tmpname() .. ".svg"
  plot.lines{file = file, logx = true, logy = true, xlabel = "n", ylabel = "t",
             series = {{name = "a", x = {1e-3, 1e-2, 1e-1, 1, 10}, y = {1e2, 1e1, 1, 1e-1, 1e-2}},
                       {name = "zero", x = {0, 1}, y = {1, 1}}}}
  local svg = read(file)
  -- x spans 1e-3..10 (labels 1eN), y 1e-2..1e2 (every label in [1e-2, 1e4): plain numbers)
  for _, label in ipairs{">1e-3<", ">1e1<", ">0.01<", ">100<", "n (log)", "t (log)"} do
    t.truthy(svg:find(label, 1, true), "label " .. label)
  end
  local fx, fy, fw, fh = svg:match('<rect x="(%d+)" y="(%d+)" width="(%d+)" height="(%d+)" fill="none"')
  fx, fy, fw, fh = tonumber(fx), tonumber(fy), tonumber(fw), tonumber(fh)
  local points = svg:match('<polyline[^>]-points="([^"]+)"')
  local count = 0
  for x, y in points:gmatch("([%d%.]+),([%d%.]+)") do
    x, y = tonumber(x), tonumber(y)
    count = count + 1
    t.truthy(x > fx + 0.02 * fw and x < fx + 0.98 * fw and y > fy + 0.02 * fh and y < fy + 0.98 * fh,
             "points are padded away from the frame")
  end
  t.eq(count, 5)
  -- the second series' x = 0 is left out on a log axis: one point
  local second = select(2, svg:gsub("<polyline", ""))
  t.eq(second, 2)
end)

t.case("dash and marker options are checked", function()
  t.raises("lucid.plot.lines: spec.series[1].dash must be", plot.lines,
    {file = "x.svg", series = {{y = {1}, dash = "wavy"}}})
  t.raises("lucid.plot.lines: spec.series[1].marker must be one of", plot.lines,
    {file = "x.svg", series = {{y = {1}, marker = "star"}}})
  t.raises("lucid.plot.lines: spec.logx must be a boolean", plot.lines,
    {file = "x.svg", logx = 1, series = {{y = {1}}}})
  local file = os.tmpname() .. ".svg"
  plot.lines{file = file, markers = false, series = {{y = {1, 2}, dash = "3,1", marker = "plus"}}}
  local svg = read(file)
  t.truthy(svg:find('stroke-dasharray="3,1"', 1, true), "an SVG dash array is kept")
  t.truthy(not svg:find("<path", 1, true), "markers = false draws none")
end)

-- The tick labels of one axis ("x" or "y") in drawing order, and its shared exponent label.
local function tick_labels(spec, which)
  spec.file = os.tmpname() .. ".svg"
  plot.lines(spec)
  local svg = read(spec.file)
  local labels, seen = {}, {}
  for label in svg:gmatch('<text class="' .. which .. 'tick"[^>]*>([^<]*)<') do
    t.truthy(not seen[label], "tick label " .. label .. " is drawn once")
    seen[label] = true
    labels[#labels + 1] = label
  end
  return labels, svg:match('<text class="' .. which .. 'exp"[^>]*>&#215;([^<]*)<'), svg
end

t.case("small linear data share one exponent: distinct labels", function()
  -- was labelled -1e-05, -1e-05, -5e-06, 0
  local labels, exp = tick_labels({series = {{y = {-1.6e-5, -8e-6, 0}}}}, "y")
  t.eq(table.concat(labels, " "), "-1.5 -1.0 -0.5 0")
  t.eq(exp, "1e-5")
  labels, exp = tick_labels({series = {{y = {2e4, 9e4}}}}, "y")
  t.eq(table.concat(labels, " "), "2 4 6 8")
  t.eq(exp, "1e4")
  labels, exp = tick_labels({series = {{y = {0.2, 0.7}}}}, "y")
  t.eq(table.concat(labels, " "), "0.2 0.3 0.4 0.5 0.6 0.7")
  t.eq(exp, nil, "no exponent for values near 1")
end)

t.case("integer axes carry integer ticks only", function()
  -- three iterations (x = 1, 2, 3 by default): was 1, 1.5, 2, 2.5, 3
  local labels = tick_labels({series = {{y = {3, 2, 1.5}}}}, "x")
  t.eq(table.concat(labels, " "), "1 2 3")
  labels = tick_labels({series = {{x = {0, 1}, y = {1, 2}}}}, "x")
  t.eq(table.concat(labels, " "), "0 1")
  -- real-valued data on the same range keep their halves
  labels = tick_labels({series = {{x = {0, 1.01}, y = {1, 2}}}}, "x")
  t.eq(table.concat(labels, " "), "0 0.2 0.4 0.6 0.8 1.0")
end)

t.case("log axes are labelled at decades with unlabelled minor ticks", function()
  -- frequencies 10..300 Hz: was 1e1, 2e1, 5e1, ...
  local labels, exp, svg = tick_labels({logx = true, series = {{x = {10, 30, 100, 300}, y = {1, 2, 3, 4}}}}, "x")
  t.eq(table.concat(labels, " "), "10 100")
  t.eq(exp, nil)
  -- minor ticks in the padded range 8.7..343: 9, 20..90, 200, 300 (a short mark on the frame)
  local _, marks = svg:gsub('<line x1="[%d%.]+" y1="%d+" x2="[%d%.]+" y2="%d+" stroke="#333"/>', "")
  t.eq(marks, 11)
  labels = tick_labels({logy = true, series = {{y = {1e-8, 1e-5, 1e-2}}}}, "y")
  t.eq(table.concat(labels, " "), "1e-8 1e-7 1e-6 1e-5 1e-4 1e-3 1e-2")
  -- twenty decades: every third decade labelled
  labels = tick_labels({logy = true, series = {{y = {1e-16, 1e4}}}}, "y")
  t.eq(table.concat(labels, " "), "1e-16 1e-13 1e-10 1e-7 1e-4 1e-1 1e2")
  -- inside one decade: the multiples, then linear ticks
  labels = tick_labels({logx = true, series = {{x = {2, 9}, y = {1, 2}}}}, "x")
  t.eq(table.concat(labels, " "), "2 5")
  labels = tick_labels({logx = true, series = {{x = {2.1, 2.9}, y = {1, 2}}}}, "x")
  t.eq(table.concat(labels, " "), "2.2 2.4 2.6 2.8")
end)

t.case("a series' line opacity is drawn and checked", function()
  local _, _, svg = tick_labels({series = {{y = {1, 2}, opacity = 0.5}}}, "y")
  t.truthy(svg:find('stroke-opacity="0.5"', 1, true), "opacity drawn")
  t.raises("lucid.plot.lines: spec.series[1].opacity must be in (0, 1]", plot.lines,
    {file = "x.svg", series = {{y = {1}, opacity = 0}}})
end)
