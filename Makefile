# star-agent: build, test, benchmark and demo. `make help` lists the targets.
GO   ?= go
BIN  := bin/star-agent
DEMO_TASK := Which of the first 30 Fibonacci numbers are prime? Give them and their sum.

.PHONY: help all build demo test vet cover bench bench-wasm fuzz wasm wasm-deps wasm-check wasm-force clean

all: build

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## build the CLI into bin/ (static, so that sandbox image build --with-agent can ship it)
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/star-agent

demo: build ## the main job: an agent solves a task in several steps on a recorded session
	./$(BIN) run --replay testdata/sessions/demo.jsonl "$(DEMO_TASK)"
	@echo
	./$(BIN) exec testdata/examples/analysis.py

vet: ## go vet and a gofmt check
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: vet ## vet, gofmt, every test, and the race detector on the agent loop (what CI runs)
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race ./starlarkagent/...
	$(GO) test -count=1 -race -run 'Cancel|Timeout|Generator|Tool' ./executors/local/ ./builtins/

cover: ## total statement coverage
	$(GO) test -count=1 -coverpkg=./... -coverprofile=coverage.out ./... >/dev/null
	@$(GO) tool cover -func=coverage.out | tail -1

bench: ## benchmarks, side by side with CPython where python3 exists
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./executors/local/ ./executors/local/pyfront/ ./starlarkagent/
	$(GO) test -run '^$$' -bench . -benchtime 20x -count=1 ./executors/wasm/
	$(GO) test -run '^$$' -bench . -benchtime 10x -count=1 ./executors/docker/ ./executors/e2b/ ./executors/modal/
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./starlarkagent/tool/mcp/ ./starlarkagent/tool/web/ ./providers/...
	$(GO) test -run '^$$' -bench 'ServeRuns|ServeFanOut' -benchtime 200x -count=1 ./starlarkagent/serve/

fuzz: ## a short fuzzing session of the engine and the front end, deep nesting and long chains included
	$(GO) test -run '^$$' -fuzz FuzzExecute -fuzztime 60s ./executors/local/
	$(GO) test -run '^$$' -fuzz '^FuzzLower$$' -fuzztime 60s ./executors/local/pyfront/
	$(GO) test -run '^$$' -fuzz '^FuzzNesting$$' -fuzztime 60s ./executors/local/pyfront/

wasm-deps: ## install the Debian packages that build CPython for WebAssembly (root)
	executors/wasm/cpython/deps.sh

wasm-check: ## exit 1 if the embedded CPython artifacts are missing or their recipe changed
	executors/wasm/cpython/build.sh --check

wasm: ## build CPython for wasm32-wasi, only if missing or the recipe changed
	executors/wasm/cpython/build.sh

wasm-force: ## rebuild CPython for wasm32-wasi
	executors/wasm/cpython/build.sh --force

clean:
	rm -rf bin coverage.out
