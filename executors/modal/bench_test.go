package modal

import (
	"context"
	"io"
	"os/exec"
	"testing"

	modalsdk "github.com/modal-labs/modal-client/go"

	"github.com/star-agent/star-agent/executors/modal/modalfake"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// BenchmarkTransportRoundTrip is the raw round trip through the SDK and
// the fake: one Stdin write (SandboxStdinWrite) to a python3 that echoes
// lines, and the line back through Stdout (SandboxGetLogs). The executor's
// overhead is BenchmarkExecuteTrivial minus this (and minus the runner's
// own work, BenchmarkRunnerLocalPipes minus BenchmarkEchoLocalPipes).
func BenchmarkTransportRoundTrip(b *testing.B) {
	f := newFake(b)
	benchTransport(b, f)
}

// BenchmarkTransportRoundTripV2 is BenchmarkTransportRoundTrip on the V2
// backend (stdio through the command router).
func BenchmarkTransportRoundTripV2(b *testing.B) {
	b.Setenv("MODAL_SANDBOX_V2", "1")
	f := newFake(b)
	benchTransport(b, f)
}

func benchTransport(b *testing.B, f *modalfake.Server) {
	ctx := context.Background()
	c, err := modalsdk.NewClientWithOptions(&modalsdk.ClientParams{TokenID: f.TokenID, TokenSecret: f.TokenSecret})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	app, err := c.Apps.FromName(ctx, "bench", &modalsdk.AppFromNameParams{CreateIfMissing: true})
	if err != nil {
		b.Fatal(err)
	}
	sb, err := c.Sandboxes.Create(ctx, app, c.Images.FromRegistry(DefaultImage, nil), &modalsdk.SandboxCreateParams{
		Command: []string{"python3", "-u", "-c", "import sys\nfor l in sys.stdin: sys.stdout.write(l)"},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Terminate(ctx, nil)
	line := []byte(`{"op":"exec","id":1,"code":"1"}` + "\n")
	buf := make([]byte, len(line))
	b.ResetTimer()
	for range b.N {
		if _, err := sb.Stdin.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(sb.Stdout, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecuteTrivial is one Execute of "1" through the whole
// executor (runner.Host, Session, the SDK, the fake, the runner).
func BenchmarkExecuteTrivial(b *testing.B) {
	f := newFake(b)
	e := newExec(b, options(f))
	runnertest.BenchmarkExecute(b, e)
}

// BenchmarkExecuteTrivialV2 is BenchmarkExecuteTrivial on the V2 backend.
func BenchmarkExecuteTrivialV2(b *testing.B) {
	b.Setenv("MODAL_SANDBOX_V2", "1")
	f := newFake(b)
	e := newExec(b, options(f))
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
// the fake (a local python3 start: Modal's own start latency is not in it).
func BenchmarkStart(b *testing.B) {
	f := newFake(b)
	runnertest.BenchmarkStart(b, func() (io.Closer, error) { return start(options(f)) })
}

// BenchmarkMemoryPerSandbox reports the Go heap and goroutines one live
// sandbox client holds (an executor with its SDK client, connection and
// streams); the fake and its python3 run in a child process and are not
// counted.
func BenchmarkMemoryPerSandbox(b *testing.B) {
	benchMemory(b)
}

// BenchmarkMemoryPerSandboxV2 is BenchmarkMemoryPerSandbox on the V2
// backend (each sandbox has a connection to its command router too).
func BenchmarkMemoryPerSandboxV2(b *testing.B) {
	b.Setenv("MODAL_SANDBOX_V2", "1")
	benchMemory(b)
}

func benchMemory(b *testing.B) {
	opts := childFake(b)
	runnertest.BenchmarkMemoryPerSandbox(b, 8, func() (io.Closer, error) { return start(opts) })
}

// BenchmarkRunnerLocalPipes is the runner's own cost for "1" over plain
// pipes to a local python3, with no Modal in between.
func BenchmarkRunnerLocalPipes(b *testing.B) { runnertest.BenchmarkRunnerLocalPipes(b) }

// BenchmarkEchoLocalPipes is the echo of BenchmarkTransportRoundTrip over
// plain pipes, with no Modal in between.
func BenchmarkEchoLocalPipes(b *testing.B) {
	needPython(b)
	cmd := exec.Command("python3", "-u", "-c", "import sys\nfor l in sys.stdin: sys.stdout.write(l)")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	line := []byte(`{"op":"exec","id":1,"code":"1"}` + "\n")
	buf := make([]byte, len(line))
	b.ResetTimer()
	for range b.N {
		if _, err := in.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(out, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// start makes an executor and starts its sandbox.
func start(opts Options) (io.Closer, error) {
	e, err := New(opts)
	if err != nil {
		return nil, err
	}
	return e, e.Start(context.Background())
}
