-- The Lua side of `lucid`, run once when the module loads: attaches the Lua-written
-- sub-libraries to the table built by the C bindings.
local lucid = require "lucid"
lucid.json = require "lucid.json"
lucid.task = require "lucid.task"
lucid.plot = require "lucid.plot"
lucid.optim = require "lucid.optim"
lucid.stats = require "lucid.stats"
lucid.contact.primitive = require "lucid.contact_ad"
lucid.sim = require "lucid.sim"
lucid.viewer = require "lucid.viewer"
lucid.mpi = require "lucid.mpi"
return lucid
