# userscript: the developer's entry points.
#   make build   host binary in bin/userscript
#   make dist    one package per build/<target>/vars in $(DIST) (.tgz, or
#                .spk for the Synology targets dsm5, dsm6, dsm7), the
#                command line for PCs (dist-cli), and $(DIST)/SHA256SUMS
#   make demo    boot a simulated IB-NAS4220-B: a refused edit, a rejected
#                restart rolled back, the status files
#   make deps    install (apt-get) every tool the tests use, as .ci/run does,
#                and let the old i386 BusyBox builds run (binfmt_misc)
#   make test    THE test command (README and CI): gofmt, go vet,
#                shellcheck, go test ./..., then the fuzz hook
#   make vmtest  the test machines (internal/vm): a firmware box and a
#                systemd box under qemu-system-x86_64, booted from Debian's
#                packages; reboots, real daemons, power cuts (VM_CUTS a box)
#   make clean
GO ?= go
# The release's semantic version: the VERSION file (package names,
# `userscript version`).
VERSION ?= $(shell cat VERSION 2>/dev/null || echo 0.0.0-dev)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
# Synology packages' INFO version X.Y.Z-BUILD; empty: from git (scripts/spk.sh)
SPK_VERSION ?=
DIST ?= dist
TARGETS ?= $(sort $(patsubst build/%/vars,%,$(wildcard build/*/vars)))
SHELL_SCRIPTS := package/init $(wildcard package/lib/*.sh) package/dsm/installer $(wildcard scripts/*.sh) $(wildcard bench/*.sh) \
	internal/vm/image.sh internal/vm/fw/boot.sh internal/vm/fw/rc internal/vm/fw/rc.shutdown $(wildcard internal/vm/fw/rc.d/*.sh)
GOTEST_FLAGS ?= -timeout 45m
# Fuzz hook: FUZZ lists PACKAGE:FuzzName pairs, each run for FUZZTIME,
# e.g. make test FUZZ="./internal/source:FuzzNormalise". FUZZTIME is a
# count of inputs, not a time: Go 1.26 can fail a fuzz run whose time
# limit ends while a worker is busy ("context deadline exceeded", no
# failing input; golang/go#75804, fixed in Go 1.27). 50000 inputs take
# 1-6 s each here.
FUZZ ?= ./internal/source:FuzzNormalize ./internal/source:FuzzDecode ./internal/exports:FuzzParse ./internal/merge:FuzzSamba ./internal/merge:FuzzProFTPD ./internal/merge:FuzzExports ./internal/merge:FuzzKeyValue
FUZZTIME ?= 50000x

# The command line for the owner's PC (render and explain a .merge):
# GOOS/GOARCH pairs; empty builds none.
CLI_TARGETS ?= windows/amd64 darwin/arm64 darwin/amd64 linux/amd64
# Debian packages the tests use (make deps; .ci/run).
DEBIAN_PACKAGES := make git ca-certificates \
	samba smbclient proftpd-core nfs-kernel-server \
	busybox qemu-user qemu-user-static shellcheck lftp util-linux mount hdparm \
	ansible-core ansible-lint chromium iproute2
# What make vmtest needs besides them (make vmdeps): the machines boot
# under qemu-system-x86_64 (TCG), their image is built by mmdebstrap.
VM_PACKAGES := qemu-system-x86 mmdebstrap e2fsprogs smbclient
# Power cuts a box in make vmtest (bench/powercut.sh runs more).
VM_CUTS ?= 20
# Machines running at once: the two power-cut loops, mostly waiting on
# the engines, and the other tests one after another beside them.
VM_PARALLEL ?= 3
# A bound for a machine that hangs (bench/powercut.sh runs without one;
# raise it on a busy machine: docs/BENCHMARKS.md, "A whole make vmtest").
VM_TIMEOUT ?= 55m
# The old BusyBox builds (static i386) the sh engine is tested under
# (make deps makes them run: scripts/busybox-old.sh).
BUSYBOX_OLD ?= $(or $(USERSCRIPT_BUSYBOX_OLD),../shared/busybox-old)
# The tests' temporary folders: a tmpfs. Where the kernel runs no i386
# binaries, the old BusyBox builds run under qemu-i386, and their 32-bit
# readdir cannot hold the folder offsets ext4 gives a 64-bit process:
# every listing on ext4 comes out empty (internal/firmsim/busybox.go).
# Mode 1777 as /tmp: daemons that drop to nobody (proftpd's anonymous
# login, smbd's guest) must reach the shares the tests make in it.
TEST_TMP ?= /dev/shm
# Where the tests record what they skipped for want of a tool (needtool).
SKIPS := $(CURDIR)/.skips

export SOURCE_DATE_EPOCH

.PHONY: all build dist dist-cli sums deps demo test lint gotest fuzz clean vmdeps vmtest

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=false -ldflags "-X main.version=$(VERSION)" -o bin/userscript ./cmd/userscript

# The host binary renders each target's lib/profile
# (`userscript profiles --sh NAME`).
dist:
	@mkdir -p $(DIST)
	@host=$$(mktemp -d) && trap 'rm -rf "$$host"' EXIT && \
	CGO_ENABLED=0 $(GO) build -o "$$host/userscript" ./cmd/userscript && \
	for t in $(TARGETS); do \
		HOSTBIN="$$host/userscript" DIST="$(DIST)" VERSION="$(VERSION)" SPK_VERSION="$(SPK_VERSION)" GO="$(GO)" sh scripts/dist.sh $$t || exit 1; \
	done
	@$(MAKE) --no-print-directory dist-cli sums

dist-cli:
	@DIST="$(DIST)" VERSION="$(VERSION)" GO="$(GO)" sh scripts/dist-cli.sh $(CLI_TARGETS)

# SHA256SUMS lists every archive in $(DIST): sha256sum -c SHA256SUMS
# checks a download.
sums:
	@cd $(DIST) && ls userscript-* 2>/dev/null | LC_ALL=C sort | xargs -r sha256sum >SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS

# Run as root, or with sudo available.
deps:
	$$( [ "$$(id -u)" = 0 ] || echo sudo ) env DEBIAN_FRONTEND=noninteractive apt-get update -q
	$$( [ "$$(id -u)" = 0 ] || echo sudo ) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(DEBIAN_PACKAGES)
	$$( [ "$$(id -u)" = 0 ] || echo sudo ) sh scripts/busybox-old.sh "$(BUSYBOX_OLD)"

demo:
	$(GO) run ./internal/firmsim/cmd/demo

test: lint gotest fuzz

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -l: not formatted:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	shellcheck -s sh $(SHELL_SCRIPTS)

# Tests skipped for want of a tool are summed up at the end, one line per
# reason (under CI=true they fail instead: see internal/needtool).
gotest:
	@mkdir -p $(SKIPS)
	@tmp=$$(mktemp -d $(TEST_TMP)/userscript-test.XXXXXX) && chmod 1777 "$$tmp" && trap 'rm -rf "$$tmp"' EXIT; \
	rc=0; TMPDIR=$$tmp USERSCRIPT_SKIPS=$(SKIPS) $(GO) test $(GOTEST_FLAGS) ./... || rc=$$?; \
	cat $(SKIPS)/* 2>/dev/null | awk '{n = $$1; $$1 = ""; sum[$$0] += n} END {for (r in sum) print "go test:", sum[r] r}' | sort; \
	exit $$rc

fuzz:
	@for f in $(FUZZ); do \
		pkg=$${f%%:*}; name=$${f#*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -list="^$$name$$" $$pkg | grep -qx "$$name" || { echo "fuzz: $$pkg has no $$name (FUZZ in the Makefile)"; exit 1; }; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	done

vmdeps:
	$$( [ "$$(id -u)" = 0 ] || echo sudo ) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(VM_PACKAGES)

# The image is cached outside the repository (internal/vm/image.sh); the
# tests fail, never skip, when a tool is missing under CI=true.
vmtest: vmdeps
	USERSCRIPT_VMTEST=1 USERSCRIPT_VM_CUTS=$(VM_CUTS) $(GO) test -count=1 -timeout $(VM_TIMEOUT) -parallel $(VM_PARALLEL) -v ./internal/vm/

clean:
	rm -rf bin dist .demo $(SKIPS)
