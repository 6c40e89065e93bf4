-- Log-log plot of bench_bin's output: CPU ms per step against contacts per step, one line per
-- simulator, over the bin scenes that completed (rows without KILLED/FAILED).
--   build/lucid tests/bench/bench_bin_plot.lua OUTPUT.txt FIGURE.svg
-- lucid.plot has a log y axis only: x is plotted as log10(contacts).
local plot = require "lucid.plot"

local input, output = arg[1], arg[2]
assert(input and output, "usage: bench_bin_plot.lua OUTPUT.txt FIGURE.svg")
local names, series = {}, {}
for line in io.lines(input) do
  local key, setting = line:match("^(lucid%d): ([%w:]+),")
  if key then names[key] = "lucid " .. setting end
  local scene, sim, ms, contacts, rest =
    line:match("^(bin)%s+%d+%s+(%S+)%s+([%d.]+)%s+%S+%s+([%d.]+)%s+(.*)$")
  if scene and not rest:find("KILLED") and not rest:find("FAILED") then
    local name = names[sim] or sim
    if not series[name] then
      series[name] = {name = name, x = {}, y = {}}
      series[#series + 1] = series[name]
    end
    local s = series[name]
    s.x[#s.x + 1] = math.log(tonumber(contacts), 10)
    s.y[#s.y + 1] = tonumber(ms)
  end
end
assert(#series > 0, "no completed bin rows in " .. input)
plot.lines{file = output, logy = true, title = "Bin of boxes: CPU time per step against contacts",
           xlabel = "log10(contacts per step)", ylabel = "ms per step", series = series}
print("wrote " .. output)
