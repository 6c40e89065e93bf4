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
