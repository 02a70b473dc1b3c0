package e2b_test

import (
	"testing"

	"github.com/star-agent/star-agent/executors/e2b/e2bfake"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/executors/runner/runnertest/clitest"
)

// TestCLIWiring parses the CLI's flags, opens the executor they describe
// through router.Open (as `star-agent exec --executor e2b` does) with the
// environment pointing at the fake, and routes an action that needs
// CPython to the sandbox while plain code stays in Starlark.
func TestCLIWiring(t *testing.T) {
	runnertest.NeedPython(t)
	f := e2bfake.New()
	defer f.Close()
	t.Setenv("E2B_API_KEY", f.APIKey)
	t.Setenv("E2B_API_URL", f.URL)
	t.Setenv("E2B_ENVD_URL", f.URL)
	t.Setenv("E2B_DOMAIN", f.Domain)

	e := clitest.Open(t, []string{"--executor", "e2b", "--e2b-template", "python-test", "--sandbox-timeout", "90s", "--isolation", "none"}, "python:e2b")
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
