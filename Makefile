# Sked's two set-up commands are `make run` and `make test`; both install
# what they need on Debian/Ubuntu first (scripts/install-deps.sh).

GO      ?= go
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# Every Go test package; the whole suite must stay well under 15 minutes.
TESTFLAGS ?= -timeout 12m

.PHONY: run test build deps deps-test generate assets check-generated vet

## run: install PostgreSQL if missing, build, and serve on http://localhost:8080
run: deps build
	./bin/sked serve

## test: install PostgreSQL and Chromium if missing, and the npm packages
## (Azurite for the storage queue tests), then run every test
test: deps-test node_modules/.package-lock.json vet
	$(GO) test $(TESTFLAGS) ./...
	cd bench/rrulego && $(GO) vet ./... && $(GO) test ./...
	cd bench/river && $(GO) vet ./... && $(GO) test ./...
	cd compat/azuresdk && $(GO) vet ./... && $(GO) test -count=1 ./...
	cd clients/terraform && $(GO) vet ./... && $(GO) test -count=1 ./...

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/sked .

deps:
	./scripts/install-deps.sh run

deps-test:
	./scripts/install-deps.sh test

vet:
	$(GO) vet ./...

## generate: regenerate templ code and the web assets (CSS, htmx)
generate: assets
	$(GO) tool templ generate

assets: node_modules/.package-lock.json
	npm run --silent build

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

## check-generated: fail when committed generated files are stale
check-generated: generate
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "not gofmt-formatted: $$unformatted" >&2; exit 1; fi
	@git diff --exit-code --stat -- . || { echo "generated files are stale: run 'make generate' and commit" >&2; exit 1; }
	@untracked=$$(git ls-files --others --exclude-standard -- '*_templ.go' static); \
	  if [ -n "$$untracked" ]; then echo "untracked generated files: $$untracked" >&2; exit 1; fi
