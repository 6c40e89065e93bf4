-- PLACEHOLDER quickstart (replaced by the task-conventions work).
local lucid = require "lucid"
print(lucid.version)
