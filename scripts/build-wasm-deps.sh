#!/usr/bin/env bash
# Builds the C libraries under sealed saves (zstd and libsodium) as WebAssembly, from Debian's
# own source packages, at exactly the versions the native build links (so that both builds
# seal and unseal with the same code). The result is a prefix the emscripten preset uses:
#   PREFIX/include/{zstd.h,zdict.h,zstd_errors.h,sodium.h,sodium/...}
#   PREFIX/lib/{libzstd.a,libsodium.a}
# Usage: scripts/build-wasm-deps.sh [PREFIX]   (default: build/wasm-deps; skipped when built)
# Needs: emscripten, dpkg-dev (apt-get source), autoconf automake libtool (libsodium's
# configure is not in Debian's source package), and a deb-src entry for bookworm, which this
# script adds when apt has none. docs/sealed.md, "In the browser", says why each step is so.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath -m "${1:-build/wasm-deps}")
jobs=${JOBS:-2}
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}  # emcc's own tools need node's acorn

# The source package and version behind each installed -dev package, e.g. libzstd=1.5.4+dfsg2-5.
source_of() { dpkg-query -W -f='${source:Package}=${source:Version}' "$1"; }
zstd_source=$(source_of libzstd-dev)
sodium_source=$(source_of libsodium-dev)
cflags="-O3"
# (sed, not head: head closes the pipe after one line, and emcc, a python script still
# writing, dies of the broken pipe — under set -o pipefail that failed the whole test command.)
stamp="$zstd_source $sodium_source $cflags $(emcc --version | sed -n 1p)"
if [ -f "$prefix/stamp" ] && [ "$(head -n 1 "$prefix/stamp")" = "$stamp" ]; then
  echo "wasm dependencies up to date in $prefix (from the sources $(tail -n 1 "$prefix/stamp"))"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! apt-get source --print-uris "$zstd_source" >/dev/null 2>&1; then
  echo "adding a deb-src entry for Debian 12 (bookworm)"
  $sudo tee /etc/apt/sources.list.d/savekit-deb-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  $sudo apt-get update -qq
fi

rm -rf "$prefix"
mkdir -p "$prefix/src" "$prefix/include" "$prefix/lib"
cd "$prefix/src"
# Fetches PACKAGE=VERSION; when that exact version cannot be downloaded (a mirror without the
# security archive's sources), the newest other Debian revision of the same upstream version.
fetch_source() {
  local package=${1%%=*} version=${1#*=}
  apt-get source -qq "$1" >/dev/null 2>&1 && { echo "$1"; return; }
  local upstream=${version%-*} other
  for other in $(apt-cache showsrc "$package" | awk '/^Version:/ {print $2}' | sort -V -r -u); do
    [ "$other" != "$version" ] && [ "${other%-*}" = "$upstream" ] || continue
    if apt-get source -qq "$package=$other" >/dev/null 2>&1; then
      echo "warning: $1's source cannot be downloaded; built $package=$other (same upstream version)" >&2
      echo "$package=$other"
      return
    fi
  done
  apt-get source "$1" >&2  # again, loudly, to show why it failed
  return 1
}
echo "apt-get source $zstd_source $sodium_source"
built="$(fetch_source "$zstd_source") $(fetch_source "$sodium_source")"

# zstd: its own Makefile, single-threaded, no assembly (x86 only), no legacy formats.
zstd_dir=$(find . -maxdepth 1 -type d -name 'libzstd-*' | head -n 1)
echo "building $zstd_dir with emcc"
emmake make -C "$zstd_dir/lib" -j "$jobs" libzstd.a-release ZSTD_LEGACY_SUPPORT=0 ZSTD_NO_ASM=1 \
  CFLAGS="$cflags" >"$prefix/zstd-build.log" 2>&1 || { tail -n 30 "$prefix/zstd-build.log"; exit 1; }
cp "$zstd_dir"/lib/{zstd.h,zdict.h,zstd_errors.h} "$prefix/include/"
cp "$zstd_dir/lib/libzstd.a" "$prefix/lib/"

# libsodium: upstream's own emscripten recipe (dist-build/emscripten.sh) minus its JavaScript
# wrapper. Debian's source has no generated configure: autoreconf makes it. --host tells
# configure it cannot run what emcc builds.
sodium_dir=$(find . -maxdepth 1 -type d -name 'libsodium-*' | head -n 1)
echo "building $sodium_dir with emcc (configure takes a minute or two)"
(
  cd "$sodium_dir"
  autoreconf -if
  emconfigure ./configure --host=wasm32-unknown-emscripten --prefix="$prefix" --disable-shared --enable-minimal \
    --without-pthreads --disable-ssp --disable-asm --disable-pie CFLAGS="$cflags"
  emmake make -j "$jobs" install
) >"$prefix/sodium-build.log" 2>&1 || { tail -n 30 "$prefix/sodium-build.log"; exit 1; }

printf '%s\n%s\n' "$stamp" "$built" >"$prefix/stamp"
echo "wasm dependencies built in $prefix from the sources $built"
