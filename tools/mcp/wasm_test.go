package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/wasm"
	"github.com/star-agent/star-agent/tool"
)

func newWasm(t testing.TB, timeout time.Duration, tools []tool.Tool) *wasm.Executor {
	t.Helper()
	e, err := wasm.New(wasm.Options{Limits: executors.Limits{Timeout: timeout}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.SetTools(context.Background(), tools); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCallsFromWasm calls MCP tools from CPython in the WebAssembly
// sandbox: the calls are bridged to the host over the runner protocol.
func TestCallsFromWasm(t *testing.T) {
	if testing.Short() {
		t.Skip("starts CPython in WebAssembly")
	}
	transports(t, func(t *testing.T, s *Server) {
		e := newWasm(t, time.Minute, toolsOf(t, s))
		res := run(t, e, `
import json
print(echo("hello"))
r = add(2, 3)
print(r["sum"], r["terms"], type(r["sum"]).__name__)
w = get_weather(city="Paris")
print(json.dumps(w, sort_keys=True))
try:
    fail("disk full")
except Exception as e:
    print("caught:", type(e).__name__, "disk full" in str(e))
img = pixel()
print(img["type"], img["mime_type"], img["data"][:8])
`)
		want := `hello
5 [2, 3] int
{"city": "Paris", "conditions": ["sunny", "light wind"], "temp": 21.5, "units": "celsius"}
caught: ToolError True
image image/png iVBORw0K
`
		if res.Err != nil || res.Stdout != want {
			t.Fatalf("error %+v\nstdout:\n%s\nwant:\n%s", res.Err, res.Stdout, want)
		}
	})
}

// TestWasmHungCall: a tool that never answers ends the sandboxed
// execution at its deadline, and the tools still work after.
func TestWasmHungCall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts CPython in WebAssembly")
	}
	s := stdioServer(t, Options{})
	e := newWasm(t, 3*time.Second, toolsOf(t, s))
	run(t, e, "print('warm')") // start the sandbox outside the measured execution
	res := run(t, e, "print('before')\nhang()\nprint('after')")
	// (The sandbox is replaced at the deadline; what it printed is lost.)
	if res.Err == nil || res.Err.Type != "TimeoutError" || strings.Contains(res.Stdout, "after") {
		t.Fatalf("hang: %+v %q", res.Err, res.Stdout)
	}
	res = run(t, e, "print(echo('still here'))")
	if res.Err != nil || res.Stdout != "still here\n" {
		t.Fatalf("after the hang: %+v %q", res.Err, res.Stdout)
	}
}

// TestWasmServerExits: the server dies under a sandboxed call; the code
// gets a ToolError that says so, and the restarted server answers.
func TestWasmServerExits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts CPython in WebAssembly")
	}
	s := stdioServer(t, Options{})
	e := newWasm(t, time.Minute, toolsOf(t, s))
	res := run(t, e, `
try:
    mcptest_exit(7)
except Exception as e:
    print(type(e).__name__, "exited (exit status 7)" in str(e), "it was restarted" in str(e))
print(echo("back"))
`)
	if res.Err != nil || res.Stdout != "ToolError True True\nback\n" {
		t.Fatalf("error %+v\nstdout:\n%s", res.Err, res.Stdout)
	}
}
