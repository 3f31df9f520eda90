# Focal: the two commands a newcomer needs are `make demo` and `make test`; each installs what is
# missing (Debian packages, model files, fixture photos) before it builds.
SWIFT ?= swift
# scripts/setup.sh deps writes a lean opencv4.pc here that links only the three OpenCV libraries
# Focal calls (Debian's links all 55: start-up 0.35 s instead of 0.1 s). The package manifest
# itself stays free of unsafe flags, so packages that depend on Focal use the system's file.
export PKG_CONFIG_PATH := $(CURDIR)/.cache/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
LINK :=
EVAL ?= ../shared/eval/dev
DEMO_ASPECTS := 1:1 16:9 4:5 9:16

.PHONY: all deps models fixtures build release demo test eval bench clean corpus fuzz fuzz-ci fuzz-build fuzz-mutate bench-lock

all: build

deps:
	@scripts/setup.sh deps

models: deps
	@scripts/setup.sh models

fixtures: deps
	@scripts/setup.sh fixtures

build: deps
	$(SWIFT) build $(LINK)

release: deps
	$(SWIFT) build -c release $(LINK)

demo: models fixtures build
	@rm -rf out && mkdir -p out
	@for a in $(DEMO_ASPECTS); do \
		d=out/$$(echo $$a | tr : x); \
		.build/debug/focal crop Fixtures --aspect $$a -o $$d --debug || exit 1; \
	done
	@echo
	@echo "Crops and debug overlays (*.debug.png) are in out/<aspect>/, e.g. out/16x9/astronaut.debug.png"

# The loopback network tests check that timeouts and refusals come promptly, and the corpus tests
# bound each hostile input's time; each runs in a process of its own so that the CPU-heavy suites
# cannot delay their clocks.
test: models fixtures corpus
	$(SWIFT) build --build-tests $(LINK)
	VIPS_LEAK=1 $(SWIFT) test --skip-build --skip NetworkTests --skip CorpusTests
	VIPS_LEAK=1 $(SWIFT) test --skip-build --filter NetworkTests
	VIPS_LEAK=1 $(SWIFT) test --skip-build --filter CorpusTests

eval: models build
	.build/debug/focal eval $(EVAL)

bench: models fixtures release
	python3 scripts/bench.py

# The hostile-input corpus the corpus tests run (.cache/corpus/, rebuilt only when its recipe changes).
corpus: fixtures
	@python3 scripts/corpus.py

# Coverage-guided fuzzing of "bytes in, crop out" with libFuzzer and AddressSanitizer, in a build of
# its own (.build-fuzz; FOCAL_FUZZ=1 adds the target to the package). Seeded from the corpus; the
# inputs it keeps go to .cache/fuzz-corpus/, crashes to .cache/fuzz-crashes/. FUZZ_SECONDS (600)
# bounds the run; FUZZ_MAX_LEN (256 KiB) the inputs it makes; a crash stops it with exit code 1.
FUZZ_SECONDS ?= 600
FUZZ_MAX_LEN ?= 262144
FUZZ_FLAGS := -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address
FUZZ := .build-fuzz/release/focal-fuzz

fuzz-build: deps
	FOCAL_FUZZ=1 $(SWIFT) build -c release --scratch-path .build-fuzz --product focal-fuzz $(FUZZ_FLAGS)

# G_SLICE=always-malloc: GLib 2.74's slice allocator keeps per-thread caches that LeakSanitizer
# cannot see once a libvips worker thread holds one (reported as a 2 KB leak now and then).
fuzz: corpus fuzz-build
	@mkdir -p .cache/fuzz-corpus .cache/fuzz-crashes
	G_SLICE=always-malloc $(FUZZ) .cache/fuzz-corpus .cache/corpus -max_total_time=$(FUZZ_SECONDS) \
		-max_len=$(FUZZ_MAX_LEN) -rss_limit_mb=3072 -timeout=60 -report_slow_units=30 -artifact_prefix=.cache/fuzz-crashes/ -print_final_stats=1

# The short run CI makes (about two minutes of fuzzing after the build): a regression fails it.
fuzz-ci:
	$(MAKE) fuzz FUZZ_SECONDS=120

# Byte mutations of the corpus and the fixtures through the focal command, one process per
# input: how many ran, errors by code, the slowest, the peak memory (MUTATIONS, default 400).
MUTATIONS ?= 400
fuzz-mutate: corpus build
	python3 scripts/mutate.py --count $(MUTATIONS)

# The shim's reader-writer lock against a plain mutex around every libvips call, side by side.
bench-lock: deps corpus
	scripts/lockbench.sh

clean:
	rm -rf .build .build-fuzz out
