# Focal: the two commands a newcomer needs are `make serve` and `make test` (the README's Quick
# start); each installs what is missing (Debian packages, model files, fixture photos) before it builds.
SWIFT ?= swift
# scripts/setup.sh deps writes openvino.pc here (OpenVINO's C API, unpacked from its pinned PyPI
# wheel). The package manifest itself stays free of unsafe flags.
export PKG_CONFIG_PATH := $(CURDIR)/.cache/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
# The Python tools are the package scripts/focalscripts (scripts/README.md), run as
# `python3 -m focalscripts.NAME`; the tests that use it (Tests/cluster, MeasuredRun) find it here too.
export PYTHONPATH := $(CURDIR)/scripts$(if $(PYTHONPATH),:$(PYTHONPATH))
# OpenVINO's libraries (scripts/setup.sh deps unpacks them from the pinned wheel): the binaries
# find them in the checkout, or once installed in lib/focal beside bin/ (`make install`).
OPENVINO_LIB := $(CURDIR)/.cache/openvino/current/lib
OPENVINO_LIBS := libopenvino_c.so.2641 libopenvino.so.2641 libopenvino_intel_cpu_plugin.so \
	libopenvino_onnx_frontend.so.2641 libopenvino_ir_frontend.so.2641 libtbb.so.12
# An installed binary's own lib/focal comes first, so that it never uses the checkout's copy.
LINK := -Xlinker -rpath -Xlinker \$$ORIGIN/../lib/focal -Xlinker -rpath -Xlinker $(OPENVINO_LIB)
EVAL ?= ../shared/eval/dev
DEMO_ASPECTS := 1:1 16:9 4:5 9:16

.PHONY: all deps test-deps models fixtures build release demo serve test test-browser check-links eval stress eval-stress check-redaction bench bench-formats package-element check-element \
	bench-serve output-digests client-tests compare-filters cluster test-cluster bench-cluster clean corpus fuzz fuzz-ci fuzz-build fuzz-mutate \
	bench-lock bench-abuse bench-build lint readme-options generated man install uninstall test-install docs

all: build

deps:
	@scripts/setup.sh deps

# What the tests need besides (a PostgreSQL server for the stores' and the database fault tests).
test-deps:
	@scripts/setup.sh test-deps

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

# The service on the sample photos: open http://127.0.0.1:8080/ for the gallery, or an image URL
# such as http://127.0.0.1:8080/unsafe/400x400/smart/astronaut.png. HOST, PORT and SERVE_FLAGS
# change it (FOCAL_* variables too: see `focal serve --help`).
HOST ?= 127.0.0.1
PORT ?= 8080
SERVE_FLAGS ?=
# scripts/serve.sh: a debug build first, with the models and photos set up beside it, then the
# server; the release builds beside it and takes over when done. Each step prints its seconds.
serve:
	@SWIFT="$(SWIFT)" LINK="$(LINK)" scripts/serve.sh --host $(HOST) --port $(PORT) --root Fixtures --allow-unsafe \
		--data .cache/serve-data $(SERVE_FLAGS)

# The loopback network tests and the object store's (STORE_TESTS) check that timeouts, retries and
# refusals come promptly, the deadline tests that
# a slow decode stops soon after its deadline, the abuse tests that
# focal serve refuses and bounds what hostile clients do (deadlines of a second or two), and the
# corpus tests bound each hostile input's time; each runs in a process of its own so that the
# CPU-heavy suites cannot delay their clocks. The libvips leak tests count objects process-wide:
# they run alone too, so that no other suite's images are counted.
# Before the tests, one `focal detect` of a square, a landscape and a portrait photo at both
# accuracies compiles every model the tests use into the compiled-model cache they read
# (~/.cache/focal/compiled-models), with their settings (one inference thread each): on a cold
# cache, dozens of tests at once would otherwise wait on the one loader thread for tens of seconds.
# OrphanedServersTests (the reaper of test servers a killed run left) runs with them, away from
# the main run's hundreds of child processes and their signals (there it missed its orphan in CI).
# BucketRootTests (a 10,000-key bucket filled by 8 writers) runs in a process of its own after
# them: beside it, a loaded SeaweedFS of another suite answered a PUT 500 past every retry.
STORE_TESTS = S3RetryTests|S3StoreTests|BucketRootTests|OrphanedServersTests
STORE_FIRST = S3RetryTests|S3StoreTests|OrphanedServersTests
test: models fixtures corpus test-deps
	$(SWIFT) build --build-tests $(LINK)
	for accuracy in fast accurate; do FOCAL_MODEL_CACHE="$$HOME/.cache/focal/compiled-models" .build/debug/focal detect \
		--accuracy $$accuracy Fixtures/astronaut.png Fixtures/chelsea.png Fixtures/grace_hopper.jpg > /dev/null || exit 1; done
	VIPS_LEAK=1 $(SWIFT) test --skip-build --skip NetworkTests --skip CorpusTests --skip AbuseTests --skip LeakTests --skip DeadlineTests \
		--skip "$(STORE_TESTS)"
	VIPS_LEAK=1 $(SWIFT) test --skip-build --filter "$(STORE_FIRST)"
	VIPS_LEAK=1 $(SWIFT) test --skip-build --filter BucketRootTests
	VIPS_LEAK=1 $(SWIFT) test --skip-build --filter LeakTests
	VIPS_LEAK=1 $(SWIFT) test --skip-build --filter DeadlineTests
	VIPS_LEAK=1 $(SWIFT) test --skip-build --filter NetworkTests
	VIPS_LEAK=1 $(SWIFT) test --skip-build --filter AbuseTests
	VIPS_LEAK=1 $(SWIFT) test --skip-build --filter CorpusTests

# The web page and <focal-img> in headless Chromium (Debian's chromium, chromium-driver and
# python3-selenium, installed by scripts/browser-test.sh when missing) against a live `focal serve`
# on a free loopback port.
# BROWSER_FLAGS="-k editor -v" picks tests. Screenshots go to .cache/screenshots/.
test-browser: models fixtures
	@LINK="$(LINK)" SWIFT="$(SWIFT)" scripts/browser-test.sh $(BROWSER_FLAGS)

# The code's style as it stands, checked without rewriting anything: swift format lint
# (.swift-format) over Sources, Tests, Fuzz and Benchmarks, clang-format --dry-run --Werror
# (.clang-format) over the C and C++ shims, and the Python (scripts/, Tests/) compiled, the
# focalscripts modules imported. scripts/lint.sh lists what it sets aside and why.
lint: deps
	@scripts/lint.sh

# Every relative link and anchor of the repository's Markdown resolves (scripts/focalscripts/links.py).
check-links:
	@cd scripts && python3 -m focalscripts.links

# The library's DocC reference (Sources/Focal/Focal.docc and the doc comments), built by
# swift-docc-plugin with warnings as errors into .build/docs/Focal.doccarchive, browsable from any
# static file server at documentation/focal/ (DOCS_BASE_PATH=/focal when served under /focal/).
# Its symbol graph holds the types `import Focal` re-exports too (scripts/symbolgraph-extract.sh).
DOCS_BASE_PATH ?=
docs: deps
	@mkdir -p .build/docs
	SWIFT=$(SWIFT) SWIFT_SYMBOLGRAPH_EXTRACT=$(CURDIR)/scripts/symbolgraph-extract.sh $(SWIFT) package \
		--allow-writing-to-directory .build/docs generate-documentation --target Focal --warnings-as-errors \
		--transform-for-static-hosting $(if $(DOCS_BASE_PATH),--hosting-base-path $(DOCS_BASE_PATH)) \
		--output-path .build/docs/Focal.doccarchive

# The generated parts of checked-in files, from the code's tables (GeneratedRegion): the crop option,
# URL filter and object class tables of docs/options.md and docs/url.md, the table of errors of
# docs/http-api.md, and the web page's option, format and kind tables. A test fails when one is
# stale.
generated: build
	.build/debug/focal options --write-generated .

readme-options: generated

eval: models build
	.build/debug/focal eval $(EVAL)

# The pet stress set: hard views (tight, cut, hidden, tiny, far) of the dev photos' cats and dogs;
# the small-face stress set: the dev photos' faces shrunk (x0.5, x0.35, x0.25) and far in a frame.
stress: deps
	python3 -m focalscripts.stress_set $(EVAL) .cache/stress
	python3 -m focalscripts.face_stress_set $(EVAL) .cache/stress-faces

eval-stress: models build stress
	.build/debug/focal eval .cache/stress
	.build/debug/focal eval .cache/stress-faces

# Redaction against Focal's own detector, both sides: redact(pixelate) and redact(blur) on the
# development photos and both stress sets, then every labelled face still found (whole, and in
# tiles at twice the scale) is counted, and the change away from the labelled faces is measured
# per photo (the worst printed); then the smallest faces hidden in a 3000x2000 photo and the cost
# per frame of redacting an animation. Exits 1 when a face is still found, a photo with faces
# changes by more than 2 of 255 away from them, or one without faces changes at all (about 30
# minutes with the release build).
check-redaction: models release stress
	FOCAL_BIN=.build/release/focal python3 -m focalscripts.redaction_check --animation --smallest $(EVAL) .cache/stress-faces .cache/stress

# The release build with the benchmark executables (FOCAL_BENCH=1 adds them to the package; no
# other build has them): focal and focal-bench in .build/release.
bench-build: deps
	FOCAL_BENCH=1 $(SWIFT) build -c release $(LINK)

# BENCH_FLAGS=--quick for a smoke run (2 runs, 1 round); --runs N, --rounds N.
BENCH_FLAGS ?=
bench: models fixtures bench-build
	python3 -m focalscripts.bench $(BENCH_FLAGS)

# The <focal-img> package folder (.build/package/focal-img: the script and stylesheet as served,
# TypeScript declarations, package.json); check-element also compiles packages/focal-img/check.ts
# against the declarations with Debian's tsc and compares them with the module's exports.
package-element: models build
	scripts/package-element.sh

check-element: models build
	scripts/package-element.sh --check

# Bytes, encode time and fidelity (SSIM) per megapixel of JPEG, WebP and AVIF at several settings,
# side by side (libvips's own savers, as Focal calls them); BENCH_FORMATS_FLAGS=--photos 4 for a short run.
BENCH_FORMATS_FLAGS ?=
bench-formats: fixtures
	python3 -m focalscripts.bench_formats $(BENCH_FORMATS_FLAGS)

# `focal serve` against thumbor 7.8 (installed into .cache/thumbor-venv by scripts/thumbor-env.sh),
# both on loopback, driven by wrk; BENCH_SERVE_FLAGS=--quick for a short run.
bench-serve: models fixtures release
	@scripts/setup.sh seaweedfs
	python3 -m focalscripts.bench_serve $(BENCH_SERVE_FLAGS)

# The SHA-256 of `focal serve`'s answers to a fixed corpus of URLs (every effect, overlay,
# redaction, animation and format); OUTPUT_DIGESTS_FLAGS="--before OTHER/.build/release/focal"
# compares another build's, byte for byte (a refactor's proof that no output changed).
output-digests: models fixtures release
	python3 -m focalscripts.output_digests $(OUTPUT_DIGESTS_FLAGS)

# `focal serve` under hostile load on loopback (URL and file floods, stalled and drip bodies, idle
# connections at the fd limit, unknown ids, SIGTERM mid-answer) beside a well-behaved client; runs
# .build/release/focal, else .build/debug/focal (FOCAL_BIN picks another). BENCH_ABUSE_FLAGS=--quick
# for a short run, --only NAME,... for some attacks.
bench-abuse: models fixtures
	python3 -m focalscripts.bench_abuse $(BENCH_ABUSE_FLAGS)

# thumbor 7.8 (.cache/thumbor-venv, scripts/thumbor-env.sh) and `focal serve` on the same photos
# and URLs, filter by filter: the same sizes and pixels, or the reason they differ; then the
# compatibility vectors (focalscripts/thumbor_vectors.py): every URL thumbor serves, Focal serves
# at its size.
compare-filters: models fixtures build
	python3 -m focalscripts.filter_compare

# libthumbor's signed URLs against a live `focal serve` (scripts/client-tests.sh thumbor: thumbor).
client-tests: models fixtures build
	scripts/client-tests.sh

# Varnish in front of three `focal serve` replicas sharing PostgreSQL, all on loopback, until Ctrl-C
# (scripts/cluster.sh installs varnish, varnish-modules, postgresql and wrk when missing). The page is
# http://127.0.0.1:8080/; CLUSTER_FLAGS passes options (e.g. --port 9000 --replicas 2 --auto-webp).
CLUSTER_FLAGS ?=
cluster: models fixtures release
	scripts/cluster.sh run $(CLUSTER_FLAGS)

# The VCL alone (varnishd -C, its regex, varnishtest scripts), the systemd units, then the live cluster: cache hits,
# sharding, saved crops through every replica, a replica killed and restarted under wrk load.
test-cluster: models fixtures build
	scripts/cluster.sh deps
	@echo "test-cluster: replicas run .build/debug/focal (FOCAL_BIN chooses another)"
	python3 -m unittest discover -s Tests/cluster -p 'test_vcl.py' -v
	python3 -m unittest discover -s Tests/cluster -p 'test_systemd.py' -v
	FOCAL_BIN=$${FOCAL_BIN:-$(CURDIR)/.build/debug/focal} python3 -m unittest discover -s Tests/cluster -p 'test_cluster.py' -v

# Requests/s through Varnish for 1, 2 and 3 replicas, cold and cached, and memory per replica;
# BENCH_CLUSTER_FLAGS=--quick for a short run.
BENCH_CLUSTER_FLAGS ?=
bench-cluster: models fixtures release
	scripts/cluster.sh deps
	python3 -m focalscripts.bench_cluster $(BENCH_CLUSTER_FLAGS)

# The hostile-input corpus the corpus tests run (.cache/corpus/, rebuilt only when its recipe changes).
corpus: fixtures
	@python3 -m focalscripts.corpus

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
# SWIFT_BACKTRACE=enable=no: Swift's crash backtracer reads memory AddressSanitizer reports as an
# overflow, which would hide the finding under a second report.
fuzz: corpus fuzz-build
	@mkdir -p .cache/fuzz-corpus .cache/fuzz-crashes
	G_SLICE=always-malloc SWIFT_BACKTRACE=enable=no $(FUZZ) .cache/fuzz-corpus .cache/corpus -max_total_time=$(FUZZ_SECONDS) \
		-max_len=$(FUZZ_MAX_LEN) -rss_limit_mb=3072 -timeout=60 -report_slow_units=30 -artifact_prefix=.cache/fuzz-crashes/ -print_final_stats=1

# The short run CI makes (a minute of fuzzing after the build): a regression fails it.
fuzz-ci:
	$(MAKE) fuzz FUZZ_SECONDS=60

# Byte mutations of the corpus and the fixtures through the focal command, one process per
# input: how many ran, errors by code, the slowest, the peak memory (MUTATIONS, default 400).
MUTATIONS ?= 400
fuzz-mutate: corpus build
	python3 -m focalscripts.mutate --count $(MUTATIONS)

# The shim's reader-writer lock against a plain mutex around every libvips call, side by side.
bench-lock: deps corpus
	scripts/lockbench.sh

# The manual page, focal.1 in .build-man/, made by swift-argument-parser's generate-manual tool
# (offline: built from the checked-out package) from the release build's own
# description of its commands (--experimental-dump-help), so it cannot drift from `focal --help`.
# One page for all subcommands; dated by the last commit, so that a rebuild gives the same page.
# A blank line in a command's discussion becomes .Pp (mdoc warns on empty lines).
MAN_OUT := .build-man
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null)
# swift-argument-parser's generate-manual tool, run directly: its `swift package plugin` front
# rebuilds .build/release with a build description of its own (without LINK), leaving a focal
# that cannot find OpenVINO, and SwiftPM then believes that binary is up to date.
man: release
	$(SWIFT) build -c release $(LINK) --product generate-manual
	@mkdir -p $(MAN_OUT)/raw
	rm -f $(MAN_OUT)/raw/focal.1
	.build/release/generate-manual .build/release/focal $(if $(MAN_DATE),--date $(MAN_DATE)) --output-directory $(MAN_OUT)/raw
	sed 's/^$$/.Pp/' $(MAN_OUT)/raw/focal.1 > $(MAN_OUT)/focal.1

# `make install PREFIX=/opt/focal DESTDIR=/tmp/stage` (PREFIX defaults to /usr/local):
#   bin/focal, and beside it Focal_FocalServer.resources/ (the web page's files: the server finds
#     them through Bundle.module, which looks beside the executable);
#   lib/focal/ (OpenVINO's six libraries: the binary's rpath $ORIGIN/../lib/focal finds them);
#   share/focal/models/ (the three files the detectors load; focal finds them there with no flag);
#   lib/systemd/system/focal@.service (its /usr/local paths changed to PREFIX);
#   share/bash-completion/completions/focal, share/zsh/site-functions/_focal,
#   share/fish/vendor_completions.d/focal.fish (generated by focal itself);
#   share/man/man1/focal.1 (make man).
# `make uninstall` with the same PREFIX and DESTDIR removes exactly these.
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_ROOT = $(DESTDIR)$(PREFIX)
INSTALL_MODELS := $(if $(FOCAL_MODELS),$(FOCAL_MODELS),models)
# What FaceDetector.modelFiles and ObjectDetector.modelFile/int8ModelFile/headsFile name (scripts/setup.sh
# models also keeps the files they are made from, and coco.names: focal reads none of them).
MODEL_FILES := $(foreach size,512x384 512x512 384x512 1280x960 1280x1280 960x1280,yunet-2023mar-$(size).onnx) \
	yolov4-tiny-288.onnx yolov4-tiny-288-int8.xml yolov4-tiny-288-int8.bin yolov4-tiny.heads.json
RESOURCES := Focal_FocalServer.resources
BASH_COMPLETION := share/bash-completion/completions/focal
ZSH_COMPLETION := share/zsh/site-functions/_focal
FISH_COMPLETION := share/fish/vendor_completions.d/focal.fish
UNIT := lib/systemd/system/focal@.service

install: models release man
	install -d $(INSTALL_ROOT)/bin $(INSTALL_ROOT)/lib/focal $(INSTALL_ROOT)/share/focal/models $(INSTALL_ROOT)/lib/systemd/system \
		$(INSTALL_ROOT)/share/man/man1 $(dir $(INSTALL_ROOT)/$(BASH_COMPLETION)) \
		$(dir $(INSTALL_ROOT)/$(ZSH_COMPLETION)) $(dir $(INSTALL_ROOT)/$(FISH_COMPLETION))
	install -m 755 .build/release/focal $(INSTALL_ROOT)/bin/focal
	install -m 755 $(addprefix $(OPENVINO_LIB)/,$(OPENVINO_LIBS)) $(INSTALL_ROOT)/lib/focal/
	rm -rf $(INSTALL_ROOT)/bin/$(RESOURCES)
	cp -R .build/release/$(RESOURCES) $(INSTALL_ROOT)/bin/$(RESOURCES)
	chmod -R u=rwX,go=rX $(INSTALL_ROOT)/bin/$(RESOURCES)
	install -m 644 $(addprefix $(INSTALL_MODELS)/,$(MODEL_FILES)) $(INSTALL_ROOT)/share/focal/models/
	sed 's|/usr/local/|$(PREFIX)/|g' deploy/systemd/focal@.service > $(INSTALL_ROOT)/$(UNIT)
	chmod 644 $(INSTALL_ROOT)/$(UNIT)
	.build/release/focal --generate-completion-script bash > $(INSTALL_ROOT)/$(BASH_COMPLETION)
	.build/release/focal --generate-completion-script zsh > $(INSTALL_ROOT)/$(ZSH_COMPLETION)
	.build/release/focal --generate-completion-script fish > $(INSTALL_ROOT)/$(FISH_COMPLETION)
	chmod 644 $(INSTALL_ROOT)/$(BASH_COMPLETION) $(INSTALL_ROOT)/$(ZSH_COMPLETION) $(INSTALL_ROOT)/$(FISH_COMPLETION)
	install -m 644 $(MAN_OUT)/focal.1 $(INSTALL_ROOT)/share/man/man1/focal.1

# Shared folders (bin, share/man/man1...) stay; Focal's own (share/focal) go when empty.
uninstall:
	rm -f $(INSTALL_ROOT)/bin/focal
	rm -f $(addprefix $(INSTALL_ROOT)/lib/focal/,$(OPENVINO_LIBS))
	rmdir $(INSTALL_ROOT)/lib/focal 2>/dev/null || true
	rm -rf $(INSTALL_ROOT)/bin/$(RESOURCES)
	rm -f $(addprefix $(INSTALL_ROOT)/share/focal/models/,$(MODEL_FILES))
	rmdir $(INSTALL_ROOT)/share/focal/models $(INSTALL_ROOT)/share/focal 2>/dev/null || true
	rm -f $(INSTALL_ROOT)/$(UNIT)
	rm -f $(INSTALL_ROOT)/$(BASH_COMPLETION) $(INSTALL_ROOT)/$(ZSH_COMPLETION) $(INSTALL_ROOT)/$(FISH_COMPLETION)
	rm -f $(INSTALL_ROOT)/share/man/man1/focal.1

# Installs into a temporary prefix and checks the result from another folder: a crop with no
# --models, --version, the bash completion, the manual page, the web page's files; then uninstalls
# and checks that no file is left.
test-install: models fixtures release man
	scripts/test-install.sh

clean:
	rm -rf .build .build-fuzz .build-man out
