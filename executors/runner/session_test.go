package runner_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/executors/wasm"
	"github.com/star-agent/star-agent/tool"
)

// native is an executors.Executor around a runner in a native python3
// process: the protocol over plain OS pipes.
type native struct {
	cmd  *exec.Cmd
	sess *runner.Session
}

func startNative(t *testing.T, cfg runner.Config) *native { return startNativeWith(t, cfg, false) }

// startNativeWith is startNative with, when polled, a NewPolledSession
// over pipes of the runtime's poller.
func startNativeWith(t *testing.T, cfg runner.Config, polled bool) *native {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 not installed (CI=true: this must not be skipped)")
		}
		t.Skip("python3 not installed")
	}
	cmd := exec.Command(py, "-I", "-c", runner.Script)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var sess func() *runner.Session
	if polled {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = w
		t.Cleanup(func() { r.Close() })
		sess = func() *runner.Session { w.Close(); return runner.NewPolledSession(r, stdin) }
	} else {
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		sess = func() *runner.Session { return runner.NewSession(stdout, stdin) }
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := &native{cmd: cmd, sess: sess()}
	t.Cleanup(func() { n.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := n.sess.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if err := n.sess.Configure(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *native) Execute(ctx context.Context, code string) (executors.Result, error) {
	return n.sess.Exec(ctx, code)
}
func (n *native) SetTools(ctx context.Context, tools []tool.Tool) error {
	return n.sess.SetTools(ctx, tools)
}
func (n *native) SetVariables(ctx context.Context, vars map[string]any) error {
	return n.sess.SetVariables(ctx, vars)
}
func (n *native) Close() error {
	n.cmd.Process.Kill()
	n.cmd.Wait()
	return nil
}

func TestConformanceNative(t *testing.T) {
	runnertest.Conformance(t, func(t *testing.T) executors.Executor {
		return startNative(t, runner.Config{Imports: executors.ImportPolicy{Authorized: []string{"*"}}})
	})
}

func TestImportPolicy(t *testing.T) {
	n := startNative(t, runner.Config{Imports: executors.NewImportPolicy([]string{"numpy"}, []string{"os"})})
	ctx := context.Background()
	cases := []struct{ code, typ, msg string }{
		{"import json\nimport subprocess", "ImportError", "import of subprocess is not allowed; authorized imports are: ["},
		{"from os import path", "ImportError", "import of os is not allowed: it gives access to the host"},
		{"m = __import__('socket')", "ImportError", "import of socket is not allowed"},
		{"def f():\n    import shutil\nf()", "ImportError", "import of shutil is not allowed"},
		{"import numpy", "ModuleNotFoundError", "No module named 'numpy'"},
		{"import json, collections.abc\nimport datetime as d\njson.dumps(1)", "", ""},
	}
	for _, c := range cases {
		res, err := n.Execute(ctx, c.code)
		if err != nil {
			t.Fatal(err)
		}
		if c.typ == "" {
			if res.Err != nil {
				t.Errorf("%q: %v", c.code, res.Err)
			}
			continue
		}
		if res.Err == nil || res.Err.Type != c.typ || !strings.Contains(res.Err.Message, c.msg) {
			t.Errorf("%q: got %+v, want %s containing %q", c.code, res.Err, c.typ, c.msg)
		}
	}
	// A refused import is an ImportError where it runs, which code can
	// catch to fall back (nothing is refused before the code starts).
	res, err := n.Execute(ctx, "print('before')\ntry:\n    import subprocess\nexcept ImportError as e:\n    r = 'fell back'\nr")
	if err != nil || res.Err != nil || res.Value != "fell back" || res.Stdout != "before\n" {
		t.Errorf("caught refusal: %+v %v", res, err)
	}
	// The standard library imports what it needs regardless of the policy.
	if res, _ := n.Execute(ctx, "import json\njson.dumps({'a': 1})"); res.Err != nil {
		t.Error(res.Err)
	}
}

// TestCrashMidCall kills the interpreter while it waits for a tool: Exec
// must return an error promptly, never hang.
func TestCrashMidCall(t *testing.T) {
	n := startNative(t, runner.Config{})
	kill := runnertest.Func{S: tool.Spec{Name: "kill_me"}, F: func(context.Context, map[string]any) (any, error) {
		n.cmd.Process.Kill()
		time.Sleep(50 * time.Millisecond)
		return "too late", nil
	}}
	if err := n.SetTools(context.Background(), []tool.Tool{kill}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := n.Execute(ctx, "x = kill_me()\nprint(x)")
	if !errors.Is(err, runner.ErrBroken) {
		t.Fatalf("got %v, want ErrBroken", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("Exec returned only at the test's deadline (%v)", time.Since(start))
	}
	if _, err := n.Execute(ctx, "1"); !errors.Is(err, runner.ErrBroken) {
		t.Errorf("broken session accepted more work: %v", err)
	}
}

// TestAbandon checks that an Exec whose context ends returns at once and
// leaves the session broken (its owner must restart the runner).
func TestAbandon(t *testing.T) {
	n := startNative(t, runner.Config{Imports: executors.ImportPolicy{Authorized: []string{"*"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// The loop never ends: returning with the context's error is
	// abandoning it.
	_, err := n.Execute(ctx, "while True:\n    pass")
	if !errors.Is(err, runner.ErrBroken) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
}

// TestPolledSession runs a native runner's conformance suite, abandoning
// and the message checks over a NewPolledSession, which reads in the
// requesting goroutine.
func TestPolledSession(t *testing.T) {
	t.Run("conformance", func(t *testing.T) {
		runnertest.Conformance(t, func(t *testing.T) executors.Executor {
			return startNativeWith(t, runner.Config{Imports: executors.ImportPolicy{Authorized: []string{"*"}}}, true)
		})
	})
	t.Run("abandon", func(t *testing.T) {
		n := startNativeWith(t, runner.Config{Imports: executors.ImportPolicy{Authorized: []string{"*"}}}, true)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := n.Execute(ctx, "while True:\n    pass")
		if !errors.Is(err, runner.ErrBroken) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("returned after %s", d)
		}
		if _, err := n.Execute(context.Background(), "1"); !errors.Is(err, runner.ErrBroken) {
			t.Errorf("after abandoning: %v", err)
		}
	})
	t.Run("strict", func(t *testing.T) {
		for _, line := range []string{"not json\n", `{"op":"ready","protocol":2}` + "\n", `{"op":"ready","protocol":1,"extra":1}` + "\n"} {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() { io.WriteString(w, line); w.Close() }()
			s := runner.NewPolledSession(r, discard{})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if _, err := s.Ready(ctx); !errors.Is(err, runner.ErrBroken) || ctx.Err() != nil {
				t.Errorf("%q: got %v", line, err)
			}
			cancel()
			r.Close()
		}
	})
	t.Run("limit while reading", func(t *testing.T) {
		r := &endless{}
		s := runner.NewPolledSession(noDeadline{r}, discard{})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := s.Ready(ctx)
		if !errors.Is(err, runner.ErrProtocol) || !strings.Contains(err.Error(), "longer than") {
			t.Fatalf("got %v", err)
		}
		if n, limit := r.n.Load(), (runner.Config{}).Limits().MaxMessage; n > limit+128<<10 {
			t.Errorf("read %d bytes for a limit of %d", n, limit)
		}
	})
}

// noDeadline is a reader whose reads no deadline interrupts.
type noDeadline struct{ io.Reader }

func (noDeadline) SetReadDeadline(time.Time) error { return nil }

// TestProtocolChannelIsPrivate checks that code writing to the real stdout
// file descriptor or reading stdin cannot disturb the protocol.
func TestProtocolChannelIsPrivate(t *testing.T) {
	n := startNative(t, runner.Config{Imports: executors.ImportPolicy{Authorized: []string{"*"}}})
	ctx := context.Background()
	res, err := n.Execute(ctx, "import os, sys\nos.write(1, b'{\"op\":\"result\",\"id\":99}\\n')\nsys.__stdout__.write('junk\\n')\nprint(repr(sys.stdin.read()), os.read(0, 10))")
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || res.Stdout != "junk\n'' b''\n" {
		t.Errorf("stdout %q err %v", res.Stdout, res.Err)
	}
	if res, err := n.Execute(ctx, "2"); err != nil || res.Value != int64(2) {
		t.Errorf("after: %v %v", res.Value, err)
	}
}

// TestStrictDecoder feeds the host messages a runner must not send.
func TestStrictDecoder(t *testing.T) {
	for _, line := range []string{
		"not json\n",
		`{"op":"ready","protocol":1,"python":"3","extra":true}` + "\n",
		`{"op":"ready","protocol":2}` + "\n",
		`{"op":"result","id":1}` + "\n",
	} {
		s := runner.NewSession(strings.NewReader(line), discard{})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := s.Ready(ctx)
		if !errors.Is(err, runner.ErrBroken) || ctx.Err() != nil {
			t.Errorf("%q: got %v", line, err)
		}
		cancel()
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// endless is a runner that writes one line without end, counting what the
// host read of it.
type endless struct{ n atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n.Add(int64(len(p)))
	return len(p), nil
}

// TestMessageLimitWhileReading: a message longer than the limit is refused
// while it is read, not after: the host reads at most the limit (it read
// 64 MiB, whatever the sandbox's memory, and a 60 MB line was decoded).
func TestMessageLimitWhileReading(t *testing.T) {
	r := &endless{}
	s := runner.NewSession(r, discard{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.Ready(ctx)
	if !errors.Is(err, runner.ErrProtocol) || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("got %v", err)
	}
	limit := runner.Config{}.Limits().MaxMessage
	if n := r.n.Load(); n > limit+128<<10 {
		t.Errorf("read %d bytes for a limit of %d", n, limit)
	}
}

// scripted is a runner that answers each request with the lines reply
// returns for it (given the request's id).
func scripted(t *testing.T, reply func(n int, id int64) []string) *runner.Session {
	reqR, reqW := io.Pipe()
	outR, outW := io.Pipe()
	// Requests are drained at once, so that the host never blocks
	// writing while the script writes.
	reqs := make(chan []byte, 1000)
	go func() {
		defer close(reqs)
		sc := bufio.NewScanner(reqR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			reqs <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	go func() {
		defer outW.Close()
		fmt.Fprintln(outW, `{"op":"ready","protocol":1,"python":"3.11"}`)
		n := 0
		for line := range reqs {
			var req struct{ ID int64 }
			json.Unmarshal(line, &req)
			n++
			for _, l := range reply(n-1, req.ID) {
				if _, err := io.WriteString(outW, l+"\n"); err != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() { reqW.Close(); outR.Close() })
	s := runner.NewSession(outR, reqW)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func result(id int64, extra string) string {
	return fmt.Sprintf(`{"op":"result","id":%d,"stdout":"","truncated":false,"value":null,"repr":"","final":false,"error":null,"imports":[]%s}`, id, extra)
}

// TestResultsMustAnswerTheRequest: results for another id, second results
// and tool calls out of sequence break the session with ErrProtocol.
func TestResultsMustAnswerTheRequest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cases := []struct {
		name  string
		lines func(id int64) []string
	}{
		{"next id", func(id int64) []string { return []string{result(id+1, "")} }},
		{"earlier id", func(id int64) []string { return []string{result(id-1, "")} }},
		{"call out of sequence", func(id int64) []string {
			return []string{fmt.Sprintf(`{"op":"call","id":%d,"call":2,"tool":"t","args":[],"kwargs":{}}`, id)}
		}},
		{"giant value", func(id int64) []string {
			// A later "value" key wins: 2 MB of JSON, under the message
			// limit but over MaxValue, which no honest runner sends.
			return []string{result(id, `,"value":[`+strings.Repeat("0,", 1_000_000)+`0]`)}
		}},
	}
	for _, c := range cases {
		s := scripted(t, func(n int, id int64) []string { return c.lines(id) })
		_, err := s.Exec(ctx, "1")
		if !errors.Is(err, runner.ErrProtocol) || !errors.Is(err, runner.ErrBroken) {
			t.Errorf("%s: got %v", c.name, err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
	// A tool call outside an execution.
	s := scripted(t, func(n int, id int64) []string {
		return []string{fmt.Sprintf(`{"op":"call","id":%d,"call":1,"tool":"t","args":[],"kwargs":{}}`, id)}
	})
	if _, _, err := s.Variables(ctx); !errors.Is(err, runner.ErrProtocol) {
		t.Errorf("call outside an exec: got %v", err)
	}
	// A second result: the first is taken, the next request fails.
	s = scripted(t, func(n int, id int64) []string { return []string{result(id, ""), result(id, "")} })
	if _, err := s.Exec(ctx, "1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(ctx, "2"); !errors.Is(err, runner.ErrProtocol) {
		t.Errorf("second result: got %v", err)
	}
}

// TestCapValue: a Go runner that caps its values with CapValue never trips
// the host's check, and says when it cut.
func TestCapValue(t *testing.T) {
	l := runner.Config{MaxOutput: 1000}.Limits()
	big := make([]any, 200_000)
	for i := range big {
		big[i] = int64(i)
	}
	for _, c := range []struct {
		v    any
		note bool
	}{{[]any{int64(1), "a"}, false}, {big, true}} {
		enc, note := l.CapValue(c.v, "list", strings.Repeat("x", 5000))
		if (note != "") != c.note {
			t.Errorf("note %q", note)
		}
		data, _ := json.Marshal(enc)
		s := scripted(t, func(n int, id int64) []string {
			return []string{result(id, `,"value":`+string(data))}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.Configure(ctx, runner.Config{MaxOutput: 1000}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Exec(ctx, "x"); err != nil {
			t.Errorf("capped value refused: %v", err)
		}
		cancel()
	}
}

// TestExecBudget: the messages of one execution share a budget tied to
// the memory limit, so a runner cannot make the host decode tool calls
// without end.
func TestExecBudget(t *testing.T) {
	arg := strings.Repeat("a", 1<<20)
	s := scripted(t, func(n int, id int64) []string {
		switch n {
		case 0:
			return []string{`{"op":"result","id":1}`} // config
		case 1:
		default:
			return nil // the returns of the calls
		}
		var calls []string
		for i := 1; i <= 20; i++ {
			calls = append(calls, fmt.Sprintf(`{"op":"call","id":%d,"call":%d,"tool":"t","args":["%s"],"kwargs":{}}`, id, i, arg))
		}
		return calls
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Configure(ctx, runner.Config{MaxMemory: 16 << 20}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Exec(ctx, "x")
	if !errors.Is(err, runner.ErrProtocol) || !strings.Contains(err.Error(), "messages of one execution") {
		t.Fatalf("got %v", err)
	}
}

// TestDecodeBudget: a message is decoded only if its cost fits, and what
// fits decodes within about twice the cost. A tool call of 1.8 million
// numbers (3.6 MB, under the byte limit) took the host 185 MB to decode;
// it is now refused unread, and the largest call that fits (650,000
// numbers) is decoded and handed to the tool.
func TestDecodeBudget(t *testing.T) {
	limit := runner.Config{}.Limits().MaxMessage
	for _, c := range []struct {
		items  int
		accept bool
	}{{1_800_000, false}, {650_000, true}} {
		args := strings.TrimSuffix(strings.Repeat("0,", c.items), ",")
		s := scripted(t, func(k int, id int64) []string {
			switch k {
			case 0:
				return []string{fmt.Sprintf(`{"op":"result","id":%d}`, id)} // tools
			case 1:
				return []string{fmt.Sprintf(`{"op":"call","id":%d,"call":1,"tool":"t","args":[[%s]],"kwargs":{}}`, id, args)}
			}
			return []string{result(id, "")}
		})
		got := 0
		count := runnertest.Func{S: tool.Spec{Name: "t", Inputs: []tool.Input{{Name: "x", Type: tool.Any}}},
			F: func(_ context.Context, a map[string]any) (any, error) {
				got = len(a["x"].([]any))
				return nil, nil
			}}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if err := s.SetTools(ctx, []tool.Tool{count}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			t.Skipf("cannot reset peak RSS: %v", err)
		}
		before := runnertest.ProcStatus(t, "VmRSS:")
		_, err := s.Exec(ctx, "x")
		growth := runnertest.ProcStatus(t, "VmHWM:") - before
		cancel()
		t.Logf("%d items: peak RSS growth %d MiB, err %v", c.items, growth>>20, err)
		if c.accept != (err == nil) || c.accept && got != c.items {
			t.Errorf("%d items: err %v, tool saw %d", c.items, err, got)
		}
		if !c.accept && !errors.Is(err, runner.ErrProtocol) {
			t.Errorf("%d items: %v", c.items, err)
		}
		if growth > 4*limit {
			t.Errorf("%d items: peak RSS grew by %d MiB, more than 4 times the %d MiB message limit", c.items, growth>>20, limit>>20)
		}
	}
}

// TestBatchMustFollowTheRules: a parallel() batch that breaks the rules
// (too many calls or workers, a call without a tool, a batch that is also
// a single call, a batch out of sequence, an unknown field in a call)
// breaks the session with ErrProtocol; a valid one is answered in order.
func TestBatchMustFollowTheRules(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	call := func(id int64, seq int, body string) string {
		return fmt.Sprintf(`{"op":"call","id":%d,"call":%d,%s}`, id, seq, body)
	}
	many := strings.TrimSuffix(strings.Repeat(`{"tool":"t"},`, runner.MaxBatch+1), ",")
	for name, body := range map[string]string{
		"too many calls":        `"calls":[` + many + `]`,
		"too many workers":      `"calls":[{"tool":"t"}],"max_workers":65`,
		"negative workers":      `"calls":[{"tool":"t"}],"max_workers":-1`,
		"a call without a tool": `"calls":[{"tool":"t"},{"tool":""}]`,
		"tool and calls":        `"tool":"t","calls":[{"tool":"t"}]`,
		"workers without calls": `"tool":"t","max_workers":2`,
		"batch with arguments":  `"calls":[{"tool":"t"}],"args":[1]`,
		"unknown field":         `"calls":[{"tool":"t","code":"x"}]`,
	} {
		s := scripted(t, func(n int, id int64) []string { return []string{call(id, 1, body)} })
		_, err := s.Exec(ctx, "1")
		if !errors.Is(err, runner.ErrProtocol) || !errors.Is(err, runner.ErrBroken) {
			t.Errorf("%s: got %v", name, err)
		}
	}
	s := scripted(t, func(n int, id int64) []string {
		return []string{call(id, 2, `"calls":[{"tool":"t"}]`)}
	})
	if _, err := s.Exec(ctx, "1"); !errors.Is(err, runner.ErrProtocol) {
		t.Errorf("batch out of sequence: got %v", err)
	}
}

// BenchmarkParallelToolCallsWasm is the wall time of parallel() with 8
// calls of a tool that takes 100 ms, from CPython in the WebAssembly
// sandbox, and of the same calls in a loop.
func BenchmarkParallelToolCallsWasm(b *testing.B) {
	sleep := runnertest.Func{S: tool.Spec{Name: "sleep", Inputs: []tool.Input{{Name: "x", Type: tool.Any}}},
		F: func(ctx context.Context, args map[string]any) (any, error) {
			select {
			case <-time.After(100 * time.Millisecond):
				return args["x"], nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}}
	e, err := wasm.New(wasm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if err := e.SetTools(context.Background(), []tool.Tool{sleep}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, code string }{
		{"parallel", "r = parallel(sleep, list(range(8)))"},
		{"sequential", "r = [sleep(i) for i in range(8)]"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := e.Execute(context.Background(), c.code)
				if err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
		})
	}
}

// TestBatchResultsCapped: the host holds at most a quarter of the memory budget
// of one parallel() batch's results (1,000 results of 1 MiB took 5.1 GB of
// star-agent's own memory); a result past it, and the calls after it,
// fail with a MemoryError, and the step's results are capped in total.
func TestBatchResultsCapped(t *testing.T) {
	n := startNative(t, runner.Config{MaxMemory: 64 << 20})
	blob := runnertest.Func{S: tool.Spec{Name: "blob", Inputs: []tool.Input{{Name: "n", Type: tool.Integer}}},
		F: func(ctx context.Context, args map[string]any) (any, error) {
			return strings.Repeat("b", int(args["n"].(int64))), nil
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := n.SetTools(ctx, []tool.Tool{blob}); err != nil {
		t.Fatal(err)
	}
	res, err := n.Execute(ctx, "r = parallel(blob, [1 << 20] * 100)\nok = [x for x in r if isinstance(x, str)]\nprint(sum(map(len, ok)), len(r) - len(ok), type(r[-1]).__name__)")
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	var got, failed int64
	var typ string
	fmt.Sscan(res.Stdout, &got, &failed, &typ)
	if got > 16<<20 || failed == 0 || typ != "MemoryError" {
		t.Errorf("the batch gave %d bytes, %d calls failed, the last with %s; want at most %d bytes, and MemoryErrors", got, failed, typ, 16<<20)
	}
	// Many batches in one step: at most four times the budget in all.
	res, err = n.Execute(ctx, "t = 0\nfor _ in range(40):\n    r = parallel(blob, [1 << 20] * 10)\n    t += sum(len(x) for x in r if isinstance(x, str))\nprint(t)")
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	fmt.Sscan(res.Stdout, &got)
	if got > 4*64<<20 {
		t.Errorf("the step was given %d bytes of results, more than %d", got, 4*64<<20)
	}
}
