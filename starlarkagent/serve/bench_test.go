package serve

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// The benchmarks drive a real "star-agent serve", built with go build and
// started as a separate process on loopback, with a recorded model whose
// action is trivial, so that they measure the server: admission, the
// agent loop around one Starlark execution, the store, the event stream.
//
//	go test -run '^$' -bench . -benchtime 2000x ./starlarkagent/serve/
//
// Each level stops after benchDeadline whatever b.N says.

const benchDeadline = 60 * time.Second

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// starAgent builds the star-agent command once per test binary.
func starAgent(b testing.TB) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "star-agent-bench-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "star-agent")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/star-agent").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return binPath
}

// recording writes a replay recording of task answered by the given
// actions, one model call each.
func recording(b *testing.B, task string, actions ...string) string {
	var buf bytes.Buffer
	last := "New task:\n" + task
	for i, a := range actions {
		ex := map[string]any{"v": 1, "n": i + 1, "time": "2026-11-24T00:00:00Z", "model": "bench-model", "messages": 2 + 2*i,
			"messages_sha256": "-", "last": map[string]any{"role": "user", "content": last},
			"content": "Thought: go.\n<code>\n" + a + "\n</code>", "usage": map[string]int{"input_tokens": 800, "output_tokens": 20}, "duration_ms": 0}
		line, _ := json.Marshal(ex)
		buf.Write(line)
		buf.WriteByte('\n')
	}
	// The player matches each call's last message: the task for the
	// first; later calls would need the observations, so the
	// benchmarks use one action.
	p := filepath.Join(b.TempDir(), "rec.jsonl")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// server is a star-agent serve process.
type server struct {
	cmd    *exec.Cmd
	base   string
	stderr *bytes.Buffer
}

func startServer(b *testing.B, rec string, args ...string) *server {
	dir := b.TempDir()
	addrFile := filepath.Join(dir, "addr")
	args = append([]string{"serve", "--replay", rec, "--db", filepath.Join(dir, "runs.db"), "--addr", "127.0.0.1:0",
		"--addr-file", addrFile, "--log-format", "json"}, args...)
	cmd := exec.Command(starAgent(b), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &server{cmd: cmd, stderr: &stderr}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			b.Errorf("serve did not stop within 30 s of SIGINT")
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if a, err := os.ReadFile(addrFile); err == nil && len(a) > 0 {
			s.base = "http://" + strings.TrimSpace(string(a))
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("serve did not start: %s", stderr.String())
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(s.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("serve not ready: %s", stderr.String())
		}
	}
	return s
}

// rss reads the server's resident and peak resident memory, in MiB.
func (s *server) rss() (cur, peak float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			cur = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return cur, peak
}

var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512, MaxConnsPerHost: 0}}

// runOnce posts a run and follows its events to the end; it returns the
// final state. A 429 is retried after its Retry-After.
func (s *server) runOnce(ctx context.Context, task string) (string, error) {
	id, err := s.post(ctx, task)
	if err != nil {
		return "", err
	}
	return s.follow(ctx, id, nil)
}

// post creates a run and returns its id; a 429 is retried after its
// Retry-After.
func (s *server) post(ctx context.Context, task string) (string, error) {
	body := `{"task":` + strconv.Quote(task) + `}`
	var id string
	for {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.base+"/v1/runs", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := benchClient.Do(req)
		if err != nil {
			return "", err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 429 {
			secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			select {
			case <-time.After(time.Duration(secs) * time.Second):
				continue
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		if resp.StatusCode != 202 {
			return "", fmt.Errorf("POST: %d %s", resp.StatusCode, b)
		}
		var r struct{ ID string }
		json.Unmarshal(b, &r)
		id = r.ID
		break
	}
	return id, nil
}

// follow reads the events of a run until its end event, and returns the
// final state. onEnd, when set, is called as the end event arrives.
func (s *server) follow(ctx context.Context, id string, onEnd func(data []byte)) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/v1/runs/"+id+"/events", nil)
	resp, err := benchClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	isEnd := false
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.Equal(line, []byte("event: end")):
			isEnd = true
		case isEnd && bytes.HasPrefix(line, []byte("data: ")):
			if onEnd != nil {
				onEnd(line[6:])
			}
			var e struct{ State string }
			json.Unmarshal(line[6:], &e)
			return e.State, nil
		}
	}
	return "", fmt.Errorf("run %s: the stream ended without an end event (%v)", id, sc.Err())
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// BenchmarkServeRuns measures runs per second and the latency from POST
// /v1/runs to the end event, with 1, 16 and 256 concurrent clients, and
// the server's memory at each level. The Starlark engine runs in the
// server's process (--isolation none) and, in the "isolated" variants, in
// a child process per run (the default).
func BenchmarkServeRuns(b *testing.B) {
	const task = "Answer with 1."
	rec := recording(b, task, "final_answer(1)")
	for _, iso := range []string{"none", "process"} {
		srv := startServer(b, rec, "--isolation", iso, "--max-concurrent", "64", "--queue", "4096")
		for _, clients := range []int{1, 16, 256} {
			b.Run(fmt.Sprintf("isolation=%s/clients=%d", iso, clients), func(b *testing.B) {
				ctx, cancel := context.WithTimeout(context.Background(), benchDeadline)
				defer cancel()
				var next atomic.Int64
				var mu sync.Mutex
				var lat []time.Duration
				var failed atomic.Int64
				var firstErr atomic.Value
				b.ResetTimer()
				start := time.Now()
				var wg sync.WaitGroup
				for range clients {
					wg.Go(func() {
						for next.Add(1) <= int64(b.N) && ctx.Err() == nil {
							t0 := time.Now()
							state, err := srv.runOnce(ctx, task)
							d := time.Since(t0)
							if err != nil || state != "success" {
								if failed.Add(1) == 1 {
									firstErr.Store(fmt.Sprintf("state %q, error %v", state, err))
								}
								continue
							}
							mu.Lock()
							lat = append(lat, d)
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				if n := failed.Load(); n > 0 && ctx.Err() == nil {
					b.Fatalf("%d runs failed; first: %v", n, firstErr.Load())
				}
				if len(lat) == 0 {
					b.Fatalf("no run ended within %v; first failure: %v", benchDeadline, firstErr.Load())
				}
				cur, peak := srv.rss()
				b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "runs/s")
				b.ReportMetric(float64(percentile(lat, 0.50).Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
				b.ReportMetric(cur, "rss-MiB")
				b.ReportMetric(peak, "peak-rss-MiB")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkServeFanOut measures one run watched by 100 clients: the
// delay between the run's end (its end event's time, same clock) and each
// watcher receiving it live, and the time for 100 clients to replay the
// ended run's whole stream from the database.
func BenchmarkServeFanOut(b *testing.B) {
	const task = "Wait, print, answer."
	const watchers = 100
	rec := recording(b, task, "import time\ntime.sleep(0.5)\nfor i in range(20):\n    print('line', i)\nfinal_answer('done')")
	srv := startServer(b, rec, "--isolation", "none")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), benchDeadline)
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.base+"/v1/runs", strings.NewReader(`{"task":"`+task+`"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := benchClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var r struct{ ID string }
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || r.ID == "" {
			b.Fatalf("POST /v1/runs: status %s, id %q, %v", resp.Status, r.ID, err)
		}

		var wg sync.WaitGroup
		var mu sync.Mutex
		var live []time.Duration
		for range watchers {
			wg.Go(func() {
				state, err := srv.follow(ctx, r.ID, func(data []byte) {
					got := time.Now()
					var e struct {
						Timing struct {
							End time.Time `json:"end_time"`
						}
					}
					json.Unmarshal(data, &e)
					mu.Lock()
					live = append(live, got.Sub(e.Timing.End))
					mu.Unlock()
				})
				if err != nil || state != "success" {
					b.Errorf("watcher: state %q, %v", state, err)
				}
			})
		}
		wg.Wait()
		// Replay of the ended run (from the database once it left memory).
		time.Sleep(50 * time.Millisecond)
		t0 := time.Now()
		for range watchers {
			wg.Go(func() {
				if state, err := srv.follow(ctx, r.ID, nil); err != nil || state != "success" {
					b.Errorf("replay: state %q, %v", state, err)
				}
			})
		}
		wg.Wait()
		replay := time.Since(t0)
		cancel()
		b.ReportMetric(float64(percentile(live, 0.50).Microseconds())/1000, "live-p50-ms")
		b.ReportMetric(float64(percentile(live, 0.99).Microseconds())/1000, "live-p99-ms")
		b.ReportMetric(float64(replay.Microseconds())/1000, "replay-100-ms")
	}
	cur, _ := srv.rss()
	b.ReportMetric(cur, "rss-MiB")
}

// BenchmarkExecProcess is a whole `star-agent exec` process running the
// typical action, started afresh in every iteration (nothing is kept
// between processes but the OS's page cache and the WebAssembly
// executor's compiled-module cache), against the same file in CPython,
// the two interleaved, medians against medians: what a user waits for
// from the command line (python3 -S, see below). The cases: the Starlark
// engine in star-agent's process (isolation=none) and in a child of it
// (isolation=process, the default); CPython in WebAssembly (wasm, after
// one run that fills its cache) and the same without HOME (wasm-nohome,
// as in many containers). Both must exit 0 and print the same report.
func BenchmarkExecProcess(b *testing.B) {
	file := filepath.Join(b.TempDir(), "typical.py")
	if err := os.WriteFile(file, []byte(runnertest.TypicalAction), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := starAgent(b)
	// The interpreter itself, not a version manager's shim in front of it,
	// run with -S: no site module, so that what this machine's site
	// packages (.pth files) import at start does not count against
	// CPython.
	python, pyErr := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	var noHome []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") {
			noHome = append(noHome, kv)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		env  []string
	}{
		{"isolation=none", []string{"exec", "--isolation", "none", file}, nil},
		{"isolation=process", []string{"exec", "--isolation", "process", file}, nil},
		{"wasm", []string{"exec", "--engine", "python", "--executor", "wasm", file}, nil},
		{"wasm-nohome", []string{"exec", "--engine", "python", "--executor", "wasm", file}, noHome},
	} {
		b.Run(c.name, func(b *testing.B) {
			timed := func(env []string, name string, args ...string) (time.Duration, string) {
				var stdout, stderr bytes.Buffer
				cmd := exec.Command(name, args...)
				cmd.Stdout, cmd.Stderr, cmd.Env = &stdout, &stderr, env
				start := time.Now()
				err := cmd.Run()
				d := time.Since(start)
				if err != nil {
					b.Fatalf("%s %q: %v\n%s%s", name, args, err, stdout.String(), stderr.String())
				}
				return d, stdout.String()
			}
			timed(c.env, bin, c.args...) // fills the caches a later run may use
			var ours, theirs []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d, out := timed(c.env, bin, c.args...)
				ours = append(ours, d)
				if pyErr == nil {
					b.StopTimer()
					pd, pout := timed(nil, strings.TrimSpace(string(python)), "-S", file)
					theirs = append(theirs, pd)
					if !strings.Contains(out, pout) {
						b.Fatalf("star-agent printed %q, python3 %q", out, pout)
					}
					b.StartTimer()
				}
			}
			b.StopTimer()
			med := float64(percentile(ours, 0.5).Nanoseconds())
			b.ReportMetric(med, "median-ns")
			if len(theirs) > 0 {
				pm := float64(percentile(theirs, 0.5).Nanoseconds())
				b.ReportMetric(pm, "cpython-median-ns")
				b.ReportMetric(med/pm, "x-cpython")
			}
		})
	}
}

// BenchmarkServeReplicas measures runs per second and the latency from
// POST /v1/runs to the end event on one SQLite server, one replica on
// PostgreSQL and three replicas on one PostgreSQL; with replicas, each
// client creates its runs on one replica and streams them from the next,
// so the stream crosses replicas (LISTEN/NOTIFY and re-reads).
func BenchmarkServeReplicas(b *testing.B) {
	const task = "Answer with 1."
	rec := recording(b, task, "final_answer(1)")
	for _, cfg := range []struct {
		name     string
		replicas int
		pg       bool
	}{{"sqlite/replicas=1", 1, false}, {"postgres/replicas=1", 1, true}, {"postgres/replicas=3", 3, true}} {
		if f := os.Getenv("BENCH_REPLICAS"); f != "" && !strings.Contains(cfg.name, f) {
			continue
		}
		var extra []string
		var pg *sql.DB
		if cfg.pg {
			url := startPostgres(b)
			extra = []string{"--db", url}
			var err error
			if pg, err = sql.Open("pgx", url); err != nil {
				b.Fatal(err)
			}
			defer pg.Close()
		}
		var srvs []*server
		for range cfg.replicas {
			srvs = append(srvs, startServer(b, rec, append([]string{"--isolation", "none", "--max-concurrent", "64", "--queue", "4096"}, extra...)...))
		}
		for _, clients := range []int{16, 64} {
			b.Run(fmt.Sprintf("%s/clients=%d", cfg.name, clients), func(b *testing.B) {
				ctx, cancel := context.WithTimeout(context.Background(), benchDeadline)
				defer cancel()
				var next atomic.Int64
				var mu sync.Mutex
				var lat []time.Duration
				var failed atomic.Int64
				var firstErr atomic.Value
				b.ResetTimer()
				start := time.Now()
				var wg sync.WaitGroup
				for c := range clients {
					on, from := srvs[c%len(srvs)], srvs[(c+1)%len(srvs)]
					wg.Go(func() {
						for next.Add(1) <= int64(b.N) && ctx.Err() == nil {
							t0 := time.Now()
							id, err := on.post(ctx, task)
							state := ""
							if err == nil {
								state, err = from.follow(ctx, id, nil)
							}
							d := time.Since(t0)
							if err != nil || state != "success" {
								if failed.Add(1) == 1 {
									var now string
									if resp, err := http.Get(on.base + "/v1/runs/" + id); err == nil {
										b, _ := io.ReadAll(resp.Body)
										resp.Body.Close()
										now = clip(string(b), 300)
									}
									firstErr.Store(fmt.Sprintf("run %s: state %q, error %v; now %s", id, state, err, now))
								}
								continue
							}
							mu.Lock()
							lat = append(lat, d)
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				if n := failed.Load(); n > 0 {
					if os.Getenv("BENCH_DUMP") != "" {
						for _, s := range srvs {
							s.cmd.Process.Signal(syscall.SIGQUIT)
							s.cmd.Wait()
							os.WriteFile(fmt.Sprintf("/tmp/dump-%d.txt", s.cmd.Process.Pid), s.stderr.Bytes(), 0o644)
						}
					}
					b.Fatalf("%d runs failed; first: %v", n, firstErr.Load())
				}
				b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "runs/s")
				b.ReportMetric(float64(percentile(lat, 0.50).Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
				if pg != nil {
					// The servers' connections, less this one.
					var n int
					pg.QueryRow(`SELECT count(*) - 1 FROM pg_stat_activity WHERE backend_type = 'client backend'`).Scan(&n)
					b.ReportMetric(float64(n)/float64(len(srvs)), "db-conns/replica")
				}
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
