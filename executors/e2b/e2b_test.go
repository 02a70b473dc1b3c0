package e2b

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/e2b/e2bfake"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/tool"
)

var allImports = runnertest.AllImports

var needPython = runnertest.NeedPython

// newFake starts a fake and checks, when the test ends, that it left no
// process running.
func newFake(t testing.TB) *e2bfake.Server {
	t.Helper()
	needPython(t)
	f := e2bfake.New()
	t.Cleanup(func() {
		f.Close()
		waitNoProcesses(t, f)
	})
	return f
}

// waitNoProcesses waits (bounded) until the fake has reaped every process
// it started, then checks that none of them still exists.
func waitNoProcesses(t testing.TB, f *e2bfake.Server) {
	t.Helper()
	var left []int
	for range 100 {
		if left = f.Processes(); len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, pid := range left {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d of the fake sandbox is still running", pid)
		}
	}
}

func options(f *e2bfake.Server) Options {
	return Options{APIKey: f.APIKey, APIURL: f.URL, EnvdURL: f.URL, Domain: f.Domain, Imports: allImports}
}

func newExec(t testing.TB, f *e2bfake.Server, opts Options) *Executor {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

var run, ok = runnertest.Run, runnertest.OK

func TestConformance(t *testing.T) {
	f := newFake(t)
	runnertest.Conformance(t, func(t *testing.T) executors.Executor {
		return newExec(t, f, options(f))
	})
	// Every executor was closed by its subtest: no sandbox is left.
	if live := f.Live(); len(live) != 0 {
		t.Errorf("sandboxes left running: %v", live)
	}
}

func TestCreateUnauthorized(t *testing.T) {
	f := newFake(t)
	opts := options(f)
	opts.APIKey = "e2b_wrong"
	e := newExec(t, f, opts)
	_, err := e.Execute(context.Background(), "1")
	if err == nil {
		t.Fatal("no error with a wrong API key")
	}
	for _, want := range []string{"401", "Invalid API key", "E2B_API_KEY"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := f.Calls("POST /sandboxes"); n != 0 {
		t.Errorf("the fake counted %d creations without a valid key", n)
	}
}

// recordSleeps makes the control plane's backoff record its waits
// instead of sleeping.
func recordSleeps(e *Executor) *[]time.Duration {
	var mu sync.Mutex
	waits := &[]time.Duration{}
	e.api.client = e.controlClient(e.envdHTTP, func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*waits = append(*waits, d)
		mu.Unlock()
		return ctx.Err()
	})
	return waits
}

func TestCreateRateLimitedThenCreated(t *testing.T) {
	f := newFake(t)
	f.FailCreate(e2bfake.Failure{Status: 429, RetryAfter: "7", Message: "Rate limit exceeded, please try again later."})
	e := newExec(t, f, options(f))
	waits := recordSleeps(e)
	res := ok(t, e, "6 * 7")
	if res.Value != int64(42) {
		t.Errorf("value %#v", res.Value)
	}
	if n := f.Calls("POST /sandboxes"); n != 2 {
		t.Errorf("%d creation attempts, want 2", n)
	}
	if !slices.Equal(*waits, []time.Duration{7 * time.Second}) {
		t.Errorf("waits %v, want the 7s Retry-After", *waits)
	}
}

func TestCreateUnavailable(t *testing.T) {
	f := newFake(t)
	var fails []e2bfake.Failure
	for range 10 {
		fails = append(fails, e2bfake.Failure{Status: 503, Message: "no node available for the sandbox"})
	}
	f.FailCreate(fails...)
	e := newExec(t, f, options(f))
	waits := recordSleeps(e)
	_, err := e.Execute(context.Background(), "1")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"503", "no node available for the sandbox", "capacity"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := f.Calls("POST /sandboxes"); n != 4 {
		t.Errorf("%d attempts, want 4 (bounded retries)", n)
	}
	if len(*waits) != 3 {
		t.Errorf("backoff waits %v, want 3", *waits)
	}
}

// sandboxTool is a tool that acts on the fake while the code waits for it.
func sandboxTool(name string, f func()) tool.Tool {
	return runnertest.Func{S: tool.Spec{Name: name}, F: func(context.Context, map[string]any) (any, error) {
		f()
		return "done", nil
	}}
}

func currentID(e *Executor) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last.id
}

func TestStreamDropsAndReattaches(t *testing.T) {
	f := newFake(t)
	e := newExec(t, f, options(f))
	var id string
	drop := sandboxTool("drop", func() {
		f.Drop(id)
		// The runner waits for this tool's answer, so nothing is written
		// until the client is back.
		if !f.WaitAttached(id, 1, 20*time.Second) {
			t.Error("the client did not re-attach")
		}
	})
	if err := e.SetTools(context.Background(), []tool.Tool{drop}); err != nil {
		t.Fatal(err)
	}
	ok(t, e, "x = 20")
	id = currentID(e)
	res := ok(t, e, "print('before')\ndrop()\nprint('after')\nx + 22")
	if res.Value != int64(42) || res.Stdout != "before\nafter\n" {
		t.Errorf("value %#v stdout %q", res.Value, res.Stdout)
	}
	// Output after the re-attachment is whole too.
	res = ok(t, e, "print('y' * 40000)\nlen('z' * 5)")
	if res.Value != int64(5) || res.Stdout != strings.Repeat("y", 40000)+"\n" {
		t.Errorf("value %#v, %d characters printed", res.Value, len(res.Stdout))
	}
	if e.Starts() != 1 || f.Sandbox(id).Attaches != 1 {
		t.Errorf("%d sandboxes started, %d attachments", e.Starts(), f.Sandbox(id).Attaches)
	}
}

func TestSandboxExpiresMidRun(t *testing.T) {
	f := newFake(t)
	e := newExec(t, f, options(f))
	var id string
	expire := sandboxTool("expire", func() { f.Expire(id) })
	if err := e.SetTools(context.Background(), []tool.Tool{expire}); err != nil {
		t.Fatal(err)
	}
	ok(t, e, "x = 1")
	id = currentID(e)
	res := run(t, e, "expire()\nimport time\ntime.sleep(30)")
	if res.Err == nil {
		t.Fatal("no error after the sandbox expired")
	}
	for _, want := range []string{"no longer exists", "expired", "restarted", "variables defined before are gone"} {
		if !strings.Contains(res.Err.Message, want) {
			t.Errorf("message %q does not say %q", res.Err.Message, want)
		}
	}
	res = run(t, e, "x")
	if res.Err == nil || res.Err.Type != "NameError" {
		t.Errorf("x survived in a new sandbox: %+v", res)
	}
	if e.Starts() != 2 || currentID(e) == id {
		t.Errorf("%d sandboxes started", e.Starts())
	}
}

func TestRunnerKilledInSandbox(t *testing.T) {
	f := newFake(t)
	e := newExec(t, f, options(f))
	res := run(t, e, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
	if res.Err == nil || !strings.Contains(res.Err.Message, "restarted") || !strings.Contains(res.Err.Message, "signal: killed") {
		t.Fatalf("got %+v", res.Err)
	}
	ok(t, e, "1")
	if e.Starts() != 2 {
		t.Errorf("%d starts", e.Starts())
	}
}

func TestCloseDuringExecution(t *testing.T) {
	f := newFake(t)
	e, err := New(options(f))
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	if err := e.SetTools(context.Background(), []tool.Tool{sandboxTool("started", func() { close(started) })}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.Execute(context.Background(), "started()\nimport time\ntime.sleep(600)")
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("Execute ended early: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the code did not start")
	}
	id := currentID(e)
	if err := e.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Execute did not return after Close")
	}
	if !slices.Contains(f.Deleted(), id) {
		t.Errorf("the fake saw no DELETE of %s (deleted %v)", id, f.Deleted())
	}
	if live := f.Live(); len(live) != 0 {
		t.Errorf("sandboxes left: %v", live)
	}
	waitNoProcesses(t, f)
	if _, err := e.Execute(context.Background(), "1"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Execute after Close: %v", err)
	}
}

func TestLifetimeExtended(t *testing.T) {
	f := newFake(t)
	opts := options(f)
	opts.Timeout = 2 * time.Second
	e := newExec(t, f, opts)
	ok(t, e, "x = 5")
	id := currentID(e)
	// Wait past the sandbox's own lifetime: only the extensions keep it.
	for f.Calls("timeout") < 4 {
		time.Sleep(100 * time.Millisecond)
	}
	res := ok(t, e, "x")
	if res.Value != int64(5) || e.Starts() != 1 || f.Sandbox(id) == nil {
		t.Errorf("value %#v after %d starts: the sandbox was not kept alive", res.Value, e.Starts())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	n := f.Calls("timeout")
	time.Sleep(1500 * time.Millisecond)
	if f.Calls("timeout") != n {
		t.Error("the lifetime was still extended after Close")
	}
}

func TestNoSecretsInSandbox(t *testing.T) {
	f := newFake(t)
	t.Setenv("E2B_API_KEY", f.APIKey)
	t.Setenv("STAR_AGENT_TEST_SECRET", "hunter2")
	opts := options(f)
	opts.APIKey = "" // from the environment
	e := newExec(t, f, opts)
	res := ok(t, e, "import os\nsorted(os.environ)")
	for _, v := range res.Value.([]any) {
		if v == "E2B_API_KEY" || v == "STAR_AGENT_TEST_SECRET" {
			t.Errorf("%s reached the sandbox", v)
		}
	}
	opts.EnvVars = map[string]string{"GREETING": "hello"}
	e2 := newExec(t, f, opts)
	if res := ok(t, e2, "import os\nos.environ.get('GREETING')"); res.Value != "hello" {
		t.Errorf("EnvVars: %#v", res.Value)
	}
}

func TestInputSplitInOrder(t *testing.T) {
	f := newFake(t)
	e := newExec(t, f, options(f))
	e.maxInput = 997
	big := strings.Repeat("0123456789abcdef", 8000) // 128000 bytes
	if err := e.SetVariables(context.Background(), map[string]any{"big": big}); err != nil {
		t.Fatal(err)
	}
	before := f.Calls("SendInput")
	res := ok(t, e, "big[::-1] == "+`"`+reverse(big)+`"`+" and len(big)")
	if res.Value != int64(len(big)) {
		t.Errorf("value %#v", res.Value)
	}
	if n := f.Calls("SendInput") - before; n < 2*len(big)/997 {
		t.Errorf("%d SendInput calls for %d bytes in pieces of 997", n, 2*len(big))
	}
}

func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

func TestTimeoutRestarts(t *testing.T) {
	f := newFake(t)
	opts := options(f)
	opts.Limits.Timeout = 2 * time.Second
	e := newExec(t, f, opts)
	ok(t, e, "x = 1")
	id := currentID(e)
	res := run(t, e, "while True:\n    pass")
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Fatalf("got %+v", res.Err)
	}
	// The old sandbox is deleted, not left running.
	for range 100 {
		if slices.Contains(f.Deleted(), id) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !slices.Contains(f.Deleted(), id) {
		t.Errorf("the timed-out sandbox %s was not deleted", id)
	}
	ok(t, e, "2")
}

func TestURLsMustBeSecure(t *testing.T) {
	for _, u := range []string{"http://api.example.com", "http://10.0.0.1:80", "ftp://127.0.0.1", "not a url"} {
		if _, err := New(Options{APIKey: "k", APIURL: u}); err == nil {
			t.Errorf("APIURL %q was accepted", u)
		}
		if _, err := New(Options{APIKey: "k", EnvdURL: u}); err == nil {
			t.Errorf("EnvdURL %q was accepted", u)
		}
	}
	for _, u := range []string{"https://api.e2b.app", "http://127.0.0.1:1234", "http://[::1]:80", "http://localhost:9"} {
		if _, err := New(Options{APIKey: "k", APIURL: u}); err != nil {
			t.Errorf("APIURL %q: %v", u, err)
		}
	}
	t.Setenv("E2B_API_KEY", "")
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "E2B_API_KEY") {
		t.Errorf("no key: %v", err)
	}
}

func TestUnknownTemplate(t *testing.T) {
	f := newFake(t)
	opts := options(f)
	opts.Template = "no-such-template"
	e := newExec(t, f, opts)
	_, err := e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "template 'no-such-template' not found") {
		t.Errorf("got %v", err)
	}
}

func TestStreamDropsMidMessage(t *testing.T) {
	f := newFake(t)
	e := newExec(t, f, options(f))
	ok(t, e, "x = 1")
	id := currentID(e)
	f.DropAfter(id, 5000)
	res := run(t, e, "'a' * 20000")
	if res.Err == nil || !strings.Contains(res.Err.Message, "broke in the middle of a message") || !strings.Contains(res.Err.Message, "restarted") {
		t.Fatalf("got %+v", res.Err)
	}
	if res := ok(t, e, "len('a' * 20000)"); res.Value != int64(20000) || e.Starts() != 2 {
		t.Errorf("value %#v after %d starts", res.Value, e.Starts())
	}
}

func TestEventTooBig(t *testing.T) {
	f := newFake(t)
	e := newExec(t, f, options(f))
	var id string
	flood := sandboxTool("flood", func() { f.Publish(id, make([]byte, maxEvent+1)) })
	if err := e.SetTools(context.Background(), []tool.Tool{flood}); err != nil {
		t.Fatal(err)
	}
	ok(t, e, "x = 1")
	id = currentID(e)
	res := run(t, e, "flood()")
	if res.Err == nil || !strings.Contains(res.Err.Message, "an output event bigger than 1048576 bytes") {
		t.Fatalf("got %+v", res.Err)
	}
	ok(t, e, "1")
}

func TestForgedProtocolFromSandbox(t *testing.T) {
	f := newFake(t)
	e := newExec(t, f, options(f))
	var id string
	forge := sandboxTool("forge", func() {
		f.Publish(id, []byte(`{"op":"result","id":99,"stdout":"","value":1,"repr":"1","final":true,"error":null}`+"\n"))
	})
	if err := e.SetTools(context.Background(), []tool.Tool{forge}); err != nil {
		t.Fatal(err)
	}
	ok(t, e, "x = 1")
	id = currentID(e)
	res := run(t, e, "forge()")
	if res.Err == nil || res.IsFinal || !strings.Contains(res.Err.Message, "breaks the runner protocol") {
		t.Fatalf("a forged result was believed: %+v", res)
	}
}

// TestCloseWhenDeleteFails: Close waits a bounded time, retries, and names
// the sandbox E2B did not confirm; a transient failure is retried away.
func TestCloseWhenDeleteFails(t *testing.T) {
	f := newFake(t)
	e, err := New(options(f))
	if err != nil {
		t.Fatal(err)
	}
	recordSleeps(e)
	ok(t, e, "1")
	id := currentID(e)
	var fails []e2bfake.Failure
	for range 10 {
		fails = append(fails, e2bfake.Failure{Status: 500, Message: "internal error"})
	}
	f.FailDelete(fails...)
	err = e.Close()
	if err == nil || !strings.Contains(err.Error(), id) {
		t.Errorf("Close: %v, want an error naming %s", err, id)
	}
	if n := f.Calls("DELETE"); n != 4 {
		t.Errorf("%d DELETE attempts, want 4", n)
	}

	f2 := newFake(t)
	e2 := newExec(t, f2, options(f2))
	recordSleeps(e2)
	ok(t, e2, "1")
	f2.FailDelete(e2bfake.Failure{Status: 503, Message: "try again"})
	if err := e2.Close(); err != nil {
		t.Errorf("Close after one 503: %v", err)
	}
	if len(f2.Live()) != 0 || f2.Calls("DELETE") != 2 {
		t.Errorf("live %v after %d DELETEs", f2.Live(), f2.Calls("DELETE"))
	}
}

// TestSilentStreamReattaches: a stream on which nothing arrives, not even
// envd's keepalives, is taken for dead and re-attached.
func TestSilentStreamReattaches(t *testing.T) {
	f := newFake(t)
	f.Keepalive = 0 // envd's interval, as the client asks for it
	e := newExec(t, f, options(f))
	e.keepaliveInterval, e.idleTimeout = time.Second, 3*time.Second
	var id string
	stall := sandboxTool("stall", func() {
		f.Stall(id)
		if !f.WaitAttached(id, 1, 30*time.Second) {
			t.Error("the client did not re-attach")
		}
	})
	if err := e.SetTools(context.Background(), []tool.Tool{stall}); err != nil {
		t.Fatal(err)
	}
	ok(t, e, "x = 1")
	id = currentID(e)
	// Idle for several keepalive intervals: keepalives keep the stream.
	time.Sleep(4 * time.Second)
	if n := f.Sandbox(id).Attaches; n != 0 {
		t.Fatalf("%d re-attachments while keepalives arrived", n)
	}
	res := ok(t, e, "stall()\nx + 41")
	if res.Value != int64(42) || e.Starts() != 1 {
		t.Errorf("value %#v after %d starts", res.Value, e.Starts())
	}
}

func TestStartTimesOut(t *testing.T) {
	defer func(d time.Duration) { startTimeout = d }(startTimeout)
	startTimeout = time.Second
	f := newFake(t)
	f.CreateDelay = time.Minute
	e := newExec(t, f, options(f))
	_, err := e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "E2B did not create a sandbox in time") {
		t.Errorf("got %v", err)
	}
	if n := f.Calls("POST /sandboxes"); n != 0 {
		t.Errorf("a creation was answered: %d", n)
	}
}

func TestCreateConnectionReset(t *testing.T) {
	f := newFake(t)
	f.FailCreate(e2bfake.Failure{Status: 0})
	e := newExec(t, f, options(f))
	recordSleeps(e)
	if res := ok(t, e, "1 + 1"); res.Value != int64(2) {
		t.Errorf("value %#v", res.Value)
	}
	if n := f.Calls("POST /sandboxes"); n != 2 {
		t.Errorf("%d creation attempts, want 2", n)
	}
}

// TestInputRefusedOrLost: input the edge refused (503) is sent again and
// the execution goes on; input whose answer was lost in transit is never
// sent twice: the sandbox is replaced and the model told.
func TestInputRefusedOrLost(t *testing.T) {
	f := newFake(t)
	e := newExec(t, f, options(f))
	ok(t, e, "x = 1")
	f.FailEnvd("SendInput", e2bfake.Failure{Status: 503, Message: "sandbox unreachable, try again"})
	before := f.Calls("SendInput")
	if res := ok(t, e, "x + 1"); res.Value != int64(2) {
		t.Errorf("value %#v", res.Value)
	}
	if n := f.Calls("SendInput") - before; n != 2 {
		t.Errorf("%d SendInput calls, want 2 (one refused, one sent again)", n)
	}

	for _, deliver := range []bool{false, true} {
		f.FailEnvd("SendInput", e2bfake.Failure{Status: 0, Deliver: deliver})
		before := f.Calls("SendInput")
		starts := e.Starts()
		res := run(t, e, "x + 2")
		if n := f.Calls("SendInput") - before; n != 1 {
			t.Errorf("deliver %v: %d SendInput calls, want 1: input lost in transit must not be sent again", deliver, n)
		}
		if res.Err == nil || !strings.Contains(res.Err.Message, "send input") || !strings.Contains(res.Err.Message, "restarted") {
			t.Errorf("deliver %v: got %+v", deliver, res)
		}
		if res := run(t, e, "1"); res.Err != nil || e.Starts() != starts+1 {
			t.Errorf("deliver %v: next action %+v after %d starts", deliver, res.Err, e.Starts())
		}
	}
}

// TestTemplateWithoutPython: a start that fails says why and what the
// template needs, and the sandbox created for it is deleted.
func TestTemplateWithoutPython(t *testing.T) {
	f := newFake(t)
	f.PATH = t.TempDir()
	f.DeleteDelay = 500 * time.Millisecond
	e := newExec(t, f, options(f))
	_, err := e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "the template must have python3 on its PATH") || !strings.Contains(err.Error(), "executable file not found") {
		t.Fatalf("got %v", err)
	}
	// Close waits for the deletion of a sandbox whose start failed.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if live := f.Live(); len(live) != 0 || len(f.Deleted()) != 1 {
		t.Errorf("live %v, deleted %v", live, f.Deleted())
	}
}
