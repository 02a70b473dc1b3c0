package starlarkexec

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/internal/gctune"
)

// The collector's settings are measured in child processes (the test
// binary re-executed with -test.run=^TestGCChild$), one per run, whose
// environment sets GOGC and GOMEMLIMIT as a user would: each setting
// starts from a fresh heap, and the figures are the child's own (its CPU
// time, its peak RSS, its collector's CPU share).

// gcChildEnv carries a gcSpec to the child, as JSON.
const gcChildEnv = "STAR_AGENT_GC_CHILD"

const gcPrefix = "GC-RESULT "

// gcSpec is the child's work: workers stepping concurrently, each
// through sessions of SessionSteps steps of Code on a new executor (an
// agent's run, as the CLI and serve make one per run), Steps in all.
type gcSpec struct {
	Workers      int
	Steps        int // per worker
	SessionSteps int
	Code         string
	Tune         bool // apply star-agent's setting (gctune), as the CLI does
}

// gcResult is what the child reports.
type gcResult struct {
	Steps   int
	Wall    time.Duration
	CPU     time.Duration // user and system, all threads
	NumGC   uint32
	PeakRSS int64 // bytes, VmHWM
}

// TestGCChild is the child's side of BenchmarkGC; it does nothing in a
// normal run.
func TestGCChild(t *testing.T) {
	raw := os.Getenv(gcChildEnv)
	if raw == "" {
		return
	}
	var spec gcSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Tune {
		gctune.Apply()
	}
	ctx := context.Background()
	session := func(steps int) error {
		e, err := New(Options{Limits: executors.Limits{Timeout: time.Minute}})
		if err != nil {
			return err
		}
		defer e.Close()
		for range steps {
			res, err := e.Execute(ctx, spec.Code)
			if err == nil && res.Err != nil {
				err = fmt.Errorf("%s: %s", res.Err.Type, res.Err.Message)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := session(1); err != nil { // warm-up: the front end's tables, the imports
		t.Fatal(err)
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start, cpu0 := time.Now(), processCPU()
	var wg sync.WaitGroup
	errs := make(chan error, spec.Workers)
	for range spec.Workers {
		wg.Go(func() {
			for done := 0; done < spec.Steps; done += spec.SessionSteps {
				if err := session(min(spec.SessionSteps, spec.Steps-done)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	out := gcResult{Steps: spec.Steps * spec.Workers, Wall: time.Since(start), CPU: processCPU() - cpu0}
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms1)
	out.NumGC = ms1.NumGC - ms0.NumGC
	out.PeakRSS = procStatus("VmHWM")
	line, _ := json.Marshal(out)
	fmt.Printf("\n%s%s\n", gcPrefix, line)
}

// runGCChild runs spec in a child process whose environment adds env.
func runGCChild(b *testing.B, spec gcSpec, env []string) gcResult {
	b.Helper()
	raw, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0], "-test.run=^TestGCChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=")
	cmd.Env = append(append(cmd.Env, env...), gcChildEnv+"="+string(raw))
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("child (%v): %v\n%s", env, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, gcPrefix); ok {
			var res gcResult
			if err := json.Unmarshal([]byte(rest), &res); err != nil {
				b.Fatalf("child printed %q: %v", line, err)
			}
			return res
		}
	}
	b.Fatalf("child reported nothing:\n%s", out)
	return gcResult{}
}

// gcSettings are the collector settings BenchmarkGC compares, as the
// environment a user would set, and star-agent's default (gctune, which
// the CLI applies when the environment sets neither).
var gcSettings = []struct{ name, gogc, limit string }{
	{"gogc100", "100", ""},
	{"gogc200", "200", ""},
	{"gogc400", "400", ""},
	{"gogc400-limit64MiB", "400", "64MiB"},
	{"gogcoff-limit64MiB", "off", "64MiB"},
	{"star-agent", "", ""},
}

// BenchmarkGC runs the typical step on 1 and 2 executors stepping
// concurrently, in sessions of 20 steps (an agent's run: a new executor
// each), under each collector setting of gcSettings: one child process
// per setting and iteration, the settings interleaved in every iteration
// so that the machine's drift falls on all alike. Per setting it reports
// steps per second (all executors together), CPU time per step (the
// child's, user and system, the collector's included), collections per
// thousand steps, and the worst peak RSS. It is how the default that the
// CLI and serve set (cmd/star-agent) was chosen.
func BenchmarkGC(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("executors=%d", n), func(b *testing.B) {
			spec := gcSpec{Workers: n, Steps: 1000, SessionSteps: 20, Code: typicalAction}
			type sum struct {
				steps     int
				wall, cpu time.Duration
				gcs       uint32
				rss       int64
			}
			sums := make([]sum, len(gcSettings))
			for i := 0; i < b.N; i++ {
				for j, s := range gcSettings {
					env := []string{"GOGC=" + s.gogc, "GOMEMLIMIT=" + s.limit}
					spec.Tune = s.gogc == ""
					r := runGCChild(b, spec, env)
					sm := &sums[j]
					sm.steps += r.Steps
					sm.wall += r.Wall
					sm.cpu += r.CPU
					sm.gcs += r.NumGC
					sm.rss = max(sm.rss, r.PeakRSS)
				}
			}
			for j, s := range gcSettings {
				sm := sums[j]
				b.ReportMetric(float64(sm.steps)/sm.wall.Seconds(), s.name+"-steps/s")
				b.ReportMetric(float64(sm.cpu.Microseconds())/float64(sm.steps), s.name+"-cpu-us/step")
				b.ReportMetric(1000*float64(sm.gcs)/float64(sm.steps), s.name+"-gcs/kstep")
				b.ReportMetric(float64(sm.rss>>20), s.name+"-peak-rss-MiB")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}
