package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/tool"
	"github.com/star-agent/star-agent/tools/web"
)

// webToolFlags are the flags that choose the default tools (--tools).
type webToolFlags struct {
	names        []string
	allowPrivate bool
}

func (f *webToolFlags) register(fl *pflag.FlagSet) {
	fl.StringSliceVar(&f.names, "tools", nil,
		"give the agent default tools, by `NAMES` (comma-separated): "+strings.Join(web.Names(), ", ")+
			". web_search uses DuckDuckGo, or Brave Search when BRAVE_API_KEY is set; user_input asks on the terminal "+
			"and needs the task as an argument. The web tools reach public addresses only: loopback, private, link-local, "+
			"metadata (169.254.169.254) and other non-public addresses are refused, also through redirects and DNS answers")
	fl.BoolVar(&f.allowPrivate, "allow-private-urls", false,
		"let the --tools web tools reach loopback, private, link-local and cloud metadata addresses (off by default: "+
			"a model that can be talked into fetching a URL could otherwise read this machine's network)")
}

// open builds the tools the flags name.
func (f *webToolFlags) open(ctx context.Context, env ToolEnv) ([]tool.Tool, func() error, error) {
	var names []string
	for _, n := range f.names {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, nil, nil
	}
	opts := web.Options{
		AllowPrivate: f.allowPrivate,
		BraveAPIKey:  os.Getenv("BRAVE_API_KEY"),
		Stdin:        env.Stdin,
		Stdout:       env.Stdout,
		Logger:       env.Logger,
	}
	tools, err := web.Tools(names, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("--tools: %w", err)
	}
	return tools, nil, nil
}
