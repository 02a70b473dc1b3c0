package prompts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// pyTypes maps tool types to the Python annotations a model knows best.
var pyTypes = map[tool.Type]string{
	tool.String:  "str",
	tool.Boolean: "bool",
	tool.Integer: "int",
	tool.Number:  "float",
	tool.Array:   "list",
	tool.Object:  "dict",
	tool.Any:     "Any",
	tool.Null:    "None",
	tool.Image:   "Image",
	tool.Audio:   "Audio",
}

func pyType(t tool.Type) string {
	if p, ok := pyTypes[t]; ok {
		return p
	}
	return "Any"
}

// Stub renders a tool as the Python function stub the model reads: its
// signature with type annotations (optional inputs default to None) and a
// docstring with the description, one line per argument and, when the
// tool declares an output schema, the fields of what it returns.
func Stub(spec tool.Spec) string {
	var b strings.Builder
	b.WriteString("def ")
	b.WriteString(spec.Name)
	b.WriteByte('(')
	for i, in := range spec.Inputs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(in.Name)
		b.WriteString(": ")
		b.WriteString(pyType(in.Type))
		if in.Nullable {
			b.WriteString(" | None = None")
		}
	}
	b.WriteString(") -> ")
	out := spec.Output
	if out == "" {
		out = tool.Any
	}
	b.WriteString(pyType(out))
	b.WriteString(":\n    \"\"\"")
	b.WriteString(strings.ReplaceAll(strings.TrimSpace(spec.Description), "\n", "\n    "))
	if len(spec.Inputs) > 0 {
		b.WriteString("\n\n    Args:")
		for _, in := range spec.Inputs {
			b.WriteString("\n        ")
			b.WriteString(in.Name)
			b.WriteString(": ")
			b.WriteString(strings.ReplaceAll(strings.TrimSpace(in.Description), "\n", " "))
			if len(in.Schema) > 0 {
				if enum, ok := in.Schema["enum"].([]any); ok {
					b.WriteString(" One of: ")
					for i, e := range enum {
						if i > 0 {
							b.WriteString(", ")
						}
						b.WriteString(reprish(e))
					}
					b.WriteByte('.')
				}
			}
		}
	}
	returns(&b, spec.OutputSchema)
	b.WriteString("\n    \"\"\"")
	return b.String()
}

// returns documents the fields of an output schema: the properties of an
// object, or of the objects of an array, one line each (nested objects are
// named, not expanded).
func returns(b *strings.Builder, schema map[string]any) {
	if len(schema) == 0 {
		return
	}
	what := "A dict"
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		items, _ := schema["items"].(map[string]any)
		if items == nil {
			return
		}
		props, _ = items["properties"].(map[string]any)
		what = "A list of dicts"
	}
	if len(props) == 0 {
		return
	}
	required := map[string]bool{}
	for _, r := range asList(schema["required"]) {
		if s, ok := r.(string); ok {
			required[s] = true
		}
	}
	b.WriteString("\n\n    Returns:\n        ")
	b.WriteString(what)
	b.WriteString(" with these keys:")
	for _, k := range propertyOrder(schema, props) {
		p, _ := props[k].(map[string]any)
		b.WriteString("\n            ")
		b.WriteString(k)
		b.WriteString(" (")
		b.WriteString(schemaPyType(p))
		b.WriteString(")")
		if d, _ := p["description"].(string); strings.TrimSpace(d) != "" {
			b.WriteString(": ")
			b.WriteString(strings.ReplaceAll(strings.TrimSpace(d), "\n", " "))
		}
	}
}

// propertyOrder lists the properties in the schema's declared order
// (jsonschema-go's propertyOrder) when it has one, else sorted.
func propertyOrder(schema, props map[string]any) []string {
	var keys []string
	seen := map[string]bool{}
	for _, k := range asList(schema["propertyOrder"]) {
		if s, ok := k.(string); ok && props[s] != nil && !seen[s] {
			keys = append(keys, s)
			seen[s] = true
		}
	}
	var rest []string
	for k := range props {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

func asList(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	}
	return nil
}

// schemaPyType names the Python type of a JSON schema.
func schemaPyType(p map[string]any) string {
	t, _ := p["type"].(string)
	if t == "" {
		for _, x := range asList(p["type"]) {
			if s, ok := x.(string); ok && s != "null" {
				t = s
				break
			}
		}
	}
	if t == "" {
		return "Any"
	}
	py := pyType(tool.Type(t))
	if t == "array" {
		if items, ok := p["items"].(map[string]any); ok {
			if it := schemaPyType(items); it != "Any" {
				py = "list[" + it + "]"
			}
		}
	}
	return py
}

// reprish writes a JSON value of a schema or a request (an enum member,
// a query) as Python source: strings, None and booleans as repr() does;
// numbers as fmt prints them, since a schema's integers decode as float64
// and should read 3, not 3.0.
func reprish(v any) string {
	switch v.(type) {
	case string, nil, bool:
		return pyvalue.Repr(v)
	}
	return fmt.Sprint(v)
}
