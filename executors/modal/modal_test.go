package modal

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/internal/leaktest"
	"github.com/star-agent/star-agent/tool"
)

func TestConformance(t *testing.T) {
	f := newFake(t)
	runnertest.Conformance(t, func(t *testing.T) executors.Executor {
		return newExec(t, options(f))
	})
}

// TestFirstRun follows one sandbox from creation to Close: the calls the
// SDK makes, what the sandbox was asked for, and its termination.
func TestFirstRun(t *testing.T) {
	f := newFake(t)
	opts := options(f)
	opts.CPU = 0.5
	e := newExec(t, opts)
	if got := f.Count(method("SandboxCreate")); got != 0 {
		t.Fatalf("a sandbox was created before any code ran (%d)", got)
	}
	res := ok(t, e, "print('hé'); 6 * 7")
	if res.Stdout != "hé\n" || res.Value != int64(42) || res.Engine != Engine {
		t.Fatalf("result %+v", res)
	}
	sbs := f.Sandboxes()
	if len(sbs) != 1 {
		t.Fatalf("%d sandboxes, want 1", len(sbs))
	}
	def := sbs[0].Definition
	if sbs[0].Image != DefaultImage {
		t.Errorf("image %q, want %s", sbs[0].Image, DefaultImage)
	}
	if got := def.GetEntrypointArgs(); len(got) != 5 || got[0] != "python3" || got[1] != "-I" || got[3] != "-c" {
		t.Errorf("entrypoint %q", got[:min(len(got), 4)])
	}
	if def.GetNetworkAccess().GetNetworkAccessType().String() != "BLOCKED" {
		t.Errorf("network access %v, want BLOCKED", def.GetNetworkAccess().GetNetworkAccessType())
	}
	if def.GetTimeoutSecs() != uint32(DefaultTimeout/time.Second) || def.GetIdleTimeoutSecs() != uint32(DefaultIdleTimeout/time.Second) {
		t.Errorf("timeout %d s, idle timeout %d s", def.GetTimeoutSecs(), def.GetIdleTimeoutSecs())
	}
	if r := def.GetResources(); r.GetMilliCpu() != 500 || r.GetMemoryMb() != 256 || r.GetMemoryMbMax() != 256 {
		t.Errorf("resources: %d millicpu, %d MiB (max %d)", r.GetMilliCpu(), r.GetMemoryMb(), r.GetMemoryMbMax())
	}
	if len(def.GetSecretIds()) != 0 {
		t.Errorf("secrets sent into the sandbox: %v", def.GetSecretIds())
	}
	calls := f.Calls()
	want := []string{"AuthTokenGet", "AppGetOrCreate", "EnvironmentGetOrCreate", "ImageGetOrCreate", "ImageJoinStreaming", "SandboxCreate", "SandboxGetTaskId"}
	if v2() {
		want = []string{"AuthTokenGet", "AppGetOrCreate", "EnvironmentGetOrCreate", "ImageGetOrCreate", "ImageJoinStreaming", "SandboxCreateV2"}
	}
	if len(calls) < len(want) || !slices.Equal(calls[:len(want)], want) {
		t.Errorf("calls %v, want them to start %v", calls, want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := f.Terminated(); len(got) != 1 || got[0] != sbs[0].ID {
		t.Errorf("terminated %v, want %s", got, sbs[0].ID)
	}
	if !sbs[0].Finished() {
		t.Error("the sandbox still runs after Close")
	}
	if got := f.Rejected(); len(got) != 0 {
		t.Errorf("the fake rejected stdin writes: %v", got)
	}
}

func TestNoCredentials(t *testing.T) {
	_, err := New(Options{})
	if err == nil || !strings.Contains(err.Error(), "no credentials: set MODAL_TOKEN_ID and MODAL_TOKEN_SECRET") {
		t.Fatalf("New without credentials: %v", err)
	}
}

func TestCreateUnauthenticated(t *testing.T) {
	f := newFake(t)
	opts := options(f)
	opts.TokenSecret = "as-wrong"
	e := newExec(t, opts)
	_, err := e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "Modal refused the credentials") || !strings.Contains(err.Error(), "Token ID or secret is invalid") {
		t.Fatalf("err %v", err)
	}
	if n := f.Count(method("SandboxCreate")); n != 0 {
		t.Errorf("%d creates with wrong credentials", n)
	}
}

func TestCreateExhaustedThenCreated(t *testing.T) {
	f := newFake(t)
	f.FailCreate(status.Error(codes.ResourceExhausted, "sandbox creation rate limit exceeded"), status.Error(codes.ResourceExhausted, "sandbox creation rate limit exceeded"))
	e := newExec(t, options(f))
	res := ok(t, e, "1 + 1")
	if res.Value != int64(2) {
		t.Fatalf("value %v", res.Value)
	}
	if n := f.Count(method("SandboxCreate")); n != 3 {
		t.Errorf("%d SandboxCreate calls, want 3", n)
	}
}

func TestCreateExhausted(t *testing.T) {
	f := newFake(t)
	for range 100 {
		f.FailCreate(status.Error(codes.ResourceExhausted, "workspace sandbox limit reached"))
	}
	e := newExec(t, options(f))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := e.Execute(ctx, "1")
	if err == nil || !strings.Contains(err.Error(), "RESOURCE_EXHAUSTED: workspace sandbox limit reached") {
		t.Fatalf("err %v", err)
	}
	if n := f.Count(method("SandboxCreate")); n < 2 {
		t.Errorf("%d SandboxCreate calls, want retries", n)
	}
}

func TestCreateUnavailable(t *testing.T) {
	f := newFake(t)
	for range 10 {
		f.FailCreate(status.Error(codes.Unavailable, "no healthy upstream"))
	}
	e := newExec(t, options(f))
	_, err := e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "Modal could not be reached or failed, even after retries (Unavailable: no healthy upstream)") {
		t.Fatalf("err %v", err)
	}
	// The SDK retries UNAVAILABLE three times; this package adds none.
	if n := f.Count(method("SandboxCreate")); n != 4 {
		t.Errorf("%d SandboxCreate calls, want 4 (the SDK's retries only)", n)
	}
}

func TestUnavailableThenCreated(t *testing.T) {
	f := newFake(t)
	f.FailCreate(status.Error(codes.Unavailable, "no healthy upstream"), status.Error(codes.Unavailable, "no healthy upstream"))
	e := newExec(t, options(f))
	if res := ok(t, e, "3"); res.Value != int64(3) {
		t.Fatalf("value %v", res.Value)
	}
	if n := f.Count(method("SandboxCreate")); n != 3 {
		t.Errorf("%d SandboxCreate calls, want 3", n)
	}
}

// TestLogStreamDropsAndResumes drops the stdout stream twice in the middle
// of an execution's output; the SDK reopens it from the last entry id, and
// nothing is lost or repeated.
func TestLogStreamDropsAndResumes(t *testing.T) {
	f := newFake(t)
	f.MaxChunk = 16
	e := newExec(t, options(f))
	ok(t, e, "x = 1")
	f.DropLogStreams(2)
	res := ok(t, e, "for i in range(300): print(i, 'é' * 3)\nx + 1")
	var want strings.Builder
	for i := range 300 {
		want.WriteString(strconv.Itoa(i) + " ééé\n")
	}
	if res.Stdout != want.String() || res.Value != int64(2) {
		t.Fatalf("stdout %d bytes (want %d), value %v", len(res.Stdout), want.Len(), res.Value)
	}
	resumes := f.Resumes()
	if len(resumes) < 2 {
		t.Fatalf("resumed %v, want two reopened streams", resumes)
	}
	for _, r := range resumes {
		if r == "0-0" || r == "" || r == "offset 0" {
			t.Errorf("a stream was reopened from the start (%q), not from its last entry", r)
		}
	}
}

// TestLogStreamTimesOut makes Modal end every log stream quickly, as it
// does after 55 s: the stream is reopened and the session goes on.
func TestLogStreamTimesOut(t *testing.T) {
	f := newFake(t)
	f.LogStreamTimeout = 50 * time.Millisecond
	e := newExec(t, options(f))
	ok(t, e, "import time; time.sleep(0.3); y = 5")
	if res := ok(t, e, "y"); res.Value != int64(5) {
		t.Fatalf("value %v", res.Value)
	}
	if len(f.Resumes()) < 2 {
		t.Errorf("resumes %v, want the stream reopened", f.Resumes())
	}
}

func TestSandboxExpiresMidRun(t *testing.T) {
	f := newFake(t)
	e := newExec(t, options(f))
	ok(t, e, "x = 1")
	id := f.Sandboxes()[0].ID
	done := make(chan executors.Result, 1)
	go func() { done <- run(t, e, "import time\ntime.sleep(30)") }()
	time.Sleep(300 * time.Millisecond)
	f.Expire(id)
	var res executors.Result
	select {
	case res = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the execution did not end when its sandbox expired")
	}
	if res.Err == nil || !strings.Contains(res.Err.Message, "reached the end of its lifetime") || !strings.Contains(res.Err.Message, "variables defined before are gone") {
		t.Fatalf("result error %v", res.Err)
	}
	res = run(t, e, "x")
	if res.Err == nil || res.Err.Type != "NameError" {
		t.Errorf("x after the restart: %+v", res)
	}
	if res := ok(t, e, "2 + 2"); res.Value != int64(4) {
		t.Errorf("value %v", res.Value)
	}
	if n := len(f.Sandboxes()); n != 2 {
		t.Errorf("%d sandboxes, want 2", n)
	}
}

func TestSandboxExpiredBetweenActions(t *testing.T) {
	f := newFake(t)
	e := newExec(t, options(f))
	ok(t, e, "x = 1")
	f.Expire(f.Sandboxes()[0].ID)
	res := run(t, e, "x")
	// Either the end is seen before the step, which then runs in a fresh
	// sandbox with a note (x is gone: NameError), or during it, which
	// then fails saying so. Both tell the model what was lost.
	noted := false
	for _, n := range res.Notes {
		noted = noted || strings.Contains(n, "variables, functions and imports defined before are gone")
	}
	switch {
	case res.Err != nil && strings.Contains(res.Err.Message, "variables defined before are gone"):
	case noted && res.Err != nil && res.Err.Type == "NameError":
	default:
		t.Fatalf("result %+v", res)
	}
	if res := ok(t, e, "2"); res.Value != int64(2) {
		t.Errorf("value %v", res.Value)
	}
}

func TestCloseDuringExecution(t *testing.T) {
	f := newFake(t)
	e, err := New(options(f))
	if err != nil {
		t.Fatal(err)
	}
	ok(t, e, "1")
	errc := make(chan error, 1)
	go func() {
		_, err := e.Execute(context.Background(), "import time\ntime.sleep(60)")
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- e.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Close did not return while an execution ran")
	}
	select {
	case <-errc:
	case <-time.After(30 * time.Second): // only a hang, not a slow machine
		t.Fatal("the execution did not end at Close")
	}
	sbs := f.Sandboxes()
	if len(sbs) != 1 || !slices.Contains(f.Terminated(), sbs[0].ID) {
		t.Fatalf("terminated %v of %d sandboxes", f.Terminated(), len(sbs))
	}
	// Terminate kills the process; it is reaped a moment later.
	for i := 0; len(f.Running()) != 0 && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if len(f.Running()) != 0 {
		t.Errorf("still running: %v", f.Running())
	}
	if _, err := e.Execute(context.Background(), "1"); err == nil {
		t.Error("Execute after Close succeeded")
	}
}

func TestCancelTerminates(t *testing.T) {
	f := newFake(t)
	e := newExec(t, options(f))
	ok(t, e, "1")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := e.Execute(ctx, "import time\ntime.sleep(60)"); err == nil {
		t.Fatal("a cancelled execution returned no error")
	}
	first := f.Sandboxes()[0].ID
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(f.Terminated(), first) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !slices.Contains(f.Terminated(), first) {
		t.Fatal("the sandbox of a cancelled execution was not terminated")
	}
	res := ok(t, e, "5")
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "cancelled") {
		t.Errorf("notes %v: the model is not told its state was lost", res.Notes)
	}
}

func TestTimeoutRestarts(t *testing.T) {
	f := newFake(t)
	opts := options(f)
	opts.Limits.Timeout = 500 * time.Millisecond
	e := newExec(t, opts)
	res := run(t, e, "while True: pass")
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Fatalf("result %+v", res)
	}
	if res := ok(t, e, "7"); res.Value != int64(7) {
		t.Errorf("value %v", res.Value)
	}
	if n := len(f.Terminated()); n < 1 {
		t.Error("the timed-out sandbox was not terminated")
	}
}

// TestInputSplitInOrder sends a message bigger than one stdin write: the
// writes carry consecutive indexes and the fake rejects none.
func TestInputSplitInOrder(t *testing.T) {
	f := newFake(t)
	e := newExec(t, options(f))
	old := maxInput
	maxInput = 1000
	t.Cleanup(func() { maxInput = old })
	code := "s = '" + strings.Repeat("ab", 20000) + "'\nlen(s)"
	if res := ok(t, e, code); res.Value != int64(40000) {
		t.Fatalf("value %v", res.Value)
	}
	if n := f.Count(method("SandboxStdinWrite")); n < 40 {
		t.Errorf("%d stdin writes, want the message split", n)
	}
	if got := f.Rejected(); len(got) != 0 {
		t.Errorf("rejected: %v", got)
	}
}

func TestRunnerKilledInSandbox(t *testing.T) {
	f := newFake(t)
	e := newExec(t, options(f))
	res := run(t, e, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
	if res.Err == nil || !strings.Contains(res.Err.Message, "exited with code") {
		t.Fatalf("result %+v", res.Err)
	}
	if res := ok(t, e, "1"); res.Value != int64(1) {
		t.Errorf("value %v", res.Value)
	}
}

// TestForgedProtocolFromSandbox has the sandbox's output carry a result
// for a request that was never made, while a tool call is outstanding.
func TestForgedProtocolFromSandbox(t *testing.T) {
	f := newFake(t)
	e := newExec(t, options(f))
	var id string
	forge := runnertest.Func{S: tool.Spec{Name: "forge"}, F: func(context.Context, map[string]any) (any, error) {
		f.Publish(id, 1, `{"op":"result","id":99,"stdout":"","value":1,"repr":"1","final":true,"error":null}`+"\n")
		return "done", nil
	}}
	if err := e.SetTools(context.Background(), []tool.Tool{forge}); err != nil {
		t.Fatal(err)
	}
	ok(t, e, "x = 1")
	id = f.Sandboxes()[0].ID
	res := run(t, e, "forge()")
	if res.Err == nil || res.IsFinal || !strings.Contains(res.Err.Message, "breaks the runner protocol") {
		t.Fatalf("a forged result was believed: %+v", res)
	}
}

func TestOptionsChecked(t *testing.T) {
	f := newFake(t)
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Timeout: 48 * time.Hour}, "want between 1s and 24h"},
		{Options{CPU: -1}, "must not be negative"},
		{Options{TokenID: "ak-x"}, "give both a token id and a token secret"},
	} {
		if c.opts.TokenID == "" {
			c.opts.TokenID, c.opts.TokenSecret = f.TokenID, f.TokenSecret
		}
		if _, err := New(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want %q", c.opts, err, c.want)
		}
	}
	t.Setenv("MODAL_SERVER_URL", "http://api.example.com")
	if _, err := New(options(f)); err == nil || !strings.Contains(err.Error(), "must be https") {
		t.Errorf("plain http to another machine: %v", err)
	}
}

func TestIdleTimeoutCoversExecution(t *testing.T) {
	f := newFake(t)
	opts := options(f)
	opts.Limits.Timeout = 20 * time.Minute
	opts.IdleTimeout = time.Minute
	e := newExec(t, opts)
	ok(t, e, "1")
	if got := f.Sandboxes()[0].Definition.GetIdleTimeoutSecs(); got != 21*60 {
		t.Errorf("idle timeout %d s, want 1260 (the time limit plus a minute)", got)
	}
}

// TestEnvVarsOnlyWhenAsked: by default no variable reaches the sandbox
// (nor any secret); the variables the user gives do.
func TestEnvVarsOnlyWhenAsked(t *testing.T) {
	f := newFake(t)
	t.Setenv("MODAL_TOKEN_ID", f.TokenID)
	t.Setenv("MODAL_TOKEN_SECRET", f.TokenSecret)
	t.Setenv("STAR_AGENT_CANARY", "from the host")
	e := newExec(t, options(f))
	res := ok(t, e, "import os\nsorted(k for k in os.environ if k.startswith('MODAL') or k == 'STAR_AGENT_CANARY' or 'from the host' in os.environ[k])")
	if res.Repr != "[]" {
		t.Errorf("host variables in the sandbox: %s", res.Repr)
	}
	if len(f.Sandboxes()[0].Definition.GetSecretIds()) != 0 {
		t.Error("the sandbox was given secrets")
	}
	if n := f.Count("SecretGetOrCreate"); n != 0 {
		t.Errorf("%d secrets created", n)
	}
	opts := options(f)
	opts.EnvVars = map[string]string{"GREETING": "hi"}
	e2 := newExec(t, opts)
	if res := ok(t, e2, "import os\nos.environ.get('GREETING'), 'MODAL_TOKEN_SECRET' in os.environ"); res.Repr != "('hi', False)" {
		t.Errorf("asked-for variables: %s", res.Repr)
	}
}

func TestImageWithoutPython(t *testing.T) {
	f := newFake(t)
	f.ImagePath["alpine:3.20"] = t.TempDir()
	opts := options(f)
	opts.Image = "alpine:3.20"
	e := newExec(t, opts)
	_, err := e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "the image alpine:3.20 must have python3 on its PATH") {
		t.Fatalf("err %v", err)
	}
}

// TestStdinUnanswered: Modal stops answering stdin writes (the SDK's have
// no deadline); the write is abandoned after inputTimeout, the sandbox
// replaced, and the model told.
func TestStdinUnanswered(t *testing.T) {
	f := newFake(t)
	e := newExec(t, options(f))
	ok(t, e, "x = 1")
	old := inputTimeout
	inputTimeout = 300 * time.Millisecond
	t.Cleanup(func() { inputTimeout = old })
	f.StallStdin(true)
	res := run(t, e, "x")
	if res.Err == nil || !strings.Contains(res.Err.Message, "did not answer a write to the sandbox's stdin") || !strings.Contains(res.Err.Message, "variables defined before are gone") {
		t.Fatalf("result %+v", res.Err)
	}
	f.StallStdin(false)
	if res := ok(t, e, "3"); res.Value != int64(3) {
		t.Errorf("value %v", res.Value)
	}
}

// TestStderrFlood: a runner that floods stderr and dies is reported with
// the end of its stderr only.
func TestStderrFlood(t *testing.T) {
	f := newFake(t)
	f.MaxChunk = 32 << 10 // the size of the flood is the point, not its cutting
	e := newExec(t, options(f))
	res := run(t, e, "import os\nos.write(2, b'x' * 2000000 + b'THE END')\nos._exit(3)")
	if res.Err == nil || !strings.Contains(res.Err.Message, "exited with code 3") || !strings.Contains(res.Err.Message, "THE END") {
		t.Fatalf("result %.300v", res.Err)
	}
	if n := len(res.Err.Message); n > 6000 {
		t.Errorf("error message of %d bytes", n)
	}
}

// TestNothingLeftAfterClose: once Close returns and the connections have
// wound down, the executor has left no goroutine behind (the SDK's
// streams, the stdin writers, the command router connection on V2).
func TestNothingLeftAfterClose(t *testing.T) {
	f := newFake(t)
	goroutines := leaktest.Take("github.com/star-agent/star-agent/", "github.com/modal-labs/", "google.golang.org/grpc")
	e, err := New(options(f))
	if err != nil {
		t.Fatal(err)
	}
	ok(t, e, "x = 1")
	ok(t, e, "print(x)")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	goroutines.Check(t)
}

// TestCloseWhenTerminateFails: Modal keeps refusing to terminate; Close
// does not hang, and its error names the sandbox left to its idle timeout.
func TestCloseWhenTerminateFails(t *testing.T) {
	f := newFake(t)
	e, err := New(options(f))
	if err != nil {
		t.Fatal(err)
	}
	ok(t, e, "1")
	id := f.Sandboxes()[0].ID
	f.FailTerminate(status.Error(codes.PermissionDenied, "no"), status.Error(codes.PermissionDenied, "no"))
	err = e.Close()
	if err == nil || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "did not end") {
		t.Fatalf("Close: %v", err)
	}
	if slices.Contains(f.Terminated(), id) {
		t.Error("the fake says it terminated the sandbox")
	}
}
