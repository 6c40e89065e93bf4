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

t.case("clock is monotonic", function()
  local a = lucid.clock()
  local b = lucid.clock()
  t.truthy(b >= a)
end)
