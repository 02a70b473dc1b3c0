# star-agent: build, test, benchmark and demo. `make help` lists the targets.
GO   ?= go
BIN  := bin/star-agent
# bench writes the benchmarks' output here; bench-table reads it.
BENCH_OUT ?= bin/bench.txt
DEMO_TASK := Which of the first 30 Fibonacci numbers are prime? Give them and their sum.

.PHONY: help all build demo check test vet staticcheck race cover bench bench-table bench-wasm fuzz wasm wasm-deps wasm-check wasm-force gvisor clean

all: build

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## build the CLI into bin/ (static, so that sandbox image build --with-agent can ship it)
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/star-agent

demo: build ## the main job: an agent solves a task in several steps on a recorded session
	./$(BIN) run --replay testdata/sessions/demo.jsonl "$(DEMO_TASK)"
	@echo
	./$(BIN) exec testdata/examples/analysis.py

vet: ## go vet and a gofmt check (the VM with -unsafeptr=false: its upstream code packs ints in pointers)
	$(GO) vet $$($(GO) list ./... | grep -v /vm/)
	$(GO) vet -unsafeptr=false ./vm/...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

staticcheck: ## staticcheck, at the version go.mod pins (go tool: nothing to install)
	$(GO) tool staticcheck ./...

# Packages whose tests run in seconds: the quick loop's.
CHECK_PKGS := ./builtins/core/ ./builtins/contract/ ./executors/ ./pyfront/ \
	./executors/router/ ./providers/... ./prompts/ ./starlarkagent/ ./tool/ \
	./tools/web/ ./starlarkagent/serve/

check: vet staticcheck ## the quick loop: vet, gofmt, staticcheck and go test -short of the fast packages (make test is complete)
	$(GO) test -short $(CHECK_PKGS)

# Test binaries run side by side, one per core by default: the limit
# tests (deadlines, memory bombs in children) must not compete with more
# work than the machine has. Many tests mostly wait on child processes,
# containers or fake servers, so on an idle machine TESTP=4 is about 20%
# faster.
TESTP ?= 2

test: vet staticcheck ## vet, gofmt, staticcheck, every test, and the race detector where goroutines meet (what CI runs)
	$(GO) test -count=1 -p $(TESTP) ./...
	$(MAKE) --no-print-directory race

# The race detector where goroutines meet: the agent loop, the server,
# the MCP client and the web fetcher whole; in the engine, cancellation,
# timeouts, generators and tool calls. The CLI's flags and the harness
# in agenttest add no goroutines of their own, only a build of every
# dependency with -race.
race: ## the race detector on the concurrent code (part of make test)
	$(GO) test -count=1 -p $(TESTP) -race ./starlarkagent/ ./starlarkagent/serve/ ./tools/mcp/ ./tools/web/
	$(GO) test -count=1 -p $(TESTP) -race -run 'Cancel|Timeout|Generator|Tool' ./executors/starlarkexec/ ./executors/isolation/ ./builtins/

cover: ## total statement coverage
	$(GO) test -count=1 -coverpkg=./... -coverprofile=coverage.out ./... >/dev/null
	@$(GO) tool cover -func=coverage.out | tail -1

bench: ## benchmarks, side by side with CPython where python3 exists, then the table of ratios (bench-table)
	@mkdir -p $(dir $(BENCH_OUT)) && : > $(BENCH_OUT)
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./executors/starlarkexec/ ./executors/isolation/ ./pyfront/ ./starlarkagent/ 2>&1 | tee -a $(BENCH_OUT)
	$(GO) test -run '^$$' -bench . -skip 'FirstResult/cold' -benchtime 20x -count=1 ./executors/wasm/ 2>&1 | tee -a $(BENCH_OUT)
	$(GO) test -run '^$$' -bench 'FirstResult/cold' -benchtime 3x -count=1 ./executors/wasm/ 2>&1 | tee -a $(BENCH_OUT)
	$(GO) test -run '^$$' -bench . -benchtime 10x -count=1 ./executors/docker/ ./executors/e2b/ ./executors/modal/ 2>&1 | tee -a $(BENCH_OUT)
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./tools/mcp/ ./tools/web/ ./providers/... 2>&1 | tee -a $(BENCH_OUT)
	$(GO) test -run '^$$' -bench 'ServeRuns|ServeFanOut' -benchtime 200x -count=1 ./starlarkagent/serve/ 2>&1 | tee -a $(BENCH_OUT)
	$(GO) test -run '^$$' -bench 'ExecProcess' -benchtime 20x -count=1 ./starlarkagent/serve/ 2>&1 | tee -a $(BENCH_OUT)
	$(GO) test -run '^$$' -bench 'MCPRunPython' -benchtime 200x -count=1 ./cmd/star-agent/cli/ 2>&1 | tee -a $(BENCH_OUT)
	@$(MAKE) --no-print-directory bench-table

bench-table: ## the table of ratios to CPython (and issue 20's targets) from a saved `make bench` output, BENCH_OUT; exit 1 if a benchmark failed
	@$(GO) run ./internal/benchtable $(BENCH_OUT)
	@if grep -qE '^(--- )?FAIL' $(BENCH_OUT); then echo; echo "Failed benchmarks (see $(BENCH_OUT)):"; grep -E '^(--- )?FAIL' $(BENCH_OUT); exit 1; fi

fuzz: ## a short fuzzing session of the engine, the front end (deep nesting and long chains included) and the VM's hash table
	$(GO) test -run '^$$' -fuzz FuzzExecute -fuzztime 60s ./executors/starlarkexec/
	$(GO) test -run '^$$' -fuzz '^FuzzHashtable$$' -fuzztime 60s ./vm/starlark/
	$(GO) test -run '^$$' -fuzz '^FuzzLower$$' -fuzztime 60s ./pyfront/
	$(GO) test -run '^$$' -fuzz '^FuzzNesting$$' -fuzztime 60s ./pyfront/

wasm-deps: ## install the Debian packages that build CPython for WebAssembly (root)
	executors/wasm/cpython/deps.sh

wasm-check: ## exit 1 if the embedded CPython artifacts are missing or their recipe changed
	executors/wasm/cpython/build.sh --check

wasm: ## build CPython for wasm32-wasi, only if missing or the recipe changed
	executors/wasm/cpython/build.sh

wasm-force: ## rebuild CPython for wasm32-wasi
	executors/wasm/cpython/build.sh --force

gvisor: ## install gVisor's runsc from Debian and register it with the running Docker engine (root; idempotent, a reload, not a restart)
	executors/docker/gvisor.sh

clean:
	rm -rf bin coverage.out
