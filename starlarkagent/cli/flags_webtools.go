package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/starlarkagent/tool"
)

// webToolFlags are the flags that choose the default tools (--tools).
type webToolFlags struct{}

func (f *webToolFlags) register(fl *pflag.FlagSet) {}

// open builds the tools the flags name.
func (f *webToolFlags) open(ctx context.Context, env ToolEnv) ([]tool.Tool, func() error, error) {
	return nil, nil, nil
}
