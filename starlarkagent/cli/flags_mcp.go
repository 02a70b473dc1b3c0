package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/starlarkagent/tool"
)

// mcpFlags are the flags that connect MCP servers.
type mcpFlags struct{}

func (f *mcpFlags) register(fl *pflag.FlagSet) {}

// open connects the servers and returns their tools.
func (f *mcpFlags) open(ctx context.Context, env ToolEnv) ([]tool.Tool, func() error, error) {
	return nil, nil, nil
}
