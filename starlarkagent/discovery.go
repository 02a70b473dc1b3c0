package starlarkagent

import (
	"context"
	"fmt"

	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/tool"
)

// Discovery at scale: an agent with more tools than
// Options.ToolDiscoveryThreshold lists them in its system prompt instead
// of showing their stubs, and gives its code two more tools to read the
// stubs it needs. Being tools, they work in every executor: the Starlark
// engine binds them as builtins and the Python sandboxes bridge them.

const (
	searchToolsName = "search_tools"
	helpName        = "help"
)

var searchToolSpec = tool.Spec{
	Name: searchToolsName,
	Description: "Finds the tools whose name or description match the query and returns their stubs " +
		"(signature and docstring) as text, best first. The score counts the words of the query " +
		"found in a tool's name (3 each) or in its description and arguments (1 each).",
	Inputs: []tool.Input{
		{Name: "query", Type: tool.String, Description: "Words for what the tool should do, or its name, e.g. 'weather forecast'."},
		{Name: "limit", Type: tool.Integer, Nullable: true, Description: fmt.Sprintf("How many tools to return at most (default %d).", prompts.DefaultSearchLimit)},
	},
	Output: tool.String,
}

// searchTool is search_tools(query, limit=None).
type searchTool struct{ specs []tool.Spec }

func (searchTool) Spec() tool.Spec { return searchToolSpec }

func (s searchTool) Call(_ context.Context, args map[string]any) (any, error) {
	query, _ := args["query"].(string)
	limit, _ := args["limit"].(int64)
	if limit < 0 || limit > 50 {
		return nil, fmt.Errorf("search_tools(): limit must be between 1 and 50, got %d", limit)
	}
	return prompts.SearchText(query, prompts.Search(s.specs, query, int(limit)), len(s.specs)), nil
}

var helpSpec = tool.Spec{
	Name:        helpName,
	Description: "Prints the stub (signature and docstring) of one tool.",
	Inputs: []tool.Input{
		{Name: "tool", Type: tool.Any, Description: "The tool itself, e.g. help(web_search), or its name, e.g. help('web_search')."},
	},
	Output: tool.Null,
}

// helpTool is help(tool): it prints the tool's stub where the executor
// lets tools print, and returns it otherwise.
type helpTool struct {
	byName map[string]tool.Spec
}

func newHelpTool(specs []tool.Spec) helpTool {
	h := helpTool{byName: make(map[string]tool.Spec, len(specs))}
	for _, s := range specs {
		h.byName[s.Name] = s
	}
	return h
}

func (helpTool) Spec() tool.Spec { return helpSpec }

func (h helpTool) Call(ctx context.Context, args map[string]any) (any, error) {
	name, ok := args["tool"].(string)
	if !ok {
		return nil, fmt.Errorf("help() takes a tool or the name of a tool, not %s", tool.TypeOf(args["tool"]))
	}
	spec, ok := h.byName[name]
	if !ok {
		return nil, fmt.Errorf("there is no tool named %q; search_tools(%q) finds tools by the words of their names and descriptions", name, name)
	}
	text := prompts.Stub(spec) + "\n"
	if tool.Print(ctx, text) {
		return nil, nil
	}
	return text, nil
}

// DiscoveryTools returns search_tools(query, limit=None) and help(tool)
// over the given tools, the two tools an agent in discovery mode gives its
// code, for programs that offer tools to code without an agent (star-agent
// mcp's run_python).
func DiscoveryTools(tools []tool.Tool) []tool.Tool {
	specs := make([]tool.Spec, len(tools))
	for i, t := range tools {
		specs[i] = t.Spec()
	}
	return []tool.Tool{searchTool{specs: specs}, newHelpTool(append(specs, searchToolSpec, helpSpec))}
}
