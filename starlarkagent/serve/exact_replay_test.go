package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// countServer is an MCP server (streamable HTTP, loopback) with one tool,
// count, that returns how many times it has been called.
func countServer(t *testing.T) (url string, calls *atomic.Int64) {
	calls = new(atomic.Int64)
	s := sdk.NewServer(&sdk.Implementation{Name: "counter", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "count", Description: "Counts its calls."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			n := calls.Add(1)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(n)}}}, nil, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL, calls
}

// TestExactReplayAfterKill: step 1 draws a random number and calls a
// counting tool; the replica running the run is killed while step 2
// waits for the model; another replica replays step 1 (in a child
// process, --isolation process) and finishes with the same number, the
// tool called once in all.
func TestExactReplayAfterKill(t *testing.T) {
	db := startPostgres(t)
	mcpURL, calls := countServer(t)
	model := newPositionModel(t,
		"Thought: draw.\n<code>\nimport random\nx = random.random()\nc = count()\nprint('drew', x, c)\n</code>",
		"Thought: answer.\n<code>\nfinal_answer([x, c])\n</code>")
	asked := make(chan struct{}, 1)
	model.hold[1] = func(ctx context.Context, ask int) {
		if ask == 1 {
			asked <- struct{}{}
			<-ctx.Done() // the replica dies meanwhile
		}
	}
	flags := []string{"--isolation", "process", "--imports", "random", "--mcp-url", mcpURL + "/"}
	a := startReplica(t, "A", db, model, flags...)
	b := startReplica(t, "B", db, model, flags...)
	id := a.start("Draw.")
	select {
	case <-asked:
	case <-time.After(60 * time.Second):
		t.Fatal("step 2 never asked the model")
	}
	killed := time.Now()
	a.cmd.Process.Kill()
	r := b.waitFinal(id, 60*time.Second)
	t.Logf("kill -9 to the end of the run elsewhere: %s", time.Since(killed).Round(10*time.Millisecond))
	if r.State != StateSuccess {
		t.Fatalf("after kill -9: %+v", r)
	}
	var drew string
	for _, ev := range b.stream(id, "") {
		if ev.Type == "observation" {
			var o struct{ Text string }
			json.Unmarshal([]byte(ev.Data), &o)
			if i := strings.Index(o.Text, "drew "); i >= 0 {
				drew, _, _ = strings.Cut(o.Text[i+5:], "\n")
			}
		}
	}
	fields := strings.Fields(drew)
	if len(fields) != 2 {
		t.Fatalf("step 1 printed %q", drew)
	}
	out, _ := json.Marshal(r.Output)
	if want := fmt.Sprintf(`[%s,%q]`, fields[0], fields[1]); string(out) != want {
		t.Errorf("the resumed run answered %s; step 1 drew %s (the replay must compute the same)", out, want)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("count was called %d times, want once: step 1's call is answered from the record", n)
	}
	if n := model.times(0); n != 1 {
		t.Errorf("step 1's model call was asked %d times", n)
	}
}
