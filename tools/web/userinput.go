package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/star-agent/star-agent/tool"
)

// maxAnswer caps one answer of user_input, in bytes read.
const maxAnswer = 64 << 10

type userInputArgs struct {
	Question string `json:"question" jsonschema:"The question to ask the user."`
}

// terminal asks questions on Stdout and reads one line of answer from
// Stdin. A single goroutine reads Stdin, started at the first question,
// so that a call abandoned at its deadline leaves no reader behind that
// would steal the next answer; it ends when Stdin ends.
type terminal struct {
	in  io.Reader
	out io.Writer

	ask   sync.Mutex // one question at a time, even from parallel calls
	start sync.Once
	lines chan lineOrErr
}

type lineOrErr struct {
	line string
	err  error
}

// newUserInput is user_input. Without a terminal (opts.Stdin nil, as when
// the CLI reads its tasks from standard input) it is not built at all: a
// tool that can only fail would cost the model steps and prompt tokens,
// and the operator learns at once why it is missing.
func newUserInput(opts *Options) (tool.Tool, error) {
	if opts.Stdin == nil {
		return nil, errors.New("user_input needs someone to answer on standard input: give the task as an argument (standard input then carries the answers), or leave user_input out of --tools")
	}
	out := opts.Stdout
	if out == nil {
		out = io.Discard
	}
	t := &terminal{in: opts.Stdin, out: out, lines: make(chan lineOrErr)}
	return tool.New("user_input", "Asks for the user's input on a specific question and returns their answer.",
		func(ctx context.Context, a userInputArgs) (string, error) { return t.question(ctx, a.Question) })
}

func (t *terminal) question(ctx context.Context, q string) (string, error) {
	t.ask.Lock()
	defer t.ask.Unlock()
	t.start.Do(func() { go t.read() })
	fmt.Fprintf(t.out, "\n? %s\n> ", strings.TrimSpace(q))
	select {
	case l, ok := <-t.lines:
		if !ok {
			return "", errors.New("nobody can answer any more (standard input is closed); continue with what you know")
		}
		if l.err != nil {
			return "", fmt.Errorf("%v", l.err)
		}
		return l.line, nil
	case <-ctx.Done():
		fmt.Fprintln(t.out)
		return "", fmt.Errorf("no answer before the deadline (%v); continue with what you know", context.Cause(ctx))
	}
}

// read hands the lines of Stdin to the questions, one per question, and
// closes lines at the end of Stdin.
func (t *terminal) read() {
	defer close(t.lines)
	r := bufio.NewReaderSize(t.in, 4096)
	for {
		line, err := readLine(r)
		if err != nil && line == "" {
			if !errors.Is(err, io.EOF) {
				t.lines <- lineOrErr{err: fmt.Errorf("cannot read the answer: %v", err)}
			}
			return
		}
		t.lines <- lineOrErr{line: line}
	}
}

// readLine reads one line, keeping at most maxAnswer bytes of it.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	total := 0
	for {
		chunk, err := r.ReadSlice('\n')
		total += len(chunk)
		if b.Len() < maxAnswer {
			b.Write(chunk[:min(len(chunk), maxAnswer-b.Len())])
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		n := total // the line's length without its end
		if bytes.HasSuffix(chunk, []byte("\r\n")) {
			n -= 2
		} else if bytes.HasSuffix(chunk, []byte("\n")) {
			n--
		}
		s := strings.TrimRight(b.String(), "\r\n")
		if n > maxAnswer {
			s = strings.ToValidUTF8(s[:min(len(s), maxAnswer)], "") + fmt.Sprintf("... [%d bytes cut]", n-maxAnswer)
		}
		return s, err
	}
}
