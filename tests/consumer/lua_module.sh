#!/usr/bin/env bash
# The loadable Lua module: after `cmake --install` into a scratch prefix, a stock lua5.4 (not
# lucid's interpreter) finds lucid.so through LUA_CPATH, and `require "lucid"` gives the whole
# library: C bindings, embedded Lua-side modules (lucid.json), batch rollouts over threads.
# The module loaded must be the installed file (package.searchpath), not another copy.
set -euo pipefail
build=$1
work="$build/lua-module-test"
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
module=$(find "$work/prefix" -name lucid.so -path '*/lua/5.4/*' | head -1)
[ -n "$module" ] || { echo "lucid.so not installed under */lua/5.4/"; exit 1; }
command -v lua5.4 >/dev/null || { echo "lua5.4 not installed: skipped"; exit 77; }
# The configured destination is on the stock interpreter's default search path, so a plain
# `cmake --install build` (no prefix given) needs no LUA_CPATH.
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
default_dir="$(cache_value CMAKE_INSTALL_PREFIX)/$(cache_value LUCID_LUA_CMOD_DIR)"
case ";$(env -u LUA_CPATH -u LUA_CPATH_5_4 lua5.4 -e 'io.write(package.cpath)');" in
    *";$default_dir/?.so;"*) ;;
    *) echo "$default_dir is not on lua5.4's default package.cpath"; exit 1 ;;
esac
export LUA_CPATH="$(dirname "$module")/?.so;;"
lua5.4 - "$module" <<'LUA'
local installed = ...
assert(package.searchpath("lucid", package.cpath) == installed, "not the installed module")
local lucid = require "lucid"
assert(type(lucid.version) == "string")
local r = lucid.distance(lucid.sphere(1), lucid.se3.identity(), lucid.sphere(1),
                         lucid.se3.new({1, 0, 0, 0}, {3, 0, 0}))
assert(r.distance == 1, r.distance)
assert(require("lucid.json").encode({1, 2}) == "[1,2]")
local w = lucid.world{}
w:add_body{shape = lucid.sphere(0.1), pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 1})}
local X = lucid.batch.rollout(w, {w:state(), w:state()}, nil, {steps = 10, threads = 2})
assert(math.abs(X:get(3, 1) - (1 - 55e-6 * 9.81)) < 1e-12 and X:get(3, 2) == X:get(3, 1))
print("lua5.4 loaded " .. installed .. ": lucid " .. lucid.version)
LUA
