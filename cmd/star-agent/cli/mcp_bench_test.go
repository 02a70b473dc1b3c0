package cli

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// BenchmarkMCPRunPython is one run_python call over stdio, request to
// response, from a client on the official SDK: JSON-RPC both ways through
// pipes, the session looked up, the code run in the Starlark engine (in a
// child process, the default, or in star-agent's), the result encoded.
// "trivial" is 1 + 1; "typical" the 31-line action of the engine's
// benchmarks (runnertest.TypicalAction).
//
//	go test -run '^$' -bench MCPRunPython ./cmd/star-agent/cli/
func BenchmarkMCPRunPython(b *testing.B) {
	for _, iso := range []string{"process", "none"} {
		for _, c := range []struct{ name, code string }{
			{"trivial", "1 + 1"},
			{"typical", runnertest.TypicalAction},
		} {
			b.Run("isolation="+iso+"/"+c.name, func(b *testing.B) {
				cs, done := startMCPB(b, "--isolation", iso)
				args := &sdk.CallToolParams{Name: "run_python", Arguments: map[string]any{"code": c.code}}
				ctx := context.Background()
				if res, err := cs.CallTool(ctx, args); err != nil || res.IsError {
					b.Fatalf("%v %v", err, res)
				}
				for b.Loop() {
					res, err := cs.CallTool(ctx, args)
					if err != nil || res.IsError {
						b.Fatalf("%v %v", err, res)
					}
				}
				b.StopTimer()
				cs.Close()
				<-done
			})
		}
	}
}
