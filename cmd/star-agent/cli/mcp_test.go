package cli

// star-agent mcp against a client on the official MCP Go SDK, over stdio
// (in process, through pipes) and over streamable HTTP on loopback.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

// startMCP runs "star-agent mcp args..." in this process, as a goroutine,
// and returns a client session on the official SDK connected to it over
// stdio pipes, and a channel that gets the command's error when it ends.
func startMCP(t *testing.T, args ...string) (*sdk.ClientSession, <-chan error) {
	cs, done, _ := startMCPPipes(t, args...)
	return cs, done
}

func startMCPB(b *testing.B, args ...string) (*sdk.ClientSession, <-chan error) {
	cs, done, _ := startMCPPipes(b, args...)
	return cs, done
}

// startMCPPipes is startMCP, and also returns hangUp, which closes the
// client's end of star-agent's standard input, as a client process that
// dies does.
func startMCPPipes(t testing.TB, args ...string) (cs *sdk.ClientSession, done <-chan error, hangUp func()) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	root := NewRootCommand(Config{}, inR, outW, &stderr)
	root.SetArgs(append([]string{"mcp"}, args...))
	ended := make(chan error, 1)
	go func() {
		err := root.Execute()
		outW.Close()
		ended <- err
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, stderr.String())
	}
	return cs, ended, func() { inW.Close() }
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured is the structured content of res, decoded.
func structured(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
	return m
}

// children counts the processes whose parent is this one.
func children(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	self := strconv.Itoa(os.Getpid())
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == self {
			n++
		}
	}
	return n
}

func TestMCPServerSDKClient(t *testing.T) {
	hs := mcptest.ServeHTTP(mcptest.New(mcptest.Options{}))
	defer hs.Close()
	before := children(t)
	cs, done, hangUp := startMCPPipes(t, "--mcp-url", hs.URL, "--exec-timeout", "60s")

	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var desc string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Name == "run_python" {
			desc = tl.Description
		}
	}
	if strings.Join(names, ",") != "reset,run_python" {
		t.Errorf("tools %v: want reset and run_python (run_agent only with a model)", names)
	}
	if !strings.Contains(desc, "def get_weather(city: str, units: str | None = None) -> dict:") {
		t.Errorf("run_python's description does not show the stub of get_weather:\n%s", desc)
	}

	// State across calls, and the value's JSON form as structured content.
	call(t, cs, "run_python", map[string]any{"code": "w = get_weather('Paris')"})
	res := call(t, cs, "run_python", map[string]any{"code": "print(w['city'])\n(w['temp'], add(2, 40)['sum'])"})
	if res.IsError || text(res) != "Paris\nOut: (21.5, 42)" {
		t.Errorf("got %q (error %v)", text(res), res.IsError)
	}
	if got, _ := json.Marshal(structured(t, res)["value"]); string(got) != `{"$tuple":[21.5,42]}` {
		t.Errorf("structured value %s", got)
	}
	// Each session argument has its own variables.
	if res := call(t, cs, "run_python", map[string]any{"code": "w", "session": "b"}); !res.IsError || !strings.Contains(text(res), "NameError") {
		t.Errorf("session b sees w: %q", text(res))
	}
	if children(t) <= before {
		t.Errorf("no engine child process while sessions live (--isolation process)")
	}

	// A client that dies while its code runs (its end of the pipe closes; the SDK's
	// Close would wait for the call) leaves nothing running.
	go cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_python", Arguments: map[string]any{"code": "while True:\n    pass"}})
	time.Sleep(300 * time.Millisecond)
	hangUp()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("mcp: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("star-agent mcp still runs 10 s after its client left (the loop may run for 60 s)")
	}
	if n := children(t); n != before {
		t.Errorf("%d child processes left after the client left, want %d", n, before)
	}
}

func TestMCPServerHTTP(t *testing.T) {
	dir := t.TempDir()
	addrFile := filepath.Join(dir, "addr")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	root := NewRootCommand(Config{}, strings.NewReader(""), io.Discard, &stderr)
	root.SetArgs([]string{"mcp", "--addr", "127.0.0.1:0", "--addr-file", addrFile, "--token", "tok-1"})
	before := children(t)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no address after 30 s; stderr: %s", stderr.String())
		}
		b, _ := os.ReadFile(addrFile)
		addr = strings.TrimSpace(string(b))
	}
	endpoint := "http://" + addr + "/mcp"
	connect := func(token string) (*sdk.ClientSession, error) {
		hc := &http.Client{Transport: headerTransport{token: token}}
		client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		defer ccancel()
		return client.Connect(cctx, &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, nil)
	}

	if _, err := connect(""); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("without the token: %v, want Unauthorized", err)
	}
	if _, err := connect("wrong"); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("with a wrong token: %v, want Unauthorized", err)
	}
	a, err := connect("tok-1")
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	b, err := connect("tok-1")
	if err != nil {
		t.Fatal(err)
	}
	// Each MCP session has its own variables.
	call(t, a, "run_python", map[string]any{"code": "x = 'from a'"})
	if res := call(t, a, "run_python", map[string]any{"code": "x"}); text(res) != "Out: 'from a'" {
		t.Errorf("session a: %q", text(res))
	}
	if res := call(t, b, "run_python", map[string]any{"code": "x"}); !res.IsError {
		t.Errorf("session b sees a's x: %q", text(res))
	}
	// Each session's engine is a child process, closed with its MCP
	// session (the client's Close sends DELETE).
	waitChildren(t, before+2)
	a.Close()
	waitChildren(t, before+1)
	b.Close()
	waitChildren(t, before)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("mcp: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("star-agent mcp still serves 30 s after it was stopped")
	}
}

// TestMCPServerSessionLimit checks --max-sessions: a session past it is
// refused with a result that says what to do, and reset frees a place.
func TestMCPServerSessionLimit(t *testing.T) {
	cs, done := startMCP(t, "--max-sessions", "2", "--isolation", "none")
	call(t, cs, "run_python", map[string]any{"code": "1"})
	call(t, cs, "run_python", map[string]any{"code": "1", "session": "two"})
	res := call(t, cs, "run_python", map[string]any{"code": "1", "session": "three"})
	if !res.IsError || !strings.Contains(text(res), "--max-sessions") {
		t.Errorf("third session: %q (error %v), want refused", text(res), res.IsError)
	}
	call(t, cs, "reset", map[string]any{"session": "two"})
	if res := call(t, cs, "run_python", map[string]any{"code": "3", "session": "three"}); res.IsError {
		t.Errorf("after a reset: %q", text(res))
	}
	cs.Close()
	<-done
}

// TestMCPServerIdleSessions checks --session-idle: a session unused for
// that long is closed and its variables forgotten.
func TestMCPServerIdleSessions(t *testing.T) {
	cs, done := startMCP(t, "--session-idle", "200ms", "--isolation", "none")
	call(t, cs, "run_python", map[string]any{"code": "x = 1"})
	time.Sleep(time.Second)
	if res := call(t, cs, "run_python", map[string]any{"code": "x"}); !res.IsError || !strings.Contains(text(res), "NameError") {
		t.Errorf("after the idle time: %q, want x forgotten", text(res))
	}
	cs.Close()
	<-done
}

// waitChildren waits until this process has n children.
func waitChildren(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); children(t) != n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d child processes after 10 s, want %d", children(t), n)
		}
	}
}

type headerTransport struct{ token string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+h.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}
