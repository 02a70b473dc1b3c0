package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/tool"
)

// Tool is an MCP server's tool as a star-agent tool.
type Tool struct {
	srv        *Server
	mcpName    string
	spec       tool.Spec
	structured bool // it declares an output schema
}

var _ tool.Tool = (*Tool)(nil)

// Spec implements tool.Tool.
func (t *Tool) Spec() tool.Spec { return t.spec }

// MCPName is the tool's name on its server.
func (t *Tool) MCPName() string { return t.mcpName }

// Server is the server the tool belongs to.
func (t *Tool) Server() *Server { return t.srv }

// Error is a tool call whose result had isError set: the tool ran and
// failed. Its text is the tool's own message, so that str(e) in the
// calling code is what the server said; the engines raise it as
// ToolError.
type Error struct {
	Server  string // the server's name
	Tool    string // the tool's MCP name
	Message string
}

func (e *Error) Error() string { return e.Message }

// Limits of what a tool's description and schemas add to a prompt.
const (
	maxDescription      = 1024 // runes of a tool's description
	maxInputDescription = 512  // runes of an input's description
	maxSchemaBytes      = 4096 // JSON bytes of one input's schema or the output schema
)

// Tools returns the tools of the servers, listed now, in server order then
// in each server's order. Spec.Group is the server's name (numbered if
// two servers have the same). A tool is named by its MCP name made a Python
// identifier; when two tools would get the same name (on different
// servers, or on one server after the name was made an identifier), or the
// name is a Python keyword, builtin or one of the agent's own functions,
// the tool is prefixed with its server's name ("github_search"), and
// numbered if that is still not enough.
func Tools(ctx context.Context, servers ...*Server) ([]tool.Tool, error) {
	type entry struct {
		srv  *Server
		t    *sdk.Tool
		base string
	}
	var all []entry
	count := map[string]int{}
	for _, s := range servers {
		ts, err := s.list(ctx)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			base := identifier(t.Name)
			all = append(all, entry{s, t, base})
			count[base]++
		}
	}
	// Server names, made distinct.
	prefix := map[*Server]string{}
	seenPrefix := map[string]int{}
	for _, s := range servers {
		n := s.Name()
		seenPrefix[n]++
		if k := seenPrefix[n]; k > 1 {
			n = fmt.Sprintf("%s_%d", n, k)
		}
		prefix[s] = n
	}
	taken := map[string]bool{}
	out := make([]tool.Tool, 0, len(all))
	for _, e := range all {
		name := e.base
		if count[name] > 1 || reserved(name) {
			name = prefix[e.srv] + "_" + name
		}
		for k := 2; taken[name]; k++ {
			name = fmt.Sprintf("%s_%s_%d", prefix[e.srv], e.base, k)
		}
		taken[name] = true
		t, err := newTool(e.srv, e.t, name, prefix[e.srv])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func newTool(s *Server, t *sdk.Tool, name, group string) (*Tool, error) {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if desc == "" && t.Annotations != nil {
		desc = t.Annotations.Title
	}
	spec := tool.Spec{Name: name, Description: trimRunes(strings.TrimSpace(desc), maxDescription), Output: tool.String, Group: group}
	in, _ := asMap(t.InputSchema)
	props, _ := in["properties"].(map[string]any)
	required := map[string]bool{}
	var order []string
	if rs, ok := in["required"].([]any); ok {
		for _, r := range rs {
			if r, ok := r.(string); ok && props[r] != nil && !required[r] {
				required[r] = true
				order = append(order, r)
			}
		}
	}
	// Required inputs first, in the schema's order; then the optional
	// ones by name (the SDK hands properties over as a map, and a Python
	// signature puts parameters with defaults last anyway).
	var optional []string
	for k := range props {
		if !required[k] {
			optional = append(optional, k)
		}
	}
	sort.Strings(optional)
	order = append(order, optional...)
	for _, k := range order {
		ps, _ := props[k].(map[string]any)
		typ, nullable := schemaType(ps)
		d, _ := ps["description"].(string)
		input := tool.Input{
			Name:        k,
			Type:        typ,
			Description: trimRunes(strings.TrimSpace(d), maxInputDescription),
			Nullable:    nullable || !required[k],
			Schema:      capSchema(ps),
		}
		spec.Inputs = append(spec.Inputs, input)
	}
	mt := &Tool{srv: s, mcpName: t.Name}
	if outSchema, ok := asMap(t.OutputSchema); ok && len(outSchema) > 0 {
		mt.structured = true
		typ, _ := schemaType(outSchema)
		if typ == tool.Any {
			typ = tool.Object // structured content is an object unless said otherwise
		}
		spec.Output = typ
		spec.OutputSchema = capSchema(outSchema)
	}
	mt.spec = spec
	return mt, nil
}

// Call implements tool.Tool.
func (t *Tool) Call(ctx context.Context, args map[string]any) (any, error) {
	clean := make(map[string]any, len(args))
	for k, v := range args {
		if v != nil { // an omitted optional argument
			clean[k] = v
		}
	}
	res, err := t.srv.call(ctx, t.mcpName, t.spec.Name, clean)
	if err != nil {
		return nil, err
	}
	return t.result(res)
}

// asMap returns a schema as a map, whatever form it came in.
func asMap(v any) (map[string]any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case map[string]any:
		return v, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}

// schemaType maps a JSON schema's type to a tool type: ["string", "null"]
// is a nullable string; several types, or none, are Any.
func schemaType(s map[string]any) (tool.Type, bool) {
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok {
				types = append(types, x)
			}
		}
	}
	nullable := slices.Contains(types, "null")
	types = slices.DeleteFunc(types, func(x string) bool { return x == "null" })
	if len(types) != 1 {
		if len(types) == 0 {
			if _, ok := s["properties"]; ok {
				return tool.Object, nullable
			}
			if _, ok := s["items"]; ok {
				return tool.Array, nullable
			}
		}
		return tool.Any, nullable
	}
	switch types[0] {
	case "string", "boolean", "integer", "number", "array", "object":
		return tool.Type(types[0]), nullable
	}
	return tool.Any, nullable
}

// capSchema returns the schema if its JSON is small enough for a prompt,
// else its outline: type, enum and items' type, with a description that
// says the rest was left out.
func capSchema(s map[string]any) map[string]any {
	if s == nil {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	if len(b) <= maxSchemaBytes {
		return s
	}
	out := map[string]any{}
	if t, ok := s["type"]; ok {
		out["type"] = t
	}
	if e, ok := s["enum"].([]any); ok && len(e) <= 50 {
		out["enum"] = e
	}
	if items, ok := s["items"].(map[string]any); ok {
		if t, ok := items["type"]; ok {
			out["items"] = map[string]any{"type": t}
		}
	}
	d, _ := s["description"].(string)
	out["description"] = strings.TrimSpace(trimRunes(d, maxInputDescription) + " (schema of " + fmt.Sprint(len(b)) + " bytes abridged)")
	return out
}

func trimRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
