# Convenience wrapper around the CMake presets. `make demo` and `make test`
# are the two commands the README promises work on a fresh machine.
JOBS ?= 2
DEMO_ARGS ?= 11

.PHONY: deps demo test test-asan test-tsan bench bench-compare clean

deps:
	@scripts/install-deps.sh

demo: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target nqueens
	./build/release/examples/nqueens $(DEMO_ARGS)

test: deps
	cmake --preset debug >/dev/null
	cmake --build --preset debug -j $(JOBS)
	ctest --preset debug

test-asan: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan

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

clean:
	rm -rf build
