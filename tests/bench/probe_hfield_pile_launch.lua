-- Issue 32: 20 bodies started inside a height field (0.5 m relief, up to 6.5 cm deep) and inside
-- each other (15 mm). Env: K (the field's phase), MODEL, SOLVER (the world's contact pair), VC
-- (correction_speed; unset: the default), MU (every friction; default 1), VERBOSE=1 (a line per
-- unconverged step: its islands as contacts/backend/answer/residual).
local k, e = tonumber(os.getenv("K") or "0"), {}
local mu = tonumber(os.getenv("MU") or "1")
local verbose = os.getenv("VERBOSE") == "1"
for r = 1, 41 do e[r] = {} for c = 1, 41 do e[r][c] = 0.02 * math.sin(r - k) * math.cos(c - k) end end
local opts = {dt = 1e-3}
if os.getenv("MODEL") then opts.contact = {model = os.getenv("MODEL"), solver = os.getenv("SOLVER")} end
if os.getenv("VC") then opts.correction_speed = tonumber(os.getenv("VC")) end
local w = lucid.world(opts)
w:add_static{shape = lucid.heightfield{elevation = e, size = {1, 1, 0.5, 0.2}}, friction = mu}
local ids = {}
for i = 0, 19 do
  ids[#ids+1] = w:add_body{shape = i % 2 == 0 and lucid.cylinder(0.05, 0.1) or lucid.box(0.05, 0.04, 0.03),
             mass = 1, friction = mu,
             pose = lucid.se3.new({1, 0, 0, 0}, {-0.8 + 0.08 * i, 0.05 * (i % 5), 0.3}) *
                    lucid.se3.exp({0, 0, 0, 1.2, 0.3, 0})}
end
local vmax, at, unconv, fmax, fat = 0, 0, 0, 0, 0
for s = 1, 2000 do
  w:step()
  local st = w:stats()
  if not st.converged then unconv = unconv + 1 end
  for _, c in ipairs(w:contacts()) do
    if c.lambda[3] > fmax then fmax, fat = c.lambda[3], s end
  end
  for _, id in ipairs(ids) do
    local v = w:velocity(id)
    local sp = math.sqrt(v[1]^2 + v[2]^2 + v[3]^2)
    if sp > vmax then vmax, at = sp, s end
  end
  if verbose and not st.converged then
    local isl = {}
    for _, I in ipairs(w:islands()) do
      if not I.converged then
        isl[#isl+1] = string.format("%d/%s/%s/%.2g", I.contacts, I.backend, I.answer, I.residual)
      end
    end
    print(string.format("step %d: residual %.3g N, %d contacts in %d islands, unconverged: %s", s,
                        st.residual, st.contacts, st.islands, table.concat(isl, " ")))
  end
end
print(string.format("max speed %.3g m/s at step %d, unconverged %d", vmax, at, unconv))
print(string.format("largest normal force %.3g N at step %d", fmax, fat))
