package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the tool's writes and the test's
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestUserInput(t *testing.T) {
	in, answers := io.Pipe()
	var out syncBuffer
	ts, err := Tools([]string{"user_input"}, Options{Stdin: in, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	ask := ts[0]
	done := make(chan struct{})
	go func() {
		defer close(done)
		answers.Write([]byte("Paris\r\n"))
		answers.Write([]byte(strings.Repeat("x", maxAnswer+100) + "\n"))
	}()
	got, err := call(t, ask, map[string]any{"question": "Which city?"})
	if err != nil || got != "Paris" {
		t.Errorf("answer: %q, %v", got, err)
	}
	if !strings.Contains(out.String(), "\n? Which city?\n> ") {
		t.Errorf("the question was not asked: %q", out.String())
	}
	got, err = call(t, ask, map[string]any{"question": "Long?"})
	if err != nil || len(got) > maxAnswer+40 || !strings.HasSuffix(got, "... [100 bytes cut]") {
		t.Errorf("long answer: %d bytes, %v, ends %q", len(got), err, got[max(0, len(got)-30):])
	}
	<-done

	// No answer before the deadline: the call ends; the answer typed
	// later goes to the next question.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = ask.Call(ctx, map[string]any{"question": "Still there?"})
	if err == nil || !strings.Contains(err.Error(), "no answer before the deadline") {
		t.Errorf("deadline: %v", err)
	}
	go answers.Write([]byte("late\n"))
	if got, err := call(t, ask, map[string]any{"question": "Again?"}); err != nil || got != "late" {
		t.Errorf("after a deadline: %q, %v", got, err)
	}

	// Standard input closed: the model is told nobody can answer, and the
	// reading goroutine has ended.
	answers.Close()
	_, err = call(t, ask, map[string]any{"question": "Anyone?"})
	if err == nil || !strings.Contains(err.Error(), "nobody can answer any more") {
		t.Errorf("closed input: %v", err)
	}
}

func TestUserInputNeedsStdin(t *testing.T) {
	_, err := Tools([]string{"user_input"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "user_input needs someone to answer on standard input: give the task as an argument") {
		t.Errorf("no Stdin: %v", err)
	}
	// A reading error is reported.
	ts, err := Tools([]string{"user_input"}, Options{Stdin: errReader{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(t, ts[0], map[string]any{"question": "?"})
	if err == nil || !strings.Contains(err.Error(), "cannot read the answer: terminal gone") {
		t.Errorf("read error: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("terminal gone") }

func TestToolsByName(t *testing.T) {
	ts, err := Tools([]string{"web_search", " visit_webpage", "wikipedia_search"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Spec().Name)
		if in := tl.Spec().Inputs; len(in) != 1 || in[0].Nullable || in[0].Type != "string" || in[0].Description == "" {
			t.Errorf("%s: inputs %+v", tl.Spec().Name, in)
		}
		if tl.Spec().Output != "string" {
			t.Errorf("%s: output %s", tl.Spec().Name, tl.Spec().Output)
		}
	}
	if strings.Join(names, ",") != "web_search,visit_webpage,wikipedia_search" {
		t.Errorf("names %v", names)
	}
	_, err = Tools([]string{"web_search", "browser"}, Options{})
	if err == nil || err.Error() != `unknown tool "browser": the default tools are web_search, visit_webpage, wikipedia_search, user_input` {
		t.Errorf("unknown name: %v", err)
	}
	_, err = Tools([]string{"web_search", "web_search"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Errorf("repeated name: %v", err)
	}
}
