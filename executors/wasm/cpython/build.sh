#!/bin/sh
# build.sh builds CPython 3.11 for wasm32-wasi from Debian's source packages
# with Debian's toolchain (see deps.sh), and writes beside itself:
#
#   python.wasm     the interpreter (debug info stripped, name section kept)
#   python311.zip   the standard library as .pyc, stored uncompressed
#   VERSIONS        source and toolchain versions, output checksums and the
#                   recipe hash (this script and deps.sh, which include the
#                   config.site lines)
#
# It does nothing when VERSIONS records the current recipe and the outputs
# match their recorded checksums; --force rebuilds anyway; --check only
# reports (exit 0: up to date, 1: a build is needed). Sources and objects go
# to $CPYTHON_WORK (default: ${XDG_CACHE_HOME:-$HOME/.cache}/star-agent/cpython-build).
#
# Debian's packaging patches (install layout, multiarch, module setup) target
# a system install and are not applied; its security and bug-fix patches
# (CVE-*, backported gh-* fixes) are.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
work=${CPYTHON_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/star-agent/cpython-build}
jobs=${JOBS:-$(nproc)}
mode=${1:-build}

# Extra config.site lines: wazero's poll_oneoff rejects absolute-time clocks,
# so clock_nanosleep must not be used (every time.sleep would fail with
# errno 58).
config_site_extra='ac_cv_func_clock_nanosleep=no
ac_cv_lib_rt_clock_nanosleep=no'

recipe=$(cat "$here/build.sh" "$here/deps.sh" | sha256sum | cut -d' ' -f1)

sha() { sha256sum "$1" | cut -d' ' -f1; }

up_to_date() {
	v=$here/VERSIONS
	test -f "$v" && test -f "$here/python.wasm" && test -f "$here/python311.zip" || return 1
	grep -qx "recipe_sha256=$recipe" "$v" || return 1
	grep -qx "python.wasm_sha256=$(sha "$here/python.wasm")" "$v" || return 1
	grep -qx "python311.zip_sha256=$(sha "$here/python311.zip")" "$v" || return 1
}

case $mode in
--check)
	if up_to_date; then echo "cpython: up to date"; exit 0; fi
	echo "cpython: build needed"; exit 1 ;;
--force) ;;
build)
	if up_to_date; then echo "cpython: up to date ($here/VERSIONS)"; exit 0; fi ;;
*)
	echo "usage: build.sh [--check|--force]" >&2; exit 2 ;;
esac

for tool in clang-16 wasm-ld-16 llvm-ar-16 llvm-ranlib-16 llvm-strip-16 dpkg-source; do
	command -v $tool >/dev/null || { echo "build.sh: $tool missing; run deps.sh" >&2; exit 1; }
done
test -f /usr/lib/wasm32-wasi/libc.a || { echo "build.sh: wasi-libc missing; run deps.sh" >&2; exit 1; }

start=$(date +%s)
rm -rf "$work"
mkdir -p "$work/src"
cd "$work/src"

echo "== sources"
apt-get source --download-only python3.11 zlib >/dev/null 2>&1 || {
	echo "build.sh: apt-get source failed; run deps.sh (it adds a deb-src entry)" >&2; exit 1; }
pydsc=$(ls python3.11_*.dsc)
zdsc=$(ls zlib_*.dsc)
pyver=$(sed -n 's/^Version: //p' "$pydsc")
zver=$(sed -n 's/^Version: //p' "$zdsc")
# dpkg-source checks the checksums recorded in the .dsc.
dpkg-source --skip-patches -x "$pydsc" python >/dev/null
dpkg-source -x "$zdsc" zlib >/dev/null
cd python
for p in $(grep -E '^(CVE-|0[0-9]+-3\.11-|relfile-|frame_dealloc-|shutdown-deadlock)' debian/patches/series); do
	patch -p1 -s -N <"debian/patches/$p"
done
patched=$(grep -cE '^(CVE-|0[0-9]+-3\.11-|relfile-|frame_dealloc-|shutdown-deadlock)' debian/patches/series)
src=$(pwd)

echo "== toolchain"
# A wasi-sdk-shaped directory for Tools/wasm/wasi-env, with a private sysroot
# so that clang never searches the host's /usr/include.
sdk=$work/wasi-sdk
sysroot=$sdk/share/wasi-sysroot
mkdir -p "$sdk/bin" "$sysroot/include" "$sysroot/lib" "$sysroot/lib/pkgconfig"
cp -a /usr/include/wasm32-wasi "$sysroot/include/"
cp -a /usr/lib/wasm32-wasi "$sysroot/lib/"
cat >"$sdk/bin/clang" <<EOF
#!/bin/sh
exec clang-16 --target=wasm32-wasi --sysroot=$sysroot "\$@"
EOF
cat >"$sdk/bin/clang++" <<EOF
#!/bin/sh
exec clang++-16 --target=wasm32-wasi --sysroot=$sysroot "\$@"
EOF
cat >"$sdk/bin/clang-cpp" <<EOF
#!/bin/sh
exec clang-16 --target=wasm32-wasi --sysroot=$sysroot -E "\$@"
EOF
chmod +x "$sdk/bin/clang" "$sdk/bin/clang++" "$sdk/bin/clang-cpp"
ln -s "$(command -v wasm-ld-16)" "$sdk/bin/wasm-ld"
ln -s "$(command -v llvm-ar-16)" "$sdk/bin/llvm-ar"
ln -s "$(command -v llvm-ranlib-16)" "$sdk/bin/ranlib"

echo "== zlib"
cd "$work/src/zlib"
CC="$sdk/bin/clang" AR="$sdk/bin/llvm-ar" RANLIB="$sdk/bin/ranlib" CHOST=wasm32-wasi \
	CFLAGS="-O2" ./configure --static --prefix=/ >/dev/null
make -j"$jobs" libz.a >/dev/null
cp libz.a "$sysroot/lib/wasm32-wasi/"
cp zlib.h zconf.h "$sysroot/include/wasm32-wasi/"
cat >"$sysroot/lib/pkgconfig/zlib.pc" <<EOF
Name: zlib
Description: zlib compression library (wasm32-wasi)
Version: ${zver%%.dfsg*}
Libs: -lz
Cflags:
EOF
sed -i 's/^Version: 1:/Version: /' "$sysroot/lib/pkgconfig/zlib.pc"

echo "== native build Python"
mkdir -p "$src/builddir/build"
cd "$src/builddir/build"
../../configure -C >configure.log 2>&1
make -j"$jobs" >make.log 2>&1
native=$src/builddir/build/python

echo "== wasm32-wasi Python"
mkdir -p "$src/builddir/wasi"
cd "$src/builddir/wasi"
{ cat "$src/Tools/wasm/config.site-wasm32-wasi"; echo "$config_site_extra"; } >config.site
CONFIG_SITE=$(pwd)/config.site \
	CFLAGS="-Wno-error=int-conversion -Wno-error=incompatible-function-pointer-types" \
	WASI_SDK_PATH=$sdk \
	"$src/Tools/wasm/wasi-env" ../../configure -C \
	--host=wasm32-unknown-wasi --build="$(../../config.guess)" \
	--with-build-python="$native" >configure.log 2>&1
grep -q '^#define HAVE_ZLIB_COPY 1' pyconfig.h || echo "warning: zlib not detected" >&2
make -j"$jobs" >make.log 2>&1
make wasm_stdlib >stdlib.log 2>&1

echo "== outputs"
llvm-strip-16 --strip-debug python.wasm -o "$here/python.wasm"
# Rewrite the stdlib zip with stored (uncompressed) members: imports are
# faster and the zip compresses well in git anyway.
"$native" - usr/local/lib/python311.zip "$here/python311.zip" <<'EOF'
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
    for info in zin.infolist():
        out = zipfile.ZipInfo(info.filename, info.date_time)
        out.external_attr = info.external_attr
        zout.writestr(out, zin.read(info), zipfile.ZIP_STORED)
EOF

pkgver() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo unknown; }
cat >"$here/VERSIONS" <<EOF
# Written by build.sh; do not edit. build.sh --check compares this file.
python3.11_source=$pyver (Debian bookworm; $patched security/bug-fix patches applied)
zlib_source=$zver
wasi-libc=$(pkgver wasi-libc)
clang-16=$(pkgver clang-16)
lld-16=$(pkgver lld-16)
llvm-16=$(pkgver llvm-16)
libclang-rt-16-dev-wasm32=$(pkgver libclang-rt-16-dev-wasm32)
recipe_sha256=$recipe
python.wasm_sha256=$(sha "$here/python.wasm")
python.wasm_bytes=$(stat -c %s "$here/python.wasm")
python311.zip_sha256=$(sha "$here/python311.zip")
python311.zip_bytes=$(stat -c %s "$here/python311.zip")
EOF
echo "cpython: built in $(($(date +%s) - start)) s"
cat "$here/VERSIONS"
