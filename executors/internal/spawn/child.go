package spawn

import (
	"fmt"
	"os"
	"time"
)

// ChildArg is the one argument a re-executed child is started with. The
// program's main takes over as a child by calling the executor's
// RunChildIfRequested before it reads its arguments; a main that does not
// call it reads ChildArg as an unknown flag and exits (as Go's flag
// package, cobra and test binaries do), so the parent fails at once
// instead of waiting for a runner that never starts.
const ChildArg = "-star-agent-child"

// Handshake is the pipe on which a re-executed child says that it runs as
// a child, so that a parent can tell a child that died from a program
// whose main never called RunChildIfRequested.
type Handshake struct {
	r, w *os.File
	done chan struct{}
	ok   bool // the child said so; read after done
}

// NewHandshake returns a handshake whose ChildEnd goes to the child in
// cmd.ExtraFiles.
func NewHandshake() (*Handshake, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &Handshake{r: r, w: w, done: make(chan struct{})}, nil
}

// ChildEnd is the child's end of the pipe.
func (h *Handshake) ChildEnd() *os.File { return h.w }

// Started closes the child's end in this process once the child started
// (or failed to) and listens for the child's word. The pipe closes when
// the child exits, so listening ends with the child.
func (h *Handshake) Started() {
	h.w.Close()
	go func() {
		defer close(h.done)
		defer h.r.Close()
		var b [1]byte
		n, _ := h.r.Read(b[:])
		h.ok = n == 1 && b[0] == handshakeByte
	}()
}

// Failed reports whether the child ended, or closed the pipe, without
// saying that it runs as a child; it waits at most d for the pipe to
// close. It is false while the child runs without having spoken.
func (h *Handshake) Failed(d time.Duration) bool {
	select {
	case <-h.done:
		return !h.ok
	case <-time.After(d):
		return false
	}
}

const handshakeByte = '!'

// Announce is the child's side: it writes the word on fd and closes it.
func Announce(fd uintptr) error {
	f := os.NewFile(fd, "handshake")
	if f == nil {
		return fmt.Errorf("descriptor %d, on which a child tells its parent that it started, is missing", fd)
	}
	defer f.Close()
	_, err := f.Write([]byte{handshakeByte})
	return err
}

// NotStarted describes a child that ended without taking over, for the
// parent's error: call is the function the program's main must call.
func NotStarted(call, output string) string {
	s := "the program did not run the child it started: its main function must call " + call + " before anything else"
	if output != "" {
		s += " (the child said: " + output + ")"
	}
	return s
}
