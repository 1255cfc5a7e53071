# blerig: `make run` and `make test` are the README's two commands; the others are for working on it.
SWIFT ?= swift
ARGS ?=
APT_PACKAGES := libbluetooth-dev libusb-1.0-0-dev libsqlite3-dev libxml2-utils
# The tests also check captures with an independent dissector, and render report.html in headless Chromium.
TEST_APT_PACKAGES := $(APT_PACKAGES) tshark chromium
# The interop tier runs blerig against rootcanal (a virtual controller) and Bumble (an independent host), both
# from PyPI, in a venv of their own. Newer rootcanal wheels need a newer glibc than Debian 12 has.
INTEROP_VENV ?= .venv-interop
INTEROP_PYTHON ?= python3
INTEROP_PINS := rootcanal==1.10.0 bumble==0.0.236
INTEROP_APT_PACKAGES := python3 python3-venv
# The kernel tier (Tests/KernelTier, docs/kernel-tier.md): qemu boots Debian's kernel with the host's root shared
# read-only and runs blerig inside against hci_vhci, USB/IP and dummy_hcd. The kernel package is downloaded and
# unpacked once into $(KERNEL_TIER_CACHE)/; usbip (the USB/IP device) and esptool (the reset reference) in a venv.
# Debian's bluez gives the guest bluetoothd (beside blerig's `kind: bluez` runs) and btmon.
KERNEL_TIER_CACHE ?= .cache/kernel-tier
KERNEL_VENV ?= .venv-kernel
KERNEL_PINS := usbip==0.7.0 esptool==5.6.0
KERNEL_APT_PACKAGES := qemu-system-x86 busybox-static kmod usbip python3 python3-venv bluez

# metrics.prom is checked with prometheus_client's parsers (OpenMetrics and Prometheus text), in a venv of its own.
METRICS_VENV ?= .venv-metrics
METRICS_PINS := prometheus-client==0.26.0

# The CI files in ci/ are checked in the tests: the GitHub and GitLab ones against their published schemas with
# check-jsonschema (PyPI, its own venv), the Jenkinsfile with Groovy's parser (Debian's groovy, on the JDK).
CI_VENV ?= .venv-ci
CI_PYTHON ?= python3
CI_PINS := check-jsonschema==0.39.0
CI_APT_PACKAGES := python3 python3-venv groovy

.PHONY: deps test-deps interop-deps kernel-deps kernel-tier metrics-deps ci-deps install-packages build run test fuzz fuzz-smoke fuzz-build bench bench-hci bench-ota bench-sync bench-history clean

# deps: install whichever of the apt packages above are missing (non-interactive; sudo when not root)
deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(APT_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(TEST_APT_PACKAGES)"

# interop-deps: $(INTEROP_VENV)/ with $(INTEROP_PINS); does nothing when the venv already has exactly those
interop-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(INTEROP_APT_PACKAGES)"
	@set -e; venv="$(INTEROP_VENV)"; \
	check='import sys, importlib.metadata as m; sys.exit(any(m.version(n) != v for n, v in (p.split("==") for p in sys.argv[1:])))'; \
	if "$$venv/bin/python" -c "$$check" $(INTEROP_PINS) </dev/null >/dev/null 2>&1; then exit 0; fi; \
	echo "interop-deps: installing $(INTEROP_PINS) into $$venv/"; \
	clear=""; "$$venv/bin/python" -c '' </dev/null >/dev/null 2>&1 || clear="--clear"; \
	$(INTEROP_PYTHON) -m venv $$clear "$$venv" </dev/null || { \
	  echo "interop-deps: '$(INTEROP_PYTHON) -m venv $$venv' failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }; \
	PIP_NO_INPUT=1 "$$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q $(INTEROP_PINS) </dev/null || { \
	  echo "interop-deps: pip could not install $(INTEROP_PINS) into $$venv/ (see pip's message above)" >&2; exit 1; }; \
	"$$venv/bin/python" -c "$$check" $(INTEROP_PINS) </dev/null || { \
	  echo "interop-deps: $$venv/ still lacks $(INTEROP_PINS) after pip install" >&2; exit 1; }

# kernel-deps: qemu and the guest's tools; Debian's kernel package (the one linux-image-amd64 depends on) unpacked
# in $(KERNEL_TIER_CACHE)/root/, never installed over the host; $(KERNEL_VENV)/ with $(KERNEL_PINS). Each step does
# nothing when its result is already there.
kernel-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(KERNEL_APT_PACKAGES)"
	@set -e; cache="$(KERNEL_TIER_CACHE)"; \
	if ls "$$cache"/root/boot/vmlinuz-* "$$cache"/root/lib/modules/*/modules.dep >/dev/null 2>&1; then exit 0; fi; \
	command -v apt-get >/dev/null || { echo "kernel-deps: no apt-get here: the kernel tier will be skipped" >&2; exit 0; }; \
	find_package() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $$2; exit}'; }; \
	package=$$(find_package); \
	if [ -z "$$package" ]; then env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null >/dev/null; package=$$(find_package); fi; \
	[ -n "$$package" ] || { echo "kernel-deps: apt knows no linux-image-amd64 to follow" >&2; exit 1; }; \
	mkdir -p "$$cache/download"; rm -rf "$$cache/root.partial"; \
	if ! ls "$$cache/download/$$package"_*.deb >/dev/null 2>&1; then \
	  echo "kernel-deps: downloading $$package into $$cache/download/"; \
	  (cd "$$cache/download" && apt-get download -q "$$package" </dev/null 2>&1 | grep -v "unsandboxed as root" || true); fi; \
	ls "$$cache/download/$$package"_*.deb >/dev/null 2>&1 || { echo "kernel-deps: apt-get download $$package failed" >&2; exit 1; }; \
	dpkg-deb -x "$$cache/download/$$package"_*.deb "$$cache/root.partial"; \
	for modules in "$$cache"/root.partial/lib/modules/*; do depmod -b "$$cache/root.partial" "$${modules##*/}"; done; \
	rm -rf "$$cache/root"; mv "$$cache/root.partial" "$$cache/root"; \
	echo "kernel-deps: $$package unpacked in $$cache/root/"
	@set -e; venv="$(KERNEL_VENV)"; \
	check='import sys, importlib.metadata as m; sys.exit(any(m.version(n) != v for n, v in (p.split("==") for p in sys.argv[1:])))'; \
	if "$$venv/bin/python" -c "$$check" $(KERNEL_PINS) </dev/null >/dev/null 2>&1; then exit 0; fi; \
	echo "kernel-deps: installing $(KERNEL_PINS) into $$venv/"; \
	clear=""; "$$venv/bin/python" -c '' </dev/null >/dev/null 2>&1 || clear="--clear"; \
	$(INTEROP_PYTHON) -m venv $$clear "$$venv" </dev/null || { \
	  echo "kernel-deps: '$(INTEROP_PYTHON) -m venv $$venv' failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }; \
	PIP_NO_INPUT=1 "$$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q $(KERNEL_PINS) </dev/null || { \
	  echo "kernel-deps: pip could not install $(KERNEL_PINS) into $$venv/ (see pip's message above)" >&2; exit 1; }; \
	"$$venv/bin/python" -c "$$check" $(KERNEL_PINS) </dev/null || { \
	  echo "kernel-deps: $$venv/ still lacks $(KERNEL_PINS) after pip install" >&2; exit 1; }

# kernel-tier: the kernel tier alone (it needs the interop venv too: Bumble is the host side of hci_vhci)
kernel-tier: kernel-deps interop-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter KernelTierTests

# metrics-deps: $(METRICS_VENV)/ with $(METRICS_PINS); does nothing when the venv already has exactly those
metrics-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(INTEROP_APT_PACKAGES)"
	@set -e; venv="$(METRICS_VENV)"; \
	check='import sys, importlib.metadata as m; sys.exit(any(m.version(n) != v for n, v in (p.split("==") for p in sys.argv[1:])))'; \
	if "$$venv/bin/python" -c "$$check" $(METRICS_PINS) </dev/null >/dev/null 2>&1; then exit 0; fi; \
	echo "metrics-deps: installing $(METRICS_PINS) into $$venv/"; \
	$(INTEROP_PYTHON) -m venv --clear "$$venv" </dev/null || { \
	  echo "metrics-deps: '$(INTEROP_PYTHON) -m venv $$venv' failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }; \
	PIP_NO_INPUT=1 "$$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q $(METRICS_PINS) </dev/null || { \
	  echo "metrics-deps: pip could not install $(METRICS_PINS) into $$venv/ (see pip's message above)" >&2; exit 1; }

# ci-deps: $(CI_VENV)/ with $(CI_PINS), and groovy; does nothing when both are already there
ci-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(CI_APT_PACKAGES)"
	@set -e; venv="$(CI_VENV)"; \
	check='import sys, importlib.metadata as m; sys.exit(any(m.version(n) != v for n, v in (p.split("==") for p in sys.argv[1:])))'; \
	if "$$venv/bin/python" -c "$$check" $(CI_PINS) </dev/null >/dev/null 2>&1; then exit 0; fi; \
	echo "ci-deps: installing $(CI_PINS) into $$venv/"; \
	clear=""; "$$venv/bin/python" -c '' </dev/null >/dev/null 2>&1 || clear="--clear"; \
	$(CI_PYTHON) -m venv $$clear "$$venv" </dev/null || { \
	  echo "ci-deps: '$(CI_PYTHON) -m venv $$venv' failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }; \
	PIP_NO_INPUT=1 "$$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q $(CI_PINS) </dev/null || { \
	  echo "ci-deps: pip could not install $(CI_PINS) into $$venv/ (see pip's message above)" >&2; exit 1; }; \
	"$$venv/bin/python" -c "$$check" $(CI_PINS) </dev/null || { \
	  echo "ci-deps: $$venv/ still lacks $(CI_PINS) after pip install" >&2; exit 1; }

install-packages:
	@set -e; missing=""; \
	for p in $(PACKAGES); do \
	  dpkg -s "$$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing="$$missing $$p"; \
	done; \
	[ -n "$$missing" ] || exit 0; \
	if ! command -v apt-get >/dev/null; then \
	  echo "deps: no apt-get here; install the equivalents of$$missing yourself" >&2; exit 0; fi; \
	sudo=""; \
	if [ "$$(id -u)" -ne 0 ]; then \
	  command -v sudo >/dev/null || { echo "deps: missing$$missing; run as root or install sudo" >&2; exit 1; }; \
	  sudo=sudo; fi; \
	echo "deps: installing$$missing"; \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null; \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing </dev/null

# build: debug build of everything, .build/debug/blerig
build: deps
	$(SWIFT) build

# run: the virtual campaign, rigs/virtual.yaml; writes reports/<run-id>/ (more options: make run ARGS="--seed 7");
# it also sets up .venv-interop/ (rootcanal, Bumble), so that blerig run rigs/rootcanal.yaml works afterwards
run: build interop-deps
	.build/debug/blerig run rigs/virtual.yaml $(ARGS)

# test: build the tests, run each fuzz target for a few seconds from its committed corpus (fuzz-smoke), then run the
# tests; the interop tier (rootcanal, Bumble) runs in a process of its own, so its
# sockets and children never meet the descriptor checks of the transport tests; the kernel tier (qemu) runs last.
# The history tests get a private PostgreSQL server (Debian's postgresql, installed if missing) on a Unix socket,
# stopped when the tests end.
# Tests that time wall-clock deadlines of a few seconds (lease heartbeats, a vanishing serial port) run in a process
# of their own: in the big one, tests that wait on child processes (groovy, chromium, python) hold the two threads of
# the cooperative pool for seconds at a time on a 2-core host.
TIMED_TESTS := LeaseTests|LeaseProcessTests|SerialBoardLinkTests
TIMED_SKIPS := --skip LeaseTests --skip LeaseProcessTests --skip SerialBoardLinkTests
test: test-deps interop-deps kernel-deps metrics-deps ci-deps
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory fuzz-smoke
	@set -e; pg=$$(mktemp -d /tmp/blerig-pg.XXXXXX); trap 'bash Tests/HistoryTests/postgres.sh stop "$$pg"' EXIT; \
	url=$$(bash Tests/HistoryTests/postgres.sh start "$$pg"); export BLERIG_TEST_POSTGRES_URL="$$url"; \
	echo "$(SWIFT) test --skip-build --skip InteropTests --skip KernelTierTests (PostgreSQL at $$BLERIG_TEST_POSTGRES_URL)"; \
	$(SWIFT) test --skip-build --skip InteropTests --skip KernelTierTests $(TIMED_SKIPS); \
	$(SWIFT) test --skip-build --filter '$(TIMED_TESTS)'
	$(SWIFT) test --skip-build --filter InteropTests
	$(SWIFT) test --skip-build --filter KernelTierTests

# fuzz: the libFuzzer targets in Fuzz/ (their own package, docs/fuzzing.md), each for FUZZ_SECONDS (60), or FUZZ_RUNS
# inputs when set: make fuzz FUZZ_RUNS=10000000 FUZZ_TARGETS="att rig". A crash leaves its input in
# Fuzz/.build/crashes/<target>/ and fails. fuzz-smoke: each for FUZZ_SMOKE_SECONDS (3) from the committed corpus.
# --sanitize fuzzer lets libFuzzer's main be the executables' entry; the -Xswiftc flag, which comes last, adds
# AddressSanitizer: swiftc keeps only the last -sanitize= flag, and two --sanitize options arrive in no fixed order.
FUZZ_TARGETS ?= att l2cap hci advertising ota console rig profile
FUZZ_BUILD := $(SWIFT) build -c release --package-path Fuzz --sanitize fuzzer \
	-Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address
fuzz-build:
	$(FUZZ_BUILD)

fuzz: fuzz-build
	bash Fuzz/run.sh long $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	bash Fuzz/run.sh smoke $(FUZZ_TARGETS)

# bench: release build; each run in its own process: the shipped rig (wall, CPU, peak RSS, bench time), a virtual
# day of notifications on four boards (memory must not grow with duration), how cost grows with boards, and every
# report of a synthetic 10,000-testcase run
bench: deps
	$(SWIFT) build -c release
	.build/release/blerig bench campaign rigs/virtual.yaml --runs 5
	.build/release/blerig bench campaign rigs/bench/notifications-24h.yaml --runs 1
	.build/release/blerig bench scale $(ARGS)
	.build/release/blerig bench reports

# bench-hci: release build, with the library preloaded into rootcanal; blerig's central against Bumble's on rootcanal
# (1 ms tick) with a Bumble peripheral: connect, handshake and write latencies, notification throughput, CPU per
# handshake (make bench-hci ARGS="--json")
bench-hci: deps interop-deps
	$(SWIFT) build -c release --product blerig
	$(SWIFT) build -c release --product BlerigLoopback
	.build/release/blerig bench hci $(ARGS)

# bench-ota: release build; a 10 MiB OTA on the virtual link (2M PHY, 15 ms, 6 packets per event) for windows 1, 2,
# 4 and 8, each in its own process: kB/s, share of the link's unacknowledged capacity, peak RSS
bench-ota: deps
	$(SWIFT) build -c release --product blerig
	.build/release/blerig bench ota $(ARGS)

# bench-sync: release build; the sync queue (SQLite WAL, synchronous=FULL) against the real local ingest server:
# enqueue, upload + delete, end to end in items/s (make bench-sync ARGS="--items 50000")
bench-sync: deps
	$(SWIFT) build -c release --product blerig
	.build/release/blerig bench sync $(ARGS)

# bench-history: release build; history insert of a 1024-board run, SQLite and a private PostgreSQL side by side
bench-history: deps
	$(SWIFT) build -c release --product blerig
	@set -e; pg=$$(mktemp -d /tmp/blerig-pg.XXXXXX); trap 'bash Tests/HistoryTests/postgres.sh stop "$$pg"' EXIT; \
	url=$$(bash Tests/HistoryTests/postgres.sh start "$$pg"); \
	.build/release/blerig bench history --postgres "$$url" $(ARGS)

# clean: remove the builds (Fuzz/.build too) and every run's reports (reports/README.md stays)
clean:
	rm -rf .build Fuzz/.build
	if [ -d reports ]; then find reports -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +; fi
