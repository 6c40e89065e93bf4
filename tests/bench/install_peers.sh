#!/usr/bin/env bash
# Opt-in: installs the peer libraries bench_collision compares lucid against (FCL 0.7 with
# its libccd, libccd 2.1, Bullet 3.24 with the double-precision build, and Eigen for FCL's
# headers), and HACD (libbullet-extras-dev) for bench_decompose. They are benchmark-only dependencies: ./lucid does not install them and the test
# suite passes without them (bench_collision is then simply not built). Re-run cmake after.
set -euo pipefail
packages=(libfcl-dev libccd-dev libbullet-dev libeigen3-dev libbullet-extras-dev)
if [[ $(id -u) -ne 0 ]]; then
    exec sudo "$0" "$@"
fi
apt-get update
apt-get install -y --no-install-recommends "${packages[@]}"
