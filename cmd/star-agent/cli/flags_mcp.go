package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/tool"
	"github.com/star-agent/star-agent/tools/mcp"
)

// mcpFlags are the flags that connect MCP servers.
type mcpFlags struct {
	commands []string
	urls     []string
	headers  []string
	env      []string
}

func (f *mcpFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.commands, "mcp", nil, "MCP server to start and speak to over stdio, one `COMMAND` line: "+
		"--mcp 'npx -y @modelcontextprotocol/server-everything'. Split into words like a shell would (quotes and backslashes), "+
		"but not run by one: no variables, pipes or ~. Its tools become functions the code calls; repeatable")
	fl.StringArrayVar(&f.env, "mcp-env", nil, "environment variable for --mcp servers, which otherwise get only HOME, PATH, USER, locale, "+
		"temporary-directory and proxy variables, not star-agent's API keys: `NAME` passes star-agent's value, NAME=VALUE sets one; repeatable")
	fl.StringArrayVar(&f.urls, "mcp-url", nil, "MCP server to connect to over streamable HTTP at `URL`, e.g. http://127.0.0.1:8000/mcp; repeatable")
	fl.StringArrayVar(&f.headers, "mcp-header", nil, "HTTP `HEADER` sent to every --mcp-url server, 'Name: value', "+
		"e.g. 'Authorization: Bearer TOKEN'; repeatable")
}

// mcpConnectTimeout bounds starting a server and listing its tools.
const mcpConnectTimeout = 60 * time.Second

// open connects the servers and returns their tools.
func (f *mcpFlags) open(ctx context.Context, env ToolEnv) ([]tool.Tool, func() error, error) {
	if len(f.headers) > 0 && len(f.urls) == 0 {
		return nil, nil, usageError("--mcp-header is for --mcp-url servers, and none is given")
	}
	if len(f.env) > 0 && len(f.commands) == 0 {
		return nil, nil, usageError("--mcp-env is for --mcp servers, and none is given")
	}
	if len(f.commands) == 0 && len(f.urls) == 0 {
		return nil, nil, nil
	}
	var extraEnv []string
	for _, e := range f.env {
		name, _, hasValue := strings.Cut(e, "=")
		if name == "" || strings.ContainsAny(name, " \t") {
			return nil, nil, usageError("--mcp-env %q: want NAME or NAME=VALUE", e)
		}
		if !hasValue {
			v, ok := os.LookupEnv(name)
			if !ok {
				return nil, nil, usageError("--mcp-env %s: star-agent's environment has no %s to pass on", name, name)
			}
			e = name + "=" + v
		}
		extraEnv = append(extraEnv, e)
	}
	var argvs [][]string
	for _, c := range f.commands {
		argv, err := mcp.SplitCommand(c)
		if err != nil {
			return nil, nil, usageError("--mcp: %v", err)
		}
		if len(argv) == 0 {
			return nil, nil, usageError("--mcp: empty command")
		}
		argvs = append(argvs, argv)
	}
	header := http.Header{}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, nil, usageError("--mcp-header %q: want 'Name: value', e.g. 'Authorization: Bearer TOKEN'", h)
		}
		header.Add(k, v)
	}
	for _, u := range f.urls {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, nil, usageError("--mcp-url %q: want an http:// or https:// URL", u)
		}
	}

	opts := mcp.Options{Logger: env.Logger, Env: extraEnv}
	cctx, cancel := context.WithTimeout(ctx, mcpConnectTimeout)
	defer cancel()
	// Servers start in parallel: npx and uvx servers take seconds each.
	n := len(argvs) + len(f.urls)
	servers := make([]*mcp.Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, argv := range argvs {
		wg.Go(func() { servers[i], errs[i] = mcp.Stdio(cctx, argv, opts) })
	}
	for j, u := range f.urls {
		i := len(argvs) + j
		wg.Go(func() { servers[i], errs[i] = mcp.HTTP(cctx, u, header, opts) })
	}
	wg.Wait()
	closeAll := func() error {
		var cerrs []error
		for _, s := range servers {
			if s != nil {
				cerrs = append(cerrs, s.Close())
			}
		}
		return errors.Join(cerrs...)
	}
	if err := errors.Join(errs...); err != nil {
		closeAll()
		return nil, nil, err
	}
	tools, err := mcp.Tools(cctx, servers...)
	if err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("%w (while listing tools)", err)
	}
	return tools, closeAll, nil
}
