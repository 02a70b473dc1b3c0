package modal_test

import (
	"slices"
	"testing"

	"github.com/star-agent/star-agent/executors/modal/modalfake"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/executors/runner/runnertest/clitest"
)

// TestCLIWiring parses the CLI's flags, opens the executor they describe
// through router.Open (as `star-agent exec --executor modal` does) with the
// environment pointing at the fake, and routes an action that needs
// CPython to the sandbox while plain code stays in Starlark.
func TestCLIWiring(t *testing.T) {
	runnertest.NeedPython(t)
	f := modalfake.New()
	defer f.Close()
	t.Setenv("MODAL_SERVER_URL", f.URL)
	t.Setenv("MODAL_TOKEN_ID", f.TokenID)
	t.Setenv("MODAL_TOKEN_SECRET", f.TokenSecret)

	e := clitest.Open(t, []string{"--executor", "modal", "--modal-image", "python:3.12-slim", "--modal-app", "agents", "--sandbox-timeout", "90s", "--isolation", "none"}, "python:modal")
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
