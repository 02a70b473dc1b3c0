package modal_test

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/modal/modalfake"
	"github.com/star-agent/star-agent/starlarkagent/cli"
)

// TestCLIWiring parses the CLI's flags, opens the executor they describe
// through router.Open (as `star-agent exec --executor modal` does) with the
// environment pointing at the fake, and routes an action that needs
// CPython to the sandbox while plain code stays in Starlark.
func TestCLIWiring(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	f := modalfake.New()
	defer f.Close()
	t.Setenv("MODAL_SERVER_URL", f.URL)
	t.Setenv("MODAL_TOKEN_ID", f.TokenID)
	t.Setenv("MODAL_TOKEN_SECRET", f.TokenSecret)

	var flags cli.ExecutorFlags
	fl := pflag.NewFlagSet("exec", pflag.ContinueOnError)
	flags.Register(fl)
	if err := fl.Parse([]string{"--executor", "modal", "--modal-image", "python:3.12-slim", "--modal-app", "agents", "--sandbox-timeout", "90s", "--isolation", "none"}); err != nil {
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
	if res.Engine != "python:modal" || res.Value != int64(42) {
		t.Errorf("engine %q value %#v", res.Engine, res.Value)
	}
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
