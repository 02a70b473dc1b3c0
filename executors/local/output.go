package local

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// output keeps what the code prints, up to a number of characters, and
// counts the rest. It also copies what it keeps to an optional live writer.
type output struct {
	max     int
	kept    int // characters kept
	dropped int // characters dropped
	buf     strings.Builder
	live    io.Writer
}

func (o *output) Write(p []byte) (int, error) {
	o.WriteString(string(p))
	return len(p), nil
}

func (o *output) WriteString(s string) (int, error) {
	n := utf8.RuneCountInString(s)
	keep := s
	if o.kept+n > o.max {
		room := max(o.max-o.kept, 0)
		// Cut at a rune boundary after room characters.
		cut := 0
		for i := 0; i < room; i++ {
			_, size := utf8.DecodeRuneInString(s[cut:])
			cut += size
		}
		keep = s[:cut]
		o.dropped += n - room
		n = room
	}
	o.kept += n
	o.buf.WriteString(keep)
	if o.live != nil && keep != "" {
		io.WriteString(o.live, keep)
	}
	return len(s), nil
}

// String returns what was kept, with a marker if anything was dropped.
func (o *output) String() string {
	if o.dropped == 0 {
		return o.buf.String()
	}
	return o.buf.String() + o.marker()
}

func (o *output) marker() string {
	return fmt.Sprintf("\n[output truncated: %d more characters were printed; only the first %d are kept]\n", o.dropped, o.max)
}

func (o *output) truncated() bool { return o.dropped > 0 }
