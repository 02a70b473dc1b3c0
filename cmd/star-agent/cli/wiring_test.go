package cli

// The CLI's sandbox flags, wired as `star-agent exec` wires them, against
// the fakes of the cloud sandboxes.

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/e2b/e2bfake"
	"github.com/star-agent/star-agent/executors/modal/modalfake"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// TestE2BWiring parses the CLI's flags, opens the executor they describe
// through router.Open (as `star-agent exec --executor e2b` does) with the
// environment pointing at the fake, and routes an action that needs
// CPython to the sandbox while plain code stays in Starlark.
func TestE2BWiring(t *testing.T) {
	runnertest.NeedPython(t)
	f := e2bfake.New()
	defer f.Close()
	t.Setenv("E2B_API_KEY", f.APIKey)
	t.Setenv("E2B_API_URL", f.URL)
	t.Setenv("E2B_ENVD_URL", f.URL)
	t.Setenv("E2B_DOMAIN", f.Domain)

	e := openWired(t, []string{"--executor", "e2b", "--e2b-template", "python-test", "--sandbox-timeout", "90s", "--isolation", "none"}, "python:e2b")
	live := f.Live()
	if len(live) != 1 || f.Sandbox(live[0]).Timeout != 90 {
		t.Errorf("sandboxes %v: want one with the 90 s timeout", live)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if len(f.Live()) != 0 || len(f.Deleted()) != 1 {
		t.Errorf("after Close: live %v, deleted %v", f.Live(), f.Deleted())
	}
}

// TestModalWiring parses the CLI's flags, opens the executor they describe
// through router.Open (as `star-agent exec --executor modal` does) with the
// environment pointing at the fake, and routes an action that needs
// CPython to the sandbox while plain code stays in Starlark.
func TestModalWiring(t *testing.T) {
	runnertest.NeedPython(t)
	f := modalfake.New()
	defer f.Close()
	t.Setenv("MODAL_SERVER_URL", f.URL)
	t.Setenv("MODAL_TOKEN_ID", f.TokenID)
	t.Setenv("MODAL_TOKEN_SECRET", f.TokenSecret)

	e := openWired(t, []string{"--executor", "modal", "--modal-image", "python:3.12-slim", "--modal-app", "agents", "--sandbox-timeout", "90s", "--isolation", "none"}, "python:modal")
	sbs := f.Sandboxes()
	if len(sbs) != 1 || sbs[0].Definition.GetTimeoutSecs() != 90 || sbs[0].Image != "python:3.12-slim" {
		t.Fatalf("sandboxes %d: want one of python:3.12-slim with the 90 s timeout", len(sbs))
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(f.Terminated(), sbs[0].ID) {
		t.Errorf("after Close: terminated %v", f.Terminated())
	}
}

// openWired parses args as the flags of `star-agent exec`, opens the executor
// they describe (authorizing zlib) and checks that plain code stays in
// Starlark while code that imports zlib runs in the sandbox, whose
// Result.Engine is engine, with the variable set in Starlark. The caller
// checks what the service saw and closes the executor.
func openWired(t *testing.T, args []string, engine string) executors.Executor {
	t.Helper()
	var flags ExecutorFlags
	fl := pflag.NewFlagSet("exec", pflag.ContinueOnError)
	flags.Register(fl)
	if err := fl.Parse(args); err != nil {
		t.Fatal(err)
	}
	e, err := flags.Open(executors.Limits{}, []string{"zlib"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := e.Execute(ctx, "n = 41")
	if err != nil || res.Err != nil || res.Engine != "starlark" {
		t.Fatalf("plain code: engine %q, %v %v", res.Engine, err, res.Err)
	}
	res, err = e.Execute(ctx, "import zlib\nlen(zlib.decompress(zlib.compress(b'x'))) + n")
	if err != nil || res.Err != nil {
		t.Fatalf("%v %v", err, res.Err)
	}
	if res.Engine != engine || res.Value != int64(42) {
		t.Errorf("engine %q value %#v", res.Engine, res.Value)
	}
	return e
}
