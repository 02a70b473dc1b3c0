package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

// A hostile or careless server's tool list: what reaches the prompt is
// bounded.
func TestSpecLimits(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "hostile"}, nil)
	props := map[string]any{}
	for i := range 300 {
		props[fmt.Sprintf("opt%03d", i)] = map[string]any{"type": "string"}
	}
	big := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"mode": map[string]any{"type": "string", "enum": []any{"fast", "slow"}, "description": strings.Repeat("d", 5000)},
			"blob": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": props}},
		},
		"required": []any{"mode", "nonexistent"},
	}
	nop := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	}
	s.AddTool(&sdk.Tool{Name: strings.Repeat("n", 5000), Description: strings.Repeat("é", 10000), InputSchema: big}, nop)
	s.AddTool(&sdk.Tool{Name: strings.Repeat("n", 5000) + "2", InputSchema: map[string]any{"type": "object"}}, nop)
	ts := toolsOf(t, inMemory(t, s))
	if len(ts) != 2 {
		t.Fatalf("%d tools", len(ts))
	}
	spec := ts[0].Spec()
	// Both names cut to 64 bytes collide: prefixed with the server's name.
	if spec.Name != "hostile_"+strings.Repeat("n", 64) || utf8.RuneCountInString(spec.Description) > 1024 {
		t.Errorf("name of %d bytes, description of %d runes", len(spec.Name), utf8.RuneCountInString(spec.Description))
	}
	if other := ts[1].Spec().Name; other != spec.Name+"_2" {
		t.Errorf("names %q and %q", spec.Name, other)
	}
	// The required input that is not a property is ignored; mode is
	// required, blob optional.
	if len(spec.Inputs) != 2 || spec.Inputs[0].Name != "mode" || spec.Inputs[0].Nullable || spec.Inputs[1].Name != "blob" || !spec.Inputs[1].Nullable {
		t.Fatalf("inputs %+v", spec.Inputs)
	}
	for _, in := range spec.Inputs {
		b, _ := json.Marshal(in.Schema)
		if len(b) > 4096+600 || utf8.RuneCountInString(in.Description) > 512 {
			t.Errorf("input %s: schema of %d bytes, description of %d runes", in.Name, len(b), utf8.RuneCountInString(in.Description))
		}
	}
	// The abridged schemas keep what a stub shows: the enum, the items' type.
	if e := spec.Inputs[0].Schema["enum"]; fmt.Sprint(e) != "[fast slow]" {
		t.Errorf("mode schema %v", spec.Inputs[0].Schema)
	}
	if it := spec.Inputs[1].Schema["items"]; fmt.Sprint(it) != "map[type:object]" || !strings.Contains(spec.Inputs[1].Schema["description"].(string), "abridged") {
		t.Errorf("blob schema %v", spec.Inputs[1].Schema)
	}
}

func TestTooManyTools(t *testing.T) {
	defer func(n int) { maxTools = n }(maxTools)
	maxTools = 50
	_, err := Tools(ctxFor(t), inMemory(t, mcptest.NewServer(60)))
	if err == nil || !strings.Contains(err.Error(), "more than 50 tools") {
		t.Errorf("err %v", err)
	}
}

func TestStructuredResultCap(t *testing.T) {
	s := stdioServer(t, Options{MaxResultBytes: 10_000})
	rows := byName(toolsOf(t, s))["rows"]
	out, err := rows.Call(ctxFor(t), map[string]any{"n": int64(10)})
	if err != nil || len(out.(map[string]any)["rows"].([]any)) != 10 {
		t.Fatalf("10 rows: %v %v", out, err)
	}
	_, err = rows.Call(ctxFor(t), map[string]any{"n": int64(5000)})
	if err == nil || !strings.Contains(err.Error(), "structured result too large") || !strings.Contains(err.Error(), "the cap is 10000") {
		t.Errorf("5000 rows: %v", err)
	}
}

func TestImageCap(t *testing.T) {
	s := stdioServer(t, Options{MaxImageBytes: 50})
	out, err := byName(toolsOf(t, s))["pixel"].Call(ctxFor(t), nil)
	m, _ := out.(map[string]any)
	if err != nil || m["type"] != "image" || m["data"] != nil || !strings.Contains(fmt.Sprint(m["omitted"]), "over the 50-byte cap") {
		t.Errorf("capped image: %v %v", out, err)
	}
}

// A server that writes megabytes to stderr: only the tail is kept and
// shown.
func TestStderrFlood(t *testing.T) {
	_, err := Stdio(ctxFor(t), []string{testBinary(), "-stderr-flood", "5000000", "-stderr", "the real reason", "-fail-start", "1"}, Options{Env: []string{serverVar + "=1"}})
	if err == nil || !strings.HasSuffix(err.Error(), "| the real reason") || len(err.Error()) > 3000 {
		t.Errorf("err (%d bytes) ends %q", len(fmt.Sprint(err)), fmt.Sprint(err)[max(0, len(fmt.Sprint(err))-200):])
	}
}

// A streamable HTTP server answering with plain JSON bodies: those are
// capped too.
func TestHTTPJSONBodyCap(t *testing.T) {
	hs := httptestServer(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer(0) },
		&sdk.StreamableHTTPOptions{JSONResponse: true}))
	s := connectHTTP(t, hs.URL, nil, Options{MaxMessageBytes: 64 << 10})
	big := byName(toolsOf(t, s))["big"]
	if _, err := big.Call(ctxFor(t), map[string]any{"bytes": int64(1000)}); err != nil {
		t.Fatal(err)
	}
	_, err := big.Call(ctxFor(t), map[string]any{"bytes": int64(1 << 20)})
	if err == nil || !strings.Contains(err.Error(), "larger than 65536 bytes") {
		t.Errorf("over the cap: %v", err)
	}
}

func testBinary() string { return os.Args[0] }

func httptestServer(t testing.TB, h http.Handler) *httptest.Server {
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	return hs
}

// TestHeadersNotRedirected: the --mcp-header credentials go to the
// server's origin only, not to a host a redirect points to.
func TestHeadersNotRedirected(t *testing.T) {
	var leaked atomic.Value
	elsewhere := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization"))
		mcptest.Handler(mcptest.NewServer(0)).ServeHTTP(w, r)
	}))
	origin := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	s, err := HTTP(ctxFor(t), origin.URL, http.Header{"Authorization": {"Bearer s3cret"}}, Options{})
	if err == nil {
		s.Close()
	}
	if v, _ := leaked.Load().(string); v != "" || leaked.Load() == nil {
		t.Errorf("the redirect target got Authorization %q (reached: %v)", v, leaked.Load() != nil)
	}
}
