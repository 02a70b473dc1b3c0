package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/star-agent/star-agent/pyvalue"
)

// Func is a Tool built from a Go function by New.
type Func[A, R any] struct {
	spec     Spec
	resolved *jsonschema.Resolved
	fn       func(context.Context, A) (R, error)
}

// New builds a tool from a Go function whose arguments are the fields of
// the struct A. Inputs are derived from A's JSON schema (via
// github.com/google/jsonschema-go): a field's JSON name is the argument
// name, its `jsonschema:"..."` tag the argument's description, and fields
// marked omitempty or omitzero are optional. The output type is derived
// from R.
//
//	type weatherArgs struct {
//		City    string `json:"city" jsonschema:"The city, e.g. Paris."`
//		Celsius bool   `json:"celsius,omitempty" jsonschema:"Whether to use Celsius."`
//	}
//	weather, err := tool.New("get_weather", "Returns the weather in a city.",
//		func(ctx context.Context, a weatherArgs) (string, error) { ... })
//
// Calls are validated against the schema, with errors the model can act
// on, before fn runs.
func New[A, R any](name, description string, fn func(context.Context, A) (R, error)) (*Func[A, R], error) {
	schema, err := jsonschema.For[A](nil)
	if err != nil {
		return nil, fmt.Errorf("tool %s: arguments: %w", name, err)
	}
	if schema.Type != "object" {
		return nil, fmt.Errorf("tool %s: arguments must be a struct, not %s", name, schema.Type)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tool %s: arguments: %w", name, err)
	}
	spec := Spec{Name: name, Description: description, Output: Any}
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	order := schema.PropertyOrder
	if len(order) == 0 {
		for k := range schema.Properties {
			order = append(order, k)
		}
	}
	for _, prop := range order {
		ps := schema.Properties[prop]
		in := Input{Name: prop, Type: schemaType(ps), Description: ps.Description, Nullable: !required[prop]}
		if ps.Type == "array" || ps.Type == "object" || len(ps.Enum) > 0 {
			in.Schema = schemaMap(ps)
		}
		spec.Inputs = append(spec.Inputs, in)
	}
	if out, err := jsonschema.For[R](nil); err == nil {
		spec.Output = schemaType(out)
		if spec.Output == Object || spec.Output == Array {
			spec.OutputSchema = schemaMap(out)
			// The order of the fields, which a map loses, for the stub.
			if spec.OutputSchema != nil && len(out.PropertyOrder) > 0 {
				spec.OutputSchema["propertyOrder"] = out.PropertyOrder
			}
		}
	}
	return &Func[A, R]{spec: spec, resolved: resolved, fn: fn}, nil
}

// MustNew is like New but panics on an error; for tools defined at
// package level.
func MustNew[A, R any](name, description string, fn func(context.Context, A) (R, error)) *Func[A, R] {
	t, err := New(name, description, fn)
	if err != nil {
		panic(err)
	}
	return t
}

// Spec implements Tool.
func (f *Func[A, R]) Spec() Spec { return f.spec }

// Call implements Tool: it validates args against the schema, decodes them
// into A and calls the function.
func (f *Func[A, R]) Call(ctx context.Context, args map[string]any) (any, error) {
	clean := make(map[string]any, len(args))
	for k, v := range args {
		if v != nil { // an omitted optional argument
			clean[k] = v
		}
	}
	b, err := json.Marshal(clean)
	if err != nil {
		return nil, fmt.Errorf("%s(): arguments cannot be encoded: %v", f.spec.Name, err)
	}
	var instance map[string]any
	if err := json.Unmarshal(b, &instance); err != nil {
		return nil, err
	}
	if err := f.resolved.Validate(instance); err != nil {
		return nil, fmt.Errorf("%s(): invalid arguments: %v", f.spec.Name, err)
	}
	var a A
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s(): invalid arguments: %v", f.spec.Name, err)
	}
	r, err := f.fn(ctx, a)
	if err != nil {
		return nil, err
	}
	return toJSONShape(r)
}

// toJSONShape converts a result to the JSON-shaped values tools return.
func toJSONShape(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, int64, float64, string, []any, map[string]any:
		return v, nil
	case int:
		return int64(v), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("result cannot be encoded: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return pyvalue.Numbers(out), nil
}

func schemaType(s *jsonschema.Schema) Type {
	t := s.Type
	if t == "" && len(s.Types) > 0 {
		for _, x := range s.Types {
			if x != "null" {
				t = x
				break
			}
		}
	}
	switch t {
	case "string", "boolean", "integer", "number", "array", "object", "null":
		return Type(t)
	}
	return Any
}

func schemaMap(s *jsonschema.Schema) map[string]any {
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}
