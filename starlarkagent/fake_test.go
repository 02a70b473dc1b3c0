package starlarkagent

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

// fakeExec is an Executor for loop tests: a tiny interpreter for the few
// statements the tests' models write, one per line:
//
//	print <text>          prints text
//	value <text>          the last expression's value is the string text
//	final <text>          calls final_answer(text)
//	raise <Type> <msg>    raises an exception at this line
//	call <tool> <arg>     calls a tool with its first input set to arg, prints the result
//	block                 waits for the context to end
//	import <module>       records an import
type fakeExec struct {
	mu     sync.Mutex
	tools  map[string]tool.Tool
	vars   map[string]any
	codes  []string
	closed bool
}

func newFakeExec() *fakeExec { return &fakeExec{tools: map[string]tool.Tool{}, vars: map[string]any{}} }

func (e *fakeExec) SetTools(_ context.Context, tools []tool.Tool) error {
	for _, t := range tools {
		e.tools[t.Spec().Name] = t
	}
	return nil
}

func (e *fakeExec) SetVariables(_ context.Context, vars map[string]any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, v := range vars {
		e.vars[k] = v
	}
	return nil
}

func (e *fakeExec) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return nil
}

func (e *fakeExec) Execute(ctx context.Context, code string) (executors.Result, error) {
	e.mu.Lock()
	e.codes = append(e.codes, code)
	e.mu.Unlock()
	res := executors.Result{Engine: "fake"}
	var out strings.Builder
	for i, line := range strings.Split(code, "\n") {
		cmd, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch cmd {
		case "print":
			out.WriteString(rest + "\n")
		case "value":
			res.Value, res.Repr = rest, pyRepr(rest)
		case "final":
			res.Value, res.Repr, res.IsFinal = rest, pyRepr(rest), true
			res.Stdout = out.String()
			return res, nil
		case "raise":
			typ, msg, _ := strings.Cut(rest, " ")
			res.Err = &executors.ExecError{Type: typ, Message: msg, Line: i + 1, Source: strings.TrimSpace(line)}
			res.Stdout = out.String()
			return res, nil
		case "call":
			name, arg, _ := strings.Cut(rest, " ")
			t, ok := e.tools[name]
			if !ok {
				res.Err = &executors.ExecError{Type: "NameError", Message: fmt.Sprintf("name '%s' is not defined", name), Line: i + 1, Source: line}
				res.Stdout = out.String()
				return res, nil
			}
			v, err := t.Call(ctx, map[string]any{t.Spec().Inputs[0].Name: arg})
			if err != nil {
				res.Err = &executors.ExecError{Type: "ToolError", Message: err.Error(), Line: i + 1, Source: line}
				res.Stdout = out.String()
				return res, nil
			}
			out.WriteString(fmt.Sprint(v) + "\n")
		case "block":
			<-ctx.Done()
			res.Stdout = out.String()
			return res, fmt.Errorf("fake: %w", ctx.Err())
		case "import":
			res.Imports = append(res.Imports, rest)
		}
	}
	res.Stdout = out.String()
	return res, nil
}
