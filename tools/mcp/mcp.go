// Package mcp makes the tools of MCP (Model Context Protocol) servers
// star-agent tools, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// Stdio starts a server as a subprocess and HTTP connects one over
// streamable HTTP; Tools turns the servers' tools into []tool.Tool, named
// by their MCP names made Python identifiers (prefixed with the server's
// name on a collision), typed from their input and output schemas.
// SessionTools does the same for a client session the caller opened. A
// call returns the structured content (a dict or list) of a tool that
// declares an output schema and the text otherwise; an isError result is
// an *Error, which the engines raise as ToolError. A server that dies is
// reported with the tail of its stderr and restarted once.
//
// It is not an MCP server, and it does not use resources, prompts,
// sampling or elicitation: only tools.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	neturl "net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/tool"
)

// Defaults of Options.
const (
	DefaultMaxResultBytes  = 1 << 20
	DefaultMaxImageBytes   = 8 << 20
	DefaultMaxMessageBytes = 32 << 20
)

// Options configure how servers are connected and their tools called. The
// zero value is usable.
type Options struct {
	// Logger receives restarts and tool-list changes (warnings) and the
	// lines a stdio server writes to stderr (debug). nil discards them.
	Logger *slog.Logger
	// MaxResultBytes caps the text of a result (longer text is cut, with
	// a marker saying so) and the JSON size of structured content (larger
	// is an error). Default DefaultMaxResultBytes.
	MaxResultBytes int
	// MaxImageBytes caps one image or audio part (base64); a larger one
	// is returned without its data. Default DefaultMaxImageBytes.
	MaxImageBytes int
	// MaxMessageBytes caps one message read from a server; a larger one
	// breaks the connection. Default DefaultMaxMessageBytes.
	MaxMessageBytes int
	// HTTPClient is used for streamable HTTP servers; nil means a client
	// on http.DefaultTransport. Its transport is wrapped to add headers
	// and cap responses.
	HTTPClient *http.Client
	// Env adds KEY=VALUE variables to the environment of stdio servers,
	// which is otherwise only DefaultEnv(): this process's API keys and
	// tokens are not passed on unless named here.
	Env []string
	// Client names the client to servers ("star-agent" if empty).
	Client *sdk.Implementation
}

func (o Options) maxResult() int  { return orDefault(o.MaxResultBytes, DefaultMaxResultBytes) }
func (o Options) maxImage() int   { return orDefault(o.MaxImageBytes, DefaultMaxImageBytes) }
func (o Options) maxMessage() int { return orDefault(o.MaxMessageBytes, DefaultMaxMessageBytes) }

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

func (o Options) client() *sdk.Client {
	impl := o.Client
	if impl == nil {
		impl = &sdk.Implementation{Name: "star-agent", Version: "dev"}
	}
	// No roots, no sampling, no elicitation: tools only.
	return sdk.NewClient(impl, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
}

// Server is a connected MCP server. Its methods and the tools made from it
// are safe for concurrent use.
type Server struct {
	label string // how the user named it: the command line or the URL
	opts  Options
	dial  func(ctx context.Context) (*conn, error) // nil: a session the caller owns, never restarted

	mu       sync.Mutex
	name     string // from the initialize result, an identifier
	cur      *conn  // nil while down
	restarts int
	gaveUp   error    // set when the server is down for good
	listed   []string // MCP tool names at the last listing
	closed   bool
}

// conn is one session with a server: one process for stdio.
type conn struct {
	cs   *sdk.ClientSession
	proc *process // nil for HTTP and sessions the caller owns
}

func (c *conn) close() error {
	err := c.cs.Close()
	if c.proc != nil {
		if perr := c.proc.stop(); perr != nil {
			err = perr
		}
	}
	return err
}

// maxRestarts is how many times a server that died is started again.
const maxRestarts = 1

// Stdio starts argv as an MCP server speaking over its stdin and stdout,
// and initializes a session. The process gets DefaultEnv() plus
// opts.Env, and a process group of its own; what it writes to stderr is kept (the last lines) for error messages.
// The server is stopped by Close.
func Stdio(ctx context.Context, argv []string, opts Options) (*Server, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("mcp: empty server command")
	}
	s := &Server{label: quoteCommand(argv), opts: opts}
	s.dial = func(ctx context.Context) (*conn, error) { return dialStdio(ctx, s.label, argv, opts) }
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// HTTP connects to an MCP server over streamable HTTP at url, sending
// header (for example Authorization) with every request, and initializes
// a session.
func HTTP(ctx context.Context, url string, header http.Header, opts Options) (*Server, error) {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("mcp: server URL %q: want http:// or https://", url)
	}
	s := &Server{label: url, opts: opts}
	s.dial = func(ctx context.Context) (*conn, error) { return dialHTTP(ctx, url, header.Clone(), opts) }
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// FromSession wraps a session the caller opened and owns (Close does not
// close it); a session that breaks is not restarted.
func FromSession(cs *sdk.ClientSession, opts Options) *Server {
	label := "session"
	if cs.ID() != "" {
		label += " " + cs.ID()
	}
	s := &Server{label: label, opts: opts, cur: &conn{cs: cs}}
	s.name = serverName(cs)
	return s
}

// SessionTools returns the tools of an initialized client session, as
// Tools does for one server.
func SessionTools(ctx context.Context, cs *sdk.ClientSession, opts Options) ([]tool.Tool, error) {
	return Tools(ctx, FromSession(cs, opts))
}

func (s *Server) start(ctx context.Context) error {
	c, err := s.dial(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.cur = c
	s.name = serverName(c.cs)
	s.mu.Unlock()
	return nil
}

func serverName(cs *sdk.ClientSession) string {
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil && r.ServerInfo.Name != "" {
		return identifier(r.ServerInfo.Name)
	}
	return "mcp"
}

// Name is the server's name from its initialize result, made an
// identifier ("mcp" if it gave none).
func (s *Server) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// String names the server in messages: its name and how it was started.
func (s *Server) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.describe()
}

func (s *Server) describe() string {
	if s.name == "" {
		return fmt.Sprintf("MCP server %s", s.label)
	}
	return fmt.Sprintf("MCP server %s (%s)", s.name, s.label)
}

// Instructions returns what the server's initialize result tells clients
// about using it ("" if nothing).
func (s *Server) Instructions() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return ""
	}
	if r := s.cur.cs.InitializeResult(); r != nil {
		return r.Instructions
	}
	return ""
}

// Close ends the session and stops the server's process. Tools of a
// closed server fail with an error saying so.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	c := s.cur
	s.cur = nil
	if c == nil || s.dial == nil {
		return nil
	}
	if err := c.close(); err != nil && !isExitAfterClose(err) {
		return fmt.Errorf("%s: close: %w", s.describe(), err)
	}
	return nil
}

// list returns the server's tools, following pagination.
func (s *Server) list(ctx context.Context) ([]*sdk.Tool, error) {
	c, _, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	var tools []*sdk.Tool
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("%s: list tools: %w", s.String(), err)
		}
		tools = append(tools, t)
		if len(tools) > maxTools {
			return nil, fmt.Errorf("%s: more than %d tools", s.String(), maxTools)
		}
	}
	s.mu.Lock()
	s.listed = s.listed[:0]
	for _, t := range tools {
		s.listed = append(s.listed, t.Name)
	}
	s.mu.Unlock()
	return tools, nil
}

// maxTools bounds a server's tool list, against a server that pages
// forever (a variable for tests).
var maxTools = 10000

// session returns the live session, restarting the server if it died and
// may still be restarted; note says what the restart found.
func (s *Server) session(ctx context.Context) (c *conn, note string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, "", fmt.Errorf("%s is closed", s.describe())
	}
	if s.cur != nil {
		return s.cur, "", nil
	}
	if s.gaveUp != nil {
		return nil, "", s.gaveUp
	}
	note, err = s.restartLocked(ctx)
	return s.cur, note, err
}

// restartLocked starts the server again. A restart cut short by ctx may be
// tried again by the next call; any other failure is final.
func (s *Server) restartLocked(ctx context.Context) (note string, err error) {
	if s.dial == nil {
		s.gaveUp = fmt.Errorf("%s is down and its session belongs to the caller, so it is not restarted", s.describe())
		return "", s.gaveUp
	}
	if s.restarts >= maxRestarts {
		s.gaveUp = fmt.Errorf("%s is down and was already restarted once; its tools are unavailable for the rest of the run", s.describe())
		return "", s.gaveUp
	}
	c, err := s.dial(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s is down; restarting it was cut short (%v): the next call tries again", s.describe(), ctx.Err())
		}
		s.restarts++
		s.gaveUp = fmt.Errorf("%s is down and restarting it failed: %v", s.describe(), err)
		return "", s.gaveUp
	}
	s.restarts++
	s.cur = c
	var now []string
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			s.opts.logger().Warn("mcp: restarted server does not list its tools", "server", s.describe(), "err", err)
			return "it was restarted", nil
		}
		now = append(now, t.Name)
		if len(now) > maxTools {
			break
		}
	}
	note = "it was restarted"
	if added, removed := diff(s.listed, now); len(added)+len(removed) > 0 {
		note += "; its tools changed:"
		if len(removed) > 0 {
			note += " gone " + strings.Join(removed, ", ")
		}
		if len(added) > 0 {
			if len(removed) > 0 {
				note += ";"
			}
			note += " new (not callable until the next run) " + strings.Join(added, ", ")
		}
	}
	s.opts.logger().Warn("mcp: server restarted", "server", s.describe(), "note", note)
	return note, nil
}

func diff(before, after []string) (added, removed []string) {
	for _, n := range after {
		if !slices.Contains(before, n) {
			added = append(added, n)
		}
	}
	for _, n := range before {
		if !slices.Contains(after, n) {
			removed = append(removed, n)
		}
	}
	return added, removed
}

// call calls the tool mcpName on the server; name is what the code calls
// it. Errors are written for the model.
func (s *Server) call(ctx context.Context, mcpName, name string, args map[string]any) (*sdk.CallToolResult, error) {
	c, note, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: mcpName, Arguments: args})
	if err == nil {
		return res, nil
	}
	if ctx.Err() != nil {
		// The SDK told the server the call is cancelled; the session
		// stays usable.
		return nil, fmt.Errorf("%s: tool %s did not answer in time: %w", s.String(), name, ctx.Err())
	}
	if c.proc == nil && unreachable(err) {
		// An HTTP server that is down: nothing to restart on this side,
		// and the session may still be valid when it is back.
		return nil, fmt.Errorf("%s is unreachable while calling %s (%v): check that it is still running; the next call tries again", s.String(), name, err)
	}
	if wire := wireError(err); wire != "" {
		if note != "" {
			wire += " (" + note + ")"
		}
		return nil, fmt.Errorf("%s: tool %s: %s", s.String(), name, wire)
	}
	return nil, s.broken(ctx, c, name, err)
}

// broken handles a session that failed under a call: it says what
// happened to the server (and what it last wrote to stderr) and restarts
// it once.
func (s *Server) broken(ctx context.Context, c *conn, tool string, cause error) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("%s was closed during the call of %s (the run is ending)", s.String(), tool)
	}
	what, stderr := s.death(c, cause)
	what += " while calling " + tool
	if stderr != "" {
		stderr = ". Its stderr ended with: " + stderr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != c {
		// Another call saw it first.
		if s.cur != nil {
			return fmt.Errorf("%s; it was restarted: call the tool again if it is safe to repeat%s", what, stderr)
		}
		if s.gaveUp != nil {
			return fmt.Errorf("%s; %v%s", what, s.gaveUp, stderr)
		}
		return fmt.Errorf("%s%s", what, stderr)
	}
	s.cur = nil
	go c.close() // may wait for the process to end
	if s.closed {
		return fmt.Errorf("%s is closed", s.describe())
	}
	s.opts.logger().Warn("mcp: server failed", "server", s.describe(), "err", what+stderr)
	note, err := s.restartLocked(ctx)
	if err != nil {
		return fmt.Errorf("%s; %v%s", what, err, stderr)
	}
	return fmt.Errorf("%s; %s: call the tool again if it is safe to repeat%s", what, note, stderr)
}

// death says what became of the server of c after cause broke its
// session, and the tail of its stderr.
func (s *Server) death(c *conn, cause error) (what, stderr string) {
	desc := s.String()
	if c.proc == nil {
		return fmt.Sprintf("%s stopped answering (%v)", desc, cause), ""
	}
	if c.proc.out != nil && c.proc.out.tooLarge.Load() {
		return fmt.Sprintf("%s sent a message larger than %d bytes (the cap), so the connection was closed", desc, c.proc.out.max), c.proc.tail.String()
	}
	if c.proc.out != nil && !c.proc.out.eof.Load() {
		// The server still had its stdout open: the client ended the
		// session, on something it could not read.
		return fmt.Sprintf("%s sent a message that could not be read (%v), so the connection was closed", desc, cause), c.proc.tail.String()
	}
	// The session ends when stdout closes, a moment before the process
	// is reaped (and its stderr read to the end).
	select {
	case <-c.proc.exited:
		return fmt.Sprintf("%s exited (%s)", desc, c.proc.status()), c.proc.tail.String()
	case <-time.After(2 * time.Second):
		return fmt.Sprintf("%s broke the connection (%v)", desc, cause), c.proc.tail.String()
	}
}

// unreachable reports a request the HTTP client could not complete: the
// server refused the connection, or closed it (a server that stopped
// closes its kept-alive connections).
func unreachable(err error) bool {
	var ne *net.OpError
	var ue *neturl.Error
	return errors.As(err, &ne) || errors.As(err, &ue)
}

// wireError returns the message of a JSON-RPC error the server (or the
// HTTP transport, for a transient status) sent: the session is fine. It
// returns "" for any other error.
func wireError(err error) string {
	var w *jsonrpc.Error
	if !errors.As(err, &w) {
		return ""
	}
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, `calling "tools/call": `); ok {
		msg = after
	}
	return msg
}

func quoteCommand(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = QuoteArg(a)
	}
	return strings.Join(q, " ")
}
