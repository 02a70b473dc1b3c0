package modal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors/modal/modalfake"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// TestMain selects the SDK's control-plane sandbox backend, which the fake
// speaks, and keeps the SDK away from any ~/.modal.toml and real service.
func TestMain(m *testing.M) {
	runnertest.ServeInChild(fakeChildEnv, func() (string, func()) {
		f := modalfake.New()
		return f.URL + " " + f.TokenID + " " + f.TokenSecret, f.Close
	})
	os.Setenv("MODAL_SANDBOX_V2", "0")
	dir, err := os.MkdirTemp("", "modal-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("MODAL_CONFIG_PATH", filepath.Join(dir, "absent.toml"))
	for _, k := range []string{"MODAL_TOKEN_ID", "MODAL_TOKEN_SECRET", "MODAL_PROFILE", "MODAL_ENVIRONMENT", "MODAL_IMAGE_BUILDER_VERSION"} {
		os.Unsetenv(k)
	}
	os.Setenv("MODAL_SERVER_URL", "http://127.0.0.1:1") // nothing listens there
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fakeChildEnv makes the test binary serve a fake on loopback instead of
// running tests: it prints the fake's URL and token and serves until stdin
// closes. Benchmarks use it to keep the fake's memory and goroutines out of
// the client's figures.
const fakeChildEnv = "STAR_AGENT_MODAL_FAKE_CHILD"

// childFake starts a fake in a child process, points the SDK at it and
// returns options with its token; the child ends (and kills its processes)
// when the test ends.
func childFake(tb testing.TB) Options {
	tb.Helper()
	needPython(tb)
	line := runnertest.StartChild(tb, fakeChildEnv)
	fields := strings.Fields(line)
	if len(fields) != 3 {
		tb.Fatalf("fake child said %q", line)
	}
	tb.Setenv("MODAL_SERVER_URL", fields[0])
	return Options{TokenID: fields[1], TokenSecret: fields[2], Imports: allImports, createBackoff: 10 * time.Millisecond}
}

var allImports = runnertest.AllImports

var needPython = runnertest.NeedPython

// newFake starts a fake, points the SDK at it, and checks, when the test
// ends, that it left no process running.
func newFake(t testing.TB) *modalfake.Server {
	t.Helper()
	needPython(t)
	f := modalfake.New()
	t.Setenv("MODAL_SERVER_URL", f.URL)
	t.Cleanup(func() {
		f.Close()
		waitNoProcesses(t, f)
	})
	return f
}

// waitNoProcesses checks that no process of the fake's sandboxes exists.
func waitNoProcesses(t testing.TB, f *modalfake.Server) {
	t.Helper()
	for _, sb := range f.Sandboxes() {
		if pid := sb.Pid(); pid != 0 {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("process %d of the fake sandbox %s is still running", pid, sb.ID)
			}
		}
	}
}

func options(f *modalfake.Server) Options {
	return Options{TokenID: f.TokenID, TokenSecret: f.TokenSecret, Imports: allImports, createBackoff: 10 * time.Millisecond}
}

func newExec(t testing.TB, opts Options) *Executor {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

var run, ok = runnertest.Run, runnertest.OK

// v2 reports whether the SDK uses Modal's V2 sandbox backend in this test.
func v2() bool { return os.Getenv("MODAL_SANDBOX_V2") == "1" }

// method names a control-plane call as the backend in use names it.
func method(name string) string {
	if v2() {
		return name + "V2"
	}
	return name
}
