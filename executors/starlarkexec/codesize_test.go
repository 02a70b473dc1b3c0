package starlarkexec

import (
	"context"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

// TestCodeSizeIsBounded: the front end and the compiler allocate up to
// about 1 KB per source byte before anything runs, so code past maxCode
// is refused before it is scanned, and the executor keeps its state.
func TestCodeSizeIsBounded(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: 64 << 20}})
	if r := run(t, e, "kept = 41"); r.Err != nil {
		t.Fatal(r.Err)
	}
	// A flat 1M-element literal is within every nesting limit; lowering
	// it took 538 MB.
	code := "x = [" + strings.Repeat("1,", 1_000_000) + "]"
	res := run(t, e, code)
	if res.Err == nil || res.Err.Type != "MemoryError" || !strings.Contains(res.Err.Message, "the code is too long") {
		t.Fatalf("want MemoryError 'the code is too long', got %+v", res.Err)
	}
	if r := run(t, e, "kept + 1"); r.Err != nil || r.Repr != "42" {
		t.Fatalf("state lost or executor unusable: %+v %s", r.Err, r.Repr)
	}
	// Code just under the cap still runs.
	ok := "x = [" + strings.Repeat("1,", (maxCode(64<<20)-20)/2) + "]\nlen(x)"
	if r := run(t, e, ok); r.Err != nil {
		t.Fatalf("code under the cap: %+v", r.Err)
	}
}

// TestErrorLineIsBounded: an error quotes its line, cut to a readable
// length, so a one-line attack does not come back as megabytes of text.
func TestErrorLineIsBounded(t *testing.T) {
	e := newTestExecutor(t, Options{})
	res := run(t, e, "x = 1 +"+strings.Repeat(" ", 50_000)+"*")
	if res.Err == nil {
		t.Fatal("want a SyntaxError")
	}
	if n := len([]rune(res.Err.Source)); n > maxSourceLine+1 {
		t.Fatalf("error quotes %d characters of source", n)
	}
	if got := sourceLine("a\n  bb  \nc", 2); got != "bb" {
		t.Fatalf("sourceLine = %q", got)
	}
	if got := sourceLine("a\nb", 3); got != "" {
		t.Fatalf("sourceLine past the end = %q", got)
	}
}

// TestInternalErrorIsShort: a panic inside the engine (here a Go tool's)
// is an error the model can read, with the Go stack kept out of its
// message (in Traceback, for whoever reports the bug), and the executor
// keeps working.
func TestInternalErrorIsShort(t *testing.T) {
	e := newTestExecutor(t, Options{})
	boom, err := tool.New("boom", "Panics.", func(ctx context.Context, _ struct{}) (string, error) { panic("tool bug") })
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetTools(context.Background(), []tool.Tool{boom}); err != nil {
		t.Fatal(err)
	}
	res := run(t, e, "boom()")
	if res.Err == nil || res.Err.Type != "SystemError" || !strings.Contains(res.Err.Message, "tool bug") {
		t.Fatalf("got %+v", res.Err)
	}
	if strings.Contains(res.Err.Message, "goroutine") || !strings.Contains(res.Err.Traceback, "goroutine") {
		t.Fatalf("the Go stack belongs in Traceback, not in the message: %q", res.Err.Message)
	}
	if r := run(t, e, "1 + 1"); r.Err != nil || r.Repr != "2" {
		t.Fatalf("executor unusable: %+v", r.Err)
	}
}
