package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/starlarkagent/serve"
)

// serveFlags are the flags of star-agent serve besides AgentFlags.
type serveFlags struct {
	addr, token, db   string
	tokensFile        string
	maxConcurrent     int
	queue             int
	runTimeout, grace time.Duration
	approvalTimeout   time.Duration
	lease             time.Duration
	resume            bool
	logFormat, otel   string
	verbose           bool
	addrFile          string
	dockerPool        int
}

// NewServeCommand returns the serve command.
func NewServeCommand() *cobra.Command {
	a := new(AgentFlags)
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Run agents as an HTTP service with a web page",
		Long: `Serve agents over HTTP: clients start runs with POST /v1/runs, watch their
steps as server-sent events, cancel them and browse past runs; a web page at /
does the same in a browser. Runs are kept in an SQLite database (--db), so
history survives a restart. /healthz and /readyz are the probes for an
orchestrator, /metrics the Prometheus metrics.

Each run gets an agent and executors of its own, built from the same model,
tool, executor and limit flags as "star-agent run": each step's code is
bounded by --exec-timeout, --max-operations, --max-memory, --max-output and
--max-value, and a whole run by --run-timeout (10m). Set a token (--token or
STAR_AGENT_TOKEN) whenever the address is reachable by others: without one,
anyone who reaches the port can run code on this machine.

On SIGTERM or SIGINT the server stops taking runs (and /readyz fails), lets
running runs finish for --shutdown-grace, then cancels them (they end
"interrupted"), closes every executor and exits.`,
		Example: `  star-agent serve --replay testdata/sessions/demo.jsonl
  STAR_AGENT_TOKEN=... star-agent serve --model openai:gpt-4o-mini --addr 0.0.0.0:8080 --db /data/runs.db
  curl -H "Authorization: Bearer $STAR_AGENT_TOKEN" --json '{"task":"What is 2**100?"}' localhost:8080/v1/runs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd, a, f)
		},
	}
	fl := cmd.Flags()
	a.Register(fl)
	fl.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free port)")
	fl.StringVar(&f.token, "token", "", "require this bearer token on the API (default from STAR_AGENT_TOKEN); with --tokens, it is one more tenant, \"default\"")
	fl.StringVar(&f.tokensFile, "tokens", "", "tenants `FILE`: JSON {\"tenants\": [{\"name\", \"token\", \"max_runs_in_flight\", \"max_tokens_per_day\", \"max_total_tokens\", \"max_cost\"}]}; each tenant sees only its own runs, within its quotas")
	fl.StringVar(&f.db, "db", "", "the database of runs: an SQLite `PATH` or :memory:, or a postgres:// URL shared by replicas (default from STAR_AGENT_DB, else star-agent/runs.db in the user's data directory)")
	fl.DurationVar(&f.lease, "lease", serve.DefaultLease, "how long a run stays with a replica that stopped renewing its lease before another takes it over (PostgreSQL)")
	fl.BoolVar(&f.resume, "resume", true, "resume by replay the runs a killed server left, when it starts again (SQLite; on PostgreSQL any replica resumes them); false: they end interrupted")
	fl.IntVar(&f.maxConcurrent, "max-concurrent", 4, "runs that run at once")
	fl.IntVar(&f.queue, "queue", 64, "runs that may wait for a free slot; beyond, POST /v1/runs answers 429")
	fl.DurationVar(&f.runTimeout, "run-timeout", 10*time.Minute, "stop a whole run after this long (0: no limit); --exec-timeout limits each code execution")
	fl.DurationVar(&f.approvalTimeout, "approval-timeout", serve.DefaultApprovalTimeout, "how long a call that needs approval (--require-approval) waits for a decision before it is denied; the wait does not count against --exec-timeout")
	fl.DurationVar(&f.grace, "shutdown-grace", 30*time.Second, "on SIGTERM, how long running runs may finish before they are cancelled")
	fl.IntVar(&f.dockerPool, "docker-pool", 0, dockerPoolHelp)
	fl.StringVar(&f.addrFile, "addr-file", "", "write the address the server listens on to `FILE` once it accepts connections (for --addr with port 0)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every run, step and model call")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format on standard error: text or json")
	fl.StringVar(&f.otel, "otel", "", "export OpenTelemetry traces: stdout (written to standard error) or otlp (default from OTEL_TRACES_EXPORTER)")
	return cmd
}

func runServe(cmd *cobra.Command, a *AgentFlags, f serveFlags) error {
	stderr := cmd.ErrOrStderr()
	if err := a.Check(); err != nil {
		return err
	}
	switch {
	case f.maxConcurrent < 1:
		return usageError("--max-concurrent must be at least 1")
	case f.queue < 0:
		return usageError("--queue must not be negative")
	case f.runTimeout < 0 || f.grace < 0:
		return usageError("--run-timeout and --shutdown-grace must not be negative")
	}
	if f.token == "" {
		f.token = os.Getenv("STAR_AGENT_TOKEN")
	}
	var tenants []serve.Tenant
	if f.tokensFile != "" {
		file, err := os.Open(f.tokensFile)
		if err != nil {
			return usageError("--tokens: %v", err)
		}
		tenants, err = serve.ReadTenants(file)
		file.Close()
		if err != nil {
			return usageError("--tokens %s: %v", f.tokensFile, err)
		}
	}
	// A server says what it does (runs starting and ending) at Info.
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	var logger *slog.Logger
	switch hopts := (&slog.HandlerOptions{Level: level}); f.logFormat {
	case "text":
		logger = slog.New(slog.NewTextHandler(stderr, hopts))
	case "json":
		logger = slog.New(slog.NewJSONHandler(stderr, hopts))
	default:
		return usageError("--log-format must be text or json, not %q", f.logFormat)
	}
	model, err := a.NewModel()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tracer, shutdownTracer, err := newTracer(ctx, f.otel, stderr)
	if err != nil {
		return err
	}
	defer shutdownTracer()
	limits, err := a.Limits(cmd.Flags(), cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if _, err := a.Executor().RouterConfig(limits, a.Imports(), nil); err != nil {
		return usageError("%v", err)
	}
	if len(a.f.requireApproval) > 0 && f.runTimeout > 0 && f.approvalTimeout > f.runTimeout {
		logger.Warn("a call waiting for approval is stopped when its run reaches --run-timeout, before --approval-timeout: raise --run-timeout to let people take longer",
			"run_timeout", f.runTimeout, "approval_timeout", f.approvalTimeout)
	}
	if err := a.Executor().checkDocker(ctx, limits); err != nil {
		return err
	}
	// The replica's name is on its containers (those of the pool too), so
	// that another replica can remove them should this one die.
	replica := serve.NewReplicaID()
	pool, poolMetrics, err := a.Executor().openDockerPool(f.dockerPool, limits, map[string]string{serve.LabelReplica: replica})
	if err != nil {
		return err
	}
	if pool != nil {
		// When serve returns, after Shutdown has closed the runs'
		// executors (a container taken is its run's): the idle ones.
		defer pool.Close()
		logger.Info("docker pool", "size", pool.Size())
	}

	// Tools (MCP servers, web tools) are started once and shared by the
	// runs; executors are per run.
	tools, closeTools, err := a.Tools().Open(ctx, ToolEnv{Logger: logger})
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	defer closeTools()

	dbPath := f.db
	if dbPath == "" {
		dbPath = os.Getenv("STAR_AGENT_DB")
	}
	if dbPath == "" {
		if dbPath, err = serve.DefaultDBPath(); err != nil {
			return usageError("%v", err)
		}
	}
	store, err := serve.OpenStore(dbPath, logger)
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	kind := a.Executor().Executor
	ready := newReadiness(a, model)
	go ready.warmUp(ctx)
	audit, closeAudit, err := a.OpenAuditLog()
	if err != nil {
		store.Close()
		return err
	}
	defer closeAudit()
	var runAudit func(run, tenant string) *slog.Logger
	if audit != nil {
		runAudit = func(run, tenant string) *slog.Logger { return audit.With("run", run, "tenant", tenant) }
	}
	sweep, closeSweep := a.Executor().sweeper()
	defer closeSweep()
	srv, err := serve.New(serve.Options{
		AuditLogger:     audit,
		Store:           store,
		Token:           f.token,
		Tenants:         tenants,
		MaxConcurrent:   f.maxConcurrent,
		Queue:           f.queue,
		RunTimeout:      f.runTimeout,
		ApprovalTimeout: f.approvalTimeout,
		Budget:          a.Budget(),
		ShutdownGrace:   f.grace,
		Lease:           f.lease,
		Resume:          f.resume,
		Replica:         replica,
		SweepSandboxes:  sweep,
		MaxSteps:        a.MaxSteps(),
		ModelID:         model.ModelID(),
		Checks:          ready.checks(),
		Version:         moduleVersion(),
		Logger:          logger,
		Collectors:      poolMetrics,
		NewAgent: func(ctx context.Context, req serve.AgentRequest) (*starlarkagent.Agent, error) {
			m, err := a.NewModel()
			if err != nil {
				return nil, err
			}
			var al *slog.Logger
			if runAudit != nil {
				al = runAudit(req.RunID, req.Tenant)
			}
			return a.NewAgent(ctx, AgentConfig{
				AuditLogger: al,
				Limits:      limits,
				Model:       req.WrapModel(m),
				Tools:       tools,
				Imports:     req.Imports,
				Logger:      logger.With("run", req.RunID, "tenant", req.Tenant),
				Tracer:      tracer,
				Owner:       req.Owner,
				Configure: func(o *starlarkagent.Options) error {
					if o.Executor != nil && req.AddExecutor != nil {
						req.AddExecutor(executorKind(kind), o.Executor)
					}
					return nil
				},
			})
		},
	})
	if err != nil {
		store.Close()
		return &ExitError{Code: 1, Err: err}
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		store.Close()
		return usageError("--addr %s: %v", f.addr, err)
	}
	if f.token == "" && len(tenants) == 0 && !isLoopback(ln.Addr()) {
		logger.Warn("no --token: anyone who reaches this address can run code on this machine; set STAR_AGENT_TOKEN", "addr", ln.Addr().String())
	}
	if f.addrFile != "" {
		if err := os.WriteFile(f.addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			ln.Close()
			store.Close()
			return usageError("--addr-file: %v", err)
		}
	}
	fmt.Fprintf(stderr, "star-agent: serving on http://%s (model %s, database %s)\n", ln.Addr(), model.ModelID(), redactDB(dbPath))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		shutdownCtx, cancel := context.WithTimeout(context.Background(), f.grace+time.Minute)
		defer cancel()
		srv.Shutdown(shutdownCtx)
		return &ExitError{Code: 1, Err: err}
	case <-ctx.Done():
	}
	stop() // a second signal kills at once
	logger.Info("shutting down", "grace", f.grace)
	fmt.Fprintln(stderr, "star-agent: shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), f.grace+time.Minute)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	<-served
	fmt.Fprintln(stderr, "star-agent: stopped")
	return nil
}

func isLoopback(a net.Addr) bool {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	return false
}

func executorKind(name string) string {
	if name == "" {
		return "starlark"
	}
	return name
}

func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return ""
}

// readiness holds the checks of /readyz for the flags' configuration.
type readiness struct {
	a     *AgentFlags
	model providers.Model

	mu      sync.Mutex
	warmed  bool
	warmErr error
}

func newReadiness(a *AgentFlags, model providers.Model) *readiness {
	return &readiness{a: a, model: model}
}

// warmUp starts an executor as the runs will, runs one statement and
// closes it: the first start compiles the WebAssembly module (or pulls
// nothing but proves the Docker engine takes a container, or that the
// isolated Starlark engine's child process starts).
func (r *readiness) warmUp(ctx context.Context) {
	err := func() error {
		e, err := r.a.Executor().Open(executors.Limits{}, r.a.Imports(), nil)
		if err != nil {
			return err
		}
		defer e.Close()
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		res, err := e.Execute(ctx, "1 + 1")
		if err != nil {
			return err
		}
		if res.Err != nil {
			return fmt.Errorf("%s: %s", res.Err.Type, res.Err.Message)
		}
		return nil
	}()
	r.mu.Lock()
	r.warmed, r.warmErr = true, err
	r.mu.Unlock()
}

func (r *readiness) checks() []serve.Check {
	checks := []serve.Check{
		{Name: "model", Check: func(context.Context) error {
			if r.model == nil || r.model.ModelID() == "" {
				return errors.New("no model configured")
			}
			return nil
		}},
		{Name: "starlark", Check: func(ctx context.Context) error {
			e, err := starlarkexec.New(starlarkexec.Options{})
			if err != nil {
				return err
			}
			defer e.Close()
			res, err := e.Execute(ctx, "x = 1 + 1")
			if err == nil && res.Err != nil {
				err = errors.New(res.Err.Message)
			}
			return err
		}},
		{Name: "executor", Check: func(context.Context) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			switch {
			case !r.warmed:
				return fmt.Errorf("the %s executor is starting", executorKind(r.a.Executor().Executor))
			case r.warmErr != nil:
				return fmt.Errorf("the %s executor could not start: %v", executorKind(r.a.Executor().Executor), r.warmErr)
			}
			return nil
		}},
	}
	if r.a.Executor().Executor == "docker" {
		checks = append(checks, serve.Check{Name: "docker", Check: pingDocker})
	}
	return checks
}

// pingDocker asks the Docker engine (DOCKER_HOST, default the local
// socket) whether it answers.
func pingDocker(ctx context.Context) error {
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		host = "unix:///var/run/docker.sock"
	}
	network, addr, ok := strings.Cut(host, "://")
	if !ok || (network != "unix" && network != "tcp") {
		return fmt.Errorf("DOCKER_HOST %q is not unix:///PATH or tcp://HOST:PORT", host)
	}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://docker/_ping", nil)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("the Docker engine does not answer at %s: %v", host, err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("the Docker engine at %s answers %s", host, resp.Status)
	}
	return nil
}

// redactDB hides the password of a postgres:// URL.
func redactDB(db string) string {
	if !serve.IsPostgresURL(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}
