package mcptest

import (
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// ScriptHTTPServer is the testscript command "mcp-http-server [-header
// 'Name: value']": it serves the test server (no generated tools) over
// streamable HTTP on a loopback port and sets $MCP_URL to its endpoint.
// With -header, a request without that exact header gets 401, as a server
// that wants a token does. The server lives until the script ends.
func ScriptHTTPServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: mcp-http-server [-header 'Name: value']")
	}
	var name, value string
	if len(args) == 2 && args[0] == "-header" {
		k, v, ok := strings.Cut(args[1], ":")
		if !ok {
			ts.Fatalf("mcp-http-server: -header wants 'Name: value'")
		}
		name, value = strings.TrimSpace(k), strings.TrimSpace(v)
	} else if len(args) != 0 {
		ts.Fatalf("usage: mcp-http-server [-header 'Name: value']")
	}
	done := make(chan struct{})
	h := Handler(New(Options{Done: done}))
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcp" {
			http.NotFound(w, r)
			return
		}
		if name != "" && r.Header.Get(name) != value {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcptest"`)
			http.Error(w, "missing or wrong "+name, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	ts.Defer(func() {
		close(done)
		hs.CloseClientConnections()
		hs.Close()
	})
	ts.Setenv("MCP_URL", hs.URL+"/mcp")
}
