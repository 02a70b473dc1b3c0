package prompts

import (
	"fmt"
	"strings"

	"github.com/star-agent/star-agent/starlarkagent/tool"
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
// docstring with the description and one line per argument.
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
	b.WriteString("\n    \"\"\"")
	return b.String()
}

func reprish(v any) string {
	switch v := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(v, "'", "\\'") + "'"
	case nil:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	}
	return fmt.Sprint(v)
}
