#!/usr/bin/env bash
# Every C source and header we own must match .clang-format. Skipped (exit 77) when
# clang-format is not installed; .ci/run installs it and fails on any skipped test.
set -euo pipefail
cd "$1"
command -v clang-format >/dev/null 2>&1 || { echo "clang-format not installed: skipped"; exit 77; }
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null ||
                     find runtime solvers autodiff tests -name '*.[ch]')
bad=0
for f in "${files[@]}"; do
    if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f (run clang-format -i $f)"
        bad=1
    fi
done
[ "$bad" -eq 0 ] && echo "${#files[@]} files formatted"
exit "$bad"
