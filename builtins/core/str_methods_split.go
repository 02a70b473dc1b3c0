package core

import (
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The methods of str that split a string or join strings: split,
// splitlines, partition, join and their mirror images.

// strSplit is str.split and str.rsplit.
func strSplit(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	name := fn.Name()
	fromRight := name == "rsplit"
	var sep starlark.Value = starlark.None
	var maxArg starlark.Value = starlark.MakeInt(-1)
	if err := starlark.UnpackArgs(name, args, kwargs, "sep?", &sep, "maxsplit?", &maxArg); err != nil {
		return nil, err
	}
	maxsplit, err := IndexInt(maxArg)
	if err != nil {
		return nil, err
	}
	if sep == starlark.None {
		if err := chargeSplit(th, s, "", maxsplit); err != nil {
			return nil, err
		}
		return StringList(th, SplitWhitespace(s, maxsplit, fromRight))
	}
	sp, err := strArg(name, sep)
	if err != nil {
		return nil, err
	}
	if sp == "" {
		return nil, Errorf(pyexc.ValueError, "empty separator")
	}
	if err := chargeSplit(th, s, sp, maxsplit); err != nil {
		return nil, err
	}
	if maxsplit < 0 {
		return StringList(th, strings.Split(s, sp))
	}
	if !fromRight {
		return StringList(th, strings.SplitN(s, sp, maxsplit+1))
	}
	var parts []string
	for maxsplit > 0 {
		i := strings.LastIndex(s, sp)
		if i < 0 {
			break
		}
		parts = append(parts, s[i+len(sp):])
		s = s[:i]
		maxsplit--
	}
	parts = append(parts, s)
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return StringList(th, parts)
}

func strSplitlines(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	keep := false
	if err := starlark.UnpackArgs(fn.Name(), args, kwargs, "keepends?", &keep); err != nil {
		return nil, err
	}
	if err := chargeSplit(th, s, "\n", -1); err != nil {
		return nil, err
	}
	var parts []string
	for s != "" {
		i := strings.IndexFunc(s, IsLineBreak)
		if i < 0 {
			parts = append(parts, s)
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		end := i + size
		if r == '\r' && strings.HasPrefix(s[end:], "\n") {
			end++
		}
		if keep {
			parts = append(parts, s[:end])
		} else {
			parts = append(parts, s[:i])
		}
		s = s[end:]
	}
	return StringList(th, parts)
}

// strPartition is str.partition and str.rpartition.
func strPartition(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	last := fn.Name() == "rpartition"
	var sep string
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &sep); err != nil {
		return nil, err
	}
	if sep == "" {
		return nil, Errorf(pyexc.ValueError, "empty separator")
	}
	var i int
	if last {
		i = strings.LastIndex(s, sep)
	} else {
		i = strings.Index(s, sep)
	}
	if i < 0 {
		if last {
			return starlark.Tuple{starlark.String(""), starlark.String(""), starlark.String(s)}, nil
		}
		return starlark.Tuple{starlark.String(s), starlark.String(""), starlark.String("")}, nil
	}
	return starlark.Tuple{starlark.String(s[:i]), starlark.String(sep), starlark.String(s[i+len(sep):])}, nil
}

func strJoin(th *starlark.Thread, fn *starlark.Builtin, sep string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var it starlark.Value
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &it); err != nil {
		return nil, err
	}
	if seq, ok := it.(starlark.Indexable); ok && isListOrTuple(it) {
		return joinSeq(th, sep, seq)
	}
	// Collect the parts first: the result's exact size is then known,
	// charged once and allocated once (a growing builder would hold up
	// to three times the result while it doubles).
	var parts []string
	if n := starlark.Len(it); n > 0 {
		parts = make([]string, 0, n)
	}
	total := 0
	err := ForEach(th, it, func(v starlark.Value) error {
		s, ok := v.(starlark.String)
		if !ok {
			return Errorf(pyexc.TypeError, "sequence item %d: expected str instance, %s found", len(parts), TypeName(v))
		}
		// The parts of an endless iterator of empty strings add
		// nothing to total: the slice holding them is charged as it
		// grows.
		if len(parts) == cap(parts) {
			grown := max(2*cap(parts), 1024)
			if err := Alloc(th, int64(grown)*stringHeaderBytes); err != nil {
				return err
			}
			parts = append(make([]string, 0, grown), parts...)
		}
		parts = append(parts, string(s))
		total += len(s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(parts) > 1 {
		total += len(sep) * (len(parts) - 1)
	}
	if total > 1<<16 {
		if err := Alloc(th, int64(total)); err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	b.Grow(total)
	for i, p := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p)
		if i%4096 == 4095 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
	}
	return starlark.String(b.String()), nil
}

func SplitWhitespace(s string, maxsplit int, fromRight bool) []string {
	var out []string
	if !fromRight {
		for maxsplit != 0 {
			s = strings.TrimLeftFunc(s, IsPySpace)
			if s == "" {
				return out
			}
			i := strings.IndexFunc(s, IsPySpace)
			if i < 0 {
				return append(out, s)
			}
			out = append(out, s[:i])
			s = s[i:]
			maxsplit--
		}
		if s = strings.TrimLeftFunc(s, IsPySpace); s != "" {
			out = append(out, s)
		}
		return out
	}
	for maxsplit != 0 {
		s = strings.TrimRightFunc(s, IsPySpace)
		if s == "" {
			break
		}
		i := strings.LastIndexFunc(s, IsPySpace)
		if i < 0 {
			out = append(out, s)
			s = ""
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		out = append(out, s[i+size:])
		s = s[:i]
		maxsplit--
	}
	if s = strings.TrimRightFunc(s, IsPySpace); s != "" {
		out = append(out, s)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func StringList(th *starlark.Thread, parts []string) (starlark.Value, error) {
	if err := Alloc(th, int64(len(parts))*32); err != nil {
		return nil, err
	}
	vals := make([]starlark.Value, len(parts))
	for i, p := range parts {
		vals[i] = starlark.String(p)
	}
	return starlark.NewList(vals), nil
}

func IsLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// stringHeaderBytes is the size of a Go string header, what each part
// collected by join holds besides its bytes.
const stringHeaderBytes = 16

func isListOrTuple(v starlark.Value) bool {
	switch v.(type) {
	case *starlark.List, starlark.Tuple:
		return true
	}
	return false
}

// joinSeq is sep.join(seq) for a list or tuple: one pass checks the items
// and sizes the result, which is charged once and built in one
// allocation by the second; no user code runs in between.
func joinSeq(th *starlark.Thread, sep string, seq starlark.Indexable) (starlark.Value, error) {
	n := seq.Len()
	total := 0
	for i := 0; i < n; i++ {
		s, ok := seq.Index(i).(starlark.String)
		if !ok {
			return nil, Errorf(pyexc.TypeError, "sequence item %d: expected str instance, %s found", i, TypeName(seq.Index(i)))
		}
		total += len(s)
		if i%CheckEvery == CheckEvery-1 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
	}
	switch n {
	case 0:
		return starlark.String(""), nil
	case 1:
		return seq.Index(0), nil
	}
	total += len(sep) * (n - 1)
	if total > 1<<16 {
		if err := Alloc(th, int64(total)); err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	b.Grow(total)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(seq.Index(i).(starlark.String)))
		if i%CheckEvery == CheckEvery-1 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
	}
	return starlark.String(b.String()), nil
}
