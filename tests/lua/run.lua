-- Runs one Lua test file: `lucid tests/lua/run.lua tests/lua/test_x.lua`.
-- The file registers cases with the `testing` module; each runs in its own pcall.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local testing = require "testing"

local file = assert(arg[1], "usage: run.lua TEST_FILE.lua")
local chunk = assert(loadfile(file))
chunk()
os.exit(testing.run(file) and 0 or 1)
