#!/usr/bin/env bash
# Installs what savekit's build, tests and tools need, from Debian 12's archive.
set -euo pipefail
packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev clang-format  # toolchains, libFuzzer, sanitizers
  libgtest-dev libgmock-dev googletest libbenchmark-dev          # tests (and GoogleTest sources for em++), benchmarks
  libfast-float-dev libdragonbox-dev                             # savekit's header-only dependencies
  libzstd-dev libsodium-dev liblz4-dev                           # sealed saves (lz4: the benchmark's comparison)
  libmsgpack-cxx-dev rapidjson-dev nlohmann-json3-dev libsimdjson-dev  # peers: interop, benchmarks
  libjsoncpp-dev libcereal-dev libboost-serialization-dev pkg-config   # more benchmark peers
  python3-matplotlib                                                   # the benchmark's charts
  libcli11-dev                                                         # the command-line programs
  libboost-dev libssl-dev libsqlite3-dev libpq-dev                     # savekit-server: Beast/Asio, TLS, SQLite, libpq
  postgresql-15 curl openssl                                           # ... its tests: a real PostgreSQL, curl over TLS
  patroni etcd-server etcd-client procps                               # ... and a replicated one (scripts/cluster.sh)
  libcurl4-openssl-dev                                                 # the cloud sync client (savekit::cloud)
  emscripten nodejs chromium                                     # WebAssembly: build, node, real-browser tests
  dpkg-dev autoconf automake libtool                             # zstd and libsodium for WebAssembly, from Debian's sources
  python3                                                        # the Python binding (ctypes) and its tests
  mono-mcs mono-runtime libmono-system-runtime-serialization4.0-cil  # the C# binding under Mono ...
  nunit-console libnunit-cil-dev                                 # ... and its NUnit tests
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# npm (for playwright-core): part of some nodejs builds (NodeSource), a package of its own in Debian's.
if ! command -v npm >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
