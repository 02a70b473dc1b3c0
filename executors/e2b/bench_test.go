package e2b

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// BenchmarkTransportRoundTrip is the fake's raw round trip: one SendInput
// to a python3 that echoes lines, and the line back as a data event on the
// Start stream. The executor's overhead is BenchmarkExecuteTrivial minus
// this.
func BenchmarkTransportRoundTrip(b *testing.B) {
	f := newFake(b)
	ctx := context.Background()
	a := newAPI(f.URL, f.APIKey, http.DefaultClient)
	info, err := a.create(ctx, createRequest{TemplateID: "base", Timeout: 600, Secure: true})
	if err != nil {
		b.Fatal(err)
	}
	defer a.kill(ctx, info.SandboxID)
	ev := newEnvd(f.URL, "49983-"+info.SandboxID+"."+f.Domain, info.EnvdAccessToken, http.DefaultClient)
	st, err := ev.startProcess(ctx, processConfig{Cmd: "python3", Args: []string{"-u", "-c", "import sys\nfor l in sys.stdin: sys.stdout.write(l)"}})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if !st.Receive() || st.Msg().Event.Start == nil {
		b.Fatal("no start event", st.Err())
	}
	pid := st.Msg().Event.Start.Pid
	line := []byte(`{"op":"exec","id":1,"code":"1"}` + "\n")
	b.ResetTimer()
	for range b.N {
		if err := ev.input(ctx, pid, line); err != nil {
			b.Fatal(err)
		}
		got := 0
		for got < len(line) && st.Receive() {
			if d := st.Msg().Event.Data; d != nil {
				got += len(d.Stdout)
			}
		}
		if got != len(line) {
			b.Fatal("echo lost", st.Err())
		}
	}
}

// BenchmarkExecuteTrivial is one Execute of "1" through the whole
// executor (runner.Host, Session, SendInput, the stream, the runner).
func BenchmarkExecuteTrivial(b *testing.B) {
	f := newFake(b)
	e := newExec(b, f, options(f))
	runnertest.BenchmarkExecute(b, e)
}

// BenchmarkExecuteTrivialChildFake is BenchmarkExecuteTrivial with the
// fake in another process, as a real service would be.
func BenchmarkExecuteTrivialChildFake(b *testing.B) {
	e, err := New(childFake(b))
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	runnertest.BenchmarkExecute(b, e)
}

// BenchmarkStart is creating a sandbox and the runner's handshake against
// the fake (a local python3 start: E2B's own start latency is not in it).
func BenchmarkStart(b *testing.B) {
	f := newFake(b)
	runnertest.BenchmarkStart(b, func() (io.Closer, error) { return start(options(f)) })
}

// BenchmarkMemoryPerSandbox reports the Go heap and goroutines one live
// sandbox client holds; the fake (and its python3) runs in a child process
// and is not counted.
func BenchmarkMemoryPerSandbox(b *testing.B) {
	opts := childFake(b)
	runnertest.BenchmarkMemoryPerSandbox(b, 8, func() (io.Closer, error) { return start(opts) })
}

// BenchmarkRunnerLocalPipes is the runner's own cost for "1" over plain
// pipes to a local python3, with no E2B in between: of
// BenchmarkExecuteTrivial, this part is Python's and the rest is the
// transport and the executor.
func BenchmarkRunnerLocalPipes(b *testing.B) { runnertest.BenchmarkRunnerLocalPipes(b) }

// start makes an executor and starts its sandbox.
func start(opts Options) (io.Closer, error) {
	e, err := New(opts)
	if err != nil {
		return nil, err
	}
	return e, e.Start(context.Background())
}
