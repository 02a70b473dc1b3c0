package starlarkexec

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Values leave the engine in three forms, one per converter mode:
//
//   - results (the zero converter: a final answer, the value of the last
//     expression) as faithfully as Go can hold them, in pyvalue's types:
//     a tuple stays a pyvalue.Tuple, a set a pyvalue.Set, bytes []byte, a
//     float a float64 however whole, a dict with keys that are not all
//     strings a pyvalue.Dict in its order, big integers *big.Int, dates,
//     times and timedeltas time.Time, pyvalue.Date, pyvalue.Time and
//     time.Duration, and any other object a pyvalue.Opaque with its type
//     and repr, as the runner's CPython sends them (docs/json.md);
//   - variables that cross to another engine (runner) in the same types,
//     but only values the other side can rebuild: anything else fails, so
//     the variable stays behind with a note;
//   - tool arguments (plain) in plain JSON shapes (nil, bool, int64 or
//     *big.Int, float64, string, []any, map[string]any; dict keys that are
//     not strings rendered with str(), as json.dumps does).
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
// that is not a string (plain) or the repr of an object (results) runs
// there; without one, no user code runs.
type converter struct {
	th      *starlark.Thread
	runner  bool  // variables for another engine: only what it can rebuild
	plain   bool  // tool arguments: plain JSON shapes
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
	return fmt.Sprintf("the value is larger than %s as JSON", core.FormatBytes(e.max))
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
		if err := core.Interrupted(c.th); err != nil {
			return err
		}
	}
	if c.mem-c.charged > 64<<10 {
		if err := core.Alloc(c.th, c.mem-c.charged); err != nil {
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
		return nil, core.Errorf(pyexc.ValueError, "value is nested too deeply (or contains itself) to be converted")
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
		if err := c.add(int64(len(v))*4/3+2, int64(len(v))); err != nil {
			return nil, err
		}
		if c.plain {
			return string(v), nil
		}
		return []byte(v), nil
	case *starlark.List:
		return list(v, v.Len())
	case starlark.Tuple:
		elems, err := list(v, len(v))
		if c.plain || err != nil {
			return elems, err
		}
		return pyvalue.Tuple(elems), nil
	case *starlark.Set:
		elems, err := list(v, v.Len())
		if c.plain || err != nil {
			return elems, err
		}
		return pyvalue.Set(elems), nil
	case *core.FrozenSet:
		elems, err := list(v, v.Len())
		if c.plain || err != nil {
			return elems, err
		}
		return pyvalue.FrozenSet(elems), nil
	case *starlark.Dict:
		return c.dict(v, depth)
	case *core.Instance:
		// Not JSON-shaped; the iterable fallback below would run its
		// __iter__ outside any execution.
	case starlark.Iterable:
		if _, ok := v.(starlark.Indexable); ok && (c.plain || c.runner) {
			n := 0
			if l, ok := v.(starlark.Sequence); ok {
				n = l.Len()
			}
			return list(v, n)
		}
	}
	if !c.plain && !c.runner {
		if x, ok := timeValue(v); ok {
			return x, c.add(40, memEntry)
		}
		return c.opaque(v)
	}
	return nil, core.Errorf(pyexc.TypeError, "a value of type '%s' cannot leave the engine (only None, bool, int, float, str, bytes, list, tuple, set and dict can)", v.Type())
}

// opaque stands for a value that has no JSON form in a result: its type's
// name and its repr (cut to the JSON limit), as the runner's CPython
// sends such a value.
func (c *converter) opaque(v starlark.Value) (any, error) {
	name := core.TypeName(v)
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:] // type(v).__name__: "deque", not "collections.deque"
	}
	repr := "<" + name + " object>" // no thread: no user __repr__ runs
	if c.th != nil {
		n := maxOpaqueRepr
		if c.max > 0 {
			n = int(min(int64(n), c.max))
		}
		r, cut, err := core.ReprLimited(c.th, v, n)
		if err != nil {
			return nil, err
		}
		if cut {
			r += "..."
		}
		repr = r
	}
	if err := c.add(int64(len(repr)+len(name))+20, int64(len(repr)+len(name))+memEntry); err != nil {
		return nil, err
	}
	return pyvalue.Opaque{Type: name, Repr: repr}, nil
}

// maxOpaqueRepr bounds the repr of one opaque value, in characters, as
// runner.py bounds it.
const maxOpaqueRepr = 10000

// timeValue converts the datetime module's values to the Go types the
// runner's CPython sends them as: time.Time (pyvalue.Naive without a
// tzinfo), pyvalue.Date, pyvalue.Time and time.Duration. A timedelta Go
// cannot hold (past about 292 years) is not converted.
func timeValue(v starlark.Value) (any, bool) {
	var tag string
	switch v.Type() {
	case "datetime.datetime":
		tag = "$datetime"
	case "datetime.date":
		tag = "$date"
	case "datetime.time":
		tag = "$time"
	case "datetime.timedelta":
		tag = "$timedelta"
	default:
		return nil, false
	}
	if tag == "$timedelta" {
		a, ok := v.(starlark.HasAttrs)
		if !ok {
			return nil, false
		}
		var parts [3]int64
		for i, name := range []string{"days", "seconds", "microseconds"} {
			x, err := a.Attr(name)
			n, ok := x.(starlark.Int)
			if err != nil || !ok {
				return nil, false
			}
			if parts[i], ok = n.Int64(); !ok {
				return nil, false
			}
		}
		const maxDays = math.MaxInt64/int64(24*time.Hour) - 1
		if parts[0] > maxDays || parts[0] < -maxDays {
			return nil, false
		}
		return time.Duration(parts[0])*24*time.Hour + time.Duration(parts[1])*time.Second +
			time.Duration(parts[2])*time.Microsecond, true
	}
	// str() of these types is their isoformat(" ").
	iso := core.Str(v)
	if tag == "$datetime" {
		iso = strings.Replace(iso, " ", "T", 1)
	}
	payload := iso
	x, err := pyvalue.Decode(map[string]any{tag: payload})
	return x, err == nil
}

// dict converts a dict: string keys make a map; other keys are kept as
// they are, in order, in a pyvalue.Dict, except for tools (plain), where
// they are converted by str().
func (c *converter) dict(v *starlark.Dict, depth int) (any, error) {
	if err := c.add(2, 48); err != nil {
		return nil, err
	}
	stringKeys := true
	if !c.plain {
		for k := range v.Entries() {
			if _, ok := k.(starlark.String); !ok {
				stringKeys = false
				break
			}
		}
	}
	if !stringKeys {
		var out pyvalue.Dict
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
			out = append(out, pyvalue.Item{Key: gk, Value: gx})
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
		return core.Str(k), nil
	}
	return core.StrValue(c.th, k)
}

// toGo converts a value for a tool to plain JSON shapes, on the
// execution's thread: charged to its memory budget, stopped by its
// deadline.
func toGo(th *starlark.Thread, v starlark.Value) (any, error) {
	c := converter{th: th, plain: true}
	return c.convert(v, 0)
}

// importValue converts a value from another engine (or the caller).
func importValue(x any) (starlark.Value, error) {
	switch x := x.(type) {
	case pyvalue.Tuple:
		elems, err := importList(x)
		return starlark.Tuple(elems), err
	case pyvalue.Set:
		return importSet(x)
	case pyvalue.FrozenSet:
		s, err := importSet(x)
		if err != nil {
			return nil, err
		}
		return core.NewFrozenSet(s), nil
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
	case pyvalue.Dict:
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
	case pyvalue.Date:
		return starlark.String(x), nil
	case pyvalue.Time:
		return starlark.String(x), nil
	case pyvalue.Opaque:
		return nil, fmt.Errorf("a Python %s has no equivalent in the Starlark engine", x.Type)
	}
	return core.FromGo(x)
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
