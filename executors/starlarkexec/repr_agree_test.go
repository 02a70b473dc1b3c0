package starlarkexec

import (
	"testing"

	"github.com/star-agent/star-agent/pyvalue"
)

// TestReprAgrees: the engine's repr of a result and pyvalue.Repr of the
// value it exports are the same text, so that the model reads a value the
// same way whether the executor's repr or the agent's (final answers,
// tool arguments) shows it. Only values whose export keeps their Python
// type are compared: tuples and bytes leave as lists and strings, and a
// dict's keys come sorted from pyvalue.
func TestReprAgrees(t *testing.T) {
	e := newTestExecutor(t, Options{})
	for _, code := range []string{
		`None`, `True`, `-7`, `2**100`, `-(2**70)`,
		`0.1 + 0.2`, `1e16`, `1e-5`, `0.0001`, `1234567.5`, `-0.0`, `1e22`, `5e-324`, `float('inf')`, `float('nan')`,
		`"it's"`, `'say "hi"'`, `'both \' and "'`, `'a\\b\n\t\r'`,
		`'\x00\x1f\x7f\x80\x85\xa0\xad'`, `'\u200b\u2028\u3000\ufeff\ue000'`, `'日本語 \U0001f600 e\u0301'`,
		`[1, [2.5, None, True], []]`, `{'a': [1], 'b': {'c': 'd'}}`, `{}`,
	} {
		res := run(t, e, code)
		if res.Err != nil {
			t.Errorf("%s: %v", code, res.Err)
			continue
		}
		if got := pyvalue.Repr(res.Value); got != res.Repr {
			t.Errorf("%s: engine repr %s, pyvalue.Repr %s", code, res.Repr, got)
		}
	}
}
