package starlarkexec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/star-agent/star-agent/vm/starlark"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/executors"
)

// A step can stop at run time at a construct the Starlark engine cannot
// run ("... is not supported by the Starlark engine"): a check the front
// end could not make before the step ran. With Options.Rerun set (a
// router with a full-Python executor sits above the engine), such a step
// is handed on to CPython: the engine undoes what the step bound and marks
// the error NeedsPython, and the router runs the step again there.
//
// Running a step twice must never repeat what the world saw, so a step
// is handed on only when it printed nothing and called no tool. And it must
// start again from the state before the step: bindings are undone exactly
// (a shallow copy of the globals, taken before the step, costs one map
// entry per name, not per element), but a change made in place to a value
// that existed before the step cannot be undone. A list, dict or set bound
// to a global whose length changed shows one, and then the step is not
// handed on either; a note says why. A change in place that keeps those
// lengths (xs[0] = 1, a nested list, an attribute of an object) shows in
// a fingerprint of what the globals reach, taken before the step and again
// when it stopped (fingerprint.go). Every thread of the step counts: tool
// calls and prints in generators, callbacks and parallel().

// unsupportedMark is how the engine's messages name a construct it
// cannot run.
const unsupportedMark = "not supported by the Starlark engine"

// toolCallsKey is the thread-local counter of the tool calls of one
// execution (*int).
const toolCallsKey = "star-agent.toolcalls"

// markToolCall counts a tool call (or a batch of them) of the execution
// running on thread.
func markToolCall(thread *starlark.Thread) {
	if n, ok := thread.Local(toolCallsKey).(*int); ok {
		*n++
	}
}

// checkpoint is the state's bindings before a step, with the lengths of
// the values that have one.
type checkpoint struct {
	globals starlark.StringDict
	lengths map[string]int
	calls   *int
	// names are the globals the code may change in place, and print
	// their fingerprint before the step (fingerprint.go); sized is false
	// when the state was too large to take it.
	names []string
	print uint64
	sized bool
}

// checkpoint records the bindings before a step, if steps may be handed
// on; nil otherwise.
func (st *state) checkpoint(thread *starlark.Thread) *checkpoint {
	if !st.rerun {
		return nil
	}
	cp := &checkpoint{globals: make(starlark.StringDict, len(st.globals)), lengths: map[string]int{}, calls: new(int)}
	for name, v := range st.globals {
		cp.globals[name] = v
		if _, ok := st.base[name]; ok && st.base[name] == v {
			continue // a builtin or a tool: nothing the code can grow
		}
		if n := containerLen(v); n >= 0 {
			cp.lengths[name] = n
		}
		cp.names = append(cp.names, name)
	}
	slices.Sort(cp.names)
	cp.print, cp.sized = fingerprint(cp.globals, cp.names)
	thread.SetLocal(toolCallsKey, cp.calls)
	return cp
}

// handOn marks res's error NeedsPython and undoes the step's bindings when
// the step stopped at a construct the engine cannot run and may run again
// elsewhere; when it may not, it says why in a note.
func (st *state) handOn(cp *checkpoint, res *executors.Result, thread *starlark.Thread) {
	if cp == nil || res.Err == nil || res.Err.NeedsPython || !strings.Contains(res.Err.Message, unsupportedMark) {
		return
	}
	var why string
	if out, ok := thread.Local(contract.StdoutKey).(*output); ok && out.printed() {
		why = "it had already printed output"
	} else if *cp.calls > 0 {
		why = "it had already called a tool"
	} else if changed := cp.grown(); changed != "" {
		why = fmt.Sprintf("it had already changed %s in place", changed)
	} else if !cp.sized {
		why = fmt.Sprintf("it may have changed in place a value from before it, and the state is too large to tell (more than %d values)", maxFingerprint)
	} else if h, _ := fingerprint(cp.globals, cp.names); h != cp.print {
		why = "it had already changed in place a value from before it"
	}
	if why != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("this step was not run again in full Python, because %s (a step runs at most once); to run such code in full Python, start a new step with it, before any print or tool call", why))
		return
	}
	for name := range st.globals {
		if _, ok := cp.globals[name]; !ok {
			delete(st.globals, name)
		}
	}
	for name, v := range cp.globals {
		st.globals[name] = v
	}
	res.Notes = append(res.Notes, fmt.Sprintf("the Starlark engine stopped this step at line %d (%s: %s) before it printed or called a tool; what the step had bound is undone, so it can run again from its start", res.Err.Line, res.Err.Type, res.Err.Message))
	res.Err.NeedsPython = true
	res.Err.Hint = executors.NeedsPythonHint
	res.Value, res.Repr, res.IsFinal = nil, "", false
}

// grown names a value of the checkpoint whose length changed; "" if there
// is none.
func (cp *checkpoint) grown() string {
	for name, n := range cp.lengths {
		if containerLen(cp.globals[name]) != n {
			return name
		}
	}
	return ""
}

// containerLen is the length of a list, dict or set, -1 for other values.
// It runs no user code (a class's __len__ is not called).
func containerLen(v starlark.Value) int {
	switch v := v.(type) {
	case *starlark.List:
		return v.Len()
	case *starlark.Dict:
		return v.Len()
	case *starlark.Set:
		return v.Len()
	}
	return -1
}
