# tokenctl — build, test and try it.
#   make build   release binary at .build/release/tokenctl
#   make test    the whole test suite (installs missing system packages first)
#   make demo    a walkthrough on a temporary database
#   make bench   wallet figures: import of 1,000,000 records, lookups, cold `wallet show`

SWIFT ?= swift
APT_PACKAGES := libcurl4-openssl-dev libsqlite3-dev pkg-config
BENCH_RECORDS ?= 1000000

.PHONY: deps build test demo bench clean

deps:
	@if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libcurl sqlite3; then :; else \
	  echo "deps: installing $(APT_PACKAGES)"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else \
	    echo "deps: missing system packages and no sudo; as root run: apt-get install $(APT_PACKAGES)" >&2; exit 1; fi; \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "deps: no apt-get here; install the development packages of libcurl and sqlite3 and pkg-config" >&2; exit 1; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES) >/dev/null \
	    || { echo "deps: apt-get install $(APT_PACKAGES) failed" >&2; exit 1; }; \
	fi
	@command -v script >/dev/null 2>&1 || { echo "deps: the tests need script(1) from bsdutils" >&2; exit 1; }

build: deps
	$(SWIFT) build -c release --product tokenctl

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: build
	@Deeplinks/demo.sh .build/release/tokenctl

bench: deps
	$(SWIFT) build -c release --product tokenctl
	$(SWIFT) build -c release --product WalletBenchmark
	@Benchmarks/wallet.sh .build/release $(BENCH_RECORDS)

clean:
	rm -rf .build
