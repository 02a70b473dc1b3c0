package runnertest

import (
	"context"
	"io"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner"
)

// TypicalAction is a 31-line action of the kind a model writes (data,
// a function, a loop, formatting, a result), for the executors' benchmarks.
const TypicalAction = `orders = [
    {"id": 1, "customer": "acme", "total": 120.5, "items": 3},
    {"id": 2, "customer": "globex", "total": 75.0, "items": 1},
    {"id": 3, "customer": "acme", "total": 42.25, "items": 2},
    {"id": 4, "customer": "initech", "total": 310.0, "items": 7},
    {"id": 5, "customer": "globex", "total": 18.75, "items": 1},
]

def summarize(rows):
    by_customer = {}
    for row in rows:
        name = row["customer"]
        entry = by_customer.get(name, {"total": 0.0, "items": 0, "orders": 0})
        entry["total"] += row["total"]
        entry["items"] += row["items"]
        entry["orders"] += 1
        by_customer[name] = entry
    return by_customer

summary = summarize(orders)
ranking = sorted(summary.items(), key=lambda kv: kv[1]["total"], reverse=True)
lines = []
for name, entry in ranking:
    average = entry["total"] / entry["orders"]
    lines.append("%s: %d orders, %.2f total, %.2f average" % (name, entry["orders"], entry["total"], average))
report = "\n".join(lines)
top = ranking[0][0]
big_orders = [o["id"] for o in orders if o["total"] > 50]
print(report)
result = {"top": top, "big": big_orders, "count": len(orders)}
`

// BenchmarkExecute measures executing "1" in e, once its sandbox has
// started.
func BenchmarkExecute(b *testing.B, e executors.Executor) {
	OK(b, e, "1")
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		res, err := e.Execute(ctx, "1")
		if err != nil || res.Err != nil || res.Value != int64(1) {
			b.Fatal(err, res.Err)
		}
	}
}

// BenchmarkStart measures start, which makes an executor and starts its
// sandbox (the runner's handshake included); each one is closed.
func BenchmarkStart(b *testing.B, start func() (io.Closer, error)) {
	for range b.N {
		e, err := start()
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemoryPerSandbox reports the Go heap and goroutines that one
// live sandbox holds in this process: each iteration starts n executors
// with start (which starts its sandbox) and closes them.
func BenchmarkMemoryPerSandbox(b *testing.B, n int, start func() (io.Closer, error)) {
	for range b.N {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		g0 := runtime.NumGoroutine()
		var es []io.Closer
		for range n {
			e, err := start()
			if err != nil {
				b.Fatal(err)
			}
			es = append(es, e)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "heap-B/sandbox")
		b.ReportMetric(float64(runtime.NumGoroutine()-g0)/float64(n), "goroutines/sandbox")
		for _, e := range es {
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// BenchmarkRunnerLocalPipes is the runner's own cost for "1" over plain
// pipes to a local python3, with no sandbox in between: of an executor's
// trivial execution, this part is Python's and the rest is the transport
// and the executor. It skips without python3.
func BenchmarkRunnerLocalPipes(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("no python3")
	}
	cmd := exec.Command("python3", "-I", "-u", "-c", runner.Script)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	ctx := context.Background()
	s := runner.NewSession(out, in)
	if _, err := s.Ready(ctx); err != nil {
		b.Fatal(err)
	}
	if err := s.Configure(ctx, runner.Config{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		res, err := s.Exec(ctx, "1")
		if err != nil || res.Err != nil {
			b.Fatal(err, res.Err)
		}
	}
}
