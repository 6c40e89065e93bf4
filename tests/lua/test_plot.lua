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
  for _, label in ipairs{">1e-3<", ">1e1<", ">1e-2<", ">1e2<", "n (log)", "t (log)"} do
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

t.case("a log axis spanning under three decades labels 2 and 5 times each decade", function()
  local file = os.tmpname() .. ".svg"
  plot.lines{file = file, logx = true, series = {{x = {2e-4, 1e-2}, y = {1, 2}}}}
  local svg = read(file)
  for _, label in ipairs{">5e-4<", ">1e-3<", ">2e-3<", ">5e-3<", ">1e-2<"} do
    t.truthy(svg:find(label, 1, true), "label " .. label)
  end
end)
