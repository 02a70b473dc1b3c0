package cli

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// mcpServeFlags are the flags of star-agent mcp besides AgentFlags.
type mcpServeFlags struct {
	addr, token, addrFile string
	maxSessions           int
	idle                  time.Duration
	runTimeout            time.Duration
	logFormat             string
	verbose               bool
	dockerPool            int
}

// defaultMaxSessions is the number of sessions when --max-sessions is 0
// and the memory allows.
const defaultMaxSessions = 16

// newMCPCmd returns the mcp command: star-agent's sandbox offered to any
// MCP client as tools.
func newMCPCmd() *cobra.Command {
	a := new(AgentFlags)
	var f mcpServeFlags
	cmd := &cobra.Command{
		Use:   "mcp [flags]",
		Short: "Offer the sandbox to MCP clients (Claude, VS Code, Cursor) as run_python",
		Long: `mcp serves the Model Context Protocol, so that any MCP client (Claude
Desktop, Claude Code, VS Code, Cursor, another agent) can run Python in
star-agent's sandbox. By default it speaks over standard input and output,
as a desktop client starts it; with --addr it serves streamable HTTP at
http://HOST:PORT/mcp instead.

Its tools:

  run_python(code, session?)  runs code as one agent step would, in the
                              engine and executor the flags choose; variables
                              and functions stay for the next call of the same
                              session. Returns what was printed, the value of
                              the last expression (its repr, and its JSON form
                              as structured content), the error if any, and
                              images as image content.
  reset(session?)             forgets a session's variables.
  run_agent(task)             with --model (or --replay): a whole star-agent
                              run on the task; returns its answer and steps.

With --mcp, --mcp-url or --tools, those tools are functions the code can
call ("code mode": one script calls many tools, and their intermediate
results never pass through the client's context); run_python's description
lists them as typed Python stubs, or past --tool-discovery-threshold lists
their names and gives the code search_tools(query) and help(tool).

Sessions: one per connection (over stdio, the one client; over HTTP, each
MCP session), and within it one per "session" argument. At most
--max-sessions live at once, lowered if need be so that together (each
under --max-memory) they use at most half the machine's memory, and one
unused for --session-idle is closed. A client that disconnects leaves nothing running:
its executions are cancelled and its sandboxes closed.

Each execution is bounded by the same limit flags as exec and run
(--exec-timeout, --max-operations, --max-memory, --max-output, --max-value).
Over HTTP, set a token (--token or STAR_AGENT_TOKEN) whenever the address is
reachable by others: without one, anyone who reaches the port can run code
on this machine.

Exit status: 0 when the client disconnects (stdio) or on SIGTERM/SIGINT
(HTTP), 2 for a usage or configuration error.`,
		Example: `  star-agent mcp
  star-agent mcp --executor docker --imports numpy,pandas
  star-agent mcp --mcp 'npx -y @modelcontextprotocol/server-github' --mcp-env GITHUB_TOKEN
  STAR_AGENT_TOKEN=... star-agent mcp --addr 127.0.0.1:8765 --model anthropic:claude-sonnet-4-5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCP(cmd, a, f)
		},
	}
	fl := cmd.Flags()
	a.Register(fl)
	fl.StringVar(&f.addr, "addr", "", "serve streamable HTTP on `HOST:PORT` at /mcp instead of stdio (port 0: any free port)")
	fl.StringVar(&f.token, "token", "", "with --addr, require this bearer token (default from STAR_AGENT_TOKEN)")
	fl.StringVar(&f.addrFile, "addr-file", "", "with --addr, write the address the server listens on to `FILE` once it accepts connections")
	fl.IntVar(&f.maxSessions, "max-sessions", 0, fmt.Sprintf("sessions (each with its own sandbox and variables) that may live at once; lowered, with a warning, to fit in half the machine's memory at --max-memory each (0: %d, or as many as fit)", defaultMaxSessions))
	fl.DurationVar(&f.idle, "session-idle", 30*time.Minute, "close a session, and forget its variables, after it has been unused this long")
	fl.DurationVar(&f.runTimeout, "run-timeout", 10*time.Minute, "stop a run_agent run after this long (0: no limit); --exec-timeout limits each code execution")
	fl.IntVar(&f.dockerPool, "docker-pool", 0, dockerPoolHelp)
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every session and call")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format on standard error: text or json")
	return cmd
}

func runMCP(cmd *cobra.Command, a *AgentFlags, f mcpServeFlags) error {
	stderr := cmd.ErrOrStderr()
	if err := a.Check(); err != nil {
		return err
	}
	switch {
	case f.maxSessions < 0:
		return usageError("--max-sessions must not be negative")
	case f.idle <= 0:
		return usageError("--session-idle must be positive")
	case f.runTimeout < 0:
		return usageError("--run-timeout must not be negative")
	case f.addr == "" && (f.token != "" || f.addrFile != ""):
		return usageError("--token and --addr-file are for --addr (streamable HTTP); over stdio the client that starts star-agent is the only one")
	case len(a.f.requireApproval) > 0:
		// run_python's code calls the tools directly, and an MCP server
		// has no terminal or page to ask on: rather than run calls
		// unasked, refuse.
		return usageError("--require-approval is for run and serve: star-agent mcp has no one to ask; leave out the tools that need approval, or let the MCP client ask before it calls run_python")
	}
	if f.token == "" && f.addr != "" {
		f.token = os.Getenv("STAR_AGENT_TOKEN")
	}
	// Over stdio a client shows the server's stderr as its log: only
	// warnings unless --verbose.
	logger, err := newLogger(stderr, f.logFormat, f.verbose)
	if err != nil {
		return err
	}
	var sdkLogger *slog.Logger
	if f.verbose {
		sdkLogger = logger
	}
	limits, err := a.Limits(cmd.Flags(), stderr)
	if err != nil {
		return err
	}
	// The model is optional: without one there is no run_agent.
	f2 := &a.f
	withModel := f2.model != "" || f2.modelType != "" || f2.replayFile != ""
	if withModel {
		if _, err := a.NewModel(); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := a.Executor().RouterConfig(limits, a.Imports(), nil); err != nil {
		return usageError("%v", err)
	}
	if err := a.Executor().checkDocker(ctx, limits); err != nil {
		return err
	}
	pool, _, err := a.Executor().openDockerPool(f.dockerPool, limits, nil)
	if err != nil {
		return err
	}
	if pool != nil {
		defer pool.Close()
	}
	tools, closeTools, err := a.Tools().Open(ctx, ToolEnv{Logger: logger})
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	defer closeTools()

	// Sessions are bounded by memory too: together they may use at most
	// half the machine's.
	maxSessions := f.maxSessions
	if maxSessions == 0 {
		maxSessions = defaultMaxSessions
	}
	if total := memTotal(); total > 0 && limits.MaxMemory > 0 {
		if fit := int(total / 2 / limits.MaxMemory); fit < maxSessions {
			maxSessions = max(fit, 1)
			if f.maxSessions != 0 {
				logger.Warn("--max-sessions lowered so that the sessions' --max-memory fits in half the machine's memory", "max_sessions", maxSessions)
			}
		}
	}
	cs, err := newCodeServer(codeServerConfig{
		agent:       a,
		limits:      limits,
		tools:       tools,
		withModel:   withModel,
		maxSessions: maxSessions,
		idle:        f.idle,
		runTimeout:  f.runTimeout,
		logger:      logger,
		sdkLogger:   sdkLogger,
	})
	if err != nil {
		return err
	}
	defer cs.close()
	go cs.sweep(ctx)

	if f.addr == "" {
		// One client, over this process's standard input and output; it
		// ends when the client closes them.
		// The end of standard input cancels the calls in flight.
		err := cs.server.Run(ctx, &sdk.IOTransport{
			Reader: io.NopCloser(cmd.InOrStdin()),
			Writer: nopWriteCloser{cmd.OutOrStdout()},
		})
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return &ExitError{Code: 1, Err: err}
		}
		return nil
	}
	return serveMCPHTTP(ctx, stop, cs, f, logger, sdkLogger, stderr)
}

func serveMCPHTTP(ctx context.Context, stop func(), cs *codeServer, f mcpServeFlags, logger, sdkLogger *slog.Logger, stderr io.Writer) error {
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return usageError("--addr %s: %v", f.addr, err)
	}
	if f.token == "" && !isLoopback(ln.Addr()) {
		logger.Warn("no --token: anyone who reaches this address can run code on this machine; set STAR_AGENT_TOKEN", "addr", ln.Addr().String())
	}
	if f.addrFile != "" {
		if err := os.WriteFile(f.addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			ln.Close()
			return usageError("--addr-file: %v", err)
		}
	}
	mux := http.NewServeMux()
	// An MCP session that sends nothing for --session-idle is closed,
	// and its sandboxes with it.
	mux.Handle("/mcp", bearer(f.token, sdk.NewStreamableHTTPHandler(
		func(*http.Request) *sdk.Server { return cs.server },
		&sdk.StreamableHTTPOptions{SessionTimeout: f.idle, Logger: sdkLogger},
	)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	fmt.Fprintf(stderr, "star-agent: MCP server on http://%s/mcp\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return &ExitError{Code: 1, Err: err}
	case <-ctx.Done():
	}
	stop()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hs.Shutdown(shutdownCtx)
	fmt.Fprintln(stderr, "star-agent: stopped")
	return nil
}

// bearer requires "Authorization: Bearer token" when token is set, as
// serve does. Both sides are hashed first so that the comparison takes
// the same time whatever the token's length.
func bearer(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(got))
		if !ok || !strings.EqualFold(scheme, "Bearer") || got == "" || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="star-agent"`)
			http.Error(w, "a valid bearer token is required: send Authorization: Bearer TOKEN (the server's --token or STAR_AGENT_TOKEN)", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
