package core

import (
	"math"
	"strconv"
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

func oneArg(name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &x)
	return x, err
}

// ErrStop ends a forEach early without an error.
var ErrStop = &Error{Type: pyexc.StopIteration.Name()}

var (
	PyMax = minmax("max", true)
	PyMin = minmax("min", false)
)

func NewDict(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 1 {
		return nil, Errorf(pyexc.TypeError, "dict expected at most 1 argument, got %d", len(args))
	}
	d := starlark.NewDict(len(kwargs))
	if len(args) == 1 {
		if err := dictUpdate(th, d, args[0]); err != nil {
			return nil, err
		}
	}
	for _, kv := range kwargs {
		if err := d.SetKey(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// dictUpdateMethod is dict.update, charging each new entry (the
// go.starlark.net method it replaces charges nothing).
func dictUpdateMethod(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 1 {
		return nil, Errorf(pyexc.TypeError, "update expected at most 1 argument, got %d", len(args))
	}
	d := fn.Receiver().(*starlark.Dict)
	if len(args) == 1 && args[0] != starlark.Value(d) { // d.update(d) changes nothing
		if err := dictUpdate(th, d, args[0]); err != nil {
			return nil, err
		}
	}
	c := Charger{Th: th}
	for _, kv := range kwargs {
		n := d.Len()
		if err := d.SetKey(kv[0], kv[1]); err != nil {
			return nil, err
		}
		if d.Len() > n {
			if err := c.Entry(kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
	}
	return starlark.None, c.Flush()
}

func zero(v starlark.Value) bool {
	switch x := v.(type) {
	case starlark.Int:
		return x.Sign() == 0
	case starlark.Float:
		return x == 0
	}
	return false
}

func minmax(name string, wantMax bool) BuiltinFn {
	return func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var key, dflt starlark.Value
		if err := starlark.UnpackArgs(name, nil, kwargs, "key?", &key, "default?", &dflt); err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return nil, Errorf(pyexc.TypeError, "%s expected at least 1 argument, got 0", name)
		}
		var src starlark.Value = args
		if len(args) == 1 {
			src = args[0]
		} else if dflt != nil {
			return nil, Errorf(pyexc.TypeError, "Cannot specify a default for %s() with multiple positional arguments", name)
		}
		var best, bestKey starlark.Value
		err := ForEach(th, src, func(v starlark.Value) error {
			k := v
			if key != nil && key != starlark.None {
				var err error
				if k, err = starlark.Call(th, key, starlark.Tuple{v}, nil); err != nil {
					return err
				}
			}
			if best == nil {
				best, bestKey = v, k
				return nil
			}
			var better bool
			var err error
			if wantMax {
				better, err = LessOn(th, bestKey, k)
			} else {
				better, err = LessOn(th, k, bestKey)
			}
			if better {
				best, bestKey = v, k
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if best == nil {
			if dflt != nil {
				return dflt, nil
			}
			return nil, Errorf(pyexc.ValueError, "%s() arg is an empty sequence", name)
		}
		return best, nil
	}
}

func parseFloat(s string) (starlark.Value, error) {
	t := asciiDecimals(strings.TrimFunc(s, IsPySpace))
	bad := Errorf(pyexc.ValueError, "could not convert string to float: %s", QuoteString(s))
	l := strings.ToLower(t)
	switch strings.TrimLeft(l, "+-") {
	case "inf", "infinity":
		if strings.HasPrefix(l, "-") {
			return starlark.Float(math.Inf(-1)), nil
		}
		return starlark.Float(math.Inf(1)), nil
	case "nan":
		return starlark.Float(math.NaN()), nil
	}
	if t == "" || strings.ContainsAny(l, "xpi_ ") && !validUnderscores(l) {
		return nil, bad
	}
	if strings.ContainsAny(l, "xpin") {
		return nil, bad
	}
	t = strings.ReplaceAll(t, "_", "")
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return starlark.Float(f), nil
		}
		return nil, bad
	}
	return starlark.Float(f), nil
}

func dictUpdate(th *starlark.Thread, d *starlark.Dict, src starlark.Value) error {
	if m, ok := src.(starlark.IterableMapping); ok {
		if err := Alloc(th, int64(starlark.Len(src))*DictEntrySize); err != nil {
			return err
		}
		for k, v := range starlark.Entries(m) {
			if err := d.SetKey(k, v); err != nil {
				return err
			}
		}
		return nil
	}
	i := 0
	c := Charger{Th: th}
	err := ForEach(th, src, func(item starlark.Value) error {
		var pair []starlark.Value
		switch p := item.(type) {
		case starlark.Tuple:
			pair = p // zip's and items()'s pairs, without a copy
		case *starlark.List:
			if pair = make([]starlark.Value, p.Len()); p.Len() == 2 {
				pair[0], pair[1] = p.Index(0), p.Index(1)
			}
		default:
			var err error
			if pair, err = Collect(th, item); err != nil {
				if _, ok := err.(*Interrupt); ok || isMemoryError(err) {
					return err
				}
				return Errorf(pyexc.TypeError, "cannot convert dictionary update sequence element #%d to a sequence", i)
			}
		}
		if len(pair) != 2 {
			return Errorf(pyexc.ValueError, "dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
		}
		i++
		n := d.Len()
		if err := d.SetKey(pair[0], pair[1]); err != nil {
			return Unhashable(pair[0], err)
		}
		if d.Len() > n {
			return c.Entry(pair[0], pair[1])
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.Flush()
}
