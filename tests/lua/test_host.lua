local t = require "testing"
local lucid = require "lucid"

t.case("require returns the preloaded global", function()
  t.eq(lucid, _G.lucid)
  t.eq(type(lucid.version), "string")
end)

t.case("arg is set like the standalone interpreter", function()
  t.truthy(arg[0]:find("run.lua", 1, true), "arg[0] is the script")
  t.truthy(arg[1]:find("test_host.lua", 1, true), "arg[1] is the first script argument")
  t.eq(type(arg[-1]), "string", "arg[-1] is the interpreter")
end)

t.case("embedded scripts are reachable with require", function()
  t.eq(require "lucid.init", lucid)
end)

t.case("isatty validates its argument", function()
  t.eq(type(lucid.isatty(1)), "boolean")
  t.raises("lucid.isatty: fd = 7 is out of range [0, 2]", lucid.isatty, 7)
  t.raises("lucid.isatty: fd must be an integer (got string)", lucid.isatty, "1")
end)

-- issue 37: `echo ... | lucid` printed the interactive banner and prompts around the output.
t.case("without a file, piped stdin runs as a script (no banner, no prompt)", function()
  local file = os.tmpname()
  local f = assert(io.open(file, "w"))
  f:write("local x = 20\nprint(x + 22, arg[0])\n")
  f:close()
  local pipe = assert(io.popen(string.format("'%s' < '%s' 2>&1", arg[-1], file)))
  local out = pipe:read("a")
  local _, _, code = pipe:close()
  t.eq(code, 0)
  t.eq(out, "42\t-\n") -- one chunk (the local is seen by the next line), arg[0] as `lucid -`
  f = assert(io.open(file, "w"))
  f:write("error('boom')\n")
  f:close()
  pipe = assert(io.popen(string.format("'%s' < '%s' 2>&1", arg[-1], file)))
  out = pipe:read("a")
  _, _, code = pipe:close()
  os.remove(file)
  t.eq(code, 1, out)
  t.truthy(out:find("boom", 1, true), out)
end)

-- issue 37: trajopt's "cpu s" (os.clock: every thread of the process) read above its wall "s".
t.case("cpu_clock counts the calling thread only, never more than the wall time", function()
  local w0 = lucid.clock()
  local c0 = lucid.cpu_clock()
  local x = 0
  for i = 1, 3e6 do x = x + i % 7 end
  local c1 = lucid.cpu_clock()
  local w1 = lucid.clock()
  t.truthy(x > 0 and c1 > c0, "a busy loop uses CPU")
  t.truthy(c1 - c0 <= w1 - w0, string.format("cpu %.6f s within wall %.6f s", c1 - c0, w1 - w0))
  -- a child process's CPU is not this thread's: sleeping costs (almost) no CPU here
  c0, w0 = lucid.cpu_clock(), lucid.clock()
  os.execute("sleep 0.2")
  t.truthy(lucid.clock() - w0 >= 0.2, "slept")
  t.truthy(lucid.cpu_clock() - c0 < 0.1, "sleeping is not CPU time")
  -- rollouts on a pool of threads: os.clock counts the pool's CPU, cpu_clock only this thread's
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.2})}
  local xs, U = {}, {}
  for i = 1, 16 do xs[i], U[i] = w:state(), lucid.zeros(#w:controls(), 200) end
  local p0, t0 = os.clock(), lucid.cpu_clock()
  lucid.batch.rollout(w, xs, U, {threads = 4})
  local process, thread = os.clock() - p0, lucid.cpu_clock() - t0
  t.truthy(thread <= process, string.format("thread %.4f s, process %.4f s", thread, process))
end)

t.case("clock is monotonic", function()
  local a = lucid.clock()
  local b = lucid.clock()
  t.truthy(b >= a)
end)
