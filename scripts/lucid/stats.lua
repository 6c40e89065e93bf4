-- lucid.stats: summary statistics of samples (benchmark reports).
--
--   local stats = require "lucid.stats"
--   stats.quantile(xs, 0.9)         -- linear interpolation between order statistics
--   stats.summary(xs)               -- {D1, Q1, median, Q3, D9, min, max, count}
--
-- quantile(p) uses the "type 7" rule (R's default, numpy's "linear"): with the sorted
-- sample x_1 <= ... <= x_n, h = (n - 1) p + 1 and q = x_floor(h) + (h - floor(h)) (x_ceil(h)
-- - x_floor(h)). NaN entries are errors; the input is not modified.
local check = require "lucid.check"

local stats = {}

local function sorted_copy(xs, fname)
  if type(xs) ~= "table" or #xs == 0 then
    check.fail(fname, "expected a non-empty list of numbers (got %s)", check.typename(xs))
  end
  local s = {}
  for i = 1, #xs do
    local v = xs[i]
    if type(v) ~= "number" or v ~= v then
      check.fail(fname, "entry %d is not a number (%s)", i, tostring(v))
    end
    s[i] = v
  end
  table.sort(s)
  return s
end

local function quantile_sorted(s, p)
  local h = (#s - 1) * p + 1
  local lo = math.floor(h)
  local hi = math.min(lo + 1, #s)
  return s[lo] + (h - lo) * (s[hi] - s[lo])
end

function stats.quantile(xs, p)
  if type(p) ~= "number" or not (p >= 0 and p <= 1) then
    check.fail("lucid.stats.quantile", "p must be in [0, 1] (got %s)", tostring(p))
  end
  return quantile_sorted(sorted_copy(xs, "lucid.stats.quantile"), p)
end

function stats.summary(xs)
  local s = sorted_copy(xs, "lucid.stats.summary")
  return {D1 = quantile_sorted(s, 0.1), Q1 = quantile_sorted(s, 0.25),
          median = quantile_sorted(s, 0.5), Q3 = quantile_sorted(s, 0.75),
          D9 = quantile_sorted(s, 0.9), min = s[1], max = s[#s], count = #s}
end

return stats
