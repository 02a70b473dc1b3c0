package queue

import (
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// pyQueue is queue.Queue, LifoQueue and PriorityQueue for one thread of
// execution: get() on an empty queue raises queue.Empty instead of
// blocking forever.
type pyQueue struct {
	kind    string
	items   []starlark.Value
	maxsize int
}

func (q *pyQueue) String() string { return "<queue." + q.kind + " object>" }

func (q *pyQueue) Type() string { return "queue." + q.kind }

func (q *pyQueue) Freeze() {}

func (q *pyQueue) Truth() starlark.Bool { return true }

func (q *pyQueue) Hash() (uint32, error) {
	return 0, core.Errorf(pyexc.TypeError, "unhashable type: 'queue.%s'", q.kind)
}

func (q *pyQueue) AttrNames() []string {
	return []string{"empty", "full", "get", "get_nowait", "put", "put_nowait", "qsize"}
}

func (q *pyQueue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "qsize":
		return core.Fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.MakeInt(len(q.items)), nil
		}), nil
	case "empty":
		return core.Fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Bool(len(q.items) == 0), nil
		}), nil
	case "full":
		return core.Fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Bool(q.maxsize > 0 && len(q.items) >= q.maxsize), nil
		}), nil
	case "put", "put_nowait":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var item, block, timeout starlark.Value
			if err := starlark.UnpackArgs(name, args, kwargs, "item", &item, "block?", &block, "timeout?", &timeout); err != nil {
				return nil, err
			}
			if q.maxsize > 0 && len(q.items) >= q.maxsize {
				return nil, core.Errorf(pyexc.QueueFull, "")
			}
			if len(q.items)%1024 == 1023 {
				if err := core.Alloc(th, 1024*core.ElemSize); err != nil {
					return nil, err
				}
			}
			if q.kind != "PriorityQueue" {
				q.items = append(q.items, item)
				return starlark.None, nil
			}
			// Keep the heap as a sorted slice: insertion after equal
			// items matches heapq's pop order for distinct priorities.
			i := len(q.items)
			for i > 0 {
				lt, err := core.Less(item, q.items[i-1])
				if err != nil {
					return nil, err
				}
				if !lt {
					break
				}
				i--
			}
			q.items = append(q.items[:i], append([]starlark.Value{item}, q.items[i:]...)...)
			return starlark.None, nil
		}), nil
	case "get", "get_nowait":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(q.items) == 0 {
				return nil, core.Errorf(pyexc.QueueEmpty, "")
			}
			var v starlark.Value
			if q.kind == "LifoQueue" {
				v, q.items = q.items[len(q.items)-1], q.items[:len(q.items)-1]
			} else {
				v, q.items = q.items[0], q.items[1:]
			}
			return v, nil
		}), nil
	case "task_done", "join":
		return core.Fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.None, nil
		}), nil
	}
	return nil, nil
}

func members() starlark.StringDict {
	m := starlark.StringDict{}
	for _, kind := range []string{"Queue", "LifoQueue", "PriorityQueue", "SimpleQueue"} {
		kind := kind
		m[kind] = &core.Type{PyName: "queue." + kind, Base: core.TypeObject, New: func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			maxsize := 0
			if err := starlark.UnpackArgs(kind, args, kwargs, "maxsize?", &maxsize); err != nil {
				return nil, err
			}
			k := kind
			if k == "SimpleQueue" {
				k = "Queue"
			}
			return &pyQueue{kind: k, maxsize: maxsize}, nil
		}}
	}
	return m
}

// Module returns a new queue module.
func Module() *core.PyModule { return core.NewModule("queue", members()) }
