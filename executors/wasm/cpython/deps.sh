#!/bin/sh
# deps.sh installs what build.sh needs on Debian bookworm: the WASI toolchain
# (clang 16, lld 16, wasi-libc, the wasm32 compiler runtime), the tools for a
# native build Python, and a deb-src entry so that apt-get source can fetch
# Debian's python3.11 and zlib. Run as root; safe to run again.
set -eu

src=/etc/apt/sources.list.d/star-agent-deb-src.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list 2>/dev/null; then
	cat >"$src" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	wasi-libc clang-16 lld-16 llvm-16 libclang-rt-16-dev-wasm32 \
	gcc make pkg-config bc dpkg-dev xz-utils bzip2 zlib1g-dev libffi-dev libssl-dev \
	zip unzip ca-certificates
