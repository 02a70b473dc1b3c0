package isolation

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/tool"
)

// newIsolatedTest returns an isolated executor, closed at the end of the
// test.
func newIsolatedTest(t testing.TB, opts Options, tweak func(*Executor)) *Executor {
	t.Helper()
	e, err := newWith(opts, tweak)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func mustRun(t *testing.T, e *Executor, code string) executors.Result {
	t.Helper()
	res, err := e.Execute(context.Background(), code)
	if err != nil {
		t.Fatalf("Execute(%q): %v", code, err)
	}
	if res.Err != nil {
		t.Fatalf("Execute(%q): %v", code, res.Err)
	}
	return res
}

// alive reports whether pid is a process that has not ended (a zombie
// has ended).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	// A process the host killed is gone within moments; the bound only
	// catches one it never killed, not a slow machine.
	const d = 30 * time.Second
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	t.Fatalf("process %d still runs after %s", pid, d)
}

// waitStopped waits until every thread of pid is in the stopped state.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	const d = 30 * time.Second
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if allThreadsStopped(pid) {
			return
		}
	}
	t.Fatalf("process %d not stopped after %s", pid, d)
}

func allThreadsStopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		// The state follows the command name's closing parenthesis.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || i+2 >= len(stat) || (stat[i+2] != 'T' && stat[i+2] != 't') {
			return false
		}
	}
	return true
}

// TestIsolatedLiveOutputBeforeResult: all the output a step printed,
// more than a pipe holds and in many writes, has reached the live writer
// when Execute returns (the trailer says how much the child sent).
func TestIsolatedLiveOutputBeforeResult(t *testing.T) {
	var live syncBuffer
	e := newIsolatedTest(t, Options{Stdout: &live}, nil)
	var want strings.Builder
	for i := range 5 {
		res := mustRun(t, e, fmt.Sprintf("for i in range(300):\n    print(%d, i, 'x' * 30)", i))
		if res.Truncated {
			t.Fatal("truncated")
		}
		want.WriteString(res.Stdout)
		if got := live.String(); got != want.String() {
			t.Fatalf("step %d: live output has %d bytes, the results %d", i, len(got), want.Len())
		}
	}
}

// TestIsolatedProtocolMismatch: a child of another version of the
// engine child protocol (another build of the program) refuses to serve,
// and the error says why.
func TestIsolatedProtocolMismatch(t *testing.T) {
	e := newIsolatedTest(t, Options{}, func(x *Executor) { x.spec.Protocol = childProtocol - 1 })
	_, err := e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "different builds") {
		t.Fatalf("got %v, want an error saying host and child are different builds", err)
	}
}

func TestIsolatedStatePersists(t *testing.T) {
	var live syncBuffer
	e := newIsolatedTest(t, Options{Stdout: &live}, nil)
	mustRun(t, e, "x = 41\ndef inc(n):\n    return n + 1\nprint('defined')")
	// The output printed before the result was delivered before Execute
	// returned.
	if got := live.String(); got != "defined\n" {
		t.Errorf("live output = %q, want %q", got, "defined\n")
	}
	pid := e.ChildPID()
	if pid == 0 || pid == os.Getpid() {
		t.Fatalf("child pid = %d", pid)
	}
	res := mustRun(t, e, "inc(x)")
	if res.Value != int64(42) || res.Repr != "42" || res.Engine != starlarkexec.Engine || res.Steps == 0 {
		t.Errorf("result = %+v, want 42 from the starlark engine with steps counted", res)
	}
	res = mustRun(t, e, "final_answer({'t': (1, 2), 's': 'x' * 3})")
	if !res.IsFinal || res.Repr != "{'t': (1, 2), 's': 'xxx'}" {
		t.Errorf("final = %+v", res)
	}
	if e.ChildPID() != pid {
		t.Errorf("the child changed from %d to %d without a crash", pid, e.ChildPID())
	}
	vars, skipped, err := e.Variables(context.Background())
	if err != nil || vars["x"] != int64(41) || skipped["inc"] == "" {
		t.Errorf("Variables = %v, %v, %v", vars, skipped, err)
	}
	// A front-end error keeps NeedsPython across the process boundary,
	// so a router still sends such code to full Python.
	res, _ = e.Execute(context.Background(), "import numpy")
	if res.Err == nil {
		t.Fatal("import numpy succeeded")
	}
	in, _ := starlarkexec.New(starlarkexec.Options{AuthorizedImports: []string{"numpy"}})
	defer in.Close()
	want, _ := in.Execute(context.Background(), "import numpy")
	e2 := newIsolatedTest(t, Options{AuthorizedImports: []string{"numpy"}}, nil)
	got, _ := e2.Execute(context.Background(), "import numpy")
	if want.Err == nil || got.Err == nil || got.Err.NeedsPython != want.Err.NeedsPython || !got.Err.NeedsPython {
		t.Errorf("import numpy: isolated %+v, in process %+v", got.Err, want.Err)
	}
}

// syncBuffer is a bytes.Buffer safe for the child's output copier.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// recordTool is a Go tool whose calls leave a trace in the test process.
type recordTool struct {
	mu    sync.Mutex
	calls []map[string]any
	pids  []int
	hook  func()
}

func (r *recordTool) Spec() tool.Spec {
	return tool.Spec{Name: "record", Description: "records its arguments", Inputs: []tool.Input{
		{Name: "word", Type: tool.String},
		{Name: "times", Type: tool.Integer, Nullable: true},
	}, Output: tool.String}
}

func (r *recordTool) Call(_ context.Context, args map[string]any) (any, error) {
	r.mu.Lock()
	r.calls = append(r.calls, args)
	r.pids = append(r.pids, os.Getpid())
	hook := r.hook
	r.mu.Unlock()
	if hook != nil {
		hook()
	}
	if args["word"] == "fail" {
		return nil, fmt.Errorf("the word fail is refused")
	}
	n := int64(1)
	if v, ok := args["times"].(int64); ok {
		n = v
	}
	return strings.Repeat(args["word"].(string), int(n)), nil
}

func TestIsolatedToolsRunInHost(t *testing.T) {
	rec := &recordTool{}
	e := newIsolatedTest(t, Options{}, nil)
	if err := e.SetTools(context.Background(), []tool.Tool{rec}); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, e, "a = record('ab', 2)\nb = record(word='c')\nfinal_answer(a + b)")
	if res.Value != "ababc" {
		t.Errorf("value = %#v, want ababc", res.Value)
	}
	rec.mu.Lock()
	calls, pids := rec.calls, rec.pids
	rec.mu.Unlock()
	if len(calls) != 2 || calls[0]["word"] != "ab" || calls[0]["times"] != int64(2) || calls[1]["word"] != "c" {
		t.Errorf("calls = %v", calls)
	}
	for _, pid := range pids {
		if pid != os.Getpid() {
			t.Errorf("tool ran in process %d, not the host %d", pid, os.Getpid())
		}
	}
	// The host checks arguments against the real spec, and a tool's error
	// is an exception the code can catch.
	res, _ = e.Execute(context.Background(), "record(5)")
	if res.Err == nil || res.Err.Type != "TypeError" || !strings.Contains(res.Err.Message, "word") {
		t.Errorf("record(5): %+v", res.Err)
	}
	res = mustRun(t, e, "try:\n    record('fail')\nexcept Exception as e:\n    msg = str(e)\nmsg")
	if !strings.Contains(fmt.Sprint(res.Value), "the word fail is refused") {
		t.Errorf("caught message = %v", res.Value)
	}
}

// crashCase kills the child in a way of its own and checks what the
// model is told.
func TestIsolatedCrashGivesFreshChild(t *testing.T) {
	started := make(chan struct{}, 1)
	rec := &recordTool{hook: func() { started <- struct{}{} }}
	e := newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: 20 * time.Second}}, nil)
	if err := e.SetTools(context.Background(), []tool.Tool{rec}); err != nil {
		t.Fatal(err)
	}
	if err := e.SetVariables(context.Background(), map[string]any{"given": "by the task"}); err != nil {
		t.Fatal(err)
	}
	mustRun(t, e, "mine = 1")
	pid := e.ChildPID()
	go func() {
		<-started
		syscall.Kill(pid, syscall.SIGKILL)
	}()
	// The loop never ends: a result at all means the crash was seen.
	res, err := e.Execute(context.Background(), "record('go')\nwhile True:\n    pass")
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Type != "SystemError" || !strings.Contains(res.Err.Message, "killed") {
		t.Errorf("error = %+v, want a SystemError saying the process was killed", res.Err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "restarted") {
		t.Errorf("notes = %q, want the state-lost note", res.Notes)
	}
	waitGone(t, pid)
	// A fresh child: the code's state is gone, the task's is not.
	res = mustRun(t, e, "[given, record('again')]")
	if fmt.Sprint(res.Value) != "[by the task again]" {
		t.Errorf("value = %v", res.Value)
	}
	if e.ChildPID() == pid {
		t.Error("the child was not replaced")
	}
	res, _ = e.Execute(context.Background(), "mine")
	if res.Err == nil || res.Err.Type != "NameError" {
		t.Errorf("mine after the restart: %+v", res.Err)
	}
}

// TestIsolatedOutOfMemory lifts the engine's own budget so that only the
// OS limit stands between a bomb and the host.
func TestIsolatedOutOfMemory(t *testing.T) {
	const budget = 32 << 20
	e := newIsolatedTest(t, Options{Limits: executors.Limits{MaxMemory: budget}}, func(x *Executor) {
		x.spec.Unaccounted = true
	})
	t.Logf("OS memory limit: %s", e.limit.describe())
	if e.Mechanism() == "none" {
		t.Skip("no OS memory limit on this platform")
	}
	if raceEnabled && e.Mechanism() == "rlimit" {
		t.Skip("the race detector's shadow memory does not fit an address-space limit")
	}
	mustRun(t, e, "before = 1")
	pid := e.ChildPID()
	// 1.5 GB in one piece, far past the limit (about 400 MiB beyond the
	// child's mappings at rest).
	res, err := e.Execute(context.Background(), "s = 'ab' * (750 * 1000 * 1000)\nlen(s)")
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Type != "MemoryError" {
		t.Fatalf("result = %+v, error %+v, want a MemoryError", res, res.Err)
	}
	t.Logf("%v", res.Err)
	if !strings.Contains(res.Err.Message, "32 MiB") || len(res.Notes) == 0 {
		t.Errorf("error = %q, notes %q", res.Err.Message, res.Notes)
	}
	waitGone(t, pid)
	res = mustRun(t, e, "'after'")
	if res.Value != "after" {
		t.Errorf("after: %+v", res)
	}
}

// TestIsolatedUnresponsiveChildIsKilled stops the child (SIGSTOP) so that
// it cannot answer at all: the host's own deadline must kill it.
func TestIsolatedUnresponsiveChildIsKilled(t *testing.T) {
	const timeout = 300 * time.Millisecond
	e := newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: timeout}}, nil)
	mustRun(t, e, "x = 1")
	pid := e.ChildPID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// kill returns before the stop takes effect: a child still running
	// for a moment could answer the next request (CI saw it once).
	waitStopped(t, pid)
	// The stopped child never answers: a TimeoutError means the host
	// did not wait for it.
	res, err := e.Execute(context.Background(), "x + 1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Fatalf("error = %+v, want TimeoutError", res.Err)
	}
	waitGone(t, pid)
	if res := mustRun(t, e, "2"); res.Value != int64(2) {
		t.Errorf("next: %+v", res)
	}
}

// Attacks that the engine cannot pre-empt in process (or could not before
// issue 12): whatever the engine does with them, the isolated executor
// answers close to the deadline and is usable at once.
func TestIsolatedNonPreemptible(t *testing.T) {
	const timeout = time.Second
	cases := []struct{ name, code string }{
		{"pow", "pow(3, 2**60000+1, 2**60000+3)"},
		{"repr", "class A:\n    def __repr__(self):\n        while True:\n            pass\nfinal_answer(A())"},
		{"repr-last", "class A:\n    def __repr__(self):\n        while True:\n            pass\nA()"},
		{"fromhex", "bytes.fromhex('00' * 10**8)"},
		{"unary", "x = " + strings.Repeat("-", 1_000_000) + "1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: timeout}}, nil)
			mustRun(t, e, "x = 1")
			start := time.Now()
			res, err := e.Execute(context.Background(), c.code)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v after %s (notes %q)", c.name, res.Err, took, res.Notes)
			if res.Err == nil {
				t.Errorf("the attack gave a result: %+v", res)
			}
			// The in-process work goes on for a minute or more; the host
			// must not wait for it. (A bound that only a hang exceeds,
			// not a slow machine: the figure is in the log above.)
			if took > timeout+30*time.Second {
				t.Errorf("the executor answered after %s", took)
			}
			res = mustRun(t, e, "'usable'")
			if res.Value != "usable" {
				t.Errorf("next result: %+v", res)
			}
		})
	}
}

func TestIsolatedCloseLeavesNoProcess(t *testing.T) {
	e, err := New(Options{Limits: executors.Limits{Timeout: 30 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := e.Execute(context.Background(), "1"); err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	pid := e.ChildPID()
	// Close while the child is busy with an execution.
	go e.Execute(context.Background(), "while True:\n    pass")
	time.Sleep(100 * time.Millisecond)
	done := make(chan struct{})
	go func() { e.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		// Close waits for the running execution's lock; the deadline kill
		// is the bound, not the 30 s timeout.
	}
	<-done
	// Reaped: not even a zombie is left.
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Errorf("process %d is still there after Close", pid)
	}
	if _, err := e.Execute(context.Background(), "1"); err == nil {
		t.Error("Execute after Close succeeded")
	}
}

const helperEnv = "STAR_AGENT_ISOLATE_HELPER"

// TestIsolatedParentDeathKillsChild runs a helper process that opens an
// isolated executor and starts an endless execution, kills the helper with
// SIGKILL and checks that the engine's process dies with it.
func TestIsolatedParentDeathKillsChild(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestIsolatedParentDeathHelper$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pids := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if s, ok := strings.CutPrefix(sc.Text(), "child-pid "); ok {
				n, _ := strconv.Atoi(s)
				pids <- n
			}
		}
	}()
	var pid int
	select {
	case pid = <-pids:
	case <-time.After(20 * time.Second):
		t.Fatal("the helper did not report its child")
	}
	if !alive(pid) {
		t.Fatalf("child %d is not running", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, pid)
}

// TestIsolatedParentDeathHelper is the helper process of the test above.
func TestIsolatedParentDeathHelper(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		return // only does something as the helper process
	}
	e, err := New(Options{Limits: executors.Limits{Timeout: time.Minute, MaxOperations: 1 << 62}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordTool{}
	rec.hook = func() { fmt.Printf("child-pid %d\n", e.ChildPID()) }
	if err := e.SetTools(context.Background(), []tool.Tool{rec}); err != nil {
		t.Fatal(err)
	}
	// The child is busy in an endless loop and does not read its
	// requests: only the parent-death signal can end it.
	e.Execute(context.Background(), "record('x')\nwhile True:\n    pass")
}

func TestEngineUnknown(t *testing.T) {
	if _, err := New(Options{Engine: "lua"}); err == nil || !strings.Contains(err.Error(), "use starlark") {
		t.Errorf("New with engine lua: %v", err)
	}
}

// TestCheckSyntaxStartsNoChild: the front end runs in the host.
func TestCheckSyntaxStartsNoChild(t *testing.T) {
	e := newIsolatedTest(t, Options{}, nil)
	if err := e.CheckSyntax("x = 1"); err != nil {
		t.Errorf("x = 1: %v", err)
	}
	if err := e.CheckSyntax("x = ("); err == nil {
		t.Error("x = ( parses")
	}
	if pid := e.ChildPID(); pid != 0 {
		t.Errorf("CheckSyntax started child %d", pid)
	}
}

// deafTool ignores its context and blocks until release is closed.
type deafTool struct{ release chan struct{} }

func (s deafTool) Spec() tool.Spec {
	return tool.Spec{Name: "stuck", Description: "never returns in time"}
}

func (s deafTool) Call(context.Context, map[string]any) (any, error) {
	<-s.release
	return "late", nil
}

// TestIsolatedToolIgnoringDeadline: a host tool that ignores its context
// must not hold the executor past the deadline.
func TestIsolatedToolIgnoringDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	release := make(chan struct{})
	defer close(release)
	e := newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: timeout}}, nil)
	if err := e.SetTools(context.Background(), []tool.Tool{deafTool{release}}); err != nil {
		t.Fatal(err)
	}
	// The tool returns only when the test ends: a result at all means
	// the host did not wait for it.
	res, err := e.Execute(context.Background(), "stuck()")
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Errorf("error = %+v, want TimeoutError", res.Err)
	}
	if res := mustRun(t, e, "'next'"); res.Value != "next" {
		t.Errorf("next: %+v", res)
	}
}

// TestIsolatedBigValue: a value past the caps comes back cut, with a note,
// and does not break the session (which takes an oversized value for a
// forged one).
func TestIsolatedBigValue(t *testing.T) {
	cases := []struct {
		budget int64
		n      int
	}{
		{0, 300000},
		// Under the engine's 1 MiB cap, over what the session takes
		// with a 16 MiB budget.
		{16 << 20, 120000},
	}
	for _, c := range cases {
		budget := c.budget
		e := newIsolatedTest(t, Options{Limits: executors.Limits{MaxMemory: budget}}, nil)
		mustRun(t, e, "1")
		pid := e.ChildPID()
		res := mustRun(t, e, fmt.Sprintf("final_answer(list(range(%d)))", c.n))
		if !res.IsFinal || len(res.Notes) == 0 || !strings.Contains(strings.Join(res.Notes, " "), "too big") && !strings.Contains(strings.Join(res.Notes, " "), "larger than") {
			t.Errorf("budget %d: final answer %.100v, notes %q", budget, res.Value, res.Notes)
		}
		if e.ChildPID() != pid {
			t.Errorf("budget %d: the child was replaced", budget)
		}
	}
}

// TestIsolatedAbandonedWorkIsKilled: work the child's engine cannot stop
// (here a Go tool inside the child that ignores cancellation) is
// abandoned by the engine at the deadline; in process it would run on
// for ever, so the host replaces the child, which ends it.
func TestIsolatedAbandonedWorkIsKilled(t *testing.T) {
	const timeout = 300 * time.Millisecond
	e := newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: timeout}}, func(x *Executor) {
		x.spec.TestTools = true
	})
	mustRun(t, e, "x = 1")
	pid := e.ChildPID()
	res, err := e.Execute(context.Background(), "block()")
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Type != "TimeoutError" || len(res.Notes) == 0 {
		t.Errorf("result: %+v, notes %q", res.Err, res.Notes)
	}
	waitGone(t, pid)
	if res := mustRun(t, e, "'fresh'"); res.Value != "fresh" {
		t.Errorf("next: %+v", res)
	}
}

// TestIsolatedStackOverflow: a Go stack overflow, which kills a process
// whatever recovers, is a RecursionError and a fresh child.
func TestIsolatedStackOverflow(t *testing.T) {
	e := newIsolatedTest(t, Options{}, func(x *Executor) { x.spec.TestTools = true })
	mustRun(t, e, "x = 1")
	pid := e.ChildPID()
	res, err := e.Execute(context.Background(), "overflow()")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v (notes %q)", res.Err, res.Notes)
	if res.Err == nil || res.Err.Type != "RecursionError" || len(res.Notes) == 0 {
		t.Errorf("result: %+v, notes %q", res.Err, res.Notes)
	}
	waitGone(t, pid)
	if res := mustRun(t, e, "'fresh'"); res.Value != "fresh" {
		t.Errorf("next: %+v", res)
	}
}

// TestIsolatedChildOutlivesStartingThread: the parent-death signal fires
// when the thread that started the child ends. A goroutine locked to its
// thread that starts the child and exits ends that thread; the child must
// survive it.
func TestIsolatedChildOutlivesStartingThread(t *testing.T) {
	e := newIsolatedTest(t, Options{}, nil)
	for started := false; !started; {
		done := make(chan bool)
		go func() {
			runtime.LockOSThread()
			if syscall.Gettid() == os.Getpid() {
				// The main thread never ends: try again on another.
				runtime.UnlockOSThread()
				done <- false
				return
			}
			// Never unlocked: the thread ends with the goroutine.
			e.Execute(context.Background(), "x = 1")
			done <- true
		}()
		started = <-done
	}
	pid := e.ChildPID()
	time.Sleep(200 * time.Millisecond)
	res := mustRun(t, e, "x + 1")
	if res.Value != int64(2) || e.ChildPID() != pid {
		t.Errorf("after the starting thread ended: %+v, child %d then %d", res, pid, e.ChildPID())
	}
}

// TestIsolatedCPULimit: RLIMIT_CPU, the last resort for a child no host
// watches, ends a child that spins past its CPU allowance.
func TestIsolatedCPULimit(t *testing.T) {
	e := newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: time.Minute, MaxOperations: 1 << 62}}, func(x *Executor) {
		x.spec.CPUPerExec = time.Second
	})
	if e.Mechanism() != "rlimit" && e.Mechanism() != "cgroup" {
		t.Skip("no CPU limit on this platform")
	}
	mustRun(t, e, "x = 1")
	// The timeout is a minute: a TimeoutError about CPU time means the
	// CPU limit stopped the loop.
	res, err := e.Execute(context.Background(), "while True:\n    pass")
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Type != "TimeoutError" || !strings.Contains(res.Err.Message, "CPU time") {
		t.Errorf("error = %+v, want a TimeoutError about CPU time", res.Err)
	}
	if res := mustRun(t, e, "'fresh'"); res.Value != "fresh" {
		t.Errorf("next: %+v", res)
	}
}

// TestIsolatedCancel: a caller that cancels gets its error at once and what
// the code printed; the next result tells the model its state is gone.
func TestIsolatedCancel(t *testing.T) {
	e := newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: time.Minute, MaxOperations: 1 << 62}}, nil)
	mustRun(t, e, "x = 1")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := e.Execute(ctx, "print('started')\nwhile True:\n    pass")
	if err == nil {
		t.Fatal("a cancelled execution returned no error")
	}
	if res.Stdout != "started\n" {
		t.Errorf("stdout = %q, want what was printed before the cancellation", res.Stdout)
	}
	res, _ = e.Execute(context.Background(), "x")
	if res.Err == nil || res.Err.Type != "NameError" || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "cancelled") {
		t.Errorf("after the cancellation: %+v, notes %q", res.Err, res.Notes)
	}
}

// TestIsolatedDeadlineAfterIdle: code that loops past its deadline in a
// child that sat idle first is stopped by the child's engine, which keeps
// the child and its state, not killed by the host. (The child has one P:
// the engine's deadline timer fires only when the runtime's monitor
// preempts the loop, and the monitor sleeps while the child is idle.)
// On a loaded machine the engine may miss its window once; three
// chances.
func TestIsolatedDeadlineAfterIdle(t *testing.T) {
	e := newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: 500 * time.Millisecond}}, nil)
	mustRun(t, e, "x = 1")
	for try := range 3 {
		pid := e.ChildPID()
		time.Sleep(300 * time.Millisecond)
		res, err := e.Execute(context.Background(), "while True:\n    pass")
		if err != nil || res.Err == nil || res.Err.Type != "TimeoutError" {
			t.Fatalf("want a TimeoutError, got %v %+v", err, res.Err)
		}
		if e.ChildPID() == pid && len(res.Notes) == 0 {
			return
		}
		t.Logf("try %d: the host killed the child: %s", try, res.Err.Message)
		mustRun(t, e, "x = 1")
	}
	t.Error("the engine never stopped the loop at its deadline itself")
}

// TestIsolatedDeepComparisonStopsAtDeadline: the child runs the same
// engine, whose comparisons of values that share their parts stop at the
// deadline: the step ends in a TimeoutError with the child and its state
// kept (before, the child's engine abandoned the work and the host
// replaced the child, losing the state).
func TestIsolatedDeepComparisonStopsAtDeadline(t *testing.T) {
	const timeout = time.Second
	const setup = "W = 256\nxs = [0] * W\nys = [0] * W\nfor _ in range(30):\n" +
		"    xs = [(xs[2*i % W], xs[(2*i+1) % W]) for i in range(W)]\n" +
		"    ys = [(ys[3*i % W], ys[(3*i+1) % W]) for i in range(W)]\n" +
		"x, y = xs[0], ys[0]\nkept = 41"
	e := newIsolatedTest(t, Options{Limits: executors.Limits{Timeout: timeout}}, nil)
	for _, code := range []string{"x == y", "x in {y: 1}", "sorted([x, y])"} {
		// A loaded machine may keep the stopped work from a CPU past the
		// grace: the child is then replaced, and the attempt tried again.
		for attempt := 1; ; attempt++ {
			mustRun(t, e, setup)
			pid := e.ChildPID()
			res, err := e.Execute(context.Background(), code)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err == nil || res.Err.Type != "TimeoutError" {
				t.Fatalf("%s: %+v, want a TimeoutError", code, res.Err)
			}
			if len(res.Notes) == 0 && e.ChildPID() == pid {
				if res := mustRun(t, e, "kept + 1"); res.Repr != "42" {
					t.Errorf("%s: the state after the step: %+v", code, res)
				}
				break
			}
			if attempt == 5 {
				t.Fatalf("%s: abandoned 5 times out of 5: %s, notes %q", code, res.Err.Message, res.Notes)
			}
			t.Logf("%s: attempt %d abandoned (a loaded machine?)", code, attempt)
		}
	}
}
