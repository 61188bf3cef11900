# Convenience wrapper around the CMake presets. `make demo` and `make test`
# are the two commands the README promises work on a fresh machine.
JOBS ?= 2
DEMO_ARGS ?= 11

.PHONY: deps demo test test-asan test-tsan bench clean

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

clean:
	rm -rf build
