package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

// benchEcho measures one call of the echo tool through tool.Tool.Call,
// sequentially and from parallel goroutines.
func benchEcho(b *testing.B, s *Server) {
	echo := byName(toolsOf(b, s))["echo"]
	args := map[string]any{"text": "hello"}
	ctx := ctxFor(b)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if out, err := echo.Call(ctx, args); err != nil || out != "hello" {
				b.Fatal(out, err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if out, err := echo.Call(ctx, args); err != nil || out != "hello" {
					b.Error(out, err)
					return
				}
			}
		})
	})
}

// BenchmarkMCPCallStdio: a trivial tool over stdio (a subprocess).
func BenchmarkMCPCallStdio(b *testing.B) {
	benchEcho(b, stdioServer(b, Options{}))
}

// BenchmarkMCPCallHTTP: a trivial tool over streamable HTTP on loopback.
func BenchmarkMCPCallHTTP(b *testing.B) {
	hs, stop := httpServer(b, mcptest.Options{})
	s := connectHTTP(b, hs.URL, nil, Options{})
	b.Cleanup(stop)
	benchEcho(b, s)
}

// BenchmarkMCPCallInMemory: the SDK's own cost, without a transport.
func BenchmarkMCPCallInMemory(b *testing.B) {
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcptest.NewServer(0).Connect(ctxFor(b), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(ctxFor(b), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close(); ss.Wait() })
	benchEcho(b, FromSession(cs, Options{}))
}

// BenchmarkMCPCallFromStarlark: the call as model code makes it, through
// the local engine, over stdio.
func BenchmarkMCPCallFromStarlark(b *testing.B) {
	e := newLocal(b, 0, toolsOf(b, stdioServer(b, Options{})))
	for b.Loop() {
		if res := run(b, e, "echo('hello')"); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}
