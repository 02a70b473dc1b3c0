package isolation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/internal/spawn"
	"github.com/star-agent/star-agent/executors/runner"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// The child side of process isolation: the runner protocol served in Go by
// an ordinary in-process engine (see isolation.go for the host side).

// RunChildIfRequested runs this process as an engine child, and exits,
// when an Executor in a parent process started it as one; otherwise it
// returns at once. An Executor runs the engine in a copy of the program
// itself, so a program that uses one must call RunChildIfRequested first
// thing in main, before it reads flags or starts anything (a test binary:
// in TestMain):
//
//	func main() {
//		isolation.RunChildIfRequested()
//		...
//	}
//
// If main does not call it, the copy runs as the program itself, with one
// unknown flag as its arguments, and the parent's Execute fails with an
// error saying that main must call isolation.RunChildIfRequested: at once when
// the program exits on the unknown flag, after the start timeout when it
// runs on. A copy started that way never starts engine children of its own.
func RunChildIfRequested() {
	spec, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	if err := spawn.Announce(handshakeFD); err != nil {
		fmt.Fprintln(os.Stderr, "star-agent engine:", err)
		os.Exit(2)
	}
	os.Exit(runChild(spec))
}

// runChild is the main function of an engine child. It serves requests
// on fd 3, answers on fd 4 and writes printed output and trailers on fd 5,
// until fd 3 closes.
func runChild(data string) int {
	var spec childSpec
	if err := json.Unmarshal([]byte(data), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "star-agent engine:", err)
		return 2
	}
	if spec.Protocol != childProtocol {
		fmt.Fprintf(os.Stderr, "star-agent engine: the host speaks engine child protocol %d, this program %d: host and child are different builds (was the program replaced while it ran?)\n", spec.Protocol, childProtocol)
		return 2
	}
	// The parent may have died before the parent-death signal was armed.
	if os.Getppid() != spec.ParentPID {
		return 0
	}
	if err := applyChildLimits(spec); err != nil {
		fmt.Fprintln(os.Stderr, "star-agent engine: limits:", err)
		return 2
	}
	if spec.MemoryLimit > 0 {
		debug.SetMemoryLimit(spec.MemoryLimit)
	}
	// Non-blocking, so that reads wait in the runtime's poller rather
	// than hold a thread in read(2).
	for fd := 3; fd <= 5; fd++ {
		syscall.SetNonblock(fd, true)
	}
	in, out, side := os.NewFile(3, "requests"), os.NewFile(4, "messages"), os.NewFile(5, "side")
	if in == nil || out == nil || side == nil {
		fmt.Fprintln(os.Stderr, "star-agent engine: protocol descriptors 3, 4 and 5 are missing")
		return 2
	}
	s := &childServer{out: newRawPipe(out), side: newRawPipe(side), msgs: make(chan request, 1), cpu: spec.CPUPerExec}
	eng, ok := engines[spec.Engine]
	if !ok {
		fmt.Fprintf(os.Stderr, "star-agent engine: engine %q is not known\n", spec.Engine)
		return 2
	}
	limits := spec.Limits
	if spec.Unaccounted {
		// Tests only: the OS limit alone must stop a memory bomb.
		limits.MaxMemory = 1 << 50
	}
	// Printed output goes to the host as it is printed, for its live
	// writer and for the result of an execution the host has to kill.
	e, err := eng.open(EngineOptions{Limits: limits, AuthorizedImports: spec.Imports, Stdout: sideOutput{s}, Rerun: spec.Rerun, Batch: s.callBatch})
	if err != nil {
		fmt.Fprintln(os.Stderr, "star-agent engine:", err)
		return 2
	}
	if spec.TestTools {
		// Tests only: what the engine cannot stop or survive, in the
		// child itself.
		e.SetTools(context.Background(), []tool.Tool{blockTool{}, overflowTool{}})
	}
	s.e = e
	// The child has one P (GOMAXPROCS=1, see startChild), so a timer,
	// the engine's deadline among them, fires while code runs only when
	// the runtime's monitor preempts the code. The monitor sleeps while
	// the child waits for a request, until the earliest timer then
	// pending; and the child's pipe I/O (raw, see rawPipe) does not wake
	// it. This ticker bounds its sleep, so that it preempts code that
	// runs past its deadline within about 20 ms.
	go func() {
		for range time.Tick(20 * time.Millisecond) {
		}
	}()
	go s.read(newRawPipe(in))
	if err := s.send(map[string]any{"op": "ready", "protocol": 1, "python": readyName}); err != nil {
		return 2
	}
	for m := range s.msgs {
		if err := s.serve(m); err != nil {
			fmt.Fprintln(os.Stderr, "star-agent engine:", err)
			return 2
		}
	}
	return 0
}

// request is every field a host message may have.
type request struct {
	Op        string                     `json:"op"`
	ID        int64                      `json:"id"`
	Call      int64                      `json:"call"`
	Code      string                     `json:"code"`
	Tools     []toolSpec                 `json:"tools"`
	Vars      map[string]json.RawMessage `json:"vars"`
	Value     json.RawMessage            `json:"value"`
	Error     *childError                `json:"error"`
	MaxOutput int                        `json:"max_output"`
	MaxValue  int64                      `json:"max_value"`
	MaxMsg    int64                      `json:"max_message"`
	Results   []childResult              `json:"results"`
	Stdout    string                     `json:"stdout"`
	// Tape, on exec, asks for the execution's readings to be recorded
	// (in the trailer) and answers these first (executors.Tape).
	Tape *[]int64 `json:"tape"`
}

// childResult is one result of a parallel() batch.
type childResult struct {
	Value json.RawMessage `json:"value"`
	Error *childError     `json:"error"`
}

type toolSpec struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Inputs      []string `json:"inputs"`
	Types       []string `json:"types"`
}

// childError is the runner protocol's error object.
type childError struct {
	Type      string `json:"type"`
	Message   string `json:"message"`
	Line      int    `json:"line"`
	Source    string `json:"source"`
	Traceback string `json:"traceback"`
}

type childServer struct {
	e    Engine
	msgs chan request
	cpu  time.Duration // CPU time allowed per execution (RLIMIT_CPU)

	wmu  sync.Mutex // one writer at a time on out and side
	out  io.Writer
	side io.Writer
	// sent counts the bytes of output sent on side; framed is the
	// buffer a frame is written from (under wmu).
	sent   int64
	framed []byte

	execID  int64
	callSeq int64
	// limits are the sizes the host accepts (from its config request):
	// what passes them breaks the session, so the child keeps within.
	limits runner.Limits
}

// read decodes host messages until fd 3 closes (the host closed the
// executor or died), then ends the serve loop.
func (s *childServer) read(r io.Reader) {
	defer close(s.msgs)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m request
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				fmt.Fprintln(os.Stderr, "star-agent engine: bad request:", jerr)
				return
			}
			s.msgs <- m
		}
		if err != nil {
			return
		}
	}
}

func (s *childServer) send(m map[string]any) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.out.Write(append(data, '\n'))
	return err
}

// frame sends p on the side channel as one frame of kind, in one write.
func (s *childServer) frame(kind byte, p []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.framed = append(s.framed[:0], kind, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(s.framed[1:], uint32(len(p)))
	s.framed = append(s.framed, p...)
	_, err := s.side.Write(s.framed)
	if cap(s.framed) > 64<<10 {
		s.framed = nil // do not keep a big buffer for small frames
	}
	if err == nil && kind == frameOutput {
		s.sent += int64(len(p))
	}
	return err
}

// sideOutput sends printed output to the host as it is produced.
type sideOutput struct{ s *childServer }

func (o sideOutput) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		n := min(len(rest), maxFrame)
		if err := o.s.frame(frameOutput, rest[:n]); err != nil {
			return 0, err
		}
		rest = rest[n:]
	}
	return len(p), nil
}

func (s *childServer) reply(id int64, fields map[string]any) error {
	m := map[string]any{"op": "result", "id": id}
	for k, v := range fields {
		m[k] = v
	}
	return s.send(m)
}

func (s *childServer) fail(id int64, typ string, err error) error {
	return s.reply(id, map[string]any{"error": childError{Type: typ, Message: err.Error()}})
}

// serve answers one request. Its error ends the child (the host then
// sees the stream end).
func (s *childServer) serve(m request) error {
	switch m.Op {
	case "config":
		s.limits = runner.Limits{MaxMessage: m.MaxMsg, MaxValue: m.MaxValue, MaxOutput: m.MaxOutput}
		return s.reply(m.ID, nil)
	case "tools":
		stubs := make([]tool.Tool, len(m.Tools))
		for i, t := range m.Tools {
			spec := tool.Spec{Name: t.Name, Description: t.Description}
			for j, in := range t.Inputs {
				// The host binds and checks the arguments against the real
				// spec; here every input is optional, and typed only so
				// that a call with one dict of arguments binds as there.
				typ := tool.Any
				if j < len(t.Types) && t.Types[j] != "" {
					typ = tool.Type(t.Types[j])
				}
				spec.Inputs = append(spec.Inputs, tool.Input{Name: in, Type: typ, Nullable: true})
			}
			stubs[i] = stubTool{s: s, spec: spec}
		}
		if err := s.e.SetTools(context.Background(), stubs); err != nil {
			return s.fail(m.ID, "ValueError", err)
		}
		return s.reply(m.ID, nil)
	case "vars":
		vars := make(map[string]any, len(m.Vars))
		for k, raw := range m.Vars {
			v, err := decodeValue(raw)
			if err != nil {
				return s.fail(m.ID, "ValueError", fmt.Errorf("variable %s: %w", k, err))
			}
			vars[k] = v
		}
		if err := s.e.SetVariables(context.Background(), vars); err != nil {
			return s.fail(m.ID, "ValueError", err)
		}
		return s.reply(m.ID, nil)
	case "dump":
		vars, skipped, err := s.e.Variables(context.Background())
		if err != nil {
			return s.fail(m.ID, "SystemError", err)
		}
		// All of them within half a message: a bigger answer would break
		// the session.
		enc := make(map[string]any, len(vars))
		left := s.limits.MaxMessage / 2
		for _, k := range slices.Sorted(maps.Keys(vars)) {
			x, cost, err := pyvalue.EncodeLimit(vars[k], left)
			if errors.Is(err, pyvalue.ErrTooBig) {
				skipped[k] = "too big to carry (with the variables before it, more than " + strconv.FormatInt(s.limits.MaxMessage/2, 10) + " bytes as JSON)"
				continue
			}
			if err != nil {
				skipped[k] = err.Error()
				continue
			}
			left -= cost
			enc[k] = x
		}
		return s.reply(m.ID, map[string]any{"value": enc, "skipped": skipped})
	case "exec":
		return s.exec(m)
	case "return", "pause", "resume":
		return nil // about a tool call whose caller gave up
	}
	return s.fail(m.ID, "ProtocolError", fmt.Errorf("unknown op %q", m.Op))
}

func (s *childServer) exec(m request) error {
	s.execID, s.callSeq = m.ID, 0
	armCPULimit(s.cpu)
	ctx := context.Background()
	var tape *executors.Tape
	if m.Tape != nil {
		tape = executors.NewTape(*m.Tape)
		ctx = executors.WithTape(ctx, tape)
	}
	res, err := s.e.Execute(ctx, m.Code)
	if err != nil {
		return err
	}
	tr := trailer{Steps: res.Steps, Stuck: s.e.Abandoned()}
	if tape != nil {
		tr.Readings = tape.Readings()
	}
	if res.Err != nil {
		tr.NeedsPython, tr.Hint = res.Err.NeedsPython, res.Err.Hint
	}
	// The output printed before the result is already in the side pipe;
	// the trailer says how much there is, for the host to wait for it.
	s.wmu.Lock()
	tr.Output = s.sent
	s.wmu.Unlock()
	notes := res.Notes
	out := map[string]any{"stdout": res.Stdout, "truncated": res.Truncated, "value": nil, "repr": res.Repr,
		"final": res.IsFinal, "error": nil, "imports": res.Imports}
	if ee := res.Err; ee != nil {
		out["error"] = childError{Type: ee.Type, Message: ee.Message, Line: ee.Line, Source: ee.Source, Traceback: ee.Traceback}
	} else if res.Value != nil {
		// The engine caps values at Limits.MaxValue; the session may
		// accept less.
		v, note := s.limits.CapValue(res.Value, pyType(res.Value), res.Repr)
		if note != "" {
			notes = append(notes, note)
		}
		out["value"] = v
	}
	out["notes"] = notes[:min(len(notes), 10)]
	out["trailer"] = tr
	return s.reply(m.ID, out)
}

// blockTool never returns and ignores its context (tests only).
type blockTool struct{}

func (blockTool) Spec() tool.Spec { return tool.Spec{Name: "block", Description: "blocks for ever"} }

func (blockTool) Call(context.Context, map[string]any) (any, error) { select {} }

// overflowTool overflows the Go stack, which no recover survives (tests
// only).
type overflowTool struct{}

func (overflowTool) Spec() tool.Spec {
	return tool.Spec{Name: "overflow", Description: "overflows the stack"}
}

func (overflowTool) Call(context.Context, map[string]any) (any, error) { return nil, recurse(1) }

func recurse(n int) error {
	if n == 0 {
		return nil
	}
	var pad [64]byte
	return recurse(n + int(pad[n%64]) + 1)
}

// pyType names the Python type of an exported value.
func pyType(v any) string {
	switch v.(type) {
	case string:
		return "str"
	case map[string]any, pyvalue.Dict:
		return "dict"
	case []any:
		return "list"
	case pyvalue.Tuple:
		return "tuple"
	case bool:
		return "bool"
	case float64:
		return "float"
	}
	return "object"
}

func decodeValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return pyvalue.Decode(v)
}

// stubTool stands for a host tool: a call goes to the host and waits for
// its return.
type stubTool struct {
	s    *childServer
	spec tool.Spec
}

func (t stubTool) Spec() tool.Spec { return t.spec }

func (t stubTool) Call(ctx context.Context, args map[string]any) (any, error) {
	s := t.s
	// The arguments of one call take at most half a message: a bigger
	// call would break the session.
	kwargs := make(map[string]any, len(args))
	left := s.limits.MaxMessage / 2
	for _, k := range slices.Sorted(maps.Keys(args)) {
		x, cost, err := pyvalue.EncodeLimit(args[k], left)
		if errors.Is(err, pyvalue.ErrTooBig) {
			return nil, core.Errorf(pyexc.ValueError, "%s(): the arguments are too big to pass to a tool (more than %d bytes as JSON); pass less data", t.spec.Name, s.limits.MaxMessage/2)
		}
		if err != nil {
			return nil, core.Errorf(pyexc.TypeError, "%s(): argument %s: %v", t.spec.Name, k, err)
		}
		left -= cost
		kwargs[k] = x
	}
	s.callSeq++
	seq := s.callSeq
	if err := s.send(map[string]any{"op": "call", "id": s.execID, "call": seq, "tool": t.spec.Name, "args": []any{}, "kwargs": kwargs}); err != nil {
		return nil, err
	}
	w := waiting{ctx: ctx}
	defer w.hold(false)
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				os.Exit(0) // the host is gone
			}
			if w.told(m, s.execID, seq) || m.Op != "return" || m.Call != seq {
				continue
			}
			if m.Stdout != "" {
				tool.Print(ctx, m.Stdout)
			}
			if m.Error != nil {
				return nil, &core.Error{Type: m.Error.Type, Msg: m.Error.Message}
			}
			v, err := decodeValue(m.Value)
			if err != nil {
				return nil, fmt.Errorf("tool %s returned a value that cannot be used: %w", t.spec.Name, err)
			}
			return pyvalue.Plain(v), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// callBatch sends the calls of a parallel() to the host in one message,
// which runs them there, and waits for their results.
func (s *childServer) callBatch(ctx context.Context, calls []Call, workers int) []CallResult {
	results := make([]CallResult, len(calls))
	fail := func(err error) []CallResult {
		for i := range results {
			results[i].Err = err
		}
		return results
	}
	left := s.limits.MaxMessage / 2
	wire := make([]map[string]any, len(calls))
	for i, c := range calls {
		name := c.Tool.Spec().Name
		kwargs := make(map[string]any, len(c.Args))
		for _, k := range slices.Sorted(maps.Keys(c.Args)) {
			x, cost, err := pyvalue.EncodeLimit(c.Args[k], left)
			if errors.Is(err, pyvalue.ErrTooBig) {
				return fail(core.Errorf(pyexc.ValueError, "parallel(): the arguments are too big to pass to tools (more than %d bytes as JSON); pass less data", s.limits.MaxMessage/2))
			}
			if err != nil {
				return fail(core.Errorf(pyexc.TypeError, "%s(): argument %s: %v", name, k, err))
			}
			left -= cost
			kwargs[k] = x
		}
		wire[i] = map[string]any{"tool": name, "args": []any{}, "kwargs": kwargs}
	}
	s.callSeq++
	seq := s.callSeq
	if err := s.send(map[string]any{"op": "call", "id": s.execID, "call": seq, "calls": wire, "max_workers": workers}); err != nil {
		return fail(err)
	}
	w := waiting{ctx: ctx}
	defer w.hold(false)
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				os.Exit(0) // the host is gone
			}
			if w.told(m, s.execID, seq) || m.Op != "return" || m.Call != seq {
				continue
			}
			if m.Stdout != "" {
				tool.Print(ctx, m.Stdout)
			}
			if len(m.Results) != len(calls) {
				return fail(fmt.Errorf("the host answered %d results for %d calls", len(m.Results), len(calls)))
			}
			for i, r := range m.Results {
				if r.Error != nil {
					results[i].Err = &core.Error{Type: r.Error.Type, Msg: r.Error.Message}
					continue
				}
				v, err := decodeValue(r.Value)
				if err != nil {
					results[i].Err = fmt.Errorf("tool %s returned a value that cannot be used: %w", calls[i].Tool.Spec().Name, err)
					continue
				}
				results[i].Value = pyvalue.Plain(v)
			}
			return results
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	}
}

// waiting pauses the clock of the execution that made a tool call while
// the host says the call waits for a person (runner.Session.ForwardPauses):
// the engine's time limit does not count the wait.
type waiting struct {
	ctx    context.Context // the call's, which carries the engine's clock
	resume func()
}

// told handles m if it is a pause or resume message, reporting whether it
// was one; one about another call is ignored.
func (w *waiting) told(m request, id, call int64) bool {
	if m.Op != "pause" && m.Op != "resume" {
		return false
	}
	if m.ID == id && m.Call == call {
		w.hold(m.Op == "pause")
	}
	return true
}

// hold pauses the clock, or lets it run again.
func (w *waiting) hold(paused bool) {
	switch {
	case paused && w.resume == nil:
		w.resume = executors.PauseClock(w.ctx)
	case !paused && w.resume != nil:
		w.resume()
		w.resume = nil
	}
}
