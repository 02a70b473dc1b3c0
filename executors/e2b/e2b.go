// Package e2b is the full-Python executor that runs code in E2B sandboxes
// (Firecracker micro-VMs managed by e2b.dev). There is no Go SDK for E2B,
// so the package has its own client of the two APIs it needs: the REST
// control plane (api.go: create a sandbox, kill it, extend its lifetime,
// read its state) and envd's process service inside the sandbox (envd.go:
// start the runner with stdin, stream its output, send it input, re-attach
// to it), both over HTTPS.
//
// The runner of package runner is the sandbox's one long-lived process,
// `python3 -I -u -c <runner.Script>`, so the template must have python3 on
// its PATH (the default, "base", does). Its stdout comes back as the Start
// stream's data events, base64 chunks split anywhere, which are written in
// order into a pipe that the runner.Session reads as one byte stream; what
// the Session writes becomes SendInput calls of at most 256 KiB, one after
// the other. A runner.Host drives the lifecycle: the sandbox is created on
// the first action, replaced (with the model told that its state is lost)
// when it crashes, expires, times out or breaks the protocol, and deleted
// by Close, which waits (bounded) for E2B to confirm.
//
// Connect without generated code: envd's API is a Connect service, and
// connectrpc.com/connect is used as its client with a small JSON codec for
// plain Go structs (connect's own JSON codec needs protobuf messages, and
// generating them would add envd's .proto files and protobuf runtime to the
// build). connect-go does what hand framing would have to redo: the
// envelope (flag, 4-byte length, JSON), the end-of-stream frame and its
// error, Connect-Protocol-Version and content types, HTTP-to-code error
// mapping, and a bound on every message read (WithReadMaxBytes), which
// matters because envd runs inside the sandbox and is trusted no more than
// the code. The fake server in e2bfake frames by hand, so the tests check
// the client against an independent reading of the protocol.
//
// Failures: control-plane calls are retried on 429, 5xx and transport
// errors with backoff, honouring Retry-After (providers/retry), and an error
// that remains carries E2B's message and what to do (quota, API key,
// capacity). envd calls that carry input are retried only when an answer
// says they were refused (429, 502, 503), never after a transport error,
// since input must not arrive twice. While the executor is open, each
// sandbox's lifetime is extended every half timeout (Options.Timeout).
//
// A dropped output stream is re-attached with Connect{pid}, and so is a
// stream on which nothing arrives for three keepalive intervals (envd is
// asked for one every 15 s). envd does not
// replay output written while no client is attached (its multiplexer
// drops events without a subscriber) and sends nothing twice, so output is
// never duplicated; a drop between protocol lines (the usual case: a long
// computation on an idle connection) loses nothing, and a drop in the
// middle of a line, where bytes may have been lost, ends the sandbox with
// an explanation rather than letting a damaged message through. A sandbox
// that no longer exists (the edge's 404 or 502, confirmed by the control
// plane) or whose runner ended is reported to the model as lost state, and
// the next action starts a new one.
//
// What crosses into the sandbox: the runner script, the code and the
// values the protocol carries. No environment variables unless
// Options.EnvVars names them, so no secret (E2B_API_KEY included) enters
// the sandbox. Nothing that comes out is trusted: the Session bounds and
// validates every message, and the client bounds every event.
//
// Tested only against the loopback fake in e2bfake, which runs the runner
// in a real local python3; no test reaches E2B.
package e2b

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/internal/cloud"
	"github.com/star-agent/star-agent/executors/runner"
)

// Engine is the Result.Engine of this executor.
const Engine = "python:e2b"

// DefaultTemplate is the sandbox template used when none is given: E2B's
// base image, which has python3. A custom template must have python3 on
// its PATH too.
const DefaultTemplate = "base"

// DefaultTimeout is a sandbox's lifetime between extensions.
const DefaultTimeout = 5 * time.Minute

// startTimeout bounds creating a sandbox and starting its runner.
var startTimeout = 90 * time.Second

// DefaultDomain is E2B's domain.
const DefaultDomain = "e2b.app"

// Options configure an Executor. The zero value uses E2B_API_KEY and the
// defaults.
type Options struct {
	// Limits bound each execution; MaxMemory bounds what the host accepts
	// from the runner (the sandbox's own memory is the template's).
	Limits executors.Limits
	// Imports is the import policy; the zero value is
	// executors.NewImportPolicy(nil, nil).
	Imports executors.ImportPolicy
	// APIKey authenticates with E2B; "" means $E2B_API_KEY.
	APIKey string
	// Domain is E2B's domain; "" means $E2B_DOMAIN, else e2b.app.
	Domain string
	// APIURL is the control plane; "" means $E2B_API_URL, else
	// https://api.DOMAIN. Plain http is allowed for loopback only.
	APIURL string
	// EnvdURL, for tests, sends envd's requests to this URL instead of
	// https://49983-ID.DOMAIN, with that name as the Host header; ""
	// means $E2B_ENVD_URL. Plain http is allowed for loopback only.
	EnvdURL string
	// Template is the sandbox template (a name or id); "" means
	// DefaultTemplate. It must have python3.
	Template string
	// Timeout is the sandbox's lifetime, extended every half Timeout
	// while the executor is open; 0 means DefaultTimeout.
	Timeout time.Duration
	// EnvVars are the runner's environment variables in the sandbox.
	// None by default: nothing of this process's environment is sent.
	EnvVars map[string]string
	// Metadata is added to every sandbox's metadata (which always has
	// created-by: star-agent), such as the replica and run of star-agent
	// serve that own it.
	Metadata map[string]string
	// HTTPClient sends the requests; nil means a client of its own.
	HTTPClient *http.Client
	// Logger receives warnings (a failed extension or deletion); nil
	// means slog.Default().
	Logger *slog.Logger
}

// Executor runs Python code in E2B sandboxes. It implements
// executors.Executor through the embedded runner.Host; methods are safe
// for concurrent use, and executions are serialized.
type Executor struct {
	*runner.Host
	api      *api
	envdHTTP *http.Client
	domain   string
	envdURL  string
	template string
	timeout  time.Duration
	envVars  map[string]string
	metadata map[string]string
	logger   *slog.Logger

	killTimeout time.Duration
	// Copies of maxInput, keepaliveInterval and idleTimeout.
	maxInput          int
	keepaliveInterval time.Duration
	idleTimeout       time.Duration

	sandboxes *cloud.Sandboxes[*sandbox] // started and not yet deleted

	mu   sync.Mutex
	last *sandbox // the latest started (for tests)
}

var _ executors.Executor = (*Executor)(nil)

// New returns an Executor; no sandbox is created until code runs (or
// Start is called).
func New(opts Options) (*Executor, error) {
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("e2b: %w", err)
	}
	limits := opts.Limits.WithDefaults()
	key := opts.APIKey
	if key == "" {
		key = os.Getenv("E2B_API_KEY")
	}
	if key == "" {
		return nil, errors.New("e2b: no API key: set E2B_API_KEY (from https://e2b.dev/dashboard) or give one in the options")
	}
	domain := cloud.FirstOf(opts.Domain, os.Getenv("E2B_DOMAIN"), DefaultDomain)
	apiURL := cloud.FirstOf(opts.APIURL, os.Getenv("E2B_API_URL"), "https://api."+domain)
	if err := cloud.CheckURL("e2b", "E2B API URL", apiURL); err != nil {
		return nil, err
	}
	envdURL := cloud.FirstOf(opts.EnvdURL, os.Getenv("E2B_ENVD_URL"))
	if envdURL != "" {
		if err := cloud.CheckURL("e2b", "E2B envd URL", envdURL); err != nil {
			return nil, err
		}
	}
	timeout, err := cloud.Lifetime("e2b", "E2B", opts.Timeout, DefaultTimeout)
	if err != nil {
		return nil, err
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	e := &Executor{
		envdHTTP:    hc,
		domain:      domain,
		envdURL:     strings.TrimRight(envdURL, "/"),
		template:    cloud.FirstOf(opts.Template, DefaultTemplate),
		timeout:     timeout,
		envVars:     opts.EnvVars,
		metadata:    opts.Metadata,
		logger:      logger,
		killTimeout: 10 * time.Second,
		maxInput:    maxInput,

		keepaliveInterval: keepaliveInterval,
		idleTimeout:       idleTimeout,
		sandboxes:         cloud.NewSandboxes[*sandbox](),
	}
	e.api = newAPI(apiURL, key, e.controlClient(hc, nil))
	e.Host = runner.NewHost(runner.HostOptions{
		Name:         "e2b",
		Engine:       Engine,
		Limits:       limits,
		Config:       runner.Config{MaxOutput: limits.MaxOutput, MaxMemory: limits.MaxMemory, MaxValue: limits.MaxValue, Imports: opts.Imports},
		Start:        e.start,
		StartTimeout: startTimeout,
		ReapTimeout:  e.killTimeout + 2*time.Second,
	})
	return e, nil
}

// controlClient returns hc with a retrying transport; sleep replaces the
// backoff's timer in tests.
func (e *Executor) controlClient(hc *http.Client, sleep func(context.Context, time.Duration) error) *http.Client {
	c := *hc
	c.Transport = controlTransport(hc.Transport, sleep)
	return &c
}

// start creates a sandbox and starts the runner in it.
func (e *Executor) start(ctx context.Context) (runner.Sandbox, error) {
	ctx, stop, err := e.sandboxes.Start(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	info, err := e.api.create(ctx, createRequest{
		TemplateID: e.template,
		Timeout:    seconds(e.timeout),
		Metadata:   e.sandboxMetadata(),
		EnvVars:    e.envVars,
		Secure:     true,
	})
	if err != nil {
		if ctx.Err() != nil && !e.sandboxes.Closed() {
			return nil, fmt.Errorf("E2B did not create a sandbox in time: %w", err)
		}
		return nil, err
	}
	pr, pw := io.Pipe()
	s := &sandbox{Life: cloud.NewLife(pw), id: info.SandboxID, e: e}
	domain := cloud.FirstOf(info.Domain, e.domain)
	host := fmt.Sprintf("%d-%s.%s", envdPort, info.SandboxID, domain)
	if e.envdURL != "" {
		s.envd = newEnvd(e.envdURL, host, info.EnvdAccessToken, e.envdHTTP)
	} else {
		s.envd = newEnvd("https://"+host, "", info.EnvdAccessToken, e.envdHTTP)
	}
	s.envd.keepalive = e.keepaliveInterval
	e.mu.Lock()
	e.last = s
	e.mu.Unlock()
	if err := e.sandboxes.Add(s); err != nil {
		return nil, err
	}
	if err := s.startRunner(ctx); err != nil {
		s.Kill()
		return nil, fmt.Errorf("sandbox %s (template %s): %w", s.id, e.template, err)
	}
	s.sess = runner.NewSession(pr, stdin{s})
	return s, nil
}

// startRunner starts python3 with the runner and waits for envd to say
// it started; the stream then feeds the Session until the runner ends.
func (s *sandbox) startRunner(ctx context.Context) error {
	// The environment variables were given to the sandbox at creation.
	cfg := processConfig{Cmd: "python3", Args: []string{"-I", "-u", "-c", runner.Script}}
	for attempt := 1; ; attempt++ {
		// The stream lives as long as the sandbox: its context has no
		// deadline; ctx bounds only the wait for the start event.
		stream, err := s.open(func(ctx context.Context) (*connect.ServerStreamForClient[eventResponse], error) {
			return s.envd.startProcess(ctx, cfg)
		})
		if err == nil {
			stop := context.AfterFunc(ctx, func() { stream.Close() })
			ok := stream.Receive()
			stop()
			if ok {
				ev := stream.Msg().Event
				if ev.Start == nil || ev.Start.Pid == 0 {
					stream.Close()
					return errors.New("envd answered Start with an event other than the process's start")
				}
				s.pid = ev.Start.Pid
				go s.read(stream)
				go s.extend()
				return nil
			}
			err = stream.Err()
			stream.Close()
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("start python3: no answer from the sandbox in time: %w", err)
		}
		// Starting twice is harmless (the sandbox is ours), so a start
		// that failed in transit is retried too, a few times.
		if attempt == 4 || !retryableStart(err) {
			return fmt.Errorf("start python3 (the template must have python3 on its PATH): %w", err)
		}
		t := time.NewTimer(time.Duration(attempt) * 200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}

func (e *Executor) logf(format string, a ...any) {
	e.logger.Warn(fmt.Sprintf(format, a...))
}

// Close deletes every sandbox the executor started, first stopping an
// execution in flight, and waits (at most about 12 s per sandbox) for E2B
// to confirm. It returns an error naming the sandboxes E2B did not
// confirm as deleted; those end at their timeout.
func (e *Executor) Close() error {
	e.sandboxes.Close()
	err := e.Host.Close()
	// The Host waited for its sandboxes; a sandbox whose start failed was
	// never the Host's, so wait for the ones still being deleted here.
	live := e.sandboxes.Live()
	deadline := time.NewTimer(e.killTimeout + 2*time.Second)
	defer deadline.Stop()
	var stuck []string
	for _, s := range live {
		s.Kill()
		select {
		case <-s.Released():
		case <-deadline.C:
		}
		if !s.Ended() {
			stuck = append(stuck, s.id)
		}
	}
	if err == nil && len(stuck) > 0 {
		err = fmt.Errorf("e2b: E2B did not confirm the deletion of %s; they end at their timeout", strings.Join(stuck, ", "))
	}
	return err
}

// String describes the executor for logs.
func (e *Executor) String() string {
	return "python:e2b(" + e.template + ", " + e.timeout.String() + ")"
}

// sandboxMetadata is the metadata of the sandboxes e creates.
func (e *Executor) sandboxMetadata() map[string]string {
	m := map[string]string{}
	maps.Copy(m, e.metadata)
	m["created-by"] = "star-agent"
	return m
}
