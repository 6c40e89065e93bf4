-- Runs one Lua test file: `lucid tests/lua/run.lua tests/lua/test_x.lua`.
-- The file registers cases with the `testing` module; each runs in its own pcall.
-- Exit status: 0 all passed, 1 a case failed, 77 no failure but a case skipped (ctest's
-- SKIP_RETURN_CODE).
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local testing = require "testing"

local file = assert(arg[1], "usage: run.lua TEST_FILE.lua")
local chunk = assert(loadfile(file))
chunk()
local outcome = testing.run(file)
os.exit(outcome == "passed" and 0 or outcome == "skipped" and 77 or 1)
