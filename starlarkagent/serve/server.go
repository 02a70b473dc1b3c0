package serve

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"mime"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/tool"
)

// Options configure a Server. NewAgent and Store are required.
type Options struct {
	// NewAgent builds the agent of one run, with executors of its own;
	// the server closes it when the run ends.
	NewAgent func(ctx context.Context, req AgentRequest) (*starlarkagent.Agent, error)
	// Store keeps the runs (see OpenStore). The server closes it in
	// Shutdown.
	Store *Store
	// Token, when set, is required as a bearer token on /v1/: the token
	// of one tenant, "default".
	Token string
	// Tenants share the server, each with a token and quotas of its own
	// (see Tenant); with Token, "default" is one more.
	Tenants []Tenant
	// MaxConcurrent runs run at once (default 4); Queue more wait (default
	// 64). Beyond that, POST /v1/runs answers 429.
	MaxConcurrent int
	Queue         int
	// ApprovalTimeout is how long a tool call waits for a decision before
	// it is denied (default DefaultApprovalTimeout). The wait also counts
	// against the execution's own time limit.
	ApprovalTimeout time.Duration
	// Budget caps every run: a request may ask for less
	// (max_total_tokens, max_cost), never more; zero fields set no cap.
	// Its Prices price the cost (nil: starlarkagent.DefaultPrices()).
	Budget starlarkagent.Budget
	// RunTimeout, when positive, ends a run that runs longer (state error).
	RunTimeout time.Duration
	// ShutdownGrace is how long Shutdown lets runs finish before it
	// cancels them (they end interrupted).
	ShutdownGrace time.Duration
	// MaxSteps is the default step budget of a run, reported by
	// /v1/config (the agent applies it); MaxBody the request body limit
	// (default 1 MiB).
	MaxSteps int
	MaxBody  int64
	// ModelID names the model in /v1/config.
	ModelID string
	// Checks are the readiness checks of /readyz besides the server's own
	// (database, shutdown); each returns nil when ready, or why not.
	Checks []Check
	// Version is reported by /v1/config.
	Version string
	Logger  *slog.Logger
	// Collectors are more Prometheus metrics for /metrics, such as those
	// of a pool of sandboxes the program keeps.
	Collectors []prometheus.Collector
	// Lease bounds how long a run stays with a server that stopped
	// renewing it (dead, paused, cut off) before another replica takes
	// it over (default DefaultLease): the owner renews it every sixth of
	// it, a lease lapses after two thirds of it without a renewal, and
	// replicas look for lapsed leases every sixth.
	Lease time.Duration
	// Resume, on SQLite, resumes by replay the runs the previous process
	// left (killed, crashed) when the server starts; without it they end
	// interrupted. Shutdown still ends its runs interrupted on SQLite. On
	// PostgreSQL runs are always resumed, by any replica, and Shutdown
	// hands them over.
	Resume bool
	// Replica names this server in the database (default: NewReplicaID).
	Replica string
	// SweepSandboxes, when set, is called every Lease to remove the
	// sandboxes whose owner is gone: those of a replica whose heartbeat
	// lapsed, unless that replica still holds their run (see sweep.go).
	// The sandboxes must carry the labels of AgentRequest.Owner.
	SweepSandboxes SweepFunc
	// AuditLogger, when set, receives the approval requests and
	// decisions (give the agents the same, Options.AuditLogger, for
	// their tool calls); nil: Logger.
	AuditLogger *slog.Logger
}

// Check is a readiness check.
type Check struct {
	Name  string
	Check func(ctx context.Context) error
}

// AgentRequest is what the server asks of Options.NewAgent for a run.
type AgentRequest struct {
	// RunID identifies the run, for logs; Task is its task; Tenant the
	// tenant that created it ("" without tokens).
	RunID  string
	Tenant string
	Task   string
	// Imports are authorized for this run in addition to the server's.
	Imports []string
	// WrapModel must be applied to the model the agent uses: it measures
	// the model's calls.
	WrapModel func(providers.Model) providers.Model
	// AddExecutor may be called by the factory with the executors it
	// opens for the agent, named by kind (wasm, docker...): when one
	// counts the sandboxes it started (a Starts() int method, as
	// runner.Host has), the server adds them to its metrics as the run
	// ends. The agent still owns and closes them.
	AddExecutor func(kind string, e executors.Executor)
	// Owner names the replica and the run (LabelReplica, LabelRun): the
	// factory should put it on the sandboxes it starts for the run (as
	// labels, metadata or tags), so that Options.SweepSandboxes finds them
	// should this server die.
	Owner map[string]string
}

// RunRequest is the body of POST /v1/runs.
type RunRequest struct {
	Task           string         `json:"task"`
	MaxSteps       int            `json:"max_steps,omitempty"`
	AdditionalArgs map[string]any `json:"additional_args,omitempty"`
	Imports        []string       `json:"imports,omitempty"`
	Images         []string       `json:"images,omitempty"`
	// MaxTotalTokens and MaxCost (dollars) are the run's budget, capped
	// by the server's.
	MaxTotalTokens int     `json:"max_total_tokens,omitempty"`
	MaxCost        float64 `json:"max_cost,omitempty"`
}

// Server runs agents over HTTP (see API.md).
type Server struct {
	opts    Options
	store   *Store
	log     *slog.Logger
	audit   *slog.Logger
	metrics *metrics
	handler http.Handler
	slots   chan struct{}
	tenants map[[32]byte]*Tenant // by token hash; empty: no authentication

	mu       sync.Mutex
	active   map[string]*run
	pending  int  // runs admitted and not yet ended
	draining bool // Shutdown was called
	avgRun   time.Duration

	runs    sync.WaitGroup
	quit    chan struct{} // closed when the server stops streaming
	replica string
	// stopLeases ends keepLeases, which closes leasesDone.
	stopLeases, leasesDone chan struct{}
	// sweepDone is closed when sweepSandboxes returns.
	sweepDone chan struct{}
	srvMu     sync.Mutex
	servers   []*http.Server
}

// New returns a Server.
func New(opts Options) (*Server, error) {
	if opts.NewAgent == nil || opts.Store == nil {
		return nil, errors.New("serve: Options.NewAgent and Options.Store are required")
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 4
	}
	if opts.Queue < 0 {
		return nil, errors.New("serve: Options.Queue must not be negative")
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 1 << 20
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = starlarkagent.DefaultMaxSteps
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.AuditLogger == nil {
		opts.AuditLogger = opts.Logger
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Replica == "" {
		opts.Replica = NewReplicaID()
	}
	s := &Server{
		opts:    opts,
		store:   opts.Store,
		log:     opts.Logger,
		audit:   opts.AuditLogger,
		metrics: newMetrics(opts.Collectors...),
		slots:   make(chan struct{}, opts.MaxConcurrent),
		active:  map[string]*run{},
		quit:    make(chan struct{}),
		replica: opts.Replica,

		stopLeases: make(chan struct{}),
		leasesDone: make(chan struct{}),
		sweepDone:  make(chan struct{}),
	}
	var err error
	if s.tenants, err = checkTenants(append([]Tenant(nil), opts.Tenants...)); err != nil {
		return nil, err
	}
	if opts.Token != "" {
		// The single token of a server without tenants: any length, as
		// it always was.
		sum := sha256.Sum256([]byte(opts.Token))
		for _, t := range s.tenants {
			if t.Name == "default" || t.Token == opts.Token {
				return nil, fmt.Errorf("serve: the token of Options.Token is tenant \"default\", which Tenants already has (by name or token)")
			}
		}
		s.tenants[sum] = &Tenant{Name: "default", Token: opts.Token, ownerless: true}
	}
	s.handler = s.routes()
	if err := s.startDurable(); err != nil {
		return nil, err
	}
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// readTimeout bounds reading a request, body included; net/http lifts it
// once the request is read, so event streams outlive it (a variable for
// the test that checks so).
var readTimeout = time.Minute

// Serve accepts connections on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       readTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.srvMu.Lock()
	s.servers = append(s.servers, hs)
	s.srvMu.Unlock()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops the server: new runs are refused at once (and /readyz
// fails), running and queued runs get ShutdownGrace to end, then are
// cancelled and end interrupted; their agents, and so their executors, are
// closed; event streams end; the HTTP servers close and the store is
// flushed and closed. ctx bounds the whole.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()

	done := make(chan struct{})
	go func() { s.runs.Wait(); close(done) }()
	grace := time.NewTimer(s.opts.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
	case <-ctx.Done():
	}
	s.mu.Lock()
	for _, r := range s.active {
		r.cancel(errShutdown)
	}
	s.mu.Unlock()
	var errs []error
	select {
	case <-done:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("serve: runs still ending at the shutdown deadline: %w", ctx.Err()))
	}
	close(s.stopLeases)
	<-s.leasesDone
	<-s.sweepDone
	// This server's sandboxes are closed: none is left for a sweep to
	// spare.
	if err := s.store.forgetReplica(ctx, s.replica); err != nil {
		s.log.Warn("removing this replica's heartbeat", "error", err)
	}
	close(s.quit)
	s.srvMu.Lock()
	for _, hs := range s.servers {
		if err := hs.Shutdown(ctx); err != nil {
			hs.Close()
			errs = append(errs, err)
		}
	}
	s.srvMu.Unlock()
	errs = append(errs, s.store.Close())
	return errors.Join(errs...)
}

// observeDuration keeps a moving average of run durations, for Retry-After.
func (s *Server) observeDuration(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.avgRun == 0 {
		s.avgRun = d
	} else {
		s.avgRun = (s.avgRun*7 + d) / 8
	}
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(route string, methods map[string]http.HandlerFunc) {
		var allow []string
		for m := range methods {
			allow = append(allow, m)
		}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, ok := methods[r.Method]
			if !ok {
				w.Header().Set("Allow", strings.Join(allow, ", "))
				writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s is not allowed on %s; use %s", r.Method, route, strings.Join(allow, " or ")))
				return
			}
			f(w, r)
		})
		mux.Handle(route, s.count(route, s.auth(h)))
	}
	api("/v1/runs", map[string]http.HandlerFunc{"POST": s.createRun, "GET": s.listRuns})
	api("/v1/runs/{id}", map[string]http.HandlerFunc{"GET": s.getRun})
	api("/v1/runs/{id}/events", map[string]http.HandlerFunc{"GET": s.events})
	api("/v1/runs/{id}/cancel", map[string]http.HandlerFunc{"POST": s.cancelRun})
	api("/v1/runs/{id}/approvals/{approval}", map[string]http.HandlerFunc{"POST": s.decide})
	api("/v1/config", map[string]http.HandlerFunc{"GET": s.config})
	mux.Handle("/v1/", s.count("/v1/", s.auth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no API endpoint %s %s: see API.md", r.Method, r.URL.Path))
	}))))
	mux.Handle("GET /healthz", s.count("/healthz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})))
	mux.Handle("GET /readyz", s.count("/readyz", http.HandlerFunc(s.ready)))
	mux.Handle("GET /metrics", s.metrics.handler())
	mux.Handle("/", staticHandler())
	return s.guard(mux)
}

// guard sets the headers every answer carries, and, on a server without
// a token, refuses requests whose Host is a name other than localhost:
// otherwise a web page whose domain an attacker re-points at 127.0.0.1
// (DNS rebinding) could use the API as its own origin. An IP address or
// localhost is what a browser sends when it really means this machine.
func (s *Server) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		if len(s.tenants) == 0 && !localHost(r.Host) {
			writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("this server has no token, so it answers only requests for localhost or an IP address, not %q: start it with --token (or STAR_AGENT_TOKEN) to serve it under a name", clip(r.Host, 100)))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// localHost reports whether host (with or without a port) is localhost
// or an IP address.
func localHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	return net.ParseIP(host) != nil
}

// count counts requests by route and status code.
func (s *Server) count(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(sw, r)
		s.metrics.requests.WithLabelValues(route, fmt.Sprint(sw.code)).Inc()
	})
}

type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// auth requires the bearer token, when the server has one. Both sides are
// hashed first so that the comparison takes the same time whatever the
// token's length.
func (s *Server) auth(h http.Handler) http.Handler {
	if len(s.tenants) == 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The scheme is case-insensitive (RFC 9110, section 11.1).
		scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			got = r.URL.Query().Get("access_token")
		}
		t := s.authenticate(got)
		if got == "" || t == nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="star-agent"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "a valid bearer token is required: send Authorization: Bearer TOKEN (the server's --token or STAR_AGENT_TOKEN, or a tenant's token from --tokens)")
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, t)))
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, kind, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]string{"code": kind, "message": msg}})
}

var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	moduleName = regexp.MustCompile(`^[A-Za-z0-9_.*]{1,100}$`)
)

const (
	maxTaskBytes = 100_000
	maxRunSteps  = 1000
	maxImports   = 64
)

// decodeRequest reads and checks the body of POST /v1/runs.
func (s *Server) decodeRequest(w http.ResponseWriter, r *http.Request) (*RunRequest, bool) {
	// Only JSON, said so: a browser sends a cross-site form (urlencoded,
	// multipart or text/plain) without asking, but JSON only after a CORS
	// preflight this server never approves. So a web page cannot start
	// runs on a server without a token on this machine.
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", fmt.Sprintf("the body must be JSON sent as Content-Type: application/json, not %q (with curl: --json or -H 'Content-Type: application/json')", clip(r.Header.Get("Content-Type"), 80)))
		return nil, false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var req RunRequest
	bad := func(format string, args ...any) (*RunRequest, bool) {
		writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf(format, args...))
		return nil, false
	}
	if err := dec.Decode(&req); err != nil {
		if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the request body is over the limit of %d bytes", mb.Limit))
			return nil, false
		}
		return bad("the body is not a run request: %v (want {\"task\": \"...\"})", err)
	}
	if dec.More() {
		return bad("the body holds more than one JSON value")
	}
	if strings.TrimSpace(req.Task) == "" {
		return bad(`"task" is required: the task for the agent, as a non-empty string`)
	}
	if len(req.Task) > maxTaskBytes {
		return bad(`"task" is %d bytes, over the limit of %d`, len(req.Task), maxTaskBytes)
	}
	if req.MaxTotalTokens < 0 || req.MaxCost < 0 {
		return bad(`"max_total_tokens" and "max_cost" must not be negative`)
	}
	if req.MaxSteps < 0 || req.MaxSteps > maxRunSteps {
		return bad(`"max_steps" must be between 1 and %d, not %d`, maxRunSteps, req.MaxSteps)
	}
	for k := range req.AdditionalArgs {
		if !identifier.MatchString(k) {
			return bad(`"additional_args" key %q is not a Python identifier`, k)
		}
		if tool.IsReserved(k) {
			return bad(`"additional_args" key %q is reserved: %s are the agent's own names in the code; give the value another name`, k, strings.Join(tool.ReservedNames, ", "))
		}
	}
	req.AdditionalArgs = pyvalue.Numbers(req.AdditionalArgs).(map[string]any)
	if len(req.Imports) > maxImports {
		return bad(`"imports" lists %d modules, over the limit of %d`, len(req.Imports), maxImports)
	}
	for _, m := range req.Imports {
		if !moduleName.MatchString(m) {
			return bad(`"imports": %q is not a module name`, m)
		}
		// A client may widen the defaults, not open the host: "*" and
		// the modules that reach files, processes or the network are
		// the operator's to grant (--imports), never a request's.
		name := strings.TrimSuffix(m, ".*") // "pkg.*" is pkg
		top, _, _ := strings.Cut(name, ".")
		if strings.Contains(name, "*") || executors.IsHostModule(top) {
			return bad(`"imports": a run may not authorize %q; it reaches the host (or everything): only the server's --imports can`, m)
		}
	}
	if len(req.Images) > 0 {
		return bad(`"images" are not supported yet: the agent does not take images; send the task without them`)
	}
	return &req, true
}

// maxIdempotencyKey bounds the Idempotency-Key header.
const maxIdempotencyKey = 255

func (s *Server) createRun(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if len(key) > maxIdempotencyKey {
		writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("Idempotency-Key is %d bytes, over the limit of %d", len(key), maxIdempotencyKey))
		return
	}
	req, ok := s.decodeRequest(w, r)
	if !ok {
		return
	}
	now := time.Now()
	tenant := tenantOf(r)
	if !s.admitTenant(w, r, tenant) {
		return
	}
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		s.metrics.rejected.WithLabelValues("shutting_down").Inc()
		writeError(w, http.StatusServiceUnavailable, "shutting_down", "the server is shutting down and accepts no new runs: send the run to another replica")
		return
	}
	if s.pending >= s.opts.MaxConcurrent+s.opts.Queue {
		retry := s.retryAfter()
		s.mu.Unlock()
		s.metrics.rejected.WithLabelValues("queue_full").Inc()
		w.Header().Set("Retry-After", fmt.Sprint(retry))
		writeError(w, http.StatusTooManyRequests, "busy", fmt.Sprintf("%d runs are running or queued, the most this server takes (--max-concurrent %d, --queue %d): retry in %d s", s.pending, s.opts.MaxConcurrent, s.opts.Queue, retry))
		return
	}
	s.pending++
	s.runs.Add(1) // under s.mu with draining false: Shutdown's Wait comes after
	s.mu.Unlock()
	admitted := false
	defer func() {
		if !admitted {
			s.mu.Lock()
			s.pending--
			s.mu.Unlock()
			s.runs.Done()
		}
	}()

	ctx, cancel := context.WithCancelCause(context.Background())
	rn := &run{id: newRunID(now), task: req.Task, req: *req, created: now, ctx: ctx, cancel: cancel, state: StateQueued, changed: make(chan struct{})}
	if tenant != nil {
		rn.tenant = tenant.Name
		rn.tenantCfg = tenant
	}
	reqJSON, _ := json.Marshal(req)
	// Not the request's context: a client that hangs up must not leave
	// a run stored as queued that nothing runs.
	sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer scancel()
	rn.attempt = 1
	created, err := s.store.createRun(sctx, &runRecord{ID: rn.id, Task: req.Task, Request: reqJSON, State: StateQueued, CreatedAt: now, Tenant: rn.tenant,
		Attempt: rn.attempt, IdempotencyKey: key}, s.replica, s.leaseTTL())
	if err != nil {
		cancel(nil)
		writeError(w, http.StatusInternalServerError, "internal", "could not store the run: "+err.Error())
		return
	}
	if !created {
		// The key was used before: answer with that run, wherever it runs.
		cancel(nil)
		id, err := s.store.runByKey(sctx, rn.tenant, key)
		var rec *runRecord
		if err == nil {
			rec, err = s.store.getRun(sctx, id)
		}
		if err != nil {
			writeError(w, http.StatusInternalServerError, "internal", "reading the run of this Idempotency-Key: "+err.Error())
			return
		}
		state := rec.State
		s.mu.Lock()
		if x := s.active[id]; x != nil {
			x.mu.Lock()
			state = x.state
			x.mu.Unlock()
		}
		s.mu.Unlock()
		w.Header().Set("Location", "/v1/runs/"+id)
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "state": state})
		return
	}
	s.mu.Lock()
	if s.draining {
		// Shutdown began while the run was stored: it ends at once.
		s.mu.Unlock()
		cancel(errShutdown)
	} else {
		s.active[rn.id] = rn
		s.mu.Unlock()
	}
	admitted = true
	s.add(rn, "state", stateEvent{State: StateQueued, Time: now.UTC()})
	go s.execute(rn)
	w.Header().Set("Location", "/v1/runs/"+rn.id)
	writeJSON(w, http.StatusAccepted, map[string]any{"id": rn.id, "state": StateQueued})
}

// retryAfter estimates, in seconds, when a slot frees up: the average
// run's duration times the queue's length over the slots. s.mu is held.
func (s *Server) retryAfter() int {
	avg := s.avgRun
	if avg == 0 {
		avg = 5 * time.Second
	}
	waves := float64(s.opts.Queue)/float64(s.opts.MaxConcurrent) + 1
	secs := int(math.Ceil(avg.Seconds() * waves))
	return min(max(secs, 1), 300)
}

// lookup finds a run in memory; ok is false when the id is malformed (an
// answer has been written).
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (id string, rn *run, ok bool) {
	id = r.PathValue("id")
	if !validRunID(id) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no run with id %q: run ids look like r_ and 26 letters and digits; list runs with GET /v1/runs", clip(id, 60)))
		return id, nil, false
	}
	s.mu.Lock()
	rn = s.active[id]
	s.mu.Unlock()
	// Another tenant's run is answered as an unknown one.
	if rn != nil && !visible(r, rn.tenant) {
		notFound(w, id)
		return id, nil, false
	}
	if rn == nil && tenantOf(r) != nil {
		owner, err := s.store.runTenant(r.Context(), id)
		if err == nil && !visible(r, owner) {
			notFound(w, id)
			return id, nil, false
		}
	}
	return id, rn, true
}

// storedRun reads run id from the store for a request that needs it,
// answering 404 or 500 itself when it cannot (ok false).
func (s *Server) storedRun(w http.ResponseWriter, r *http.Request, id string) (rec *runRecord, ok bool) {
	rec, err := s.store.getRun(r.Context(), id)
	if errors.Is(err, errNoRun) {
		notFound(w, id)
		return nil, false
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "reading the run: "+err.Error())
		return nil, false
	}
	return rec, true
}

func notFound(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no run with id %q: list runs with GET /v1/runs", id))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// runView is the answer of GET /v1/runs/{id}.
type runView struct {
	ID          string          `json:"id"`
	Task        string          `json:"task"`
	State       State           `json:"state"`
	CreatedAt   time.Time       `json:"created_at"`
	StartedAt   *time.Time      `json:"started_at,omitempty"`
	EndedAt     *time.Time      `json:"ended_at,omitempty"`
	Request     json.RawMessage `json:"request"`
	LastEventID int64           `json:"last_event_id"`
	Output      any             `json:"output,omitempty"`
	Repr        string          `json:"repr,omitempty"`
	Steps       json.RawMessage `json:"steps,omitempty"`
	TokenUsage  json.RawMessage `json:"token_usage,omitempty"`
	Timing      json.RawMessage `json:"timing,omitempty"`
	Error       string          `json:"error,omitempty"`
	// PendingApprovals are the tool calls waiting for a decision.
	PendingApprovals []approvalView `json:"pending_approvals,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	id, rn, ok := s.lookup(w, r)
	if !ok {
		return
	}
	var v runView
	var result json.RawMessage
	if rn != nil {
		reqJSON, _ := json.Marshal(rn.req)
		rn.mu.Lock()
		v = runView{ID: rn.id, Task: rn.task, State: rn.state, CreatedAt: rn.created.UTC(), StartedAt: timePtr(rn.started),
			EndedAt: timePtr(rn.ended), Request: reqJSON, LastEventID: int64(len(rn.events)), Error: rn.errText,
			PendingApprovals: s.pendingViews(rn)}
		result = rn.result
		rn.mu.Unlock()
	} else {
		rec, ok := s.storedRun(w, r, id)
		if !ok {
			return
		}
		last, err := s.store.lastEventID(r.Context(), id)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "internal", "reading the run's events: "+err.Error())
			return
		}
		v = runView{ID: rec.ID, Task: rec.Task, State: rec.State, CreatedAt: rec.CreatedAt.UTC(), StartedAt: timePtr(rec.StartedAt),
			EndedAt: timePtr(rec.EndedAt), Request: rec.Request, LastEventID: last, Error: rec.Error}
		result = rec.Result
		if !rec.State.Final() {
			// Another server runs it: its pending approvals, from the
			// stored events (decided here through the store).
			if v.PendingApprovals, err = s.store.storedPending(r.Context(), id); err != nil {
				writeError(w, http.StatusInternalServerError, "internal", "reading the run's approvals: "+err.Error())
				return
			}
			if len(v.PendingApprovals) > 0 {
				v.State = StateAwaitingApproval
			}
		}
	}
	if v.State.Final() {
		v.Steps, v.TokenUsage, v.Timing = json.RawMessage("[]"), json.RawMessage(`{"input_tokens":0,"output_tokens":0}`), nil
		if len(result) > 0 {
			var res struct {
				Output     json.RawMessage `json:"output"`
				Repr       string          `json:"repr"`
				Steps      json.RawMessage `json:"steps"`
				TokenUsage json.RawMessage `json:"token_usage"`
				Timing     json.RawMessage `json:"timing"`
			}
			if err := json.Unmarshal(result, &res); err == nil {
				v.Output, v.Repr, v.Steps, v.TokenUsage, v.Timing = res.Output, res.Repr, res.Steps, res.TokenUsage, res.Timing
			}
		}
		if v.Timing == nil && v.EndedAt != nil {
			start := v.CreatedAt
			if v.StartedAt != nil {
				start = *v.StartedAt
			}
			v.Timing, _ = json.Marshal(timingOf(start, *v.EndedAt))
		}
	}
	writeJSON(w, http.StatusOK, v)
}

// runSummary is a run in GET /v1/runs.
type runSummary struct {
	ID         string           `json:"id"`
	Task       string           `json:"task"`
	State      State            `json:"state"`
	CreatedAt  time.Time        `json:"created_at"`
	StartedAt  *time.Time       `json:"started_at,omitempty"`
	EndedAt    *time.Time       `json:"ended_at,omitempty"`
	Steps      *int             `json:"steps,omitempty"`
	TokenUsage *providers.Usage `json:"token_usage,omitempty"`
	Duration   *float64         `json:"duration,omitempty"`
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 20
	if l := q.Get("limit"); l != "" {
		if _, err := fmt.Sscan(l, &limit); err != nil || limit < 1 || limit > 100 || fmt.Sprint(limit) != l {
			writeError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("limit must be a number from 1 to 100, not %q", clip(l, 20)))
			return
		}
	}
	var only []string
	if t := tenantOf(r); t != nil {
		only = []string{t.Name}
		if t.ownerless {
			only = append(only, "")
		}
	}
	recs, next, err := s.store.listRuns(r.Context(), q.Get("cursor"), limit, only)
	if errors.Is(err, errBadCursor) {
		writeError(w, http.StatusBadRequest, "bad_request", "cursor is not one this server gave: pass next_cursor from the previous page, or no cursor for the first")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "listing runs: "+err.Error())
		return
	}
	out := make([]runSummary, 0, len(recs))
	for _, rec := range recs {
		sum := runSummary{ID: rec.ID, Task: clip(rec.Task, 200), State: rec.State, CreatedAt: rec.CreatedAt.UTC(),
			StartedAt: timePtr(rec.StartedAt), EndedAt: timePtr(rec.EndedAt)}
		// A run in memory is newer than the database says.
		s.mu.Lock()
		rn := s.active[rec.ID]
		s.mu.Unlock()
		if rn != nil {
			rn.mu.Lock()
			sum.State, sum.StartedAt, sum.EndedAt = rn.state, timePtr(rn.started), timePtr(rn.ended)
			if rn.state.Final() {
				steps, usage, dur := rn.summary.Steps, rn.summary.TokenUsage, rn.summary.Timing.Duration
				sum.Steps, sum.TokenUsage, sum.Duration = &steps, &usage, &dur
			}
			rn.mu.Unlock()
		} else if rec.State.Final() {
			steps, usage, dur := rec.Steps, providers.Usage{InputTokens: rec.Input, OutputTokens: rec.Output}, rec.Duration
			sum.Steps, sum.TokenUsage, sum.Duration = &steps, &usage, &dur
		}
		out = append(out, sum)
	}
	body := map[string]any{"runs": out}
	if next != "" {
		body["next_cursor"] = next
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	id, rn, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if rn == nil {
		rec, ok := s.storedRun(w, r, id)
		if !ok {
			return
		}
		if !rec.State.Final() {
			// Another replica runs it (or will take it over): the flag
			// and a notification reach it.
			open, err := s.store.requestCancel(r.Context(), id)
			if err != nil {
				writeError(w, http.StatusInternalServerError, "internal", "cancelling the run: "+err.Error())
				return
			}
			if open {
				writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "state": rec.State})
				return
			}
			if rec, err = s.store.getRun(r.Context(), id); err != nil {
				writeError(w, http.StatusInternalServerError, "internal", "reading the run: "+err.Error())
				return
			}
		}
		writeError(w, http.StatusConflict, "conflict", fmt.Sprintf("run %s has already ended (%s)", id, rec.State))
		return
	}
	rn.mu.Lock()
	state := rn.state
	rn.mu.Unlock()
	if state.Final() {
		writeError(w, http.StatusConflict, "conflict", fmt.Sprintf("run %s has already ended (%s)", id, state))
		return
	}
	rn.cancel(errCancelled)
	if state == StateQueued {
		// A queued run ends at once: wait for it, briefly, so that the
		// answer can say so.
		_, _, changed := rn.since(0)
		for range 2 {
			select {
			case <-changed:
			case <-time.After(time.Second):
			}
			rn.mu.Lock()
			state = rn.state
			changed = rn.changed
			rn.mu.Unlock()
			if state.Final() {
				break
			}
		}
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "state": state})
}

func (s *Server) config(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"model":          s.opts.ModelID,
		"max_steps":      s.opts.MaxSteps,
		"max_concurrent": s.opts.MaxConcurrent,
		"queue":          s.opts.Queue,
		"run_timeout":    s.opts.RunTimeout.Seconds(),
		"version":        s.opts.Version,
	})
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	checks := map[string]string{}
	ok := true
	set := func(name string, err error) {
		if err != nil {
			checks[name] = err.Error()
			ok = false
		} else {
			checks[name] = "ok"
		}
	}
	for _, c := range s.opts.Checks {
		set(c.Name, c.Check(ctx))
	}
	set("database", s.store.Ping(ctx))
	s.mu.Lock()
	draining := s.draining
	s.mu.Unlock()
	if draining {
		set("shutdown", errors.New("the server is shutting down"))
	} else {
		set("shutdown", nil)
	}
	if ok {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
	} else {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "checks": checks})
	}
}
