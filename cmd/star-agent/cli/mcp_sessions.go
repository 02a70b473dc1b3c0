package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/tool"
)

// The MCP server's state: sessions of code, each an executor of its own,
// keyed by the MCP connection and the session argument of run_python.
// A connection that ends takes its sessions with it; sweep closes those
// left unused for the idle time.

type codeServerConfig struct {
	agent       *AgentFlags
	limits      executors.Limits
	tools       []tool.Tool // the flags' tools, callable from the code
	withModel   bool
	maxSessions int
	idle        time.Duration
	runTimeout  time.Duration
	logger      *slog.Logger
	sdkLogger   *slog.Logger // the SDK's own log, with --verbose
}

type codeServer struct {
	cfg    codeServerConfig
	server *sdk.Server
	// codeTools are cfg.tools, plus search_tools and help in discovery
	// mode.
	codeTools []tool.Tool

	mu       sync.Mutex
	sessions map[sessionKey]*codeSession
	conns    map[*sdk.ServerSession]bool // connections watched for their end
	closed   bool
	// closing counts sessions being closed in the background, which
	// close waits for.
	closing sync.WaitGroup
}

type sessionKey struct {
	conn *sdk.ServerSession
	id   string
}

// codeSession is one sandbox and its variables.
type codeSession struct {
	mu sync.Mutex // one execution at a time
	ex executors.Executor
	// lastUsed and busy are guarded by codeServer.mu.
	lastUsed time.Time
	busy     int
}

type runPythonArgs struct {
	Code    string `json:"code" jsonschema:"The Python code to run. The value of the last expression is returned; print() output too."`
	Session string `json:"session,omitempty" jsonschema:"Name of the session whose variables the code sees and keeps (default: this connection's own session)."`
}

type resetArgs struct {
	Session string `json:"session,omitempty" jsonschema:"The session to forget (default: this connection's own session)."`
}

type runAgentArgs struct {
	Task string `json:"task" jsonschema:"The task for the agent, in words."`
}

// runPythonOutput is run_python's structured content.
type runPythonOutput struct {
	Stdout string `json:"stdout" jsonschema:"What the code printed."`
	// Value is in pyvalue.Marshal's form (docs/json.md).
	Value      any             `json:"value" jsonschema:"The final answer or the last expression's value, as JSON (docs/json.md: tuples, sets and other types Python has and JSON lacks are one-key objects such as {\"$tuple\": [...]}); null if none."`
	Repr       string          `json:"repr,omitempty" jsonschema:"Python's repr() of the value."`
	IsFinal    bool            `json:"is_final" jsonschema:"Whether the code called final_answer."`
	Error      *runPythonError `json:"error,omitempty" jsonschema:"The exception that ended the code, if any."`
	Engine     string          `json:"engine" jsonschema:"What ran the code: starlark, python:wasm, python:docker..."`
	DurationMS float64         `json:"duration_ms"`
}

type runPythonError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
}

func newCodeServer(cfg codeServerConfig) (*codeServer, error) {
	s := &codeServer{cfg: cfg, sessions: map[sessionKey]*codeSession{}, conns: map[*sdk.ServerSession]bool{}}
	s.codeTools = cfg.tools
	threshold := cfg.agent.f.discoverAbove
	if threshold == 0 {
		threshold = starlarkagent.DefaultToolDiscoveryThreshold
	}
	discovery := threshold > 0 && len(cfg.tools) > threshold
	if discovery {
		s.codeTools = append(slices.Clip(cfg.tools), starlarkagent.DiscoveryTools(cfg.tools)...)
	}
	s.server = sdk.NewServer(&sdk.Implementation{Name: "star-agent", Title: "star-agent Python sandbox", Version: moduleVersion()}, &sdk.ServerOptions{
		Instructions: "Run Python with run_python: variables persist between calls of the same session. " +
			"Prefer one script that does the whole job (loops, tool calls, filtering) over many small calls.",
		Logger: cfg.sdkLogger,
	})
	sdk.AddTool(s.server, &sdk.Tool{
		Name:        "run_python",
		Title:       "Run Python",
		Description: s.runPythonDescription(discovery),
	}, s.runPython)
	sdk.AddTool(s.server, &sdk.Tool{
		Name:        "reset",
		Title:       "Reset a Python session",
		Description: "Forgets the variables and functions of a run_python session; the next call starts afresh.",
	}, s.reset)
	if cfg.withModel {
		sdk.AddTool(s.server, &sdk.Tool{
			Name:  "run_agent",
			Title: "Run a star-agent code agent",
			Description: "Runs a star-agent code agent on a task: its model writes Python actions that run in the sandbox " +
				"(with the same tools as run_python) until it gives a final answer. Returns the answer and the steps.",
		}, s.runAgent)
	}
	return s, nil
}

// runPythonDescription is run_python's description: what it does, its
// limits, and the tools the code may call as stubs (or, past the
// discovery threshold, their listing).
func (s *codeServer) runPythonDescription(discovery bool) string {
	l := s.cfg.limits.WithDefaults()
	var b strings.Builder
	b.WriteString("Runs Python code in a sandbox and returns what it printed, the value of its last expression and any error. ")
	b.WriteString("Variables, functions and imports stay for the next call of the same session. ")
	fmt.Fprintf(&b, "Each call may run for %s and use %s of memory; output beyond %d characters is cut. ", l.Timeout, formatBytes(l.MaxMemory), l.MaxOutput)
	if s.cfg.agent.f.exec.Engine == "python" {
		b.WriteString("The code runs in CPython.")
	} else {
		b.WriteString("The code runs in a Python interpreter without file, network or process access (no open(), os or subprocess)")
		if s.cfg.agent.f.exec.Executor != "" {
			b.WriteString("; code that imports a module only CPython has runs in CPython instead")
		}
		b.WriteString(".")
	}
	if imports := s.cfg.agent.Imports(); len(imports) > 0 {
		fmt.Fprintf(&b, " Modules importable besides the standard ones: %s.", strings.Join(imports, ", "))
	}
	if len(s.cfg.tools) == 0 {
		return b.String()
	}
	b.WriteString("\n\nThe code can call these functions (call as many as the task needs in one script; print only what you need to see):\n\n")
	if discovery {
		text, _ := prompts.ListTools(specsOf(s.cfg.tools), 0)
		b.WriteString(text)
		b.WriteString("\nTheir stubs are not listed here: search_tools(query) returns the stubs of the tools that match, and help(tool) prints one tool's stub.\n\n")
		for _, t := range s.codeTools[len(s.cfg.tools):] {
			b.WriteString(prompts.Stub(t.Spec()))
			b.WriteString("\n\n")
		}
		return strings.TrimRight(b.String(), "\n")
	}
	for _, t := range s.cfg.tools {
		b.WriteString(prompts.Stub(t.Spec()))
		b.WriteString("\n\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func specsOf(ts []tool.Tool) []tool.Spec {
	out := make([]tool.Spec, len(ts))
	for i, t := range ts {
		out[i] = t.Spec()
	}
	return out
}

// session returns the session of key, creating it (and its executor)
// when it is new, and marks it busy; call done when the call ends.
func (s *codeServer) session(ctx context.Context, key sessionKey) (cs *codeSession, done func(), err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, errors.New("the server is shutting down")
	}
	cs = s.sessions[key]
	if cs == nil {
		if len(s.sessions) >= s.cfg.maxSessions {
			s.mu.Unlock()
			return nil, nil, fmt.Errorf("the server holds %d sessions, its limit (--max-sessions): reset one you no longer need, or wait until one is unused for %s", len(s.sessions), s.cfg.idle)
		}
		cs = &codeSession{}
		s.sessions[key] = cs
		s.watch(key.conn)
	}
	cs.busy++
	cs.lastUsed = time.Now()
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		cs.busy--
		cs.lastUsed = time.Now()
		s.mu.Unlock()
	}
	cs.mu.Lock()
	if cs.ex == nil {
		ex, err := s.open(ctx)
		if err != nil {
			cs.mu.Unlock()
			release()
			s.drop(key, cs)
			return nil, nil, err
		}
		cs.ex = ex
		s.cfg.logger.Debug("mcp: session started", "session", key.id, "connection", connID(key.conn))
	}
	return cs, func() { cs.mu.Unlock(); release() }, nil
}

// open starts an executor as the flags describe, with the code's tools.
func (s *codeServer) open(ctx context.Context) (executors.Executor, error) {
	ex, err := s.cfg.agent.Executor().Open(s.cfg.limits, s.cfg.agent.Imports(), nil)
	if err != nil {
		return nil, err
	}
	if len(s.codeTools) > 0 {
		if err := ex.SetTools(ctx, s.codeTools); err != nil {
			ex.Close()
			return nil, err
		}
	}
	return ex, nil
}

// watch closes a connection's sessions when it ends. s.mu is held.
func (s *codeServer) watch(conn *sdk.ServerSession) {
	if conn == nil || s.conns[conn] {
		return
	}
	s.conns[conn] = true
	go func() {
		conn.Wait()
		s.mu.Lock()
		delete(s.conns, conn)
		var gone []*codeSession
		for k, cs := range s.sessions {
			if k.conn == conn {
				gone = append(gone, cs)
				delete(s.sessions, k)
			}
		}
		s.mu.Unlock()
		s.cfg.logger.Debug("mcp: connection ended", "connection", connID(conn), "sessions", len(gone))
		for _, cs := range gone {
			s.closeLater(cs)
		}
	}()
}

// drop forgets the session of key if it is still cs, and closes it.
func (s *codeServer) drop(key sessionKey, cs *codeSession) {
	s.mu.Lock()
	if s.sessions[key] == cs {
		delete(s.sessions, key)
	}
	s.mu.Unlock()
	s.closeLater(cs)
}

// closeLater closes the session's executor once its execution (if any)
// ends, without waiting: an execution in flight was cancelled with its
// request's context.
func (s *codeServer) closeLater(cs *codeSession) {
	s.mu.Lock()
	if s.closed {
		// close is waiting already: no more Add to closing.
		s.mu.Unlock()
		cs.closeNow()
		return
	}
	s.closing.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.closing.Done()
		cs.closeNow()
	}()
}

// closeNow closes the session's executor, waiting for it.
func (cs *codeSession) closeNow() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.ex != nil {
		cs.ex.Close()
		cs.ex = nil
	}
}

// sweep closes the sessions unused for the idle time, until ctx ends.
func (s *codeServer) sweep(ctx context.Context) {
	tick := time.NewTicker(min(s.cfg.idle/4+time.Millisecond, time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.mu.Lock()
		var idle []*codeSession
		for k, cs := range s.sessions {
			if cs.busy == 0 && time.Since(cs.lastUsed) > s.cfg.idle {
				idle = append(idle, cs)
				delete(s.sessions, k)
			}
		}
		s.mu.Unlock()
		for _, cs := range idle {
			s.cfg.logger.Debug("mcp: idle session closed")
			s.closeLater(cs)
		}
	}
}

// close closes every session, waiting for their executors to stop.
func (s *codeServer) close() {
	s.mu.Lock()
	s.closed = true
	all := s.sessions
	s.sessions = map[sessionKey]*codeSession{}
	s.mu.Unlock()
	for _, cs := range all {
		cs.closeNow()
	}
	s.closing.Wait()
}

func connID(ss *sdk.ServerSession) string {
	if ss == nil {
		return ""
	}
	if id := ss.ID(); id != "" {
		return id
	}
	return "stdio"
}

func (s *codeServer) runPython(ctx context.Context, req *sdk.CallToolRequest, in runPythonArgs) (*sdk.CallToolResult, runPythonOutput, error) {
	key := sessionKey{conn: req.Session, id: in.Session}
	cs, done, err := s.session(ctx, key)
	if err != nil {
		return errorResult("cannot start a sandbox: %v", err), runPythonOutput{}, nil
	}
	res, err := cs.ex.Execute(ctx, in.Code)
	done()
	if err != nil {
		// The executor broke (a sandbox that died, a cancelled call):
		// the next call starts a fresh one.
		s.drop(key, cs)
		if ctx.Err() != nil {
			return nil, runPythonOutput{}, ctx.Err()
		}
		return errorResult("the sandbox failed and was replaced, so the session's variables are lost: %v", err), runPythonOutput{}, nil
	}
	out := runPythonOutput{
		Stdout:     res.Stdout,
		IsFinal:    res.IsFinal,
		Engine:     res.Engine,
		DurationMS: float64(res.Duration.Microseconds()) / 1000,
	}
	if res.Value != nil {
		out.Value = pyvalue.JSON{V: res.Value}
		out.Repr = res.Repr
		if out.Repr == "" {
			out.Repr = pyvalue.Repr(res.Value)
		}
		if _, err := json.Marshal(out.Value); err != nil {
			out.Value = out.Repr
		}
	}
	if res.Err != nil {
		out.Error = &runPythonError{Type: res.Err.Type, Message: res.Err.Message, Line: res.Err.Line}
	}
	result := &sdk.CallToolResult{IsError: res.Err != nil}
	images := imagesIn(res.Value, nil)
	text := resultText(res, len(images) > 0 && isImage(res.Value))
	result.Content = append(result.Content, &sdk.TextContent{Text: text})
	result.Content = append(result.Content, images...)
	return result, out, nil
}

// resultText is what a client's model reads of an execution: the output,
// the notes, the value and the error, each introduced.
func resultText(res executors.Result, valueIsImage bool) string {
	var b strings.Builder
	if res.Stdout != "" {
		b.WriteString(res.Stdout)
		if !strings.HasSuffix(res.Stdout, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	if res.Value != nil {
		label := "Out"
		if res.IsFinal {
			label = "Final answer"
		}
		repr := res.Repr
		if repr == "" {
			repr = pyvalue.Repr(res.Value)
		}
		if valueIsImage {
			repr = "[an image, attached]"
		}
		fmt.Fprintf(&b, "%s: %s\n", label, repr)
	}
	if res.Err != nil {
		b.WriteString(res.Err.Describe())
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "(no output)"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// isImage reports whether v is the image value MCP tools and sandboxes
// return: {"type": "image", "mime_type": ..., "data": base64}.
func isImage(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || m["type"] != "image" {
		return false
	}
	_, ok1 := m["mime_type"].(string)
	_, ok2 := m["data"].(string)
	return ok1 && ok2
}

// maxResultImages caps the images attached to one result.
const maxResultImages = 8

// imagesIn appends the images in v (an image, or lists and dicts holding
// them) as image content.
func imagesIn(v any, out []sdk.Content) []sdk.Content {
	if len(out) >= maxResultImages {
		return out
	}
	switch x := v.(type) {
	case map[string]any:
		if isImage(x) {
			data, err := base64.StdEncoding.DecodeString(x["data"].(string))
			if err == nil && len(data) > 0 && len(data) <= starlarkagent.MaxImageBytes {
				return append(out, &sdk.ImageContent{MIMEType: x["mime_type"].(string), Data: data})
			}
			return out
		}
		for _, e := range x {
			out = imagesIn(e, out)
		}
	case []any:
		for _, e := range x {
			out = imagesIn(e, out)
		}
	}
	return out
}

func errorResult(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func (s *codeServer) reset(ctx context.Context, req *sdk.CallToolRequest, in resetArgs) (*sdk.CallToolResult, any, error) {
	key := sessionKey{conn: req.Session, id: in.Session}
	s.mu.Lock()
	cs := s.sessions[key]
	delete(s.sessions, key)
	s.mu.Unlock()
	name := in.Session
	if name == "" {
		name = "this connection's"
	} else {
		name = fmt.Sprintf("%q", name)
	}
	if cs == nil {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("Session %s had no state.", name)}}}, nil, nil
	}
	cs.closeNow()
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("Session %s was reset: its variables are gone.", name)}}}, nil, nil
}

func (s *codeServer) runAgent(ctx context.Context, req *sdk.CallToolRequest, in runAgentArgs) (*sdk.CallToolResult, any, error) {
	if strings.TrimSpace(in.Task) == "" {
		return errorResult("run_agent needs a task"), nil, nil
	}
	a := s.cfg.agent
	model, err := a.NewModel()
	if err != nil {
		return errorResult("no model: %v", err), nil, nil
	}
	agent, err := a.NewAgent(ctx, AgentConfig{Model: model, Tools: s.cfg.tools, Limits: s.cfg.limits, Logger: s.cfg.logger})
	if err != nil {
		return errorResult("cannot build the agent: %v", err), nil, nil
	}
	defer agent.Close()
	if s.cfg.runTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.cfg.runTimeout, fmt.Errorf("--run-timeout %s reached", s.cfg.runTimeout))
		defer cancel()
	}
	res, _ := agent.Run(ctx, in.Task, starlarkagent.RunOptions{})
	dropModelInputs(res.Steps)
	data, err := json.Marshal(res)
	if err != nil {
		return errorResult("encode the run's result: %v", err), nil, nil
	}
	var structured map[string]any
	if err := json.Unmarshal(data, &structured); err != nil {
		return errorResult("encode the run's result: %v", err), nil, nil
	}
	var b strings.Builder
	steps := 0
	for _, st := range res.Steps {
		if _, ok := st.(*starlarkagent.ActionStep); ok {
			steps++
		}
	}
	fmt.Fprintf(&b, "State: %s after %d steps\n", res.State, steps)
	if res.Err != nil {
		fmt.Fprintf(&b, "Error: %v\n", res.Err)
	} else {
		fmt.Fprintf(&b, "Answer: %s\n", answerText(res.Output))
	}
	return &sdk.CallToolResult{
		IsError:           res.Err != nil,
		Content:           []sdk.Content{&sdk.TextContent{Text: strings.TrimSuffix(b.String(), "\n")}},
		StructuredContent: structured,
	}, nil, nil
}

// formatBytes writes n in the units of the --max-memory flag.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
