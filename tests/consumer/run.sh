#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds and runs tests/consumer through
# find_package(lucid) (static lucid::lucid and shared lucid::shared), and the same program
# through pkg-config (lucid-static and lucid); checks each binary links the library it asked for.
set -euo pipefail
build=$1 source=$2 config=${3:-Release}
work="$build/consumer-test"
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE="$config" >/dev/null
cmake --build "$work/build" >/dev/null

links_shared() { [[ $(ldd "$1") == *liblucid.so* ]]; }
check() { # check NAME BINARY static|shared
    local out
    out=$("$2")
    [ "$out" = "consumer: ok" ] || { echo "$1: printed '$out'"; exit 1; }
    if [ "$3" = shared ]; then
        links_shared "$2" || { echo "$1: does not load liblucid.so"; ldd "$2"; exit 1; }
    else
        ! links_shared "$2" || { echo "$1: loads liblucid.so but should be static"; exit 1; }
    fi
    echo "$1 ($3): $out"
}
check find_package "$work/build/consumer" static
check find_package "$work/build/consumer_shared" shared

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig"
# shellcheck disable=SC2046
cc -std=c11 -o "$work/consumer-pkgconfig-static" "$source/main.c" $(pkg-config --cflags --libs lucid-static)
# shellcheck disable=SC2046
cc -std=c11 -o "$work/consumer-pkgconfig-shared" "$source/main.c" $(pkg-config --cflags --libs lucid)
check pkg-config "$work/consumer-pkgconfig-static" static
libdir=$(pkg-config --variable=libdir lucid)
LD_LIBRARY_PATH="$libdir" check pkg-config "$work/consumer-pkgconfig-shared" shared

# Only public headers are installed (cmake/LucidInstall.cmake), and each compiles on its own:
# none reaches a private one.
inc="$work/prefix/include/lucid"
n=0
while IFS= read -r h; do
    # shellcheck disable=SC2046
    printf '#include "%s"\n' "${h#"$inc"/}" |
        cc -std=c11 -fsyntax-only -x c - $(pkg-config --cflags lucid) ||
        { echo "installed header ${h#"$inc"/} does not compile on its own"; exit 1; }
    n=$((n + 1))
done < <(find "$inc" -name '*.h' | sort)
if find "$inc" -name '*_internal.h' | grep -q .; then echo "a private header is installed"; exit 1; fi
echo "installed headers: $n, each compiles on its own"
