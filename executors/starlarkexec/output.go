package starlarkexec

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// output keeps the first and the last characters the code prints, at
// most max in all, and counts the rest: the end of a long output (a
// summary, the last error) matters as much as its start. What it keeps of
// the head it also copies to an optional live writer as it is printed;
// the tail can only be known at the end.
//
// The execution's goroutine writes while Execute may read, once the
// execution is abandoned: a mutex orders them, and close stops every later
// write, so that abandoned work prints nowhere.
type output struct {
	mu      sync.Mutex
	closed  bool
	max     int
	headMax int
	tailMax int
	kept    int // characters kept in buf, the head
	total   int // characters printed
	buf     strings.Builder
	tail    []byte // holds at least the last tailMax characters printed after the head
	live    io.Writer
}

// printed reports whether anything was printed.
func (o *output) printed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.total > 0
}

func newOutput(max int, live io.Writer) *output {
	return &output{max: max, headMax: max - max/2, tailMax: max / 2, live: live}
}

func (o *output) Write(p []byte) (int, error) {
	o.WriteString(string(p))
	return len(p), nil
}

func (o *output) WriteString(s string) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	size := len(s)
	if o.closed {
		return size, nil
	}
	o.total += utf8.RuneCountInString(s)
	if room := o.headMax - o.kept; room > 0 {
		head := prefixRunes(s, room)
		o.kept += utf8.RuneCountInString(head)
		o.buf.WriteString(head)
		if o.live != nil && head != "" {
			io.WriteString(o.live, head)
		}
		s = s[len(head):]
	}
	if s != "" && o.tailMax > 0 {
		o.tail = append(o.tail, suffixRunes(s, o.tailMax)...)
		// Keep the buffer within a few times the tail's size.
		if len(o.tail) > 8*o.tailMax+64 {
			o.tail = []byte(suffixRunes(string(o.tail), o.tailMax))
		}
	}
	return size, nil
}

// prefixRunes returns the first n characters of s.
func prefixRunes(s string, n int) string {
	cut := 0
	for i := 0; i < n && cut < len(s); i++ {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return s[:cut]
}

// suffixRunes returns the last n characters of s.
func suffixRunes(s string, n int) string {
	cut := len(s)
	for i := 0; i < n && cut > 0; i++ {
		_, size := utf8.DecodeLastRuneInString(s[:cut])
		cut -= size
	}
	return s[cut:]
}

// Keep is the bytes of a line's start and end print must keep for this
// output: up to 4 per character of its limit.
func (o *output) Keep() int { return 4*o.max + 4 }

// WriteElided writes a line of which print dropped the middle: what it
// shows is what writing the whole line would have shown, since print
// keeps more of either end than the output does.
func (o *output) WriteElided(head string, dropped int, tail string) {
	o.WriteString(head)
	if dropped > 0 {
		o.mu.Lock()
		if !o.closed {
			o.total += dropped
		}
		o.mu.Unlock()
	}
	o.WriteString(tail)
}

func (o *output) dropped() int { return max(o.total-o.max, 0) }

// close stops the output: later writes are dropped. It returns what was
// kept and whether characters were dropped. The live writer got the head
// as it was printed; when nothing was dropped it now gets the rest, so
// that its copy is whole (when characters were dropped, the caller shows
// the marker and the tail from the result).
func (o *output) close() (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed && o.live != nil && !o.truncated() && len(o.tail) > 0 {
		o.live.Write(o.tail)
	}
	o.closed = true
	return o.String(), o.truncated()
}

// String returns what was kept, with a marker where characters were
// dropped.
func (o *output) String() string {
	if o.dropped() == 0 {
		return o.buf.String() + string(o.tail)
	}
	tail := suffixRunes(string(o.tail), o.tailMax)
	return o.buf.String() + fmt.Sprintf("\n[output truncated: %d characters in the middle were dropped; the first %d and the last %d are kept]\n",
		o.dropped(), o.kept, utf8.RuneCountInString(tail)) + tail
}

func (o *output) truncated() bool { return o.dropped() > 0 }
