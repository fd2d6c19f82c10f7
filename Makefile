# kiln's entry points. `make flame` profiles the bundled example workload and
# writes flame.svg; `make test` builds kiln twice (normal, and ASan+UBSan) and
# runs every test in both. Each installs its Debian packages first if missing.
# `make fuzz` runs each libFuzzer target for FUZZ_SECONDS (clang, build-fuzz).
# `make install` (PREFIX=/usr/local, DESTDIR for staging) installs kiln, a man
# page per command and bash and zsh completion, generated from kiln's option
# tables (kiln --man NAME, kiln --completion bash|zsh).
BUILD ?= build
PREFIX ?= /usr/local
DESTDIR ?=
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= perfdata elf kallsyms event cfi dwarf_expr unwind maps scripttext sanitize folded perfmap jitdump unpack tracefmt dwarf_line dwarf_die disasm
JOBS ?= 2
CMAKE_FLAGS ?=
ifeq ($(WERROR),1)
CMAKE_FLAGS += -DKILN_WERROR=ON
endif

.PHONY: all deps build install flame test test-normal test-asan fuzz clean

all: build

deps:
	@tools/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)

# An existing build directory is built as configured; otherwise `make build` first.
install:
	@test -f $(BUILD)/CMakeCache.txt || $(MAKE) build
	cmake --build $(BUILD) -j$(JOBS)
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

flame: build
	$(BUILD)/kiln flame -F 999 -i $(BUILD)/example.perf.data -o flame.svg \
		--title "burn: the bundled example workload" -- $(BUILD)/examples/burn 2

test: test-normal test-asan

test-normal: build
	cd $(BUILD) && ctest --output-on-failure

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DKILN_SANITIZE=address,undefined $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure

# libFuzzer with ASan+UBSan, one target at a time; the corpus replay without
# libFuzzer (fuzz_replay_*) is part of `make test`.
fuzz:
	@tools/install-deps.sh clang libclang-rt-14-dev
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DKILN_FUZZ=ON -DKILN_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j$(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
