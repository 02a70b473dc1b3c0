package runnertest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
)

// Run executes code with a time limit of 90 s (enough for a sandbox's
// cold start) and fails the test on an executor error; the Result's own
// error is the caller's to check.
func Run(tb testing.TB, e executors.Executor, code string) executors.Result {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := e.Execute(ctx, code)
	if err != nil {
		tb.Fatalf("Execute(%q): %v", code, err)
	}
	return res
}

// OK is Run for code that must succeed: it fails the test, with the
// traceback, when the Result has an error.
func OK(tb testing.TB, e executors.Executor, code string) executors.Result {
	tb.Helper()
	res := Run(tb, e, code)
	if res.Err != nil {
		tb.Fatalf("Execute(%q): %v\n%s", code, res.Err, res.Err.Traceback)
	}
	return res
}

// ServeInChild, called first in TestMain, makes the test binary a fake
// service's server instead of running tests when env is "1" in its
// environment: it starts the fake with start, prints the line start
// returns (where to reach it), serves until stdin closes, stops it and
// exits. StartChild runs such a child; benchmarks use it to keep the
// fake's memory and goroutines out of the client's figures.
func ServeInChild(env string, start func() (line string, stop func())) {
	if os.Getenv(env) != "1" {
		return
	}
	line, stop := start()
	fmt.Println(line)
	io.Copy(io.Discard, os.Stdin)
	stop()
	os.Exit(0)
}

// StartChild runs the test binary as a fake's server (see ServeInChild)
// until the test ends, and returns the line it printed.
func StartChild(tb testing.TB, env string) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("fake child said %q: %v", line, err)
	}
	return strings.TrimSpace(line)
}

// AllImports is an import policy that authorizes every module, for tests
// whose code imports what it needs.
var AllImports = executors.ImportPolicy{Authorized: []string{"*"}}

// NeedPython skips the test when python3 is not on the PATH (the fakes of
// cloud services run the runner in a local python3).
func NeedPython(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		tb.Skip("no python3 for the fake sandbox")
	}
}
