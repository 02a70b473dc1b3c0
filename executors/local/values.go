package local

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"go.starlark.net/starlark"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/executors/runner"
)

// Variables cross between engines in the runner protocol's Go types, so
// that a tuple stays a tuple and a set a set on the way to CPython and
// back. Tools and results receive plain JSON shapes instead (nil, bool,
// int64 or *big.Int, float64, string, []any, map[string]any; dict keys
// that are not strings rendered with str(), as json.dumps does).
//
// Every value that leaves the engine goes through a converter, which
// bounds what it builds: a list that holds the same big list 60 times is
// small in the engine and 60 times larger once converted (and a list that
// holds itself twice per level, exponentially so), so the size is counted
// as the conversion goes, and it stops at its limit, instead of being
// checked once the whole value is built.

// converter turns Starlark values into Go values under a size limit. With
// a thread, what it builds is charged to the execution's memory budget, it
// stops when the execution's deadline passes, and the str() of a dict key
// that is not a string runs there; without one, no user code runs.
type converter struct {
	th      *starlark.Thread
	runner  bool  // the runner protocol's types, for Variables
	max     int64 // bytes of JSON the value may take; 0: no limit
	size    int64 // bytes of JSON so far (an estimate)
	mem     int64 // bytes of Go memory built so far (an estimate)
	charged int64 // of mem, what was charged to the budget
	count   int   // values visited
}

// maxExportDepth is the nesting a value that leaves the engine may have.
const maxExportDepth = 100

// tooLarge is the error of a conversion that reached its limit.
type tooLarge struct{ max int64 }

func (e *tooLarge) Error() string {
	return fmt.Sprintf("the value is larger than %s as JSON", builtins.FormatBytes(e.max))
}

// add counts a value of json bytes as JSON and mem bytes in Go.
func (c *converter) add(json, mem int64) error {
	c.size += json
	c.mem += mem
	if c.max > 0 && c.size > c.max {
		return &tooLarge{max: c.max}
	}

	c.count++
	if c.th == nil {
		return nil
	}
	if c.count%1024 == 0 {
		if err := builtins.Interrupted(c.th); err != nil {
			return err
		}
	}
	if c.mem-c.charged > 64<<10 {
		if err := builtins.Alloc(c.th, c.mem-c.charged); err != nil {
			return err
		}
		c.charged = c.mem
	}
	return nil
}

// Go memory of the converted values, roughly: an interface slot, a boxed
// scalar, a map entry.
const (
	memSlot  = 16
	memBox   = 8
	memEntry = 48
)

// convert converts v, nested depth levels deep.
func (c *converter) convert(v starlark.Value, depth int) (any, error) {
	if depth > maxExportDepth {
		return nil, builtins.Errorf("ValueError", "value is nested too deeply (or contains itself) to be converted")
	}
	list := func(it starlark.Iterable, n int) ([]any, error) {
		// Room for what the limit lets in (two bytes of JSON per
		// element at least), not for a whole list it will refuse.
		if c.max > 0 {
			n = int(min(int64(n), c.max/2+1))
		}
		if err := c.add(2, 24+int64(n)*memSlot); err != nil {
			return nil, err
		}
		out := make([]any, 0, n)
		iter := it.Iterate()
		defer iter.Done()
		var x starlark.Value
		for iter.Next(&x) {
			g, err := c.convert(x, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
			if err := c.add(1, 0); err != nil { // the comma
				return nil, err
			}
		}
		return out, nil
	}
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, c.add(4, 0)
	case starlark.Bool:
		return bool(v), c.add(5, 0)
	case starlark.Int:
		if i, ok := v.Int64(); ok {
			return i, c.add(int64(len(strconv.FormatInt(i, 10))), memBox)
		}
		// A decimal digit per 3.32 bits.
		bits := int64(v.BigInt().BitLen())
		if err := c.add(bits*30/100+1, bits/8+memEntry); err != nil {
			return nil, err
		}
		return v.BigInt(), nil
	case starlark.Float:
		return float64(v), c.add(24, memBox)
	case starlark.String:
		return string(v), c.add(int64(len(v))+2, 0)
	case starlark.Bytes:
		if err := c.add(int64(len(v))+2, int64(len(v))); err != nil {
			return nil, err
		}
		if c.runner {
			return []byte(v), nil
		}
		return string(v), nil
	case *starlark.List:
		return list(v, v.Len())
	case starlark.Tuple:
		elems, err := list(v, len(v))
		if c.runner {
			return runner.Tuple(elems), err
		}
		return elems, err
	case *starlark.Set:
		elems, err := list(v, v.Len())
		if c.runner {
			return runner.Set(elems), err
		}
		return elems, err
	case *builtins.FrozenSet:
		elems, err := list(v, v.Len())
		if c.runner {
			return runner.FrozenSet(elems), err
		}
		return elems, err
	case *starlark.Dict:
		return c.dict(v, depth)
	case *builtins.Instance:
		// Not JSON-shaped; only Variables' iterable fallback below could
		// take one, by running its __iter__ outside any execution.
	case starlark.Iterable:
		if _, ok := v.(starlark.Indexable); ok {
			n := 0
			if l, ok := v.(starlark.Sequence); ok {
				n = l.Len()
			}
			return list(v, n)
		}
	}
	return nil, builtins.Errorf("TypeError", "a value of type '%s' cannot leave the engine (only None, bool, int, float, str, list, tuple, set and dict can)", v.Type())
}

// dict converts a dict: string keys make a map; other keys are converted
// by str() for tools and results, and kept as they are in the runner
// protocol's Dict for Variables.
func (c *converter) dict(v *starlark.Dict, depth int) (any, error) {
	if err := c.add(2, 48); err != nil {
		return nil, err
	}
	stringKeys := true
	if c.runner {
		for k := range v.Entries() {
			if _, ok := k.(starlark.String); !ok {
				stringKeys = false
				break
			}
		}
	}
	if !stringKeys {
		var out runner.Dict
		for k, x := range v.Entries() {
			gk, err := c.convert(k, depth+1)
			if err != nil {
				return nil, err
			}
			gx, err := c.convert(x, depth+1)
			if err != nil {
				return nil, err
			}
			if err := c.add(2, memEntry); err != nil {
				return nil, err
			}
			out = append(out, runner.Item{Key: gk, Value: gx})
		}
		return out, nil
	}
	out := make(map[string]any, v.Len())
	for k, x := range v.Entries() {
		key, ok := k.(starlark.String)
		if !ok {
			s, err := c.keyString(k)
			if err != nil {
				return nil, err
			}
			key = starlark.String(s)
		}
		if err := c.add(int64(len(key))+4, memEntry); err != nil {
			return nil, err
		}
		gx, err := c.convert(x, depth+1)
		if err != nil {
			return nil, err
		}
		out[string(key)] = gx
	}
	return out, nil
}

// keyString is str(k) of a dict key that is not a string, on the
// execution's thread (a user __str__ runs under its limits).
func (c *converter) keyString(k starlark.Value) (string, error) {
	if c.th == nil {
		return builtins.Str(k), nil
	}
	return builtins.StrValue(c.th, k)
}

// toGo converts a value for a tool to plain JSON shapes, on the
// execution's thread: charged to its memory budget, stopped by its
// deadline.
func toGo(th *starlark.Thread, v starlark.Value) (any, error) {
	c := converter{th: th}
	return c.convert(v, 0)
}

// importValue converts a value from another engine (or the caller).
func importValue(x any) (starlark.Value, error) {
	switch x := x.(type) {
	case runner.Tuple:
		elems, err := importList(x)
		return starlark.Tuple(elems), err
	case runner.Set:
		return importSet(x)
	case runner.FrozenSet:
		s, err := importSet(x)
		if err != nil {
			return nil, err
		}
		return builtins.NewFrozenSet(s), nil
	case []any:
		elems, err := importList(x)
		return starlark.NewList(elems), err
	case map[string]any:
		d := starlark.NewDict(len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			v, err := importValue(x[k])
			if err != nil {
				return nil, err
			}
			d.SetKey(starlark.String(k), v)
		}
		return d, nil
	case runner.Dict:
		d := starlark.NewDict(len(x))
		for _, it := range x {
			k, err := importValue(it.Key)
			if err != nil {
				return nil, err
			}
			v, err := importValue(it.Value)
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(k, v); err != nil {
				return nil, err
			}
		}
		return d, nil
	case runner.Date:
		return starlark.String(x), nil
	case runner.Time:
		return starlark.String(x), nil
	case runner.Opaque:
		return nil, fmt.Errorf("a Python %s has no equivalent in the Starlark engine", x.Type)
	}
	return builtins.FromGo(x)
}

func importList(xs []any) ([]starlark.Value, error) {
	out := make([]starlark.Value, len(xs))
	for i, x := range xs {
		v, err := importValue(x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func importSet(xs []any) (*starlark.Set, error) {
	s := starlark.NewSet(len(xs))
	for _, x := range xs {
		v, err := importValue(x)
		if err != nil {
			return nil, err
		}
		if err := s.Insert(v); err != nil {
			return nil, err
		}
	}
	return s, nil
}
