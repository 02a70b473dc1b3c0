// Package modal is the full-Python executor that runs code in Modal
// sandboxes (gVisor containers managed by modal.com), through Modal's
// official Go SDK, github.com/modal-labs/modal-client/go.
//
// The runner of package runner is the sandbox's entrypoint process,
// `python3 -I -u -c <runner.Script>`, in an image built from a registry
// reference (DefaultImage, python:3.11-slim, unless Options.Image says
// otherwise; the image must have python3 on its PATH). The protocol travels
// on that process's stdin and stdout as the SDK exposes them (Sandbox.Stdin,
// Sandbox.Stdout): what the Session writes becomes Stdin writes of at most
// 256 KiB, one after the other, and Stdout, which the SDK reassembles from
// chunks and reopens where it left off when the stream ends or drops, is
// the Session's byte stream. How the SDK carries them depends on Modal's
// sandbox backend. On the V2 backend, the SDK's default since v0.11, they
// go through the task's command router (SandboxStdinWriteV2 at a byte
// offset, SandboxStdioReadV2 streaming bytes from an offset). On the
// control-plane backend (MODAL_SANDBOX_V2=0, or sandbox_v2 = false in
// ~/.modal.toml) they are SandboxStdinWrite calls with strictly increasing
// indexes and the SandboxGetLogs stream, reopened from the last entry id;
// its data is text, so the protocol must stay UTF-8, and it does: the
// runner writes ASCII JSON. A runner.Host drives the lifecycle: the app
// (Options.App, created if missing) and image are looked up, and the
// sandbox created, when the first action needs them; a sandbox that
// crashes, expires, times out or breaks the protocol is terminated and
// replaced, and the model is told its state was lost.
//
// Lifetime: unlike E2B's, a Modal sandbox's timeout is fixed when it is
// created (Modal's default is 5 minutes, its maximum 24 hours) and cannot be
// extended. Options.Timeout (DefaultTimeout, 1 h; the CLI's
// --sandbox-timeout) is that lifetime, and Options.IdleTimeout (at least
// the execution time limit plus a minute) ends a sandbox nobody writes to,
// so that one whose star-agent died without Close does not live out its
// timeout. When a sandbox expires in the middle of an execution, Modal kills
// it, its output ends, and Sandbox.Poll reports exit code 124: the result
// is an error that says the sandbox reached its lifetime and that
// variables defined before are gone, and the next action creates a new
// sandbox. A sandbox that expired between actions is found out by the next
// action, which reports the same.
//
// Failures: the SDK retries UNAVAILABLE, INTERNAL, UNKNOWN and
// DEADLINE_EXCEEDED itself (three times, with backoff), and reopens a
// dropped output stream where it left off (ten times); this package does
// not retry those again. It retries a create refused with
// RESOURCE_EXHAUSTED (capacity, quota, rate limit), with backoff, within
// the start's time limit. Errors that remain carry Modal's message and say
// what to do (credentials, capacity). A stdin write is never retried by
// this package (on the control-plane backend the SDK has consumed its
// index): a failed write ends the sandbox, and the model is told, rather
// than risking input lost or out of order.
//
// Termination: Close terminates every sandbox the executor created, first
// stopping an execution in flight, and waits (bounded) for Modal to confirm;
// a cancelled context or an executor error terminates the sandbox at once
// (runner.Host retires it). A sandbox whose create call was cut off by a
// cancellation before Modal answered cannot be named, and ends at its idle
// timeout.
//
// What crosses into the sandbox: the runner script (as the entrypoint's
// arguments), the code and the values the protocol carries. No environment
// variables unless Options.EnvVars names them, and no Modal secrets, so no
// credential (MODAL_TOKEN_SECRET included) enters the sandbox. Network
// access is blocked (BlockNetwork) unless Options.Network allows it; tools
// run in star-agent and reach the code through the protocol. Nothing that
// comes out is trusted: the Session bounds and validates every message.
//
// Tested only against the loopback fake in modalfake, a gRPC server
// implementing the SDK's generated service interfaces for both backends,
// which runs the runner in a real local python3; no test reaches Modal.
package modal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	modalsdk "github.com/modal-labs/modal-client/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/internal/cloud"
	"github.com/star-agent/star-agent/executors/runner"
)

// Engine is the Result.Engine of this executor.
const Engine = "python:modal"

// DefaultImage is the registry image sandboxes run when none is given.
const DefaultImage = "python:3.11-slim"

// DefaultApp is the Modal app sandboxes are created in (created if missing).
const DefaultApp = "star-agent"

// DefaultTimeout is a sandbox's lifetime; Modal cannot extend it.
const DefaultTimeout = time.Hour

// DefaultIdleTimeout ends a sandbox nobody has written to for this long.
const DefaultIdleTimeout = 10 * time.Minute

// Options configure an Executor. The zero value uses the SDK's credentials
// (MODAL_TOKEN_ID and MODAL_TOKEN_SECRET, or ~/.modal.toml) and the
// defaults.
type Options struct {
	// Limits bound each execution. MaxMemory is also the sandbox's memory
	// request and limit unless MemoryMiB is set.
	Limits executors.Limits
	// Imports is the import policy; the zero value is
	// executors.NewImportPolicy(nil, nil).
	Imports executors.ImportPolicy
	// Image is a registry reference with python3 on its PATH; "" means
	// DefaultImage.
	Image string
	// App is the Modal app's name (created if missing); "" means
	// DefaultApp.
	App string
	// Environment is the Modal environment; "" means MODAL_ENVIRONMENT or
	// the profile's.
	Environment string
	// CPU is the sandbox's CPU request in cores; 0 means Modal's default.
	CPU float64
	// MemoryMiB is the sandbox's memory request and limit; 0 means
	// Limits.MaxMemory.
	MemoryMiB int
	// Timeout is the sandbox's lifetime, at most 24 h, whole seconds
	// (rounded up); 0 means DefaultTimeout.
	Timeout time.Duration
	// IdleTimeout ends a sandbox without stdin writes for this long; 0
	// means DefaultIdleTimeout. It is raised to the execution time limit
	// plus a minute, since a long computation writes nothing.
	IdleTimeout time.Duration
	// Network allows outbound network access from the sandbox; by default
	// it is blocked.
	Network bool
	// EnvVars are the sandbox's environment variables. None by default:
	// nothing of this process's environment is sent.
	EnvVars map[string]string
	// Tags are added to every sandbox's tags (which always have
	// created-by: star-agent), such as the replica and run of star-agent
	// serve that own it.
	Tags map[string]string
	// TokenID and TokenSecret authenticate with Modal; "" means the SDK's
	// sources (MODAL_TOKEN_ID, MODAL_TOKEN_SECRET, ~/.modal.toml).
	TokenID, TokenSecret string
	// Logger receives warnings (a terminate Modal did not confirm) and the
	// SDK's logs; nil means slog.Default().
	Logger *slog.Logger

	// createBackoff is the first wait before retrying a create refused
	// with RESOURCE_EXHAUSTED (tests shorten it); 0 means 1 s.
	createBackoff time.Duration
}

// Executor runs Python code in Modal sandboxes. It implements
// executors.Executor through the embedded runner.Host; methods are safe
// for concurrent use, and executions are serialized.
type Executor struct {
	*runner.Host
	client      *modalsdk.Client
	image       string
	appName     string
	environment string
	params      modalsdk.SandboxCreateParams
	logger      *slog.Logger

	createBackoff time.Duration
	killTimeout   time.Duration

	// app and img are looked up once, by the first start (starts are
	// serialized by the Host).
	app *modalsdk.App
	img *modalsdk.Image

	closeClient sync.Once

	sandboxes *cloud.Sandboxes[*sandbox] // started and not yet terminated
}

var _ executors.Executor = (*Executor)(nil)

// New returns an Executor; no sandbox is created until code runs (or Start
// is called). It fails when no Modal credentials are configured.
func New(opts Options) (*Executor, error) {
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("modal: %w", err)
	}
	limits := opts.Limits.WithDefaults()
	if err := checkCredentials(opts); err != nil {
		return nil, err
	}
	if err := checkServerURL(os.Getenv("MODAL_SERVER_URL")); err != nil {
		return nil, err
	}
	timeout, err := cloud.Lifetime("modal", "Modal", opts.Timeout, DefaultTimeout)
	if err != nil {
		return nil, err
	}
	timeout = timeout.Round(time.Second)
	idle := opts.IdleTimeout
	if idle == 0 {
		idle = DefaultIdleTimeout
	}
	if idle < 0 {
		return nil, fmt.Errorf("modal: idle timeout %s is negative", idle)
	}
	idle = min(max(idle, limits.Timeout+time.Minute).Round(time.Second), timeout)
	mem := opts.MemoryMiB
	if mem == 0 {
		mem = int((limits.MaxMemory + 1<<20 - 1) >> 20)
	}
	if mem < 0 || opts.CPU < 0 {
		return nil, fmt.Errorf("modal: CPU %g and memory %d MiB must not be negative", opts.CPU, mem)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	client, err := modalsdk.NewClientWithOptions(&modalsdk.ClientParams{
		TokenID:     opts.TokenID,
		TokenSecret: opts.TokenSecret,
		Environment: opts.Environment,
		Logger:      logger,
	})
	if err != nil {
		return nil, fmt.Errorf("modal: %w", err)
	}
	e := &Executor{
		client:      client,
		image:       cloud.FirstOf(opts.Image, DefaultImage),
		appName:     cloud.FirstOf(opts.App, DefaultApp),
		environment: opts.Environment,
		params: modalsdk.SandboxCreateParams{
			CPU:            opts.CPU,
			MemoryMiB:      mem,
			MemoryLimitMiB: mem,
			Timeout:        timeout,
			IdleTimeout:    idle,
			Command:        []string{"python3", "-I", "-u", "-c", runner.Script},
			Env:            opts.EnvVars,
			BlockNetwork:   !opts.Network,
			Tags:           tags(opts.Tags),
		},
		logger:        logger,
		createBackoff: opts.createBackoff,
		killTimeout:   10 * time.Second,
		sandboxes:     cloud.NewSandboxes[*sandbox](),
	}
	if e.createBackoff == 0 {
		e.createBackoff = time.Second
	}
	e.Host = runner.NewHost(runner.HostOptions{
		Name:   "modal",
		Engine: Engine,
		Limits: limits,
		Config: runner.Config{MaxOutput: limits.MaxOutput, MaxMemory: limits.MaxMemory, MaxValue: limits.MaxValue, Imports: opts.Imports},
		Start:  e.start,
		// A first image build or a cold start can take minutes.
		StartTimeout: 5 * time.Minute,
		ReapTimeout:  e.killTimeout + 2*time.Second,
	})
	return e, nil
}

// checkCredentials fails early, before any request, when none of the SDK's
// sources of credentials is set.
func checkCredentials(opts Options) error {
	if opts.TokenID != "" || opts.TokenSecret != "" {
		if opts.TokenID == "" || opts.TokenSecret == "" {
			return errors.New("modal: give both a token id and a token secret")
		}
		return nil
	}
	for _, k := range []string{"MODAL_TOKEN_ID", "MODAL_OAUTH_REFRESH_TOKEN"} {
		if os.Getenv(k) != "" {
			return nil
		}
	}
	path := os.Getenv("MODAL_CONFIG_PATH")
	if path == "" {
		home, err := os.UserHomeDir()
		if err == nil {
			path = filepath.Join(home, ".modal.toml")
		}
	}
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
	}
	return errors.New("modal: no credentials: set MODAL_TOKEN_ID and MODAL_TOKEN_SECRET (from `modal token new` or https://modal.com/settings/tokens) or write a profile to ~/.modal.toml")
}

// checkServerURL refuses a server URL that would send the token in clear
// text to another machine.
func checkServerURL(s string) error {
	if s == "" {
		return nil
	}
	return cloud.CheckURL("modal", "MODAL_SERVER_URL", s)
}

// start creates a sandbox whose entrypoint is the runner.
func (e *Executor) start(ctx context.Context) (runner.Sandbox, error) {
	ctx, stop, err := e.sandboxes.Start(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	if e.app == nil {
		app, err := e.client.Apps.FromName(ctx, e.appName, &modalsdk.AppFromNameParams{Environment: e.environment, CreateIfMissing: true})
		if err != nil {
			return nil, describe(fmt.Sprintf("app %q", e.appName), err)
		}
		e.app = app
	}
	if e.img == nil {
		// Build resolves the reference once; the built image is reused.
		img, err := e.client.Images.FromRegistry(e.image, nil).Build(ctx, e.app, nil)
		if err != nil {
			return nil, describe(fmt.Sprintf("image %q", e.image), err)
		}
		e.img = img
	}
	msb, err := e.create(ctx)
	if err != nil {
		if ctx.Err() != nil && !e.sandboxes.Closed() {
			//lint:ignore ST1005 Modal is the service's name
			return nil, fmt.Errorf("Modal did not create a sandbox in time: %w", err)
		}
		return nil, err
	}
	s := newSandbox(e, msb)
	if err := e.sandboxes.Add(s); err != nil {
		return nil, err
	}
	return s, nil
}

// create creates the sandbox, retrying RESOURCE_EXHAUSTED with backoff
// until ctx ends; other errors are returned as they are (the SDK has
// retried the transient ones).
func (e *Executor) create(ctx context.Context) (*modalsdk.Sandbox, error) {
	delay := e.createBackoff
	for attempt := 1; ; attempt++ {
		params := e.params
		msb, err := e.client.Sandboxes.Create(ctx, e.app, e.img, &params)
		if err == nil {
			return msb, nil
		}
		if !exhausted(err) || ctx.Err() != nil {
			return nil, describe("create sandbox", err)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
			return nil, describe(fmt.Sprintf("create sandbox (%d attempts)", attempt), err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, describe(fmt.Sprintf("create sandbox (%d attempts)", attempt), err)
		case <-t.C:
		}
		delay = min(2*delay, 30*time.Second)
	}
}

func exhausted(err error) bool {
	var re modalsdk.ResourceExhaustedError
	return status.Code(err) == codes.ResourceExhausted || errors.As(err, &re)
}

// describe turns an SDK error into one that says what was wrong and what
// to do, keeping Modal's message.
func describe(what string, err error) error {
	st, ok := status.FromError(err)
	if !ok {
		if exhausted(err) {
			return fmt.Errorf("%s: Modal has no capacity for the sandbox (%w); try again later or ask for less CPU and memory", what, err)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	msg := st.Message()
	switch st.Code() {
	case codes.Unauthenticated, codes.PermissionDenied:
		return fmt.Errorf("%s: Modal refused the credentials (%s: %s): check MODAL_TOKEN_ID and MODAL_TOKEN_SECRET (from `modal token new` or https://modal.com/settings/tokens) or the profile in ~/.modal.toml", what, st.Code(), msg)
	case codes.ResourceExhausted:
		return fmt.Errorf("%s: Modal refused for lack of capacity or a quota or rate limit (RESOURCE_EXHAUSTED: %s); try again later, or check the workspace's limits at https://modal.com/settings", what, msg)
	case codes.Unavailable, codes.DeadlineExceeded, codes.Internal, codes.Unknown:
		return fmt.Errorf("%s: Modal could not be reached or failed, even after retries (%s: %s); check the network and https://status.modal.com", what, st.Code(), msg)
	case codes.NotFound:
		return fmt.Errorf("%s: Modal found no such object (NOT_FOUND: %s); check MODAL_ENVIRONMENT and the app and image names", what, msg)
	case codes.InvalidArgument, codes.FailedPrecondition:
		return fmt.Errorf("%s: Modal rejected the request (%s: %s)", what, st.Code(), msg)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Close terminates every sandbox the executor created, first stopping an
// execution in flight, waits (at most about 12 s per sandbox) for Modal to
// confirm, and closes the connection. It returns an error naming the
// sandboxes Modal did not confirm as terminated; those end at their idle
// timeout.
func (e *Executor) Close() error {
	e.sandboxes.Close()
	err := e.Host.Close()
	e.closeClient.Do(e.client.Close)
	return err
}

// String describes the executor for logs.
func (e *Executor) String() string {
	return "python:modal(" + e.image + ", " + e.params.Timeout.String() + ")"
}

// tags are the tags of the sandboxes: extra and created-by.
func tags(extra map[string]string) map[string]string {
	m := map[string]string{}
	maps.Copy(m, extra)
	m["created-by"] = "star-agent"
	return m
}
