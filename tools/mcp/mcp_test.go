package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/executors/wasm"
	"github.com/star-agent/star-agent/tool"
	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

// The test binary is also the stdio test server: run with this variable
// set, it serves mcptest over stdio with its arguments.
const serverVar = "STAR_AGENT_MCPTEST_SERVER"

func TestMain(m *testing.M) {
	wasm.RunChildIfRequested() // the sandbox child of wasm_test.go
	if os.Getenv(serverVar) == "1" {
		os.Exit(mcptest.Main(os.Args[1:]))
	}
	if os.Getenv(hostileVar) == "1" {
		os.Exit(hostileServer())
	}
	// Short grace periods, so that stopping servers that ignore stdin
	// does not slow the tests.
	stopGrace, termGrace = 500*time.Millisecond, 500*time.Millisecond
	os.Exit(m.Run())
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// stdioServer starts the test server as a subprocess (this test binary).
func stdioServer(t testing.TB, opts Options, args ...string) *Server {
	t.Helper()
	opts.Env = append(opts.Env, serverVar+"=1")
	s, err := Stdio(ctxFor(t), append([]string{os.Args[0]}, args...), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// httpServer serves the test server over streamable HTTP on loopback.
// stop ends hung calls (which the server ignores cancellation of) and is
// called at cleanup; a test that leaves calls hung calls it before the
// client closes, since closing a session waits for the server.
func httpServer(t testing.TB, o mcptest.Options) (hs *httptest.Server, stop func()) {
	t.Helper()
	done := make(chan struct{})
	o.Done = done
	hs = mcptest.ServeHTTP(mcptest.New(o))
	stop = sync.OnceFunc(func() { close(done) })
	t.Cleanup(func() {
		stop()
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs, stop
}

func connectHTTP(t testing.TB, url string, header http.Header, opts Options) *Server {
	t.Helper()
	s, err := HTTP(ctxFor(t), url, header, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func toolsOf(t testing.TB, servers ...*Server) []tool.Tool {
	t.Helper()
	ts, err := Tools(ctxFor(t), servers...)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func byName(ts []tool.Tool) map[string]tool.Tool {
	m := map[string]tool.Tool{}
	for _, t := range ts {
		m[t.Spec().Name] = t
	}
	return m
}

// transports runs f against the test server over stdio and over HTTP.
func transports(t *testing.T, f func(t *testing.T, s *Server)) {
	t.Run("stdio", func(t *testing.T) { f(t, stdioServer(t, Options{})) })
	t.Run("http", func(t *testing.T) {
		hs, stop := httpServer(t, mcptest.Options{})
		s := connectHTTP(t, hs.URL, nil, Options{})
		t.Cleanup(stop) // runs before s.Close
		f(t, s)
	})
}

func TestSpecs(t *testing.T) {
	transports(t, func(t *testing.T, s *Server) {
		if s.Name() != "mcptest" {
			t.Errorf("server name %q", s.Name())
		}
		ts := byName(toolsOf(t, s))
		w, ok := ts["get_weather"]
		if !ok {
			t.Fatalf("no get_weather among %v", ts)
		}
		spec := w.Spec()
		if w.(*Tool).MCPName() != "get-weather" || spec.Description != "Returns the current weather in a city." {
			t.Errorf("get_weather: %+v", spec)
		}
		if len(spec.Inputs) != 2 || spec.Inputs[0].Name != "city" || spec.Inputs[0].Nullable || spec.Inputs[0].Type != tool.String ||
			spec.Inputs[0].Description != "The city, e.g. Paris." || spec.Inputs[1].Name != "units" || !spec.Inputs[1].Nullable {
			t.Errorf("get_weather inputs: %+v", spec.Inputs)
		}
		if spec.Output != tool.Object || spec.OutputSchema["properties"].(map[string]any)["conditions"].(map[string]any)["items"] == nil {
			t.Errorf("get_weather output: %v %v", spec.Output, spec.OutputSchema)
		}
		add := ts["add"].Spec()
		if add.Inputs[0].Name != "a" || add.Inputs[1].Name != "b" || add.Inputs[0].Type != tool.Integer || add.Output != tool.Object {
			t.Errorf("add: %+v", add)
		}
		if echo := ts["echo"].Spec(); echo.Output != tool.String || echo.OutputSchema != nil {
			t.Errorf("echo: %+v", echo)
		}
	})
}

func newLocal(t testing.TB, timeout time.Duration, tools []tool.Tool) *starlarkexec.Executor {
	t.Helper()
	e, err := starlarkexec.New(starlarkexec.Options{Limits: executors.Limits{Timeout: timeout}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.SetTools(context.Background(), tools); err != nil {
		t.Fatal(err)
	}
	return e
}

func run(t testing.TB, e executors.Executor, code string) executors.Result {
	t.Helper()
	res, err := e.Execute(ctxFor(t), code)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return res
}

// callsCode exercises every kind of result from Python; it prints one
// line per check, compared with callsWant.
const callsCode = `
print(echo("hello"))
print(echo(text="kw"))
r = add(2, 3)
print(r["sum"], r["terms"], type(r["sum"]).__name__)
w = get_weather("Paris", units="fahrenheit")
print(w["city"], w["temp"], w["conditions"][0])
try:
    fail("disk full")
except Exception as e:
    print("caught:", type(e).__name__, str(e))
img = pixel()
print(img["type"], img["mime_type"], img["data"][:8])
parts = captioned()
print(len(parts), parts[0], parts[1]["type"])
print(lines().split("\n"))
try:
    add(1)
except TypeError as e:
    print("TypeError")
`

const callsWant = `hello
kw
5 [2, 3] int
Paris 70.7 sunny
caught: ToolError disk full
image image/png iVBORw0K
2 a transparent pixel image
['one', 'two', 'three']
TypeError
`

func TestCallsFromStarlark(t *testing.T) {
	transports(t, func(t *testing.T, s *Server) {
		res := run(t, newLocal(t, 0, toolsOf(t, s)), callsCode)
		if res.Err != nil {
			t.Fatalf("error: %+v\nstdout:\n%s", res.Err, res.Stdout)
		}
		if res.Stdout != callsWant {
			t.Errorf("stdout:\n%s\nwant:\n%s", res.Stdout, callsWant)
		}
	})
}

func TestToolErrorUncaught(t *testing.T) {
	s := stdioServer(t, Options{})
	res := run(t, newLocal(t, 0, toolsOf(t, s)), "x = 1\nfail('quota exceeded')\n")
	if res.Err == nil || res.Err.Type != "ToolError" || res.Err.Message != "quota exceeded" || res.Err.Line != 2 {
		t.Errorf("error %+v", res.Err)
	}
}

func TestServerExitsAndRestarts(t *testing.T) {
	s := stdioServer(t, Options{})
	e := newLocal(t, 0, toolsOf(t, s))
	res := run(t, e, "mcptest_exit(3)")
	if res.Err == nil || res.Err.Type != "ToolError" {
		t.Fatalf("exit: %+v", res.Err)
	}
	for _, want := range []string{"MCP server mcptest (", "exited (exit status 3) while calling mcptest_exit; it was restarted: call the tool again",
		"Its stderr ended with: mcptest: exiting with status 3 as asked"} {
		if !strings.Contains(res.Err.Message, want) {
			t.Errorf("message %q lacks %q", res.Err.Message, want)
		}
	}
	res = run(t, e, "print(echo('back'))")
	if res.Err != nil || res.Stdout != "back\n" {
		t.Fatalf("after restart: %+v %q", res.Err, res.Stdout)
	}
	// A second death is not restarted.
	res = run(t, e, "mcptest_exit(4)")
	if res.Err == nil || !strings.Contains(res.Err.Message, "exited (exit status 4)") || !strings.Contains(res.Err.Message, "already restarted once") {
		t.Fatalf("second exit: %+v", res.Err)
	}
	res = run(t, e, "echo('again')")
	if res.Err == nil || !strings.Contains(res.Err.Message, "already restarted once; its tools are unavailable") {
		t.Fatalf("after the second exit: %+v", res.Err)
	}
}

func TestHungCallHitsDeadline(t *testing.T) {
	transports(t, func(t *testing.T, s *Server) {
		e := newLocal(t, 1500*time.Millisecond, toolsOf(t, s))
		res := run(t, e, "print('before')\nhang()\nprint('after')")
		if res.Err == nil || res.Err.Type != "TimeoutError" || res.Stdout != "before\n" {
			t.Fatalf("hang: %+v %q", res.Err, res.Stdout)
		}
		// The session is still usable.
		res = run(t, e, "print(echo('still here'))")
		if res.Err != nil || res.Stdout != "still here\n" {
			t.Fatalf("after the hang: %+v %q", res.Err, res.Stdout)
		}
	})
}

func TestCallDeadlineDirect(t *testing.T) {
	s := stdioServer(t, Options{})
	hang := byName(toolsOf(t, s))["hang"]
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := hang.Call(ctx, map[string]any{})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "tool hang did not answer in time") {
		t.Fatalf("err %v", err)
	}
}

func TestResultCaps(t *testing.T) {
	s := stdioServer(t, Options{MaxResultBytes: 1000})
	ts := byName(toolsOf(t, s))
	out, err := ts["big"].Call(ctxFor(t), map[string]any{"bytes": int64(5000)})
	if err != nil {
		t.Fatal(err)
	}
	text := out.(string)
	if !strings.HasPrefix(text, strings.Repeat("x", 1000)+"\n[... MCP result truncated: 5000 bytes, 1000 shown]") || len(text) > 1100 {
		t.Errorf("capped text: %q...", text[:min(len(text), 1100)])
	}
	out, err = ts["big"].Call(ctxFor(t), map[string]any{"bytes": int64(1000)})
	if err != nil || out.(string) != strings.Repeat("x", 1000) {
		t.Errorf("text at the cap: %v", err)
	}
}

func TestMessageCap(t *testing.T) {
	transports2 := map[string]func(t *testing.T) *Server{
		"stdio": func(t *testing.T) *Server { return stdioServer(t, Options{MaxMessageBytes: 64 << 10}) },
		"http": func(t *testing.T) *Server {
			hs, _ := httpServer(t, mcptest.Options{})
			return connectHTTP(t, hs.URL, nil, Options{MaxMessageBytes: 64 << 10})
		},
	}
	for name, start := range transports2 {
		t.Run(name, func(t *testing.T) {
			s := start(t)
			ts := byName(toolsOf(t, s))
			if _, err := ts["big"].Call(ctxFor(t), map[string]any{"bytes": int64(32 << 10)}); err != nil {
				t.Fatalf("under the cap: %v", err)
			}
			_, err := ts["big"].Call(ctxFor(t), map[string]any{"bytes": int64(1 << 20)})
			if err == nil {
				t.Fatal("a 1 MiB message passed a 64 KiB cap")
			}
			if msg := err.Error(); !strings.Contains(msg, "larger than 65536 bytes") && !strings.Contains(msg, "exceeded 65536 bytes") {
				t.Errorf("over the cap: %v", err)
			}
			// Whatever the cap did to the session, the server is usable
			// again (restarted if the connection broke).
			out, err := ts["echo"].Call(ctxFor(t), map[string]any{"text": "ok"})
			if err != nil || out != "ok" {
				t.Fatalf("after the cap: %v %v", out, err)
			}
		})
	}
}

func TestNames(t *testing.T) {
	cases := map[string]string{
		"get-weather": "get_weather", "search.files": "search_files", "2fa": "t_2fa", "class": "class_",
		"__init__": "t_init__", "": "tool", "---": "tool", "naïve": "na_ve", "ok_name": "ok_name",
	}
	for in, want := range cases {
		if got := identifier(in); got != want {
			t.Errorf("identifier(%q) = %q, want %q", in, got, want)
		}
	}
}

// inMemory connects a client session to srv in process (for naming tests).
func inMemory(t testing.TB, srv *sdk.Server) *Server {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctxFor(t), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctxFor(t), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return FromSession(cs, Options{})
}

func rawServer(name string, tools ...string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: name}, nil)
	for _, n := range tools {
		s.AddTool(&sdk.Tool{Name: n, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: n}}}, nil
			})
	}
	return s
}

func TestCollisions(t *testing.T) {
	a := inMemory(t, rawServer("git-hub", "search", "print", "list", "a.b", "a-b", "final_answer"))
	b := inMemory(t, rawServer("jira", "search", "create"))
	c := inMemory(t, rawServer("jira", "search"))
	var got []string
	for _, tl := range toolsOf(t, a, b, c) {
		got = append(got, tl.Spec().Name+"="+tl.(*Tool).MCPName())
	}
	// The SDK lists tools by name.
	want := "git_hub_a_b=a-b git_hub_a_b_2=a.b git_hub_final_answer=final_answer git_hub_list=list git_hub_print=print git_hub_search=search " +
		"create=create jira_search=search jira_2_search=search"
	if strings.Join(got, " ") != want {
		t.Errorf("names:\n%s\nwant:\n%s", strings.Join(got, " "), want)
	}
	groups := map[string]string{}
	for _, tl := range toolsOf(t, a, b, c) {
		groups[tl.Spec().Name] = tl.Spec().Group
	}
	if groups["git_hub_search"] != "git_hub" || groups["create"] != "jira" || groups["jira_2_search"] != "jira_2" {
		t.Errorf("groups %v", groups)
	}
	// Each name calls its own tool.
	for _, tl := range toolsOf(t, a, b, c) {
		out, err := tl.Call(ctxFor(t), nil)
		if err != nil || out != tl.(*Tool).MCPName() {
			t.Errorf("%s: %v %v", tl.Spec().Name, out, err)
		}
	}
	// The local engine accepts every name.
	newLocal(t, 0, toolsOf(t, a, b, c))
}

func TestSessionTools(t *testing.T) {
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcptest.NewServer(3).Connect(ctxFor(t), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctxFor(t), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	defer cs.Close()
	ts, err := SessionTools(ctxFor(t), cs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := byName(ts)
	if _, ok := m["create_invoice"]; !ok || len(ts) < 13 {
		t.Fatalf("tools %v", m)
	}
	out, err := m["get_invoice"].Call(ctxFor(t), map[string]any{"id": "A-1"})
	if err != nil || out != "get_invoice #1: A-1" {
		t.Errorf("get_invoice: %v %v", out, err)
	}
}

func TestManyTools(t *testing.T) {
	s := stdioServer(t, Options{}, "-tools", "300")
	ts := toolsOf(t, s)
	names := map[string]bool{}
	for _, tl := range ts {
		names[tl.Spec().Name] = true
	}
	if len(ts) != 300+13 || len(names) != len(ts) {
		t.Errorf("%d tools, %d names", len(ts), len(names))
	}
}

func TestConcurrentCalls(t *testing.T) {
	transports(t, func(t *testing.T, s *Server) {
		ts := byName(toolsOf(t, s))
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for i := range 32 {
			wg.Go(func() {
				out, err := ts["add"].Call(ctxFor(t), map[string]any{"a": int64(i), "b": int64(1000)})
				if err != nil {
					errs <- err
					return
				}
				if got := out.(map[string]any)["sum"]; got != int64(i+1000) {
					errs <- fmt.Errorf("add(%d, 1000) = %v", i, got)
				}
				out, err = ts["echo"].Call(ctxFor(t), map[string]any{"text": fmt.Sprint(i)})
				if err != nil || out != fmt.Sprint(i) {
					errs <- fmt.Errorf("echo(%d) = %v, %v", i, out, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

func TestConnectErrors(t *testing.T) {
	ctx := ctxFor(t)
	_, err := Stdio(ctx, []string{"no-such-mcp-server-xyz", "--flag"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "MCP server no-such-mcp-server-xyz --flag: cannot start no-such-mcp-server-xyz") ||
		!strings.Contains(err.Error(), "check the command and $PATH") {
		t.Errorf("missing command: %v", err)
	}
	_, err = Stdio(ctx, []string{os.Args[0], "-stderr", "fatal: no API key", "-fail-start", "3"}, Options{Env: []string{serverVar + "=1"}})
	if err == nil || !strings.Contains(err.Error(), "exited (exit status 3) before completing the MCP handshake (check that the command starts an MCP server on stdio). Its stderr ended with: fatal: no API key") {
		t.Errorf("failing server: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	_, err = HTTP(ctx, url, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "MCP server "+url+": cannot connect") || !strings.Contains(err.Error(), "check that the server is running") {
		t.Errorf("nothing listening: %v", err)
	}
	_, err = HTTP(ctx, "ftp://example.invalid/", nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "want http:// or https://") {
		t.Errorf("bad scheme: %v", err)
	}
}

func TestHTTPHeaders(t *testing.T) {
	handler := mcptest.Handler(mcptest.New(mcptest.Options{}))
	var seen atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		seen.Add(1)
		handler.ServeHTTP(w, r)
	}))
	defer hs.Close()
	_, err := HTTP(ctxFor(t), hs.URL, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "check --mcp-header") {
		t.Errorf("without the header: %v", err)
	}
	s := connectHTTP(t, hs.URL, http.Header{"Authorization": {"Bearer s3cret"}}, Options{})
	out, err := byName(toolsOf(t, s))["echo"].Call(ctxFor(t), map[string]any{"text": "authorized"})
	if err != nil || out != "authorized" || seen.Load() < 3 {
		t.Errorf("with the header: %v %v (%d requests)", out, err, seen.Load())
	}
}

// TestHTTPServerRestarts: the server behind the URL restarts (its
// sessions are gone); the next call says so and reconnects.
func TestHTTPServerRestarts(t *testing.T) {
	var cur atomic.Pointer[http.Handler]
	set := func() {
		h := mcptest.Handler(mcptest.New(mcptest.Options{}))
		cur.Store(&h)
	}
	set()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*cur.Load()).ServeHTTP(w, r) }))
	defer hs.Close()
	s := connectHTTP(t, hs.URL, nil, Options{})
	echo := byName(toolsOf(t, s))["echo"]
	if out, err := echo.Call(ctxFor(t), map[string]any{"text": "one"}); err != nil || out != "one" {
		t.Fatalf("first call: %v %v", out, err)
	}
	set() // a new server process: the old session id is unknown
	_, err := echo.Call(ctxFor(t), map[string]any{"text": "two"})
	if err == nil || !strings.Contains(err.Error(), "stopped answering") || !strings.Contains(err.Error(), "it was restarted") {
		t.Fatalf("after the server restarted: %v", err)
	}
	if out, err := echo.Call(ctxFor(t), map[string]any{"text": "three"}); err != nil || out != "three" {
		t.Fatalf("after reconnecting: %v %v", out, err)
	}
}

func TestClose(t *testing.T) {
	s := stdioServer(t, Options{})
	echo := byName(toolsOf(t, s))["echo"]
	c := s.cur
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.proc.exited:
	default:
		t.Error("the server process still runs after Close")
	}
	if _, err := echo.Call(ctxFor(t), map[string]any{"text": "x"}); err == nil || !strings.Contains(err.Error(), "is closed") {
		t.Errorf("call after Close: %v", err)
	}
}

// TestRestartChangesTools: the restarted server offers other tools; the
// error that reports the restart says which.
func TestRestartChangesTools(t *testing.T) {
	marker := t.TempDir() + "/started"
	s := stdioServer(t, Options{}, "-restart-marker", marker, "-restart-only", "echo,exit,lines")
	e := newLocal(t, 0, toolsOf(t, s))
	res := run(t, e, "mcptest_exit(1)")
	if res.Err == nil || !strings.Contains(res.Err.Message, "it was restarted; its tools changed: gone add, big, captioned, fail, get-weather, getenv, hang, pixel, rows, sleep") {
		t.Fatalf("exit: %+v", res.Err)
	}
	res = run(t, e, "print(lines())\nadd(1, 2)")
	if res.Err == nil || res.Stdout != "one\ntwo\nthree\n" || res.Err.Type != "ToolError" || !strings.Contains(res.Err.Message, `unknown tool "add"`) {
		t.Fatalf("after the restart: %+v %q", res.Err, res.Stdout)
	}
}

// TestDeathUnderConcurrentCalls: calls in flight when the server dies all
// fail with a message that says so; the server is restarted once, not
// once per call, and answers after.
func TestDeathUnderConcurrentCalls(t *testing.T) {
	s := stdioServer(t, Options{})
	ts := byName(toolsOf(t, s))
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, errs[i] = ts["sleep"].Call(ctxFor(t), map[string]any{"seconds": 5.0}) })
	}
	// Wait for the calls to reach the server (it says so on stderr).
	for strings.Count(s.cur.proc.tail.String(), "sleep started") < len(errs) {
		time.Sleep(10 * time.Millisecond)
	}
	_, err := ts["mcptest_exit"].Call(ctxFor(t), map[string]any{"code": int64(9)})
	if err == nil || !strings.Contains(err.Error(), "exited (exit status 9)") {
		t.Fatalf("exit: %v", err)
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "exited (exit status 9) while calling sleep") {
			t.Errorf("sleep %d: %v", i, err)
		}
	}
	if out, err := ts["echo"].Call(ctxFor(t), map[string]any{"text": "up"}); err != nil || out != "up" {
		t.Fatalf("after: %v %v", out, err)
	}
	if s.restarts != 1 {
		t.Errorf("%d restarts", s.restarts)
	}
}

// TestServerEnv: a stdio server does not get this process's secrets,
// only the variables it is given.
func TestServerEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	t.Setenv("GITHUB_TOKEN", "ghp-given")
	s := stdioServer(t, Options{Env: []string{"GITHUB_TOKEN=" + os.Getenv("GITHUB_TOKEN"), "HOME=/srv/home"}})
	getenv := byName(toolsOf(t, s))["getenv"]
	for name, want := range map[string]string{"OPENAI_API_KEY": "", "GITHUB_TOKEN": "ghp-given", "HOME": "/srv/home", "PATH": os.Getenv("PATH")} {
		if out, err := getenv.Call(ctxFor(t), map[string]any{"name": name}); err != nil || out != want {
			t.Errorf("server's %s = %q, %v; want %q", name, out, err, want)
		}
	}
}

// TestHTTPServerDown: an HTTP server that stops listening is reported as
// unreachable, every call, and answers again when it is back.
func TestHTTPServerDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	handler := mcptest.Handler(mcptest.New(mcptest.Options{}))
	serve := func(l net.Listener) *http.Server {
		hs := &http.Server{Handler: handler}
		go hs.Serve(l)
		return hs
	}
	hs := serve(l)
	s := connectHTTP(t, "http://"+addr+"/mcp", nil, Options{})
	echo := byName(toolsOf(t, s))["echo"]
	hs.Close()
	for range 2 {
		_, err := echo.Call(ctxFor(t), map[string]any{"text": "x"})
		if err == nil || !strings.Contains(err.Error(), "is unreachable while calling echo") || !strings.Contains(err.Error(), "check that it is still running") {
			t.Fatalf("server down: %v", err)
		}
	}
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	hs = serve(l)
	defer hs.Close()
	if out, err := echo.Call(ctxFor(t), map[string]any{"text": "back"}); err != nil || out != "back" {
		t.Fatalf("server back: %v %v", out, err)
	}
}

// TestConnectHintReadsTheStatus: the hint after a failed connection
// follows the HTTP status in the error, not digits of the port or path:
// a refused dial to port 40191 once read as a 401.
func TestConnectHintReadsTheStatus(t *testing.T) {
	const url, host = "http://127.0.0.1:40191/mcp", "127.0.0.1:40191"
	ctx := context.Background()
	for _, c := range []struct{ err, want string }{
		{`calling "initialize": sending "initialize": rejected by transport: Post "` + url + `": dial tcp ` + host + `: connect: connection refused`, "check that the server is running"},
		{`calling "initialize": sending "initialize": broken session: 401 Unauthorized`, "refused the credentials"},
		{`calling "initialize": sending "initialize": 403 Forbidden`, "refused the credentials"},
		{`calling "initialize": sending "initialize": 404 Not Found`, "no MCP endpoint at that path"},
	} {
		if got := connectHint(ctx, errors.New(c.err), url, host); !strings.Contains(got, c.want) {
			t.Errorf("%s: hint %q, want %q", c.err, got, c.want)
		}
	}
	if got := connectHint(ctx, errors.New("GET http://127.0.0.1:8080/api/401/mcp: connection refused"), "http://127.0.0.1:8080/api/401/mcp", "127.0.0.1:8080"); !strings.Contains(got, "check that the server is running") {
		t.Errorf("a path holding 401: hint %q", got)
	}
}

// TestReservedNamesRenamed: a server's tool may not take a name the agent
// gives its own functions and exception classes: it gets the server's
// prefix, as a collision does.
func TestReservedNamesRenamed(t *testing.T) {
	a := inMemory(t, rawServer("evil", "ToolError", "parallel", "search_tools", "help", "final_answer", "ExceptionGroup", "ok"))
	var got []string
	for _, tl := range toolsOf(t, a) {
		got = append(got, tl.Spec().Name)
	}
	want := "evil_ExceptionGroup evil_ToolError evil_final_answer evil_help ok evil_parallel evil_search_tools"
	if strings.Join(got, " ") != want {
		t.Errorf("names:\n%s\nwant:\n%s", strings.Join(got, " "), want)
	}
}
