package executors

import "sync/atomic"

// What the host holds for the code: the results of tool calls are made in
// the host (a web page, a file an MCP server read) and held there until
// the code gets them, so they are charged to the step that asked for them,
// as the code's own values are. parallel() gathers a whole batch before
// the code sees any of it: a batch may hold at most MaxBatchResults,
// and all the tool results of one step at most MaxStepResults; a call
// whose result would pass either fails with a MemoryError, and the calls
// of the batch not started yet are not started.

// MaxBatchResults is how many bytes the results of one parallel() batch
// may take together: a quarter of the memory budget (the host holds
// them, then their encoding for the code: with the collector's slack,
// about four times as much).
func MaxBatchResults(l Limits) int64 { return l.WithDefaults().MaxMemory / 4 }

// MaxStepResults is how many bytes all the tool results of one step may
// take together, whether the code keeps them or not: four times the
// memory budget.
func MaxStepResults(l Limits) int64 { return 4 * l.WithDefaults().MaxMemory }

// ResultBudget counts the bytes of tool results against a cap; it is safe
// for concurrent use (the calls of a batch run at once). A nil
// ResultBudget takes everything.
type ResultBudget struct {
	Max  int64
	used atomic.Int64
}

// Take counts n bytes, or reports false, counting nothing, if they would
// pass the cap.
func (b *ResultBudget) Take(n int64) bool {
	if b == nil {
		return true
	}
	if b.used.Add(n) > b.Max {
		b.used.Add(-n)
		return false
	}
	return true
}

// Used is what has been counted.
func (b *ResultBudget) Used() int64 { return b.used.Load() }

// ResultSize estimates the bytes the host holds for a tool's result, a
// value of the shapes tools return (strings, bytes, numbers, lists and
// maps of them): the bytes of strings and the slots and entries of
// containers. Other values count a word or two.
func ResultSize(v any) int64 { return resultSize(v, 0) }

func resultSize(v any, depth int) int64 {
	if depth > 1000 {
		return 16
	}
	switch x := v.(type) {
	case string:
		return 16 + int64(len(x))
	case []byte:
		return 24 + int64(len(x))
	case []any:
		n := 24 + 16*int64(len(x))
		for _, e := range x {
			n += resultSize(e, depth+1)
		}
		return n
	case map[string]any:
		n := 48 + 48*int64(len(x))
		for k, e := range x {
			n += int64(len(k)) + resultSize(e, depth+1)
		}
		return n
	case []string:
		n := 24 + 16*int64(len(x))
		for _, e := range x {
			n += int64(len(e))
		}
		return n
	case []map[string]any:
		n := 24 + 8*int64(len(x))
		for _, e := range x {
			n += resultSize(e, depth+1)
		}
		return n
	}
	return 16
}
