package e2b_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/e2b/e2bfake"
	"github.com/star-agent/star-agent/starlarkagent/cli"
)

// TestCLIWiring parses the CLI's flags, opens the executor they describe
// through router.Open (as `star-agent exec --executor e2b` does) with the
// environment pointing at the fake, and routes an action that needs
// CPython to the sandbox while plain code stays in Starlark.
func TestCLIWiring(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	f := e2bfake.New()
	defer f.Close()
	t.Setenv("E2B_API_KEY", f.APIKey)
	t.Setenv("E2B_API_URL", f.URL)
	t.Setenv("E2B_ENVD_URL", f.URL)
	t.Setenv("E2B_DOMAIN", f.Domain)

	var flags cli.ExecutorFlags
	fl := pflag.NewFlagSet("exec", pflag.ContinueOnError)
	flags.Register(fl)
	if err := fl.Parse([]string{"--executor", "e2b", "--e2b-template", "python-test", "--sandbox-timeout", "90s", "--isolation", "none"}); err != nil {
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
	if res.Engine != "python:e2b" || res.Value != int64(42) {
		t.Errorf("engine %q value %#v", res.Engine, res.Value)
	}
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
