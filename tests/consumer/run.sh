#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds and runs tests/consumer through
# find_package(lucid), and the same program through pkg-config.
set -euo pipefail
build=$1 source=$2 config=${3:-Release}
work="$build/consumer-test"
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE="$config" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig"
# shellcheck disable=SC2046
cc -std=c11 -o "$work/consumer-pkgconfig" "$source/main.c" $(pkg-config --cflags --libs lucid)
"$work/consumer-pkgconfig"
