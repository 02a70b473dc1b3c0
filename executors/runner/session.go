// Package runner is the host side of the runner protocol that every
// full-Python executor (wasm, docker, e2b, modal) speaks, and the Python
// runner script itself (Script), which those executors start inside their
// sandbox as `python -c <Script>`.
//
// The protocol is JSON lines over the sandbox's stdin and stdout. After the
// runner prints {"op":"ready"}, the host sends one request at a time and
// reads until the matching result:
//
//	host → runner  {"op":"exec","id":7,"code":"..."}
//	runner → host  {"op":"call","id":7,"call":1,"tool":"web_search","args":[...],"kwargs":{...}}
//	host → runner  {"op":"return","id":7,"call":1,"value":...}   or  {..., "error":{"type":..., "message":...}}
//	runner → host  {"op":"call","id":7,"call":2,"calls":[{"tool":"search","args":[...],"kwargs":{...}}, ...],"max_workers":8}
//	host → runner  {"op":"return","id":7,"call":2,"results":[{"value":...}, {"error":{...}}, ...]}
//	runner → host  {"op":"result","id":7,"stdout":"...","value":...,"repr":"...","final":false,"error":null}
//
// A call with "calls" is parallel(): the host runs its calls (at most
// MaxBatch, each of them a tool call as above) concurrently, at most
// max_workers (1 to MaxWorkers, DefaultWorkers when absent) at a time,
// each under the execution's context, and answers with their results in
// order, an error in place of the value of each call that failed. Either
// form takes one call number, and one call is outstanding at a time. A
// return may carry "stdout", what the tools printed (help() does), which
// the runner adds to the code's output.
//
// A result may carry a "trailer" member for its host, which Exec ignores
// and ExecTrailer returns unread (the Go runner of package isolation reports
// its step count there); the Python runner sends none.
//
// Other requests are config (output cap, import policy, sys.path), tools,
// vars and dump (the variables JSON can carry). Values are JSON with tags
// for what JSON cannot say ({"$tuple": [...]}, see pyvalue.Encode and Decode); the
// runner never unpickles. This package knows nothing of the transport: a
// Session reads and writes any byte streams, and the executor that owns the
// sandbox kills and restarts it when a Session reports it broken.
//
// # What the host trusts
//
// Nothing the runner sends. The runner shares its interpreter with the code
// it runs, and inside one interpreter nothing is hidden: code can find the
// runner's channel (or any per-execution secret) through gc.get_objects,
// frames or closure cells. So the protocol travels where code cannot write
// it by accident (a dedicated channel: for the WebAssembly sandbox a file
// the runner opens once, see package wasm; for a native process the
// runner's private copies of fds 0 and 1, with 0 and 1 pointed at
// /dev/null), and every message is checked as if the code had written it:
//
//   - a result must answer the outstanding request: a result for another
//     id, a second result, a tool call outside an exec or out of sequence,
//     an unknown op or field are protocol violations (ErrProtocol), which
//     break the session so that its owner replaces the sandbox and tells
//     the model;
//   - a message is limited while it is read (MaxMemory/8 bytes, between 1
//     and 64 MiB), and its decoding cost (messageCost: its bytes plus 48 per
//     JSON item) is checked before it is decoded, so a forged 60 MB result
//     costs the host one bounded buffer; all messages of one execution share
//     a budget of MaxMemory/2;
//   - values returned (final answers, last expressions) are capped at
//     MaxValue bytes of JSON (executors.Limits.MaxValue; the runner
//     replaces a bigger one by a shortened repr and a note), stdout and
//     reprs at MaxOutput characters, error messages and tracebacks
//     likewise; the host cuts again.
//
// What code can forge on the channel is at most its own step's result,
// which it could have produced honestly with final_answer.
package runner

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// Script is the Python runner. Start it with `python -c Script` (it needs
// nothing but the standard library) with the protocol on its stdin/stdout.
//
//go:embed runner.py
var Script string

// ErrBroken reports that the runner can no longer be used: it died, the
// stream broke, it violated the protocol, or an exec was abandoned because
// its context ended. The owner of the sandbox should restart it.
var ErrBroken = errors.New("runner: session broken")

// ErrProtocol reports a message that breaks the protocol: one that answers
// no outstanding request, a second result, a message too big, a malformed
// one. It always comes wrapped in ErrBroken.
var ErrProtocol = errors.New("runner protocol violation")

// Config is what a runner needs to know before it executes code.
type Config struct {
	// MaxOutput caps captured stdout in characters (default 50,000).
	MaxOutput int
	// MaxMemory is the sandbox's memory budget (default
	// executors.DefaultMaxMemory). It bounds what the host accepts from the
	// runner: see the package documentation and Limits.
	MaxMemory int64
	// MaxValue bounds a returned value as JSON, in bytes (default
	// executors.DefaultMaxValue, at most a 26th of the message limit).
	MaxValue int64
	// Imports is the import policy; nil Authorized authorizes everything.
	Imports executors.ImportPolicy
	// SysPath directories are appended to sys.path (pure-Python packages).
	SysPath []string
}

// Limits are the sizes a Session accepts from its runner, derived from a
// Config by its Limits method.
type Limits struct {
	// MaxMessage bounds one message: its bytes while it is read, and its
	// decoding cost (bytes plus 48 per JSON item) before it is decoded.
	MaxMessage int64
	// ExecBudget bounds the cost of all messages of one execution (tool
	// calls and the result).
	ExecBudget int64
	// MaxValue bounds a returned value's JSON in bytes; the runner
	// replaces a bigger one by a shortened repr and says so in a note.
	MaxValue int64
	// MaxOutput is the output cap in characters the limits were made for.
	MaxOutput int
	// MaxBatchResults and MaxStepResults bound the tool results the host
	// holds for the code: one parallel() batch's together, and all of one
	// execution's (executors.MaxBatchResults, MaxStepResults).
	MaxBatchResults, MaxStepResults int64
}

// CapValue is what a runner written in Go does with a result's value: it
// returns v encoded, or, when its JSON form passes MaxValue bytes, an
// pyvalue.Opaque of type typ whose repr is repr cut to MaxOutput characters,
// with a note for the model. A Session treats a bigger value as forged.
func (l Limits) CapValue(v any, typ, repr string) (enc any, note string) {
	enc, _, err := pyvalue.EncodeLimit(v, l.MaxValue)
	if err == nil {
		if data, merr := json.Marshal(enc); merr == nil && int64(len(data)) <= l.MaxValue {
			return enc, ""
		}
	}
	if utf8.RuneCountInString(repr) > l.MaxOutput {
		repr = cut(repr, l.MaxOutput) + "..."
	}
	return map[string]any{"$repr": repr, "type": typ}, fmt.Sprintf("the value is too big to return in full (more than %d bytes as JSON): it is replaced by a shortened repr; return something smaller, such as a summary or the first items", l.MaxValue)
}

// Limits returns the sizes a Session with this configuration accepts.
func (c Config) Limits() Limits {
	maxMemory, maxOutput, maxValue := c.MaxMemory, c.MaxOutput, c.MaxValue
	if maxMemory <= 0 {
		maxMemory = executors.DefaultMaxMemory
	}
	if maxOutput <= 0 {
		maxOutput = executors.DefaultMaxOutput
	}
	if maxValue <= 0 {
		maxValue = executors.DefaultMaxValue
	}
	l := Limits{MaxMessage: min(max(maxMemory/8, 1<<20), 64<<20), MaxOutput: maxOutput}
	mem := executors.Limits{MaxMemory: maxMemory}
	l.MaxBatchResults, l.MaxStepResults = executors.MaxBatchResults(mem), executors.MaxStepResults(mem)
	l.ExecBudget = max(maxMemory/2, 2*l.MaxMessage)
	// A value at most 1/26 of a message: its decoding cost (at most 25
	// units per byte) always fits next to the output.
	l.MaxValue = min(maxValue, l.MaxMessage/26)
	return l
}

// messageCost estimates what decoding data costs the host: its bytes, 48
// for every comma and colon (an item) and 24 for every opening bracket,
// whether in a string or not (the runner counts the same way, with
// bytes.count, before it sends). Decoding takes about 100 bytes of Go
// memory per item (measured: a call with 1.8 million numbers, 185 MB), so
// a message may cost at most 25 units per byte and a decoded message at
// most about twice its cost.
func messageCost(data []byte) int64 {
	items := bytes.Count(data, []byte{','}) + bytes.Count(data, []byte{':'}) + 1
	opens := bytes.Count(data, []byte{'['}) + bytes.Count(data, []byte{'{'})
	return int64(len(data)) + 48*int64(items) + 24*int64(opens)
}

// Session is the host side of one runner. Its methods are safe for
// concurrent use but run one request at a time.
type Session struct {
	w   io.Writer
	wmu sync.Mutex // one write at a time on w: pauses are told from tool calls

	// pauses: tell the runner when a tool call waits for a person
	// (ForwardPauses).
	pauses atomic.Bool

	// maxMessage is read by the reading goroutine; Configure sets it.
	maxMessage atomic.Int64

	mu        sync.Mutex
	msgs      chan message
	readErr   error // set before msgs closes
	nextID    int64
	tools     map[string]tool.Tool
	maxOutput int
	limits    Limits
	broken    error
	python    string
	// runnerCode is what the ready message carried (RunnerCode).
	runnerCode []byte
	// ended is closed when the runner's stream has ended or broken.
	ended chan struct{}

	// polled, br and line are the stream of a session that reads in
	// the requesting goroutine (NewPolledSession), under mu.
	polled DeadlineReader
	br     *bufio.Reader
	line   []byte
}

// message is every field a runner message may have. Decoding is strict:
// unknown fields are an error.
type message struct {
	Op        string            `json:"op"`
	ID        int64             `json:"id"`
	Protocol  int               `json:"protocol,omitempty"`
	Python    string            `json:"python,omitempty"`
	Code      string            `json:"code,omitempty"`
	Call      int64             `json:"call,omitempty"`
	Tool      string            `json:"tool,omitempty"`
	Calls     []wireCall        `json:"calls,omitempty"`
	Workers   int               `json:"max_workers,omitempty"`
	Args      json.RawMessage   `json:"args,omitempty"`
	Kwargs    json.RawMessage   `json:"kwargs,omitempty"`
	Stdout    string            `json:"stdout"`
	Truncated bool              `json:"truncated"`
	Value     json.RawMessage   `json:"value"`
	Repr      string            `json:"repr"`
	Final     bool              `json:"final"`
	Error     *wireError        `json:"error"`
	Imports   []string          `json:"imports"`
	Skipped   map[string]string `json:"skipped"`
	Notes     []string          `json:"notes"`
	// Trailer is what a runner adds to a result for its own host (see
	// ExecTrailer).
	Trailer json.RawMessage `json:"trailer,omitempty"`

	cost int64 // messageCost of the line
}

// wireCall is one call of a parallel() batch.
type wireCall struct {
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args,omitempty"`
	Kwargs json.RawMessage `json:"kwargs,omitempty"`
}

// Limits of a parallel() batch.
const (
	// MaxBatch is the most calls one parallel() may make.
	MaxBatch = 1000
	// MaxWorkers is the most calls of a batch that run at once.
	MaxWorkers = 64
	// DefaultWorkers is how many run at once when the runner does not say.
	DefaultWorkers = 8
)

type wireError struct {
	Type      string `json:"type"`
	Message   string `json:"message"`
	Line      int    `json:"line"`
	Source    string `json:"source"`
	Traceback string `json:"traceback"`
}

// NewSession starts reading runner messages from r; requests go to w. Call
// Ready before anything else.
func NewSession(r io.Reader, w io.Writer) *Session {
	l := Config{}.Limits()
	s := &Session{w: w, msgs: make(chan message, 1), tools: map[string]tool.Tool{}, maxOutput: executors.DefaultMaxOutput, limits: l, ended: make(chan struct{})}
	s.maxMessage.Store(l.MaxMessage)
	go s.read(bufio.NewReaderSize(r, 64<<10))
	return s
}

// DeadlineReader is a stream whose reads can be interrupted: an *os.File
// of a pipe or socket the runtime polls (see os.File.SetReadDeadline).
type DeadlineReader interface {
	io.Reader
	SetReadDeadline(t time.Time) error
}

// NewPolledSession is NewSession for a stream whose reads a deadline can
// interrupt: the goroutine that waits for a message reads it itself,
// instead of a reading goroutine handing each message over, which saves
// a wake-up of a thread per message (what a hand-off costs is mostly
// that, see package isolation's BenchmarkIsolatedCPU). Reads are limited
// and messages checked as NewSession's are. The session reads only while
// a request waits, so StreamEnded reports only an end a request saw.
func NewPolledSession(r DeadlineReader, w io.Writer) *Session {
	l := Config{}.Limits()
	s := &Session{w: w, tools: map[string]tool.Tool{}, maxOutput: executors.DefaultMaxOutput, limits: l, ended: make(chan struct{}),
		polled: r, br: bufio.NewReaderSize(r, 64<<10)}
	s.maxMessage.Store(l.MaxMessage)
	return s
}

// read decodes messages until the stream ends or breaks the protocol. It
// runs ahead of the requests by at most one message (msgs has room for
// one), so a runner that writes without end fills one line buffer and
// then waits.
func (s *Session) read(br *bufio.Reader) {
	defer close(s.ended)
	defer close(s.msgs)
	var line []byte
	for {
		m, err := s.readMessage(br, &line)
		if err != nil {
			s.readErr = err
			return
		}
		s.msgs <- m
	}
}

// readMessage reads and decodes one message, with *line as its buffer.
// Its error ends the stream: the message broke the protocol, or the
// stream ended or broke.
func (s *Session) readMessage(br *bufio.Reader, line *[]byte) (message, error) {
	*line = (*line)[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		limit := s.maxMessage.Load()
		if int64(len(*line)+len(chunk)) > limit {
			// Stop reading now: the rest of the line is never buffered.
			return message{}, fmt.Errorf("%w: a message longer than %d bytes", ErrProtocol, limit)
		}
		*line = append(*line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return message{}, fmt.Errorf("runner stream ended: %w", err)
		}
		break
	}
	data := *line
	cost := messageCost(data)
	if limit := s.maxMessage.Load(); cost > limit {
		return message{}, fmt.Errorf("%w: a message of %d bytes that would cost %d to decode, more than %d", ErrProtocol, len(data), cost, limit)
	}
	var m message
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return message{}, fmt.Errorf("%w: a bad message %q: %w", ErrProtocol, abbreviate(data), err)
	}
	if d.More() {
		return message{}, fmt.Errorf("%w: two values on one line %q", ErrProtocol, abbreviate(data))
	}
	m.cost = cost
	if len(data) > 1<<20 {
		*line = nil // do not keep a big buffer for small messages
	}
	return m, nil
}

func abbreviate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// Ready waits for the runner's first message and returns its Python version.
func (s *Session) Ready(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.next(ctx)
	if err != nil {
		return "", err
	}
	if m.Op != "ready" {
		return "", s.fail(fmt.Errorf("runner: expected ready, got %q", m.Op))
	}
	if m.Protocol != 1 {
		return "", s.fail(fmt.Errorf("runner: protocol %d, want 1", m.Protocol))
	}
	s.python = m.Python
	if m.Code != "" {
		if code, err := base64.StdEncoding.DecodeString(m.Code); err == nil && len(code) <= MaxRunnerCode {
			s.runnerCode = code
		}
	}
	return m.Python, nil
}

// EmitCodeArg asks the runner to send its compiled code with its ready
// message, so that the host can cache it (see Session.RunnerCode).
const EmitCodeArg = "--emit-code"

// MaxRunnerCode bounds the compiled runner a Session keeps.
const MaxRunnerCode = 4 << 20

// RunnerCode is the runner's own code object, serialized with marshal by
// the interpreter that runs it, which a runner started with EmitCodeArg
// sends with its ready message (before any code has run in the sandbox);
// nil otherwise. A host that starts many sandboxes of the same
// interpreter can give it to the next ones instead of the source
// (python -c "exec(marshal.loads(...))"), sparing them compiling Script.
func (s *Session) RunnerCode() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runnerCode
}

// next returns the next message, or an error that breaks the session when
// the stream ends or ctx is done first.
func (s *Session) next(ctx context.Context) (message, error) {
	if s.broken != nil {
		return message{}, s.broken
	}
	if s.polled != nil {
		return s.nextPolled(ctx)
	}
	select {
	case m, ok := <-s.msgs:
		if !ok {
			return message{}, s.fail(s.readErr)
		}
		return m, nil
	case <-ctx.Done():
		return message{}, s.fail(fmt.Errorf("runner: abandoned: %w", context.Cause(ctx)))
	}
}

// nextPolled is next for a session that reads in the requesting
// goroutine: ctx ending interrupts the read with a deadline in the past.
func (s *Session) nextPolled(ctx context.Context) (message, error) {
	if ctx.Err() != nil {
		return message{}, s.fail(fmt.Errorf("runner: abandoned: %w", context.Cause(ctx)))
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		s.polled.SetReadDeadline(time.Unix(1, 0))
	})
	m, err := s.readMessage(s.br, &s.line)
	if !stop() {
		// ctx ended while reading. A message read before the deadline
		// took hold is still the answer (NewSession's next may pick
		// either too); otherwise the request is abandoned.
		<-fired
		s.polled.SetReadDeadline(time.Time{})
		if err != nil {
			close(s.ended)
			return message{}, s.fail(fmt.Errorf("runner: abandoned: %w", context.Cause(ctx)))
		}
	}
	if err != nil {
		close(s.ended)
		return message{}, s.fail(err)
	}
	return m, nil
}

func (s *Session) fail(err error) error {
	if s.broken == nil {
		s.broken = fmt.Errorf("%w: %w", ErrBroken, err)
	}
	return s.broken
}

// StreamEnded reports whether the runner's stream has ended or broken, for
// instance because its sandbox died between two requests.
func (s *Session) StreamEnded() bool {
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// Err returns the error that broke the session, or nil.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

// execRequest is an exec request: a struct, which encodes in a fraction
// of the time a map takes, on the path every step takes.
type execRequest struct {
	Op   string   `json:"op"`
	ID   int64    `json:"id"`
	Code string   `json:"code"`
	Tape *[]int64 `json:"tape,omitempty"`
}

func (s *Session) send(m any) error {
	if s.broken != nil {
		return s.broken
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	_, err = s.w.Write(append(data, '\n'))
	s.wmu.Unlock()
	if err != nil {
		return s.fail(fmt.Errorf("runner: write: %w", err))
	}
	return nil
}

// ForwardPauses makes the session tell its runner when a tool call the
// runner made starts and stops waiting for a person (whoever waits calls
// executors.PauseClock with the call's context):
//
//	host → runner  {"op":"pause","id":7,"call":1}
//	host → runner  {"op":"resume","id":7,"call":1}
//
// while the call is outstanding, or, when its execution was abandoned,
// later. This is for a runner that keeps a clock of its own, which must
// not count the wait: the child of package isolation, whose engine
// enforces the time limit itself. The Python runner has none (its host
// keeps the time) and must not be sent these.
func (s *Session) ForwardPauses() { s.pauses.Store(true) }

// callPauser tells the runner that call id/call waits for a person, while
// at least one of its tool calls (a parallel() batch has many) waits.
type callPauser struct {
	s        *Session
	id, call int64

	mu      sync.Mutex
	waiting int
}

// Pause implements executors.Pauser.
func (p *callPauser) Pause() (resume func()) {
	p.mu.Lock()
	if p.waiting++; p.waiting == 1 {
		p.tell("pause")
	}
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			if p.waiting--; p.waiting == 0 {
				p.tell("resume")
			}
			p.mu.Unlock()
		})
	}
}

// tell writes a pause or resume message. It runs on the goroutine of a
// tool call, beside the one that serves the runner, so it does not touch
// the session's state: a write that fails breaks the session at its next
// send or read.
func (p *callPauser) tell(op string) {
	data, err := json.Marshal(map[string]any{"op": op, "id": p.id, "call": p.call})
	if err != nil {
		return
	}
	p.s.wmu.Lock()
	defer p.s.wmu.Unlock()
	p.s.w.Write(append(data, '\n'))
}

// callContext is the context of the tool calls of call message m: ctx,
// which tells the runner of their waits when it asked for that.
func (s *Session) callContext(ctx context.Context, m message) context.Context {
	if !s.pauses.Load() {
		return ctx
	}
	return executors.WithPauser(ctx, &callPauser{s: s, id: m.ID, call: m.Call})
}

// request sends m and returns the runner's result for it.
func (s *Session) request(ctx context.Context, m map[string]any) (message, error) {
	s.nextID++
	m["id"] = s.nextID
	if err := s.send(m); err != nil {
		return message{}, err
	}
	res, err := s.next(ctx)
	if err != nil {
		return message{}, err
	}
	if res.Op != "result" || res.ID != s.nextID {
		return message{}, s.fail(fmt.Errorf("%w: expected the result of request %d, got %s for request %d", ErrProtocol, s.nextID, res.Op, res.ID))
	}
	if res.Error != nil {
		return res, fmt.Errorf("runner: %s: %s", res.Error.Type, res.Error.Message)
	}
	return res, nil
}

// Configure sets the output cap, import policy and extra sys.path entries.
func (s *Session) Configure(ctx context.Context, c Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.MaxOutput <= 0 {
		c.MaxOutput = executors.DefaultMaxOutput
	}
	s.maxOutput = c.MaxOutput
	s.limits = c.Limits()
	s.maxMessage.Store(s.limits.MaxMessage)
	m := map[string]any{"op": "config", "max_output": c.MaxOutput, "forbidden": nonNil(c.Imports.Forbidden), "sys_path": nonNil(c.SysPath),
		"max_message": s.limits.MaxMessage, "max_value": s.limits.MaxValue}
	if c.Imports.Authorized != nil {
		m["authorized"] = c.Imports.Authorized
	}
	_, err := s.request(ctx, m)
	return err
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// SetTools makes tools callable from the code as Python functions taking
// positional and keyword arguments. It replaces the previous tools.
func (s *Session) SetTools(ctx context.Context, tools []tool.Tool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	specs := make([]map[string]any, 0, len(tools))
	byName := make(map[string]tool.Tool, len(tools))
	for _, t := range tools {
		sp := t.Spec()
		inputs := make([]string, len(sp.Inputs))
		types := make([]string, len(sp.Inputs))
		for i, in := range sp.Inputs {
			inputs[i], types[i] = in.Name, string(in.Type)
		}
		specs = append(specs, map[string]any{"name": sp.Name, "description": sp.Description, "inputs": inputs, "types": types})
		byName[sp.Name] = t
	}
	if _, err := s.request(ctx, map[string]any{"op": "tools", "tools": specs}); err != nil {
		return err
	}
	s.tools = byName
	return nil
}

// SetVariables binds vars as globals of the code. Values may be anything
// pyvalue.Encode accepts.
func (s *Session) SetVariables(ctx context.Context, vars map[string]any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	enc := make(map[string]any, len(vars))
	left := s.limits.MaxMessage
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		e, cost, err := pyvalue.EncodeLimit(vars[k], left)
		if errors.Is(err, pyvalue.ErrTooBig) {
			return fmt.Errorf("variable %s is too big to send to Python (with the variables before it, its JSON form costs more than %d bytes): %w", k, s.limits.MaxMessage, pyvalue.ErrTooBig)
		}
		if err != nil {
			return fmt.Errorf("variable %s: %w", k, err)
		}
		left -= cost
		enc[k] = e
	}
	_, err := s.request(ctx, map[string]any{"op": "vars", "vars": enc})
	return err
}

// Variables returns the code's global variables that JSON can carry, and
// for each one it cannot, the reason.
func (s *Session) Variables(ctx context.Context) (map[string]any, map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.request(ctx, map[string]any{"op": "dump"})
	if err != nil {
		return nil, nil, err
	}
	if len(res.Skipped) > 10000 {
		return nil, nil, s.fail(fmt.Errorf("%w: %d skipped variables", ErrProtocol, len(res.Skipped)))
	}
	for k, why := range res.Skipped {
		res.Skipped[k] = cut(why, 1000)
	}
	v, err := decodeRaw(res.Value)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	vars, _ := v.(map[string]any)
	return vars, res.Skipped, nil
}

func decodeRaw(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var v any
	if err := pyvalue.DecodeJSON(raw, &v); err != nil {
		return nil, fmt.Errorf("runner: bad value: %w", err)
	}
	return pyvalue.Decode(v)
}

// Exec runs code in the runner's namespace, serving its tool calls. A
// failure of the code is Result.Err; the error is for a broken session
// (which includes ctx ending before the result: the runner is then busy
// with code nobody waits for, and its owner must restart it). Engine and
// Duration are left for the caller to fill.
func (s *Session) Exec(ctx context.Context, code string) (executors.Result, error) {
	res, _, err := s.ExecTrailer(ctx, code)
	return res, err
}

// ExecTrailer is Exec that also returns the "trailer" member of the runner's
// result, unread, or nil when it has none. A runner written for one host
// reports there what the protocol has no field for (package isolation's
// child: the step count, and how much output it sent on its side
// channel), in the same message as the result, rather than in another
// message the host would have to wait for. It is limited as the whole
// message is; the Python runner sends none.
func (s *Session) ExecTrailer(ctx context.Context, code string) (executors.Result, json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	id := s.nextID
	req := execRequest{Op: "exec", ID: id, Code: code}
	if t := executors.TapeFrom(ctx); t != nil {
		// An engine in a child process (package isolation) records its
		// readings and answers these first; Python sandboxes ignore it.
		tape := append([]int64{}, t.Pending()...)
		req.Tape = &tape
	}
	if err := s.send(req); err != nil {
		return executors.Result{}, nil, err
	}
	var spent int64
	var calls int64
	step := &executors.ResultBudget{Max: s.limits.MaxStepResults}
	for {
		m, err := s.next(ctx)
		if err != nil {
			return executors.Result{}, nil, err
		}
		if m.ID != id {
			return executors.Result{}, nil, s.fail(fmt.Errorf("%w: a %s message for request %d while request %d runs", ErrProtocol, m.Op, m.ID, id))
		}
		if spent += m.cost; spent > s.limits.ExecBudget {
			return executors.Result{}, nil, s.fail(fmt.Errorf("%w: the messages of one execution cost more than %d", ErrProtocol, s.limits.ExecBudget))
		}
		switch m.Op {
		case "call":
			if calls++; m.Call != calls || (m.Tool == "") == (len(m.Calls) == 0) {
				return executors.Result{}, nil, s.fail(fmt.Errorf("%w: tool call %d (%q) where call %d was due", ErrProtocol, m.Call, abbreviate([]byte(m.Tool)), calls))
			}
			if err := checkBatch(m); err != nil {
				return executors.Result{}, nil, s.fail(err)
			}
			var reply map[string]any
			if len(m.Calls) > 0 {
				reply = s.callBatch(ctx, m, step)
			} else {
				reply = s.callTool(ctx, m, step)
			}
			if err := s.send(reply); err != nil {
				return executors.Result{}, nil, err
			}
		case "result":
			res, err := s.result(m)
			if len(m.Trailer) == 0 || err != nil {
				return res, nil, err
			}
			return res, m.Trailer, nil
		default:
			return executors.Result{}, nil, s.fail(fmt.Errorf("%w: unexpected %q message during exec", ErrProtocol, abbreviate([]byte(m.Op))))
		}
	}
}

func (s *Session) result(m message) (executors.Result, error) {
	// An honest runner never sends a value bigger than MaxValue (or, in
	// its place, a repr of at most MaxOutput characters, 12 bytes each
	// when escaped); anything bigger was forged.
	if limit := s.limits.MaxValue + 12*int64(s.maxOutput) + 1024; int64(len(m.Value)) > limit {
		return executors.Result{}, s.fail(fmt.Errorf("%w: a value of %d bytes, more than %d", ErrProtocol, len(m.Value), limit))
	}
	if len(m.Imports) > 1000 || len(m.Notes) > 10 {
		return executors.Result{}, s.fail(fmt.Errorf("%w: %d imports, %d notes", ErrProtocol, len(m.Imports), len(m.Notes)))
	}
	res := executors.Result{Stdout: m.Stdout, Truncated: m.Truncated, IsFinal: m.Final, Repr: m.Repr, Imports: m.Imports}
	for _, n := range m.Notes {
		res.Notes = append(res.Notes, cut(n, 2000))
	}
	// The runner caps output itself; the host enforces the cap as well in
	// case the runner was tampered with by the code it runs.
	if n := utf8.RuneCountInString(res.Stdout); n > s.maxOutput+200 {
		res.Stdout = cut(res.Stdout, s.maxOutput) + fmt.Sprintf("\n[output truncated: %d more characters were printed; only the first %d are kept]\n", n-s.maxOutput, s.maxOutput)
		res.Truncated = true
	}
	if utf8.RuneCountInString(res.Repr) > s.maxOutput {
		res.Repr = cut(res.Repr, s.maxOutput) + "..."
	}
	if m.Error != nil {
		e := m.Error
		res.Err = &executors.ExecError{Type: cut(e.Type, 200), Message: executors.CapText(e.Message, s.maxOutput), Line: e.Line,
			Source: cut(e.Source, 1000), Traceback: capTail(e.Traceback, s.maxOutput), Hint: importHint(e)}
		return res, nil
	}
	v, err := decodeRaw(m.Value)
	if err != nil {
		return res, s.fail(err)
	}
	res.Value = v
	return res, nil
}

// importHint is the operator's hint for an import the runner's policy
// refused. The hint is built here, from the module's name, never taken
// from the sandbox: the code there could write anything.
func importHint(e *wireError) string {
	if e.Type != "ImportError" {
		return ""
	}
	rest, ok := strings.CutPrefix(e.Message, "import of ")
	if !ok {
		return ""
	}
	module, _, ok := strings.Cut(rest, " is not allowed; authorized imports are: ")
	if !ok {
		return ""
	}
	top, _, _ := strings.Cut(module, ".")
	return executors.ImportHint(top)
}

// capTail keeps the last n characters of s (the end of a traceback is the
// part that matters).
func capTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	c := utf8.RuneCountInString(s)
	if c <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == c-n {
			return fmt.Sprintf("[... %d characters cut]\n", c-n) + s[j:]
		}
		i++
	}
	return s
}

func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// checkBatch refuses a call message whose parallel() batch breaks the
// protocol's rules.
func checkBatch(m message) error {
	if len(m.Calls) == 0 {
		if m.Workers != 0 {
			return fmt.Errorf("%w: max_workers in a single tool call", ErrProtocol)
		}
		return nil
	}
	if len(m.Args) > 0 || len(m.Kwargs) > 0 {
		return fmt.Errorf("%w: a batch of calls with arguments of its own", ErrProtocol)
	}
	if len(m.Calls) > MaxBatch {
		return fmt.Errorf("%w: a batch of %d calls, more than %d", ErrProtocol, len(m.Calls), MaxBatch)
	}
	if m.Workers < 0 || m.Workers > MaxWorkers {
		return fmt.Errorf("%w: max_workers %d, not between 1 and %d", ErrProtocol, m.Workers, MaxWorkers)
	}
	for i, c := range m.Calls {
		if c.Tool == "" {
			return fmt.Errorf("%w: call %d of a batch names no tool", ErrProtocol, i)
		}
	}
	return nil
}

// callTool runs one tool call and returns the reply for the runner.
func (s *Session) callTool(ctx context.Context, m message, step *executors.ResultBudget) map[string]any {
	reply := map[string]any{"op": "return", "id": m.ID, "call": m.Call}
	out := &toolOutput{max: s.maxOutput}
	v, e := s.runCall(tool.WithOutput(s.callContext(ctx, m), out), wireCall{Tool: m.Tool, Args: m.Args, Kwargs: m.Kwargs}, nil, step)
	if e != nil {
		reply["error"] = e
	} else {
		reply["value"] = v
	}
	if text := out.String(); text != "" {
		reply["stdout"] = text
	}
	return reply
}

// callBatch runs the calls of a parallel() batch concurrently and returns
// the reply with their results in order. When ctx ends first, the calls
// still running are answered with the error and left to end on their own.
//
// The batch's results are counted as they arrive (MaxBatchResults, and
// the step's MaxStepResults): one that would pass a cap is answered with a
// MemoryError, and so are the calls not started by then.
func (s *Session) callBatch(ctx context.Context, m message, step *executors.ResultBudget) map[string]any {
	workers := m.Workers
	if workers == 0 {
		workers = DefaultWorkers
	}
	batch := &executors.ResultBudget{Max: s.limits.MaxBatchResults}
	var full map[string]any // the error of the result that did not fit; under mu
	out := &toolOutput{max: s.maxOutput}
	tctx := tool.WithOutput(s.callContext(ctx, m), out)
	results := make([]map[string]any, len(m.Calls))
	var mu sync.Mutex
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
loop:
	for i, c := range m.Calls {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		mu.Lock()
		if full != nil {
			results[i] = map[string]any{"error": full}
			mu.Unlock()
			<-sem
			continue
		}
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			v, e := s.runCall(tctx, c, batch, step)
			r := map[string]any{"value": v}
			if e != nil {
				r = map[string]any{"error": e}
			}
			mu.Lock()
			results[i] = r
			if e != nil && e["type"] == "MemoryError" && full == nil {
				full = e
			}
			mu.Unlock()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	list := make([]map[string]any, len(results))
	for i, r := range results {
		if r == nil {
			r = map[string]any{"error": map[string]any{"type": "TimeoutError", "message": fmt.Sprintf("tool %s did not return before the execution ended: %v", m.Calls[i].Tool, context.Cause(ctx))}}
		}
		list[i] = r
	}
	reply := map[string]any{"op": "return", "id": m.ID, "call": m.Call, "results": list}
	if text := out.String(); text != "" {
		reply["stdout"] = text
	}
	return reply
}

// toolOutput collects what tools print during one call message, up to
// max characters.
type toolOutput struct {
	mu  sync.Mutex
	max int
	b   strings.Builder
	cut bool
}

func (o *toolOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if room := o.max - o.b.Len(); room > 0 {
		o.b.WriteString(cut(string(p), room))
	} else {
		o.cut = true
	}
	return len(p), nil
}

func (o *toolOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// runCall runs one tool call: its value encoded for the runner, or the
// error object to send in its place.
func (s *Session) runCall(ctx context.Context, c wireCall, batch, step *executors.ResultBudget) (any, map[string]any) {
	fail := func(typ, format string, a ...any) (any, map[string]any) {
		return nil, map[string]any{"type": typ, "message": fmt.Sprintf(format, a...)}
	}
	t, ok := s.tools[c.Tool]
	if !ok {
		return fail("NameError", "name '%s' is not defined", c.Tool)
	}
	var rawArgs []any
	var rawKw map[string]any
	if len(c.Args) > 0 {
		if err := pyvalue.DecodeJSON(c.Args, &rawArgs); err != nil {
			return fail("TypeError", "bad arguments: %v", err)
		}
	}
	if len(c.Kwargs) > 0 {
		if err := pyvalue.DecodeJSON(c.Kwargs, &rawKw); err != nil {
			return fail("TypeError", "bad keyword arguments: %v", err)
		}
	}
	args := make([]any, len(rawArgs))
	for i, a := range rawArgs {
		d, err := pyvalue.Decode(a)
		if err != nil {
			return fail("TypeError", "%s(): argument %d: %v", c.Tool, i+1, err)
		}
		args[i] = pyvalue.Plain(d)
	}
	kwargs := make(map[string]any, len(rawKw))
	for k, a := range rawKw {
		d, err := pyvalue.Decode(a)
		if err != nil {
			return fail("TypeError", "%s(): argument %s: %v", c.Tool, k, err)
		}
		kwargs[k] = pyvalue.Plain(d)
	}
	bound, err := tool.Bind(t.Spec(), args, kwargs)
	if err != nil {
		return fail("TypeError", "%v", err)
	}
	out, err := t.Call(ctx, bound)
	if err != nil {
		var ee *executors.ExecError
		if errors.As(err, &ee) {
			return fail(ee.Type, "%s", ee.Message)
		}
		return fail("ToolError", "tool %s failed: %v", c.Tool, err)
	}
	n := executors.ResultSize(out)
	if !batch.Take(n) {
		return fail("MemoryError", "parallel(): the results of this batch passed %d MiB (a quarter of the memory budget); ask for less at once: fewer calls, or smaller results", batch.Max>>20)
	}
	if !step.Take(n) {
		return fail("MemoryError", "the tool results of this step passed %d MiB (four times the memory budget); split the work over several steps", step.Max>>20)
	}
	enc, err := pyvalue.Encode(out)
	if err != nil {
		return fail("ToolError", "tool %s returned a value that cannot be used: %v", c.Tool, err)
	}
	return enc, nil
}

// Restarted is the Result.Err a Python executor reports when it had to
// restart its sandbox, so that the model knows its state is gone.
// typ is the Python exception type that ended the code (TimeoutError,
// MemoryError, ...); why says what happened.
func Restarted(typ, why string) *executors.ExecError {
	return &executors.ExecError{
		Type:    typ,
		Message: why + "; the Python sandbox was restarted: variables defined before are gone",
	}
}
