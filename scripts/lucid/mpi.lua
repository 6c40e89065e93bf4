-- lucid.mpi: the ranks of an MPI job, and sweeps sharded across them (docs/mpi.md).
-- Under `mpirun -np N build/lucid FILE` every rank runs FILE; the `lucid` executable gives
-- this module its MPI backend (runtime/mpi_host.c) and silences standard output on ranks
-- other than 0, so a script that shares its work with `sweep` prints what the serial run
-- prints. Without mpirun, or without MPI in the build, it is serial: rank 0 of 1, and every
-- function below does the same thing with one rank (sweep still serialises its results, so
-- serial and MPI runs go through the same code and give the same bits).
local lucid = require "lucid"
local check = require "lucid.check"

local mpi = {}

-- The serial backend: one rank.
local serial = {
  rank = function() return 0 end,
  size = function() return 1 end,
  barrier = function() end,
  allgather = function(s) return {s} end,
  allreduce = function(s) return s end,
}
-- Under mpirun the executable stores its MPI backend in package.loaded["lucid.mpi.backend"]
-- and sets mpi.enabled (runtime/mpi_host.c); nothing in the `lucid` table can replace it.
local function backend() return package.loaded["lucid.mpi.backend"] or serial end
mpi.enabled = false

function mpi.rank() return backend().rank() end
function mpi.size() return backend().size() end
function mpi.barrier() backend().barrier() end

-- The type of a value for messages: a lucid userdata's type name ("lucid.shape").
local function typename(v)
  local mt = getmetatable(v)
  return type(mt) == "string" and mt or type(v)
end

-- ---- exact serialisation of results ------------------------------------------------------
-- Numbers keep their bits (integers as integers, floats as IEEE doubles), tables nest,
-- lucid.vec / lucid.mat keep their shape. Anything else is an error naming `fname`.
local MAX_DEPTH = 100

local function is_matrix(v)
  return type(v) == "userdata" and tostring(getmetatable(v)) == "lucid.mat"
end

local function encode(v, out, fname, depth)
  local ty = type(v)
  if depth > MAX_DEPTH then error(fname .. ": value nested too deeply (or a cycle)", 0) end
  if v == nil then out[#out + 1] = "n"
  elseif ty == "boolean" then out[#out + 1] = v and "T" or "F"
  elseif math.type(v) == "integer" then out[#out + 1] = string.pack("<c1j", "i", v)
  elseif ty == "number" then out[#out + 1] = string.pack("<c1d", "d", v)
  elseif ty == "string" then out[#out + 1] = string.pack("<c1s4", "s", v)
  elseif is_matrix(v) then
    local vec = tostring(v):sub(1, 9) == "lucid.vec"
    local rows, cols = v:rows(), v:cols()
    out[#out + 1] = string.pack("<c1Bjj", "m", vec and 1 or 0, rows, cols)
    for c = 1, cols do
      for r = 1, rows do out[#out + 1] = string.pack("<d", v:get(r, c)) end
    end
  elseif ty == "table" then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    out[#out + 1] = string.pack("<c1j", "t", #keys)
    for _, k in ipairs(keys) do
      encode(k, out, fname, depth + 1)
      encode(v[k], out, fname, depth + 1)
    end
  else
    error(fname .. ": cannot send a " .. typename(v) .. " value (numbers, strings, booleans, tables and "
          .. "lucid.vec / lucid.mat only)", 0)
  end
end

local function decode(s, pos)
  local tag = s:sub(pos, pos)
  if tag == "n" then return nil, pos + 1
  elseif tag == "T" then return true, pos + 1
  elseif tag == "F" then return false, pos + 1
  elseif tag == "i" or tag == "d" then return string.unpack(tag == "i" and "<j" or "<d", s, pos + 1)
  elseif tag == "s" then return string.unpack("<s4", s, pos + 1)
  elseif tag == "m" then
    local vec, rows, cols
    vec, rows, cols, pos = string.unpack("<Bjj", s, pos + 1)
    local m = vec == 1 and lucid.zeros(rows) or lucid.zeros(rows, cols)
    for c = 1, cols do
      for r = 1, rows do
        local x
        x, pos = string.unpack("<d", s, pos)
        m:set(r, c, x)
      end
    end
    return m, pos
  elseif tag == "t" then
    local n
    n, pos = string.unpack("<j", s, pos + 1)
    local t = {}
    for _ = 1, n do
      local k, v
      k, pos = decode(s, pos)
      v, pos = decode(s, pos)
      t[k] = v
    end
    return t, pos
  end
  error("lucid.mpi: corrupt message", 0)
end

local function pack(v, fname)
  local out = {}
  encode(v, out, fname, 0)
  return table.concat(out)
end

local function unpack_value(s) return (decode(s, 1)) end

-- Doubles <-> bytes, in chunks (table.unpack of a million values would overflow the stack).
local CHUNK = 4096
local function pack_doubles(xs)
  local out = {}
  for i = 1, #xs, CHUNK do
    local j = math.min(#xs, i + CHUNK - 1)
    out[#out + 1] = string.pack("<" .. string.rep("d", j - i + 1), table.unpack(xs, i, j))
  end
  return table.concat(out)
end
local function unpack_doubles(s, n, pos)
  local xs = {}
  pos = pos or 1
  for i = 1, n, CHUNK do
    local j = math.min(n, i + CHUNK - 1)
    local vals = {string.unpack("<" .. string.rep("d", j - i + 1), s, pos)}
    pos = vals[#vals]
    for k = 1, j - i + 1 do xs[i + k - 1] = vals[k] end
  end
  return xs, pos
end

-- ---- collective operations ----------------------------------------------------------------
-- Reads a vector argument: a lucid.vec, an n x 1 lucid.mat or a table of numbers.
local function numbers(v, fname)
  if is_matrix(v) then
    local out = {}
    for r = 1, v:rows() * v:cols() do out[r] = v:get((r - 1) % v:rows() + 1, (r - 1) // v:rows() + 1) end
    return out, true
  end
  if type(v) ~= "table" then
    error(fname .. ": expected a lucid.vec or a table of numbers (got " .. typename(v) .. ")", 0)
  end
  for i = 1, #v do
    if type(v[i]) ~= "number" then error(fname .. ": entry " .. i .. " is not a number", 0) end
  end
  return v, false
end

-- Every rank's vector, in rank order, on rank `root` (default 0); nil on the other ranks.
-- The vectors may have different lengths.
function mpi.gather(v, root)
  local fname = "lucid.mpi.gather"
  root = root or 0
  if math.type(root) ~= "integer" or root < 0 or root >= mpi.size() then
    error(fname .. ": root must be a rank in [0, " .. (mpi.size() - 1) .. "]", 0)
  end
  local xs, as_vec = numbers(v, fname)
  local parts = backend().allgather(string.pack("<j", #xs) .. pack_doubles(xs))
  if mpi.rank() ~= root then return nil end
  local all = {}
  for r, s in ipairs(parts) do
    local n, pos = string.unpack("<j", s)
    local vals = unpack_doubles(s, n, pos)
    all[r] = as_vec and lucid.vec(vals) or vals
  end
  return all
end

-- The element-wise reduction of every rank's vector (same length on every rank), on every
-- rank; op = "sum" (default), "min" or "max". Sums are in MPI's order: use sweep when the
-- result must be bit-identical to a serial loop.
function mpi.allreduce(v, op)
  local fname = "lucid.mpi.allreduce"
  op = op or "sum"
  if op ~= "sum" and op ~= "min" and op ~= "max" then
    error(fname .. ": op must be \"sum\", \"min\" or \"max\" (got " .. tostring(op) .. ")", 0)
  end
  local xs, as_vec = numbers(v, fname)
  local lengths = mpi.gather({#xs}, 0)
  if lengths then
    for r = 2, #lengths do
      if lengths[r][1] ~= #xs then lengths.bad = true end
    end
  end
  -- every rank must learn whether the lengths agree before reducing
  local bad = backend().allgather(lengths and lengths.bad and "x" or "")[1] == "x"
  if bad then error(fname .. ": the vectors have different lengths on different ranks", 0) end
  local out = unpack_doubles(backend().allreduce(pack_doubles(xs), op), #xs)
  return as_vec and lucid.vec(out) or out
end

-- Runs fn(items[i], i) for every i, rank r taking the i with (i - 1) % size == r, and returns
-- the list of results in item order, on every rank (rank 0 included, where tasks print).
-- Results may be numbers, strings, booleans, nested tables and lucid.vec / lucid.mat; they
-- travel bit for bit, so the list equals the serial loop's.
function mpi.sweep(items, fn)
  local fname = "lucid.mpi.sweep"
  if type(items) ~= "table" then error(fname .. ": items must be a table (a list)", 0) end
  if type(fn) ~= "function" then error(fname .. ": fn must be a function", 0) end
  local size, rank = mpi.size(), mpi.rank()
  -- a failure on one rank must not leave the others waiting: everyone learns of it
  local ok, msg = pcall(function()
    local mine = {}
    for i = rank + 1, #items, size do mine[i] = fn(items[i], i) end
    return pack({ok = true, results = mine}, fname)
  end)
  if not ok then msg = pack({ok = false, err = tostring(msg)}, fname) end
  local parts = backend().allgather(msg)
  local results = {}
  for r, s in ipairs(parts) do
    local part = unpack_value(s)
    if not part.ok then error(fname .. ": rank " .. (r - 1) .. ": " .. part.err, 0) end
    for i, v in pairs(part.results) do results[i] = v end
  end
  return results
end

return mpi
