package runner_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/starlarkagent/tool"
)

// native is an executors.Executor around a runner in a native python3
// process: the protocol over plain OS pipes.
type native struct {
	cmd  *exec.Cmd
	sess *runner.Session
}

func startNative(t *testing.T, cfg runner.Config) *native {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	cmd := exec.Command(py, "-I", "-c", runner.Script)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := &native{cmd: cmd, sess: runner.NewSession(stdout, stdin)}
	t.Cleanup(func() { n.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := n.sess.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if err := n.sess.Configure(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *native) Execute(ctx context.Context, code string) (executors.Result, error) {
	return n.sess.Exec(ctx, code)
}
func (n *native) SetTools(tools []tool.Tool) error {
	return n.sess.SetTools(context.Background(), tools)
}
func (n *native) SetVariables(vars map[string]any) error {
	return n.sess.SetVariables(context.Background(), vars)
}
func (n *native) Close() error {
	n.cmd.Process.Kill()
	n.cmd.Wait()
	return nil
}

func TestConformanceNative(t *testing.T) {
	runnertest.Conformance(t, func(t *testing.T) executors.Executor {
		return startNative(t, runner.Config{Imports: executors.ImportPolicy{Authorized: []string{"*"}}})
	})
}

func TestImportPolicy(t *testing.T) {
	n := startNative(t, runner.Config{Imports: executors.NewImportPolicy([]string{"numpy"}, []string{"os"})})
	ctx := context.Background()
	cases := []struct{ code, typ, msg string }{
		{"import json\nimport subprocess", "ImportError", "import of subprocess is not allowed; authorized imports are: [collections,"},
		{"from os import path", "ImportError", "import of os is not allowed: it gives access to the host"},
		{"m = __import__('socket')", "ImportError", "import of socket is not allowed"},
		{"def f():\n    import shutil\nf()", "ImportError", "import of shutil is not allowed"},
		{"import numpy", "ModuleNotFoundError", "No module named 'numpy'"},
		{"import json, collections.abc\nimport datetime as d\njson.dumps(1)", "", ""},
	}
	for _, c := range cases {
		res, err := n.Execute(ctx, c.code)
		if err != nil {
			t.Fatal(err)
		}
		if c.typ == "" {
			if res.Err != nil {
				t.Errorf("%q: %v", c.code, res.Err)
			}
			continue
		}
		if res.Err == nil || res.Err.Type != c.typ || !strings.Contains(res.Err.Message, c.msg) {
			t.Errorf("%q: got %+v, want %s containing %q", c.code, res.Err, c.typ, c.msg)
		}
	}
	// The standard library imports what it needs regardless of the policy.
	if res, _ := n.Execute(ctx, "import json\njson.dumps({'a': 1})"); res.Err != nil {
		t.Error(res.Err)
	}
}

// TestCrashMidCall kills the interpreter while it waits for a tool: Exec
// must return an error promptly, never hang.
func TestCrashMidCall(t *testing.T) {
	n := startNative(t, runner.Config{})
	kill := runnertest.Func{S: tool.Spec{Name: "kill_me"}, F: func(context.Context, map[string]any) (any, error) {
		n.cmd.Process.Kill()
		time.Sleep(50 * time.Millisecond)
		return "too late", nil
	}}
	if err := n.SetTools([]tool.Tool{kill}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := n.Execute(ctx, "x = kill_me()\nprint(x)")
	if !errors.Is(err, runner.ErrBroken) {
		t.Fatalf("got %v, want ErrBroken", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("Exec returned only at the test's deadline (%v)", time.Since(start))
	}
	if _, err := n.Execute(ctx, "1"); !errors.Is(err, runner.ErrBroken) {
		t.Errorf("broken session accepted more work: %v", err)
	}
}

// TestAbandon checks that an Exec whose context ends returns at once and
// leaves the session broken (its owner must restart the runner).
func TestAbandon(t *testing.T) {
	n := startNative(t, runner.Config{Imports: executors.ImportPolicy{Authorized: []string{"*"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := n.Execute(ctx, "while True:\n    pass")
	if !errors.Is(err, runner.ErrBroken) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %v", d)
	}
}

// TestProtocolChannelIsPrivate checks that code writing to the real stdout
// file descriptor or reading stdin cannot disturb the protocol.
func TestProtocolChannelIsPrivate(t *testing.T) {
	n := startNative(t, runner.Config{Imports: executors.ImportPolicy{Authorized: []string{"*"}}})
	ctx := context.Background()
	res, err := n.Execute(ctx, "import os, sys\nos.write(1, b'{\"op\":\"result\",\"id\":99}\\n')\nsys.__stdout__.write('junk\\n')\nprint(repr(sys.stdin.read()), os.read(0, 10))")
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || res.Stdout != "junk\n'' b''\n" {
		t.Errorf("stdout %q err %v", res.Stdout, res.Err)
	}
	if res, err := n.Execute(ctx, "2"); err != nil || res.Value != int64(2) {
		t.Errorf("after: %v %v", res.Value, err)
	}
}

// TestStrictDecoder feeds the host messages a runner must not send.
func TestStrictDecoder(t *testing.T) {
	for _, line := range []string{
		"not json\n",
		`{"op":"ready","protocol":1,"python":"3","extra":true}` + "\n",
		`{"op":"ready","protocol":2}` + "\n",
		`{"op":"result","id":1}` + "\n",
	} {
		s := runner.NewSession(strings.NewReader(line), discard{})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := s.Ready(ctx)
		if !errors.Is(err, runner.ErrBroken) || ctx.Err() != nil {
			t.Errorf("%q: got %v", line, err)
		}
		cancel()
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
