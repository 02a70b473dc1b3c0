package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// hostileVar makes the test binary a hand-written stdio MCP server whose
// tools answer what the SDK would never send.
const hostileVar = "STAR_AGENT_MCP_HOSTILE"

// hostileServer speaks JSON-RPC over stdin and stdout by hand.
func hostileServer() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	reply := func(id json.RawMessage, result string) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
		out.Flush()
	}
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name            string `json:"name"`
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		switch req.Method {
		case "initialize":
			reply(req.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}`, req.Params.ProtocolVersion))
		case "tools/list":
			reply(req.ID, `{"tools":[
				{"name":"deep","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}},
				{"name":"garbage","inputSchema":{"type":"object"}},
				{"name":"wrong_id","inputSchema":{"type":"object"}},
				{"name":"bad_utf8","inputSchema":{"type":"object"}},
				{"name":"weird_types","inputSchema":{"type":"object","properties":{"x":{"type":42},"y":{"type":["integer","string"]},"z":"not a schema"},"required":[7,"y"]}},
				{"name":"echo","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			switch req.Params.Name {
			case "deep":
				reply(req.ID, `{"content":[],"structuredContent":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`}`)
			case "garbage":
				fmt.Fprintln(out, "this is not JSON {{{")
				out.Flush()
			case "wrong_id":
				reply(json.RawMessage(`987654321`), `{"content":[{"type":"text","text":"for nobody"}]}`)
			case "bad_utf8":
				reply(req.ID, "{\"content\":[{\"type\":\"text\",\"text\":\"a\xff\xfeb\"}]}")
			default:
				reply(req.ID, `{"content":[{"type":"text","text":"ok"}]}`)
			}
		default:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`+"\n", req.ID)
			out.Flush()
		}
	}
	return 0
}

func hostile(t *testing.T) *Server {
	t.Helper()
	s, err := Stdio(ctxFor(t), []string{os.Args[0]}, Options{Env: []string{hostileVar + "=1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestHostileServer: what a broken or hostile server sends ends in an
// error for the code (or a well-formed value), never in a crash or a
// call that outlives its deadline.
func TestHostileServer(t *testing.T) {
	s := hostile(t)
	ts := byName(toolsOf(t, s))
	// Schema types that are not types are Any; a required entry that
	// is not a name is ignored.
	if w := ts["weird_types"].Spec(); len(w.Inputs) != 3 || w.Inputs[0].Name != "y" || w.Inputs[0].Nullable || w.Inputs[0].Type != "any" || w.Inputs[1].Type != "any" {
		t.Errorf("weird_types: %+v", w.Inputs)
	}
	call := func(name string) (any, error) {
		timeout := time.Minute
		if name == "wrong_id" {
			timeout = time.Second // the answer never comes
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		return ts[name].Call(ctx, nil)
	}
	out, err := call("bad_utf8")
	if err != nil || !strings.HasPrefix(fmt.Sprint(out), "a") || !strings.HasSuffix(fmt.Sprint(out), "b") {
		t.Errorf("bad_utf8: %q %v", out, err)
	}
	_, err = call("wrong_id")
	if err == nil || !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("wrong_id: %v", err)
	}
	_, err = call("deep")
	if err == nil || !strings.Contains(err.Error(), "sent a message that could not be read") || !strings.Contains(err.Error(), "max depth") {
		t.Errorf("deep: %v", err)
	}
	// The session broke (a message the SDK cannot decode) and the server
	// was restarted: echo works again.
	if out, err := call("echo"); err != nil || out != "ok" {
		t.Fatalf("echo after deep: %v %v", out, err)
	}
	_, err = call("garbage")
	if err == nil || !strings.Contains(err.Error(), "sent a message that could not be read (calling \"tools/call\": invalid character") {
		t.Errorf("garbage: %v", err)
	}
}
