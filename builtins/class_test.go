package builtins

import (
	"testing"
	"time"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// TestReprOutsideExecutionIsBounded checks that rendering an instance
// for the engine (Repr, Str, an uncaught exception's message) cannot run
// its user-defined __repr__ or __str__ without limits.
func TestReprOutsideExecutionIsBounded(t *testing.T) {
	src := `
def body():
    def __repr__(self):
        while True:
            pass
    def __str__(self):
        s = "x"
        while True:
            s = __sa_plus[s][s]
    return {"__repr__": __repr__, "__str__": __str__}, __sa_cell("__class__")
t = body()
C = __sa_class("C", t[0], t[1], [], __sa_box, Exception)
obj = C()
`
	predeclared := Universe()
	for k, v := range Runtime() {
		predeclared[k] = v
	}
	opts := &syntax.FileOptions{While: true, TopLevelControl: true}
	globals, err := starlark.ExecFileOptions(opts, &starlark.Thread{}, "t.star", src, predeclared)
	if err != nil {
		t.Fatal(err)
	}
	obj := globals["obj"]
	done := make(chan bool)
	go func() {
		core.Repr(obj)
		core.Str(obj)
		_ = (&core.Exception{Value: obj.(*core.Instance)}).Error()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("user __repr__/__str__ ran without limits")
	}
}
