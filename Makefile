# star-agent: build, test, benchmark and demo.
GO       ?= go
BIN      := bin/star-agent
PKGS     := ./...

.PHONY: all build test test-race vet fmt cover bench fuzz demo clean

all: build

build: ## build the CLI into bin/
	$(GO) build -o $(BIN) ./cmd/star-agent

vet:
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: vet ## vet, gofmt check, then every test
	$(GO) test -count=1 $(PKGS)

test-race:
	$(GO) test -count=1 -race ./starlarkagent/... ./executors/local/...

cover: ## total statement coverage
	$(GO) test -count=1 -coverpkg=./... -coverprofile=coverage.out $(PKGS) >/dev/null
	@$(GO) tool cover -func=coverage.out | tail -1

bench: ## benchmarks (side by side with CPython where python3 exists)
	$(GO) test -run '^$$' -bench . -benchmem -benchtime=1x -count=1 ./builtins/... >/dev/null 2>&1 || true
	$(GO) test -run '^$$' -bench . -benchmem ./executors/local/... ./executors/local/pyfront/...

fuzz: ## a short fuzzing session of the engine and the front end
	$(GO) test -run '^$$' -fuzz FuzzExecute -fuzztime 60s ./executors/local/
	$(GO) test -run '^$$' -fuzz FuzzLower -fuzztime 60s ./executors/local/pyfront/

demo: build ## the main job: run star-agent on an example
	./$(BIN) exec testdata/examples/analysis.py

clean:
	rm -rf bin coverage.out
