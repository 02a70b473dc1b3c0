package runnertest

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// CPython is a python3 process that runs one program at a time on
// request, so that a benchmark can interleave CPython's runs with an
// executor's (one of ours, one of CPython's, and so on, both seeing the
// same machine) and compare medians with medians. Each run is timed on
// its own (perf_counter_ns) and the process's CPU time is summed
// (process_time_ns), in the Python process, around exec alone. Start one
// with StartCPython, give it a program with Setup, run it with Run.
type CPython struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// cpythonScript is the peer's side: JSON requests on stdin, one JSON
// answer per line on stdout. A step runs in one namespace that persists
// across runs, as the engine's state does, with print discarded.
const cpythonScript = `import json, sys, time, traceback
def _discard(*a, **k):
    pass
ns, src, code, each = {}, "", None, False
for line in sys.stdin:
    req = json.loads(line)
    try:
        if req["op"] == "setup":
            ns = {"__name__": "__main__", "print": _discard}
            exec(compile(req["setup"], "<setup>", "exec"), ns)
            src, each = req["stmt"], req["compile_each"]
            code = compile(src, "<step>", "exec")
            ans = {}
        else:
            wall, cpu = [], 0
            for _ in range(req["n"]):
                c0 = time.process_time_ns()
                t0 = time.perf_counter_ns()
                exec(compile(src, "<step>", "exec") if each else code, ns)
                t1 = time.perf_counter_ns()
                cpu += time.process_time_ns() - c0
                wall.append(t1 - t0)
            ans = {"wall": wall, "cpu": cpu}
    except BaseException:
        ans = {"error": traceback.format_exc()}
    sys.stdout.write(json.dumps(ans) + "\n")
    sys.stdout.flush()
`

// StartCPython starts a peer, or returns nil (and says so in the log) when
// python3 is missing: the benchmark then reports the engine's figures
// alone.
func StartCPython(b testing.TB) *CPython {
	b.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		b.Logf("python3 unavailable, no CPython figure: %v", err)
		return nil
	}
	cmd := exec.Command("python3", "-I", "-u", "-c", cpythonScript)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &CPython{cmd: cmd, in: in, out: bufio.NewReader(out)}
	b.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	return p
}

type peerAnswer struct {
	Wall  []int64
	CPU   int64
	Error string
}

func (p *CPython) ask(b testing.TB, req map[string]any) peerAnswer {
	b.Helper()
	line, _ := json.Marshal(req)
	if _, err := p.in.Write(append(line, '\n')); err != nil {
		b.Fatalf("python3 peer: %v", err)
	}
	raw, err := p.out.ReadBytes('\n')
	if err != nil {
		b.Fatalf("python3 peer: %v", err)
	}
	var ans peerAnswer
	if err := json.Unmarshal(raw, &ans); err != nil {
		b.Fatalf("python3 peer printed %q: %v", raw, err)
	}
	if ans.Error != "" {
		b.Fatalf("CPython failed:\n%s", ans.Error)
	}
	return ans
}

// Setup runs setup in a fresh namespace and makes stmt the step that Run
// runs; with compileEach, every run compiles stmt again, as Execute does
// (the typical action), otherwise it is compiled once (a one-line call
// whose compilation is noise).
func (p *CPython) Setup(b testing.TB, setup, stmt string, compileEach bool) {
	b.Helper()
	p.ask(b, map[string]any{"op": "setup", "setup": setup, "stmt": stmt, "compile_each": compileEach})
}

// Run runs the step n times and returns each run's wall time and the CPU
// time of all n.
func (p *CPython) Run(b testing.TB, n int) ([]time.Duration, time.Duration) {
	b.Helper()
	ans := p.ask(b, map[string]any{"op": "run", "n": n})
	wall := make([]time.Duration, len(ans.Wall))
	for i, ns := range ans.Wall {
		wall[i] = time.Duration(ns)
	}
	return wall, time.Duration(ans.CPU)
}
