package pyfront

import (
	"errors"
	"strings"
	"testing"
)

func TestLowerProtected(t *testing.T) {
	protected := func(name string) bool { return name == "search" || name == "final_answer" }
	cases := []struct {
		src  string
		line int
		msg  string // "" when the program is accepted
	}{
		{"search = 1", 1, "search is a tool of this agent and cannot be reassigned; use another name"},
		{"x = 1\n(search := 2)", 2, "search is a tool of this agent and cannot be reassigned"},
		{"if True:\n    with open('f') as search:\n        pass", 1, "search is a tool of this agent and cannot be reassigned"},
		{"a, *search = [1, 2]", 1, "search is a tool of this agent and cannot be reassigned"},
		{"search += 'x'", 1, "search is a tool of this agent and cannot be reassigned"},
		{"from json import dumps as search", 1, "search is a tool of this agent and cannot be reassigned"},
		{"class search:\n    pass", 1, "search is a tool of this agent and cannot be reassigned"},
		{"del final_answer", 1, "final_answer is a tool of this agent and cannot be deleted"},
		{"def outer():\n    def inner():\n        global search\n        search = 1\n    inner()", 2, "search is a tool of this agent and cannot be reassigned"},
		{"while False:\n    for x, final_answer in []:\n        pass", 1, "final_answer is a tool of this agent and cannot be reassigned"},
		// The code's own names.
		{"def f(search):\n    search = 2\n    return search", 0, ""},
		{"class A:\n    search = 1\n    final_answer = 2", 0, ""},
		{"r = [search for search in [1]]\ng = lambda search: search", 0, ""},
		{"def f():\n    global search\n    return search", 0, ""},
		{"obj = {}\nobj.search = 1", 0, ""},
		{"x = search('q')", 0, ""},
	}
	for _, c := range cases {
		_, err := LowerProtected("t", c.src, nil, protected)
		if c.msg == "" {
			if err != nil {
				t.Errorf("%q: %v", c.src, err)
			}
			continue
		}
		var fe *Error
		if !errors.As(err, &fe) || !strings.Contains(fe.Msg, c.msg) || fe.Line != c.line || fe.Type != "" {
			t.Errorf("%q: got %v, want line %d: SyntaxError %q", c.src, err, c.line, c.msg)
		}
	}
	// Without protected names, nothing is refused.
	if _, err := LowerProtected("t", "search = 1", nil, nil); err != nil {
		t.Error(err)
	}
}
