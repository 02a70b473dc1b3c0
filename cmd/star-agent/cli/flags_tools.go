package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/tool"
)

// ToolFlags are the flags that give the agent tools, shared by run, exec
// and serve: MCP servers (flags_mcp.go) and the default tools
// (flags_webtools.go).
type ToolFlags struct {
	mcp mcpFlags
	web webToolFlags
}

// ToolEnv is what tools may need from the command that opens them.
type ToolEnv struct {
	Logger *slog.Logger
	// Stdin and Stdout are the terminal of an interactive session (for
	// user_input); Stdin is nil when nobody can answer.
	Stdin  io.Reader
	Stdout io.Writer
}

// Register adds the flags to fl.
func (f *ToolFlags) Register(fl *pflag.FlagSet) {
	f.mcp.register(fl)
	f.web.register(fl)
}

// Open starts what the flags name (MCP servers are started and listed)
// and returns their tools, and a function that stops them. Its errors are
// usage errors or servers that failed to start.
func (f *ToolFlags) Open(ctx context.Context, env ToolEnv) ([]tool.Tool, func() error, error) {
	var tools []tool.Tool
	var closers []func() error
	closeAll := func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(errs...)
	}
	for _, open := range []func(context.Context, ToolEnv) ([]tool.Tool, func() error, error){f.mcp.open, f.web.open} {
		ts, c, err := open(ctx, env)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		tools = append(tools, ts...)
		if c != nil {
			closers = append(closers, c)
		}
	}
	return tools, closeAll, nil
}
