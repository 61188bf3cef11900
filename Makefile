# Convenience wrapper around the CMake presets. `make demo` and `make test`
# are the two commands the README promises work on a fresh machine.
JOBS ?= 2
# LeanMD on all cores: 4x4x4 cells of 100 to 500 atoms (an imbalanced box),
# 400 steps, GreedyRefine every 100 steps; 15-20 s on 2 cores.
DEMO_ARGS ?= 4 4 4 400 --atoms 100:500 --print-every 25 +balancer GreedyRefine --lb-period 100

.PHONY: deps demo test test-asan test-debug test-tsan bench bench-compare package install clean

deps:
	@scripts/install-deps.sh

demo: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target leanmd
	./build/release/apps/leanmd/leanmd $(DEMO_ARGS)

# Every test, built with AddressSanitizer+UBSan (and libstdc++'s assertions):
# the one suite that runs everything, compile-fail, layer and packaging checks
# included. `make test-tsan` runs it under ThreadSanitizer; `make test-debug`
# in a plain debug build (for gdb).
test: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan

test-asan: test

test-debug: deps
	cmake --preset debug >/dev/null
	cmake --build --preset debug -j $(JOBS)
	ctest --preset debug

test-tsan: deps
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan

bench: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target roam-bench
	./build/release/bench/roam-bench all +p1
	./build/release/bench/roam-bench all +p2

# Regression guard: roam-bench of BASE against HEAD (default: the current
# commit; WORKTREE: uncommitted changes), run alternately on the same cores.
# More options through BENCH_COMPARE_ARGS, e.g. "--bench coll --pes 2".
HEAD ?= HEAD
bench-compare: deps
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<revision> [HEAD=<revision>|WORKTREE] [BENCH_COMPARE_ARGS=...]" >&2; exit 2; }
	scripts/bench-compare --jobs $(JOBS) $(BENCH_COMPARE_ARGS) $(BASE) $(HEAD)

# The Debian package libroam-dev (build/package/libroam-dev_<version>_<arch>.deb):
# a release build of the libraries and tools only. docs/packaging.md.
package: deps
	cmake --preset package >/dev/null
	cmake --build --preset package -j $(JOBS)
	cd build/package && cpack -G DEB

# Installs the same under PREFIX (default /usr/local).
PREFIX ?= /usr/local
install: deps
	cmake --preset package >/dev/null
	cmake --build --preset package -j $(JOBS)
	cmake --install build/package --prefix $(PREFIX) --strip

clean:
	rm -rf build
