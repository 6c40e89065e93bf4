local t = require "testing"
local json = require "lucid.json"

t.case("scalars and strings", function()
  t.eq(json.encode(nil), "null")
  t.eq(json.encode(true), "true")
  t.eq(json.encode(3), "3")
  t.eq(json.encode(2.5), "2.5")
  t.eq(json.encode(0 / 0), "null")
  t.eq(json.encode(math.huge), "null")
  t.eq(json.encode('a"b\\c\n\1'), '"a\\"b\\\\c\\n\\u0001"')
end)

t.case("objects have sorted keys, arrays stay arrays", function()
  t.eq(json.encode({b = 1, a = {1, 2, 3}, c = {}}), '{"a":[1,2,3],"b":1,"c":[]}')
end)

t.case("round trip keeps every double exactly", function()
  local values = {0.1, 1 / 3, -2.5e-300, 6.02214076e23, 2 ^ 60 + 0.0, -0.0}
  local back = json.decode(json.encode(values))
  for i, v in ipairs(values) do t.eq(back[i], v) end
end)

t.case("decode nested documents", function()
  local v = json.decode(' {"x": [1, 2.5, {"y": null}], "s": "\\u00e9t\\u00e9", "ok": false} ')
  t.eq(v.x[1], 1)
  t.eq(v.x[2], 2.5)
  t.eq(v.x[3].y, json.null)
  t.eq(v.s, "été")
  t.eq(v.ok, false)
end)

t.case("errors name the function and the position", function()
  t.raises("lucid.json.decode: unterminated string", json.decode, '"abc')
  t.raises("trailing characters", json.decode, "[1] x")
  t.raises("expected ',' or ']'", json.decode, "[1 2]")
  local cyclic = {}
  cyclic.self = cyclic
  t.raises("lucid.json.encode: cannot encode a cyclic table", json.encode, cyclic)
  t.raises("lucid.json.encode: cannot encode a function value", json.encode, {print})
end)
