// Package tool defines the Tool interface shared by agents and executors.
//
// A tool is a Go capability (a search, a database query, a managed agent)
// that model-written code calls like a Python function. Arguments and results
// cross the boundary as JSON-shaped Go values (nil, bool, int64, float64,
// string, []any, map[string]any) so that every executor, local or remote,
// can carry them. This package depends on nothing else in star-agent, so both
// the agent (starlarkagent) and the executors can import it.
package tool

import (
	"context"
	"fmt"
	"io"
)

// Type is the type of a tool input or output, named as smolagents names them.
type Type string

// The types a tool input or output may have.
const (
	String  Type = "string"
	Boolean Type = "boolean"
	Integer Type = "integer"
	Number  Type = "number"
	Array   Type = "array"
	Object  Type = "object"
	Any     Type = "any"
	Null    Type = "null"
	Image   Type = "image"
	Audio   Type = "audio"
)

// Input describes one parameter of a tool, in call order.
type Input struct {
	Name        string
	Type        Type
	Description string
	// Nullable inputs may be omitted or None; they are optional arguments.
	Nullable bool
	// Schema optionally refines Type with a JSON schema (items, properties, enum).
	Schema map[string]any
}

// Spec is what a model and an executor need to know about a tool.
type Spec struct {
	Name        string
	Description string
	Inputs      []Input
	Output      Type
	// OutputSchema optionally describes the structure of the output
	// (for an Object, its properties); the stub the model reads documents
	// its fields.
	OutputSchema map[string]any
	// Group names where the tool comes from, such as an MCP server's name.
	// When an agent has too many tools to list in full, it lists them by
	// group. Empty means the agent's own tools.
	Group string
	// RequiresApproval makes every call of the tool wait until an
	// operator approves it (the agent's approver decides); a call that
	// is denied fails with the operator's reason.
	RequiresApproval bool
}

// Tool is a capability that model-written code can call.
//
// Call receives the arguments by input name, already bound from positional
// and keyword arguments and checked against Spec by the caller (see Bind).
// An error returned by Call becomes an exception in the calling code, which
// the code may catch.
type Tool interface {
	Spec() Spec
	Call(ctx context.Context, args map[string]any) (any, error)
}

// Bind maps positional and keyword arguments onto the inputs of spec and
// checks that every required input is present and no unknown one is given.
// Its errors are written for the model that wrote the call.
//
// A call with one dict as its only argument, tool({"query": "x"}), is the
// way many people call tools: it is taken as keyword arguments when every
// key of the dict names an input and the dict cannot be meant as the first
// argument itself, that is when the first input does not take a dict (its
// type is neither Object nor Any) or when the dict also names another
// input. So search({"query": "x"}) is search(query="x"), but
// save({"data": 1}) for save(data: dict) passes the dict as data, as
// Python would.
func Bind(spec Spec, args []any, kwargs map[string]any) (map[string]any, error) {
	if d, ok := DictOfArgs(spec, args, kwargs); ok {
		args, kwargs = nil, d
	}
	if len(args) > len(spec.Inputs) {
		return nil, fmt.Errorf("%s() takes %d positional arguments but %d were given", spec.Name, len(spec.Inputs), len(args))
	}
	out := make(map[string]any, len(spec.Inputs))
	for i, a := range args {
		out[spec.Inputs[i].Name] = a
	}
	for k, v := range kwargs {
		found := false
		for _, in := range spec.Inputs {
			if in.Name == k {
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s() got an unexpected keyword argument '%s'", spec.Name, k)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s() got multiple values for argument '%s'", spec.Name, k)
		}
		out[k] = v
	}
	for _, in := range spec.Inputs {
		v, ok := out[in.Name]
		if !ok || v == nil {
			if !in.Nullable {
				return nil, fmt.Errorf("%s() missing required argument: '%s'", spec.Name, in.Name)
			}
			continue
		}
		if err := checkType(in, v); err != nil {
			return nil, fmt.Errorf("%s(): %w", spec.Name, err)
		}
	}
	return out, nil
}

// DictOfArgs reports whether a call of spec with args and kwargs is a
// call with one dict of arguments (see Bind), and returns that dict.
func DictOfArgs(spec Spec, args []any, kwargs map[string]any) (map[string]any, bool) {
	if len(args) != 1 || len(kwargs) != 0 || len(spec.Inputs) == 0 {
		return nil, false
	}
	d, ok := args[0].(map[string]any)
	if !ok || len(d) == 0 {
		return nil, false
	}
	first := spec.Inputs[0]
	other := false
	for k := range d {
		known := false
		for _, in := range spec.Inputs {
			if in.Name == k {
				known = true
				other = other || k != first.Name
				break
			}
		}
		if !known {
			return nil, false
		}
	}
	takesDict := first.Type == Object || first.Type == Any || first.Type == ""
	if takesDict && !other {
		return nil, false
	}
	return d, true
}

// outputKey carries the writer a tool prints to (see WithOutput).
type outputKey struct{}

// WithOutput returns a context in which Print writes to w: executors give
// it to the tools they call, so that what a tool prints joins what the
// code printed, as help() does in Python. w must be safe for concurrent
// use when tools run in parallel.
func WithOutput(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, outputKey{}, w)
}

// Print writes s to the output of the code that called the tool, if the
// executor provides one, and reports whether it did.
func Print(ctx context.Context, s string) bool {
	w, ok := ctx.Value(outputKey{}).(io.Writer)
	if !ok || w == nil {
		return false
	}
	_, err := io.WriteString(w, s)
	return err == nil
}

func checkType(in Input, v any) error {
	ok := true
	switch in.Type {
	case String:
		_, ok = v.(string)
	case Boolean:
		_, ok = v.(bool)
	case Integer:
		_, ok = v.(int64)
	case Number:
		switch v.(type) {
		case int64, float64:
		default:
			ok = false
		}
	case Array:
		_, ok = v.([]any)
	case Object:
		_, ok = v.(map[string]any)
	}
	if !ok {
		return fmt.Errorf("argument '%s' must be of type %s, got %s", in.Name, in.Type, TypeOf(v))
	}
	return nil
}

// TypeOf names the tool type of a JSON-shaped Go value.
func TypeOf(v any) Type {
	switch v.(type) {
	case nil:
		return Null
	case bool:
		return Boolean
	case int64, int:
		return Integer
	case float64:
		return Number
	case string:
		return String
	case []any:
		return Array
	case map[string]any:
		return Object
	}
	return Any
}
