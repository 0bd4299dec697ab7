# tokenctl — build, test, package and try it.
#   make build   the release binaries in .build/release, the Swift runtime linked in: tokenctl, the
#                command line and the service (`tokenctl serve`, also started by the name
#                tokenctl-serve, a link beside it); tokenctl-sandbox, the simulator and the demo
#                (`tokenctl sandbox` and `tokenctl demo` run it)
#   make format  swift-format over every Swift file (.swift-format); make test fails on unformatted code
#   make test    the format check, the module layout's rules (scripts/check-layout.sh; the build
#                checks each import against the declared dependencies), no new blocking site
#                (scripts/check-concurrency.sh, DESIGN §5's "Nowhere" list), the systemd units offline
#                (scripts/check-units.sh), the whole test suite (installs missing system packages
#                first), the service's API against docs/openapi.yaml (scripts/api-check.sh), every
#                shell block of the docs (scripts/docs-check.sh), 10 s of fuzzing per parser, and,
#                as root, the Debian package built, checked by lintian, installed and purged
#                (scripts/package-test.sh), then make install into a temporary PREFIX and the
#                installed tree tried (scripts/install-test.sh); one line per phase with its seconds. All on the one
#                release build: `make test` after `make build` or `make demo` compiles only the tests
#   make build-tests  every module compiled once (release), the test bundles and tokenctl
#   make suite   the test suite alone, on that build, against a private PostgreSQL
#   make deb     the Debian packages in .build/deb (scripts/make-deb.sh): tokenctl, and
#                tokenctl-sandbox (the simulator and the demo); then lintian on them
#   make stress  100 SIGKILL rounds and the load test (16 × 500 activations + batch + import)
#   make demo    the activation flow on a temporary database and the loopback sandbox, then the
#                example deeplinks through the handler, by the CLI and through tokenctl serve
#   make bench   the performance targets, one table each (cold start, batch, import, memory;
#                `make bench-targets` alone), then PIN login and identity verification figures;
#                make bench-wallet, bench-activation, bench-login, bench-verification,
#                bench-postgres (PostgreSQL next to SQLite), bench-service (tokenctl serve): one set
#   make fuzz    libFuzzer on every parser (deeplink, importers, TMP answer, configuration,
#                onboarding envelope, verification answers, M-Pin points, the service's requests, the
#                transparency log's checkpoints, notes and proofs), FUZZ_SECONDS
#                each (make test runs 10 s each);
#                make fuzz-merge keeps what reached new code in Fuzz/corpus; make fuzz-long runs
#                each target until its executions over all runs reach FUZZ_LONG_GOAL (10 million)
#                or for FUZZ_LONG_SECONDS (600), on a release build of the fuzzers, and sums each
#                target's executions over runs (then make fuzz-merge FUZZ_CONFIGURATION=release)
#   make install the release binaries (tokenctl-sandbox too) and the deeplink handler into $(DESTDIR)$(PREFIX)/bin
#                (PREFIX=/usr/local); a man page per subcommand, bash, zsh and fish completions
#                under $(DESTDIR)$(PREFIX)/share; the systemd units under $(PREFIX)/lib/systemd/system

SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libcurl4-openssl-dev libsqlite3-dev zlib1g-dev pkg-config
# Programs the tests start: curl and python3 as independent clients (python3-cryptography for
# the ECIES reference implementation), script(1) for a terminal, systemd-socket-activate for
# the service's socket activation (systemd also brings systemd-analyze for the units), lintian
# and dpkg-shlibdeps (dpkg-dev) for the package.
TEST_PROGRAMS := curl python3 script openssl systemd-socket-activate lintian dpkg-shlibdeps
BENCH_RECORDS ?= 1000000
BENCH_LINES ?= 20000
BENCH_RSS_LINES ?= 200000
BENCH_JSON ?= .build/bench/targets.json
# One build configuration for everything: the release build that the package ships is the one
# the tests, the demo and the benchmarks run (modules compiled for testable imports). tokenctl
# links the Swift runtime and Foundation statically (Package.swift asks for it at the link
# only); the test bundles link them as shared libraries, as Swift Testing needs.
# Each function and datum in a section of its own, so that the link keeps only what is reached
# (the package 4.6 MB smaller); no debug information (stripped from the package anyway; the
# symbols stay for perf): a faster build.
# Every import is checked against the target's declared dependencies by the build itself.
RELEASE := -c release -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections \
  -Xswiftc -gnone -Xcc -g0 --explicit-target-dependency-import-check error
BUILD_DIR := .build/release
# Both executables: tokenctl runs tokenctl-sandbox for `sandbox` and `demo`.
BUILD_EXECUTABLES = $(SWIFT) build $(RELEASE) --product tokenctl && $(SWIFT) build $(RELEASE) --product tokenctl-sandbox
FUZZ_SECONDS ?= 60
# The fuzzers' build: debug for make test's short runs (it builds in half the time), release
# for fuzz-long (several times the executions a second).
FUZZ_CONFIGURATION ?= debug
# Fuzz targets run side by side, one per core (libFuzzer uses one each).
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
# Each fuzz target: its name, the SwiftPM product (Fuzz/Targets/), and the environment it runs
# with. The products exist only with TOKENCTL_FUZZ=1 (Package.swift) and are built with
# libFuzzer and AddressSanitizer into .build-fuzz (make fuzz-build).
FUZZ_RUNS := \
  deeplink:DeeplinkFuzzer: \
  import-csv:ImportFuzzer:FUZZ_IMPORT_FORMAT=csv \
  import-jsonl:ImportFuzzer:FUZZ_IMPORT_FORMAT=jsonl \
  tmp-answer:TMPAnswerFuzzer: \
  configuration:ConfigurationFuzzer:ASAN_OPTIONS=detect_leaks=0 \
  onboarding-envelope:OnboardingEnvelopeFuzzer: \
  verification-answer:VerificationAnswerFuzzer: \
  mpin-point:MPinPointFuzzer: \
  service-request:ServiceRequestFuzzer: \
  transparency-log:TransparencyLogFuzzer:


.PHONY: format format-check deps build-deps build build-manual build-tests suite package-test deb test stress demo bench bench-targets bench-service bench-postgres bench-tlog bench-wallet bench-login bench-verification bench-activation fuzz fuzz-build fuzz-run fuzz-long fuzz-merge install clean

# The one code style (.swift-format: swift-format, 120 columns). make format rewrites the
# files in place; make format-check (run by make test) fails on any file it would change.
FORMAT_PATHS := Sources Tests Benchmarks Fuzz Package.swift
format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_PATHS)

format-check:
	@$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS) \
	  || { echo "format-check: run make format, then commit what it changed" >&2; exit 1; }
	@echo "format-check: every file is formatted"

# What building needs: the C libraries' development packages (make build, make install).
build-deps:
	@$(MAKE) --no-print-directory deps DEPS_FOR=build

# What testing needs beside them (make test, make bench): the programs the tests start,
# PostgreSQL and the API checker. DEPS_FOR=build asks for the build's packages only.
deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libcurl sqlite3 zlib || missing="$(APT_PACKAGES)"; \
	if [ "$(DEPS_FOR)" = build ]; then \
	  [ -z "$$missing" ] && exit 0; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else \
	    echo "deps: building needs$$missing; as root run: apt-get install$$missing" >&2; exit 1; fi; \
	  echo "deps: installing$$missing"; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null \
	    || { echo "deps: apt-get install$$missing failed" >&2; exit 1; }; \
	  exit 0; \
	fi; \
	for program in $(TEST_PROGRAMS); do command -v $$program >/dev/null 2>&1 || missing="$$missing $$program"; done; \
	missing=$$(echo "$$missing" | sed 's/\bscript\b/bsdutils/; s/\bsystemd-socket-activate\b/systemd/; s/\bdpkg-shlibdeps\b/dpkg-dev/'); \
	python3 -c 'import cryptography' >/dev/null 2>&1 || missing="$$missing python3-cryptography"; \
	[ -x /usr/lib/postgresql/15/bin/initdb ] || missing="$$missing postgresql-15"; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else \
	    echo "deps: missing packages and no sudo; as root run: apt-get install$$missing" >&2; exit 1; fi; \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "deps: no apt-get here; install:$$missing" >&2; exit 1; fi; \
	  case "$$missing" in *postgresql-15*) $$SUDO mkdir -p /etc/postgresql-common/createcluster.d; \
	    echo "create_main_cluster = false" | $$SUDO tee /etc/postgresql-common/createcluster.d/50-tokenctl-no-main.conf >/dev/null;; esac; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null \
	    || { echo "deps: apt-get install$$missing failed" >&2; exit 1; }; \
	fi
	@# The API's document is checked with these (PyPI): openapi-spec-validator and schemathesis.
	@command -v openapi-spec-validator >/dev/null 2>&1 && command -v schemathesis >/dev/null 2>&1 || { \
	  echo "deps: pip install openapi-spec-validator schemathesis"; \
	  python3 -m pip install -q openapi-spec-validator schemathesis >/dev/null 2>&1 \
	    || { echo "deps: pip install openapi-spec-validator schemathesis failed" >&2; exit 1; }; }

build: build-deps
	$(BUILD_EXECUTABLES)
	@ln -sf tokenctl $(BUILD_DIR)/tokenctl-serve

# The man pages' generator (swift-argument-parser's generate-manual), built beside them.
build-manual: build
	$(SWIFT) build $(RELEASE) --product generate-manual

# The Debian packages (scripts/make-deb.sh) in $(DEB_DIR): tokenctl and tokenctl-sandbox;
# then lintian on them.
DEB_DIR ?= .build/deb
deb: deps build-manual
	@rm -f $(DEB_DIR)/tokenctl_*.deb $(DEB_DIR)/tokenctl-sandbox_*.deb
	@packages=$$(scripts/make-deb.sh .build/release $(DEB_DIR) | tail -2) && for package in $$packages; do \
	  echo "deb: $$package, $$(du -h $$package | cut -f1)"; \
	  dpkg-deb --contents $$package | awk '{print "  " $$1, $$3, $$6}' | sed 's#\./#/#'; done && \
	  echo "lintian:" && lintian --fail-on error $$packages && echo "lintian: no error"

# The PostgreSQL tests run against a private server started for them (scripts/test-postgres.sh)
# and stopped afterwards, also when a test fails.
# Each phase prints its wall time (scripts/phase.sh). The tests run the executable as built
# for the package: the test bundles first (which link tokenctl with shared Swift libraries),
# then tokenctl linked as make build links it, from the same objects.
# The fuzzers' build (make fuzz-build) runs beside the other phases from the start, as an
# idle task (SCHED_IDLE where chrt may set it, and nice 19): it gets a core only when nothing
# else wants one, which the build's serial steps (one module waiting for another) leave
# often. It is paused while the suite runs, whose timing-bound tests (kills, leases, a server
# outage) get the machine to themselves. It stays in make's session (a session of its own is
# a scheduling group of its own, against which priorities mean nothing), in a process group
# of its own, which leaving make test early stops. The fuzz phase waits for it.
test: deps
	@set -e; mkdir -p .build-fuzz; \
	idle=$$(chrt --idle 0 true 2>/dev/null && echo chrt --idle 0); \
	set -m; scripts/phase.sh fuzz-build $$idle nice -n 19 $(MAKE) --no-print-directory fuzz-build > .build-fuzz/beside.log 2>&1 & \
	fuzz_build=$$!; set +m; trap 'kill -- -$$fuzz_build 2>/dev/null; kill -CONT -- -$$fuzz_build 2>/dev/null || true' EXIT; trap 'exit 130' INT TERM; \
	scripts/phase.sh format $(MAKE) --no-print-directory format-check; \
	scripts/phase.sh layout scripts/check-layout.sh; \
	scripts/phase.sh concurrency scripts/check-concurrency.sh; \
	scripts/phase.sh build $(MAKE) --no-print-directory build-tests; \
	scripts/phase.sh units scripts/check-units.sh $(BUILD_DIR); \
	kill -STOP -- -$$fuzz_build 2>/dev/null || true; \
	scripts/phase.sh suite $(MAKE) --no-print-directory suite; \
	kill -CONT -- -$$fuzz_build 2>/dev/null || true; \
	scripts/phase.sh api-check scripts/api-check.sh $(BUILD_DIR)/tokenctl; \
	scripts/phase.sh docs-check scripts/docs-check.sh $(BUILD_DIR); \
	waiting=$$(date +%s); status=0; wait $$fuzz_build || status=$$?; trap - EXIT INT TERM; \
	echo "$$(grep -h '^phase fuzz-build' .build-fuzz/beside.log) (beside the others, paused during the suite; then waited for: $$(( $$(date +%s) - waiting )) s)"; \
	if [ $$status != 0 ]; then grep -v '^phase' .build-fuzz/beside.log | tail -40 >&2; exit $$status; fi; \
	scripts/phase.sh fuzz $(MAKE) --no-print-directory fuzz-run FUZZ_SECONDS=10
	@# The package, installed and tried as an operator would (dpkg -i needs root; CI runs as root).
	@if [ "$$(id -u)" = 0 ]; then scripts/phase.sh package $(MAKE) --no-print-directory deb package-test; \
	  else echo "package-test: skipped: installing a package needs root (CI runs as root)"; fi
	@# The README's install path: make install into a temporary PREFIX, then the installed tree used.
	@scripts/phase.sh install scripts/install-test.sh
	@echo "make test: passed"

# The test bundles and the executable, from one compilation of every module.
build-tests: build-deps
	$(SWIFT) build $(RELEASE) --build-tests
	@ln -sf tokenctl $(BUILD_DIR)/tokenctl-serve

# The whole suite against a private PostgreSQL (scripts/test-postgres.sh), stopped afterwards,
# also when a test fails. The failover tests (each with a primary, a standby and two services
# of its own) run after the rest, so that their failovers and the rest's timings do not share
# the machine's cores.
suite:
	@eval "$$(scripts/test-postgres.sh start)"; status=0; \
	  $(SWIFT) test $(RELEASE) --skip-build --skip FailoverTests || status=$$?; \
	  $(SWIFT) test $(RELEASE) --skip-build --filter FailoverTests || status=$$?; \
	  scripts/test-postgres.sh stop; exit $$status

package-test:
	@scripts/package-test.sh $(DEB_DIR)/tokenctl_*.deb $(DEB_DIR)/tokenctl-sandbox_*.deb

# One build of every fuzzer (the manifest with TOKENCTL_FUZZ=1 holds only them and what they
# reach), so that modules are compiled once and side by side; AddressSanitizer on this
# package's modules (Package.swift), coverage on all; no debug information (a failing input
# is reported with its stack's function names and kept as a test).
fuzz-build: deps
	@mkdir -p .build-fuzz; \
	TOKENCTL_FUZZ=1 $(SWIFT) build -c $(FUZZ_CONFIGURATION) --sanitize fuzzer -Xswiftc -gnone -Xcc -g0 --scratch-path .build-fuzz \
	  > .build-fuzz/build.log 2>&1 || { grep -v "Cannot export local symbol" .build-fuzz/build.log | tail -40; exit 1; }

# New inputs go to .build-fuzz/corpus/TARGET; the seeds in Fuzz/corpus stay as committed. A
# failing input is saved as .build-fuzz/TARGET-crash-*; make it a regression test.
fuzz: fuzz-build
	@$(MAKE) --no-print-directory fuzz-run

# The fuzz targets as built, side by side (make fuzz builds them first).
fuzz-run:
	@running=0; failed=0; \
	for run in $(FUZZ_RUNS); do \
	  target=$${run%%:*}; limit=""; \
	  if [ -n "$(FUZZ_GOAL)" ]; then \
	    done=$$(awk -v t=$$target '$$1 == t { n += $$2 } END { print n + 0 }' .build-fuzz/executions.txt 2>/dev/null || echo 0); \
	    if [ $$done -ge $(FUZZ_GOAL) ]; then echo "fuzz $$target: $$done executions over all runs, the goal of $(FUZZ_GOAL) reached"; continue; fi; \
	    limit="-runs=$$(( $(FUZZ_GOAL) - done ))"; \
	  fi; \
	  ( rest=$${run#*:}; product=$${rest%%:*}; environment=$${rest#*:}; \
	    mkdir -p .build-fuzz/corpus/$$target; \
	    case "$$environment" in *detect_leaks=0*) limit="$$limit -detect_leaks=0";; esac; \
	    env $$environment .build-fuzz/$(FUZZ_CONFIGURATION)/$$product -max_total_time=$(FUZZ_SECONDS) $$limit -print_final_stats=1 \
	      -artifact_prefix=.build-fuzz/$$target- .build-fuzz/corpus/$$target Fuzz/corpus/$$target > .build-fuzz/$$target.log 2>&1 \
	      || { tail -40 .build-fuzz/$$target.log; \
	           for input in .build-fuzz/$$target-crash-* .build-fuzz/$$target-leak-* .build-fuzz/$$target-timeout-*; do \
	             [ -f "$$input" ] && { echo "fuzz: $$target: failing input $$input:"; xxd "$$input" | head -16; }; done; \
	           echo "fuzz: $$target failed; make the input a regression test (Fuzz/corpus/$$target, a test through the binary)" >&2; exit 1; }; \
	    runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' .build-fuzz/$$target.log | tail -1); \
	    [ -n "$(FUZZ_LEDGER)" ] && echo "$$target $${runs:-0}" >> .build-fuzz/executions.txt; \
	    echo "fuzz $$target: $$(grep -aE '^Done' .build-fuzz/$$target.log), corpus $$(ls Fuzz/corpus/$$target | wc -l) seeds + $$(ls .build-fuzz/corpus/$$target | wc -l) found, no failure" ) & \
	  running=$$((running + 1)); \
	  if [ $$running -ge $(FUZZ_JOBS) ]; then wait -n || failed=1; running=$$((running - 1)); fi; \
	done; \
	while [ $$running -gt 0 ]; do wait -n || failed=1; running=$$((running - 1)); done; \
	exit $$failed

# Long fuzzing, kept out of make test: one target per core, each until its executions over
# all runs (.build-fuzz/executions.txt) reach FUZZ_LONG_GOAL (10 million) or for
# FUZZ_LONG_SECONDS (600) this run, whichever comes first; a target at its goal is skipped
# (FUZZ_LONG_GOAL= runs every target FUZZ_LONG_SECONDS). The summary gives every target's
# executions over all runs. make fuzz-merge afterwards keeps what reached new code.
FUZZ_LONG_SECONDS ?= 600
FUZZ_LONG_GOAL ?= 10000000
FUZZ_LONG_CONFIGURATION ?= release
fuzz-long:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_LONG_SECONDS) FUZZ_GOAL=$(FUZZ_LONG_GOAL) FUZZ_LEDGER=1 FUZZ_CONFIGURATION=$(FUZZ_LONG_CONFIGURATION); status=$$?; \
	echo "fuzz-long: executions over all runs (.build-fuzz/executions.txt):"; \
	awk '{ total[$$1] += $$2; runs[$$1] += 1 } END { for (t in total) printf "  %-22s %12d in %d run(s)\n", t, total[t], runs[t] }' .build-fuzz/executions.txt | sort; \
	exit $$status

# Adds to Fuzz/corpus the inputs found by `make fuzz` that reach new code (libFuzzer -merge).
fuzz-merge: fuzz-build
	@for run in $(FUZZ_RUNS); do \
	  target=$${run%%:*}; rest=$${run#*:}; product=$${rest%%:*}; environment=$${rest#*:}; \
	  before=$$(ls Fuzz/corpus/$$target | wc -l); \
	  env $$environment .build-fuzz/$(FUZZ_CONFIGURATION)/$$product -merge=1 Fuzz/corpus/$$target .build-fuzz/corpus/$$target > .build-fuzz/$$target-merge.log 2>&1 \
	    || { tail -20 .build-fuzz/$$target-merge.log; exit 1; }; \
	  echo "fuzz-merge $$target: $$before → $$(ls Fuzz/corpus/$$target | wc -l) inputs"; \
	done

# Long runs kept out of `make test`: 100 SIGKILL rounds, and the load test (16 handler
# loops × 500 activations + a batch + an import on one database), against the release build.
STRESS_CRASH_ROUNDS ?= 100
stress: deps build-tests
	@# The PostgreSQL rounds run against the private test server, started and stopped as for make test.
	@eval "$$(scripts/test-postgres.sh start)"; \
	  TOKENCTL_STRESS=1 TOKENCTL_CRASH_ROUNDS=$(STRESS_CRASH_ROUNDS) \
	  $(SWIFT) test $(RELEASE) --skip-build --no-parallel --filter "CrashConsistencyTests|LoadTests" 2>&1 | grep -E "^(crash consistency|load):|✘|passed after|failed after"; \
	  status=$${PIPESTATUS[0]}; scripts/test-postgres.sh stop; exit $$status

demo: build
	@.build/release/tokenctl demo
	@echo
	@echo "== the same deeplinks through Deeplinks/tokenctl-handler against tokenctl sandbox"
	@Deeplinks/demo.sh .build/release/tokenctl

bench: bench-targets
	$(SWIFT) build $(RELEASE) --product MPinBenchmark
	@Benchmarks/login.sh .build/release
	@Benchmarks/verification.sh .build/release
	$(SWIFT) build $(RELEASE) --product TransparencyLogBenchmark
	@Benchmarks/tlog.sh .build/release $(BENCH_RECORDS) $(BENCH_LINES)

# The audit as a transparency log: checkpoints, proofs and verify at BENCH_RECORDS audit rows,
# the tree's storage, and batch throughput with checkpoints beside it and without.
bench-tlog: deps
	$(BUILD_EXECUTABLES)
	$(SWIFT) build $(RELEASE) --product TransparencyLogBenchmark
	@Benchmarks/tlog.sh .build/release $(BENCH_RECORDS) $(BENCH_LINES)

# The four targets of the performance work, one table each, raw figures in $(BENCH_JSON).
bench-targets: deps
	$(BUILD_EXECUTABLES)
	@Benchmarks/targets.sh .build/release $(BENCH_RECORDS) $(BENCH_LINES) $(BENCH_JSON)

# Wallet figures: import of BENCH_RECORDS records, lookups, cold `wallet show`.
bench-wallet: deps
	$(BUILD_EXECUTABLES)
	$(SWIFT) build $(RELEASE) --product WalletBenchmark
	@Benchmarks/wallet.sh .build/release $(BENCH_RECORDS)

# PostgreSQL next to SQLite: 1, 2 and 4 batch processes with the CPU and statements per
# activation, one cold activation, an import of BENCH_RECORDS records, the audit chain's append
# rate with 16 writers, 1 and 4 `tokenctl serve` instances, and the targets' table (a private server).
bench-postgres: deps
	$(BUILD_EXECUTABLES)
	@Benchmarks/postgres.sh .build/release $(BENCH_LINES) $(BENCH_RECORDS)

# The resident service: single activations at R = 0, 20, 50 ms (a delay proxy in front of a
# TLS 1.3 terminator with mutual TLS) against the cold CLI and the shell handler, throughput
# of 64 keep-alive clients against the CLI batch, TMP connections, RSS over 100,000 activations.
bench-service: deps
	$(BUILD_EXECUTABLES)
	@Benchmarks/service.sh .build/release

# Just the identity verification figures.
bench-verification: deps
	$(BUILD_EXECUTABLES)
	@Benchmarks/verification.sh .build/release

# Just the PIN login figures: the client's M-Pin crypto and `tokenctl login run`.
bench-login: deps
	$(BUILD_EXECUTABLES)
	$(SWIFT) build $(RELEASE) --product MPinBenchmark
	@Benchmarks/login.sh .build/release

# Activation figures in detail: both transports at concurrency 1 to 16, libcurl against
# URLSession, a long batch's memory.
bench-activation: deps
	$(BUILD_EXECUTABLES)
	$(SWIFT) build $(RELEASE) --product TransportBenchmark
	@Benchmarks/activation.sh .build/release $(BENCH_LINES) $(BENCH_RSS_LINES)

PREFIX ?= /usr/local
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 .build/release/tokenctl $(DESTDIR)$(PREFIX)/bin/tokenctl
	ln -sf tokenctl $(DESTDIR)$(PREFIX)/bin/tokenctl-serve
	install -m 755 .build/release/tokenctl-sandbox $(DESTDIR)$(PREFIX)/bin/tokenctl-sandbox
	install -m 755 Deeplinks/tokenctl-handler $(DESTDIR)$(PREFIX)/bin/tokenctl-handler
	@# A man page per subcommand (swift-argument-parser's generate-manual) and shell completions.
	$(SWIFT) build $(RELEASE) --product generate-manual
	rm -rf .build/manual && scripts/make-manual.sh .build/release .build/manual
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 644 .build/manual/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	@# The systemd units, with this PREFIX's paths (systemctl daemon-reload to load them).
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	for unit in Config/systemd/*.service Config/systemd/*.socket Config/systemd/*.timer; do \
	  sed 's#/usr/bin/#$(PREFIX)/bin/#g' $$unit > $(DESTDIR)$(PREFIX)/lib/systemd/system/$$(basename $$unit); done
	.build/release/tokenctl --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tokenctl
	.build/release/tokenctl --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tokenctl
	.build/release/tokenctl --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/tokenctl.fish

clean:
	rm -rf .build .build-fuzz
