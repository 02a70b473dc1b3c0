package tool

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestBindDictOfArgs(t *testing.T) {
	search := Spec{Name: "search", Inputs: []Input{
		{Name: "query", Type: String},
		{Name: "limit", Type: Integer, Nullable: true},
	}}
	save := Spec{Name: "save", Inputs: []Input{{Name: "data", Type: Object}}}
	put := Spec{Name: "put", Inputs: []Input{{Name: "data", Type: Object}, {Name: "key", Type: String, Nullable: true}}}
	answer := Spec{Name: "answer", Inputs: []Input{{Name: "answer", Type: Any}}}
	cases := []struct {
		name   string
		spec   Spec
		args   []any
		kwargs map[string]any
		want   map[string]any
		err    string
	}{
		{"one dict names the inputs", search, []any{map[string]any{"query": "x"}}, nil,
			map[string]any{"query": "x"}, ""},
		{"one dict with every input", search, []any{map[string]any{"query": "x", "limit": int64(3)}}, nil,
			map[string]any{"query": "x", "limit": int64(3)}, ""},
		{"a dict with an unknown key is an argument", search, []any{map[string]any{"q": "x"}}, nil,
			nil, "argument 'query' must be of type string, got object"},
		{"a dict-typed input takes the dict", save, []any{map[string]any{"data": int64(1)}}, nil,
			map[string]any{"data": map[string]any{"data": int64(1)}}, ""},
		{"an any-typed input takes the dict", answer, []any{map[string]any{"answer": int64(1)}}, nil,
			map[string]any{"answer": map[string]any{"answer": int64(1)}}, ""},
		{"a dict naming another input is arguments", put, []any{map[string]any{"data": map[string]any{}, "key": "k"}}, nil,
			map[string]any{"data": map[string]any{}, "key": "k"}, ""},
		{"a dict with keywords is not unpacked", search, []any{map[string]any{"query": "x"}}, map[string]any{"limit": int64(1)},
			nil, "argument 'query' must be of type string, got object"},
		{"an empty dict is an argument", search, []any{map[string]any{}}, nil,
			nil, "argument 'query' must be of type string, got object"},
		{"an unpacked dict is checked", search, []any{map[string]any{"query": int64(1)}}, nil,
			nil, "argument 'query' must be of type string, got integer"},
		{"an unpacked dict must hold the required inputs", search, []any{map[string]any{"limit": int64(1)}}, nil,
			nil, "missing required argument: 'query'"},
		{"positional", search, []any{"x", int64(2)}, nil, map[string]any{"query": "x", "limit": int64(2)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Bind(c.spec, c.args, c.kwargs)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Bind = %v, %v; want error %q", got, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Bind = %#v, want %#v", got, c.want)
			}
		})
	}
}

func TestPrint(t *testing.T) {
	if Print(context.Background(), "x") {
		t.Fatal("Print without an output reported success")
	}
	var b strings.Builder
	if !Print(WithOutput(context.Background(), &b), "hello\n") || b.String() != "hello\n" {
		t.Fatalf("printed %q", b.String())
	}
}
