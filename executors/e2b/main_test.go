package e2b

import (
	"os"
	"testing"

	"github.com/star-agent/star-agent/executors/e2b/e2bfake"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// fakeChildEnv makes the test binary serve a fake on loopback instead of
// running tests: it prints the fake's URL and serves until stdin closes.
// Benchmarks use it to keep the fake's memory and goroutines out of the
// client's figures.
const fakeChildEnv = "STAR_AGENT_E2B_FAKE_CHILD"

func TestMain(m *testing.M) {
	runnertest.ServeInChild(fakeChildEnv, func() (string, func()) {
		f := e2bfake.New()
		return f.URL, f.Close
	})
	os.Exit(m.Run())
}

// childFake starts a fake in a child process and returns its options; the
// child ends (and kills its processes) when the test ends.
func childFake(tb testing.TB) Options {
	tb.Helper()
	needPython(tb)
	url := runnertest.StartChild(tb, fakeChildEnv)
	d := e2bfake.New() // for its default key and domain only
	opts := Options{APIKey: d.APIKey, APIURL: url, EnvdURL: url, Domain: d.Domain, Imports: allImports}
	d.Close()
	return opts
}
