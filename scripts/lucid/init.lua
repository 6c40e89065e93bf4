-- The Lua side of `lucid`, run once when the module loads: attaches the Lua-written
-- sub-libraries to the table built by the C bindings.
local lucid = require "lucid"
lucid.optim = require "lucid.optim"
return lucid
