#!/usr/bin/env bash
# Installs what roam needs to build and test, from the distribution, when it
# is missing. Says clearly what it could not install; never fails silently.
set -u
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v g++ >/dev/null 2>&1 || need+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
[ -f /usr/include/gmock/gmock.h ] || need+=(libgmock-dev)
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
# pkg-config, with which a packaging test builds a program from roam.pc;
# dpkg-deb (dpkg) unpacks the Debian package another builds.
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v dpkg-deb >/dev/null 2>&1 || need+=(dpkg)
# METIS, which the communication-aware load balancing strategy partitions with.
[ -f /usr/include/metis.h ] || need+=(libmetis-dev)
# Chart.js, which roam-trace inlines into its HTML report (the trace tests write one).
[ -f /usr/share/javascript/chart.js/chart.min.js ] || need+=(libjs-chart.js)
# Optional: OpenMPI for the mpi transport. Its absence is reported, not fatal.
optional=()
# What each library and application declares in its folder's `packages`
# file: "<required|optional|bench> <package> <file or command that shows it>";
# `bench` packages (a benchmark's anchors) only with --bench.
root="$(cd "$(dirname "$0")/.." && pwd)"
with_bench=0
[ "${1:-}" = "--bench" ] && with_bench=1
for list in "$root"/libs/*/packages "$root"/apps/*/packages; do
  [ -f "$list" ] || continue
  while read -r kind pkg probe _; do
    case "$kind" in required|optional) ;; bench) [ $with_bench = 1 ] || continue ;; *) continue ;; esac
    if [ -e "$probe" ] || command -v "$probe" >/dev/null 2>&1; then continue; fi
    if [ "$kind" = required ]; then need+=("$pkg"); else optional+=("$pkg"); fi
  done < "$list"
done
command -v mpicxx >/dev/null 2>&1 || optional+=(openmpi-bin libopenmpi-dev)
# Optional: libzstd for compressed traces (+tracezstd); Chromium, in which a
# test opens roam-trace's HTML report (headless).
[ -f /usr/include/zstd.h ] || optional+=(libzstd-dev)
command -v chromium >/dev/null 2>&1 || optional+=(chromium)
# Optional: lld, which links roam's programs 6x faster than GNU ld (gold, then
# GNU ld, otherwise).
command -v ld.lld >/dev/null 2>&1 || optional+=(lld)
# Optional: ccache, through which CMake compiles when it is present (a rebuild
# of unchanged files comes from its cache; never needed for a correct build).
command -v ccache >/dev/null 2>&1 || optional+=(ccache)
if [ ${#optional[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "roam: installing optional packages (${optional[*]}): OpenMPI for the mpi transport, zstd for compressed traces, Chromium for the trace report test, lld for faster links, ccache for faster rebuilds"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${optional[@]}" >/dev/null; }; then
      # One failing package must not keep the others out: try each alone.
      for pkg in "${optional[@]}"; do
        apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null ||
          echo "roam: WARNING: could not install $pkg; configuring reports what is left out" >&2
      done
    fi
  else
    echo "roam: WARNING: ${optional[*]} missing and cannot be installed here (needs root and apt-get);" \
         "configuring reports what is left out" >&2
  fi
fi
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "roam: installing missing build dependencies: ${need[*]}"
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "roam: cannot install ${need[*]} (needs root and apt-get); install them and retry" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq "${need[@]}" >/dev/null
status=$?
if [ $status -ne 0 ]; then
  echo "roam: apt-get failed to install ${need[*]}" >&2
  exit 1
fi
