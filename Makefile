# userscript: the developer's entry points.
#   make build   host binary in bin/userscript
#   make dist    one package per build/<target>/vars in $(DIST) (.tgz, or
#                .spk for the Synology targets dsm5, dsm6, dsm7)
#   make demo    boot a simulated IB-NAS4220-B with the armv4 package
#   make test    THE test command (README and CI): gofmt, go vet,
#                shellcheck, go test ./..., then the fuzz hook
#   make clean
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.0.0-dev)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
# Synology packages' INFO version X.Y.Z-BUILD; empty: from git (scripts/spk.sh)
SPK_VERSION ?=
DIST ?= dist
TARGETS ?= $(sort $(patsubst build/%/vars,%,$(wildcard build/*/vars)))
SHELL_SCRIPTS := package/init $(wildcard package/lib/*.sh) package/dsm/installer scripts/dist.sh scripts/spk.sh $(wildcard bench/*.sh)
GOTEST_FLAGS ?= -timeout 12m
# Fuzz hook: FUZZ lists PACKAGE:FuzzName pairs, each run for FUZZTIME,
# e.g. make test FUZZ="./internal/source:FuzzNormalise".
FUZZ ?= ./internal/source:FuzzNormalize ./internal/exports:FuzzParseExports ./internal/merge:FuzzSamba ./internal/merge:FuzzProFTPD ./internal/merge:FuzzExports ./internal/merge:FuzzKeyValue
FUZZTIME ?= 6s

export SOURCE_DATE_EPOCH

.PHONY: all build dist demo test lint gotest fuzz clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o bin/userscript ./cmd/userscript

# The host binary renders each target's lib/profile
# (`userscript profiles --sh NAME`).
dist:
	@mkdir -p $(DIST)
	@host=$$(mktemp -d) && trap 'rm -rf "$$host"' EXIT && \
	CGO_ENABLED=0 $(GO) build -o "$$host/userscript" ./cmd/userscript && \
	for t in $(TARGETS); do \
		HOSTBIN="$$host/userscript" DIST="$(DIST)" VERSION="$(VERSION)" SPK_VERSION="$(SPK_VERSION)" GO="$(GO)" sh scripts/dist.sh $$t || exit 1; \
	done

demo:
	$(GO) run ./internal/firmsim/cmd/demo

test: lint gotest fuzz

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -l: not formatted:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	shellcheck -s sh $(SHELL_SCRIPTS)

gotest:
	$(GO) test $(GOTEST_FLAGS) ./...

fuzz:
	@for f in $(FUZZ); do \
		pkg=$${f%%:*}; name=$${f#*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	done

clean:
	rm -rf bin dist .demo
