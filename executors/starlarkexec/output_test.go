package starlarkexec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors"
)

// TestPrintElidesAsTheOutputWould: print builds a long line within what
// the output keeps of its start and end, and shows exactly what printing
// the whole line would have shown: the same head, tail and count of
// dropped characters, multi-byte characters included.
func TestPrintElidesAsTheOutputWould(t *testing.T) {
	const max = 1000
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxOutput: max}})
	for _, c := range []struct{ code, whole string }{
		{"print('a' * 3000 + 'é' * 3000 + 'z' * 3000)", strings.Repeat("a", 3000) + strings.Repeat("é", 3000) + strings.Repeat("z", 3000) + "\n"},
		{"print(['x' * 5000, 'é' * 5000], 7, sep='|', end='.')", "['" + strings.Repeat("x", 5000) + "', '" + strings.Repeat("é", 5000) + "']|7."},
		{"print('short')\nprint('€' * 4000)\nprint('end')", "short\n" + strings.Repeat("€", 4000) + "\nend\n"},
		{"print({i: 'ü' * 10 for i in range(500)})", dictRepr()},
		// Strings longer than print keeps are quoted at their ends only,
		// their middle counted: every kind of escape, both quotes.
		{`print(['a\n\x01é\'\U0001F600\u0378\x85\\' * 5000, 'b"' * 9000])`, "[\"" + strings.Repeat(`a\n\x01é'😀\u0378\x85\\`, 5000) + "\", '" + strings.Repeat(`b"`, 9000) + "']\n"},
	} {
		o := newOutput(max, nil)
		o.WriteString(c.whole)
		want, _ := o.close()
		res := run(t, e, c.code)
		if res.Err != nil {
			t.Fatalf("%s: %+v", c.code, res.Err)
		}
		if res.Stdout != want {
			t.Errorf("%s:\n got %q\nwant %q", c.code, res.Stdout, want)
		}
	}
}

func dictRepr() string {
	var b strings.Builder
	b.WriteString("{")
	for i := range 500 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i) + ": '" + strings.Repeat("ü", 10) + "'")
	}
	b.WriteString("}\n")
	return b.String()
}

// TestFailingPrintPrintsNothing: an argument whose str() fails stops
// print before it writes anything, as in Python, also for long lines.
func TestFailingPrintPrintsNothing(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxOutput: 100}})
	res := run(t, e, "class Bad:\n    def __repr__(self):\n        raise ValueError('no')\ntry:\n    print('x' * 10000, [1, Bad()])\nexcept ValueError:\n    print('caught')")
	if res.Err != nil || res.Stdout != "caught\n" {
		t.Errorf("got %q %+v, want only caught", res.Stdout, res.Err)
	}
}
