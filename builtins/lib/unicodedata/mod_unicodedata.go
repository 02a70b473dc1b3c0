package unicodedata

import (
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/pyvalue/ucd"
	"github.com/star-agent/star-agent/vm/starlark"
	"golang.org/x/text/unicode/norm"
)

// oneRune is the one-character argument of a unicodedata function; arg
// is how CPython's message names it ("argument" or "argument 1").
func oneRune(name, arg string, v starlark.Value) (rune, error) {
	s, ok := v.(starlark.String)
	if ok {
		r, size := utf8.DecodeRuneInString(string(s))
		if size > 0 && size == len(s) {
			return r, nil
		}
	}
	return 0, core.Errorf(pyexc.TypeError, "%s() %s must be a unicode character, not %s", name, arg, core.TypeName(v))
}

func members() starlark.StringDict {
	return starlark.StringDict{
		"name": core.Fn("name", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c, dflt starlark.Value
			if err := starlark.UnpackPositionalArgs("name", args, kwargs, 1, &c, &dflt); err != nil {
				return nil, err
			}
			r, err := oneRune("name", "argument 1", c)
			if err != nil {
				return nil, err
			}
			n := ucd.UnicodeName(r)
			if n == "" {
				if dflt != nil {
					return dflt, nil
				}
				return nil, core.Errorf(pyexc.ValueError, "no such name")
			}
			return starlark.String(n), nil
		}),
		"lookup": core.Fn("lookup", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			if err := starlark.UnpackPositionalArgs("lookup", args, kwargs, 1, &name); err != nil {
				return nil, err
			}
			r, ok := ucd.LookupName(name)
			if !ok {
				return nil, core.Errorf(pyexc.KeyError, "undefined character name '%s'", name)
			}
			return starlark.String(string(r)), nil
		}),
		"category": core.Fn("category", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c starlark.Value
			if err := starlark.UnpackPositionalArgs("category", args, kwargs, 1, &c); err != nil {
				return nil, err
			}
			r, err := oneRune("category", "argument", c)
			if err != nil {
				return nil, err
			}
			return starlark.String(core.UnicodeCategory(r)), nil
		}),
		"normalize": core.Fn("normalize", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var form, s string
			if err := starlark.UnpackPositionalArgs("normalize", args, kwargs, 2, &form, &s); err != nil {
				return nil, err
			}
			forms := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}
			f, ok := forms[form]
			if !ok {
				return nil, core.Errorf(pyexc.ValueError, "invalid normalization form")
			}
			if err := core.Alloc(th, int64(len(s))*3); err != nil {
				return nil, err
			}
			return starlark.String(f.String(s)), nil
		}),
		"combining": core.Fn("combining", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c starlark.Value
			if err := starlark.UnpackPositionalArgs("combining", args, kwargs, 1, &c); err != nil {
				return nil, err
			}
			r, err := oneRune("combining", "argument", c)
			if err != nil {
				return nil, err
			}
			return starlark.MakeInt(int(norm.NFD.PropertiesString(string(r)).CCC())), nil
		}),
		"numeric": unicodeNumber("numeric"),
		"digit":   unicodeNumber("digit"),
		"decimal": unicodeNumber("decimal"),
	}
}

// unicodeNumber is unicodedata.numeric, digit or decimal: the character's
// value, or the default, or ValueError.
func unicodeNumber(name string) *starlark.Builtin {
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var c, dflt starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &c, &dflt); err != nil {
			return nil, err
		}
		r, err := oneRune(name, "argument 1", c)
		if err != nil {
			return nil, err
		}
		switch name {
		case "numeric":
			if v, ok := core.NumericValue(r); ok {
				return starlark.Float(v), nil
			}
		case "digit":
			if d, ok := core.DigitValue(r); ok {
				return starlark.MakeInt(d), nil
			}
		case "decimal":
			if core.IsPyDecimal(r) {
				return starlark.MakeInt(core.DecimalValue(r)), nil
			}
		}
		if dflt != nil {
			return dflt, nil
		}
		return nil, core.Errorf(pyexc.ValueError, "not a %s", map[string]string{"numeric": "numeric character", "digit": "digit", "decimal": "decimal"}[name])
	})
}

// Module returns a new unicodedata module.
func Module() *core.PyModule { return core.NewModule("unicodedata", members()) }
