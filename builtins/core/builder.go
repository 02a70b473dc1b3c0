package core

import (
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/vm/starlark"
)

// Builder is a strings.Builder for output a builtin builds on the code's
// behalf (an encoding, a substitution), charged to the execution's budget
// by the bytes it holds, before each buffer is allocated: a few huge
// values written many times (a JSON encoding of 300 references to one
// 20 MB string) are refused as the output grows, not after it has grown,
// as a check every so many values would.
//
// Each buffer the builder grows into is granted whole (the old ones are
// garbage only once copied, and the budget keeps a builtin's grants until
// it returns): all of them together are at most about twice the last. A
// write the budget refuses is dropped, and the error is kept for Err;
// later writes do nothing.
//
// A builder made by NewElidingBuilder keeps only the start and the end of
// what is written, counting the characters dropped in between.
type Builder struct {
	Th  *starlark.Thread
	b   strings.Builder
	err error

	// keep > 0: b holds at most keep bytes of the start (headFull once
	// it does), tail at least keep bytes of the end (once that many were
	// written after the head), dropped counts the characters between.
	keep     int
	headFull bool
	tail     []byte
	dropped  int
}

// NewElidingBuilder returns a builder that keeps the first and the last
// keep bytes (about: cuts fall on character boundaries) of what is
// written, charging its buffers as they grow (at most about 6*keep).
func NewElidingBuilder(th *starlark.Thread, keep int) *Builder {
	return &Builder{Th: th, keep: max(keep, 4)}
}

// elide takes s in a builder that keeps the start and the end.
func (b *Builder) elide(s string) {
	if !b.headFull {
		n := b.keep - b.b.Len()
		if len(s) <= n {
			if b.reserveLine(len(s)) {
				b.b.WriteString(s)
			}
			return
		}
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if !b.reserveLine(n) {
			return
		}
		b.b.WriteString(s[:n])
		b.headFull = true
		s = s[n:]
	}
	if len(b.tail) == 0 && cap(b.tail) == 0 {
		// The tail's buffer, whole: at most 3*keep.
		if err := Alloc(b.Th, int64(3*b.keep)); err != nil {
			b.err = err
			return
		}
		b.tail = make([]byte, 0, 3*b.keep)
	}
	// s starts at a character; so do tail and every cut below.
	if len(s) >= b.keep {
		b.dropped += utf8.RuneCount(b.tail)
		cut := len(s) - b.keep
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		b.dropped += utf8.RuneCountInString(s[:cut])
		b.tail = append(b.tail[:0], s[cut:]...)
		return
	}
	b.tail = append(b.tail, s...)
	if len(b.tail) > 2*b.keep {
		cut := len(b.tail) - b.keep
		for cut > 0 && !utf8.RuneStart(b.tail[cut]) {
			cut--
		}
		b.dropped += utf8.RuneCount(b.tail[:cut])
		b.tail = b.tail[:copy(b.tail, b.tail[cut:])]
	}
}

// reserveLine is reserve for an eliding builder's start, whose first
// 4 KiB are not charged: print's short lines (most of them) cost the
// budget nothing, as they did before it elided, and print still works
// once an execution is over its budget.
func (b *Builder) reserveLine(n int) bool {
	if b.b.Len()+n <= 4096 {
		return b.err == nil
	}
	return b.reserve(n)
}

// skip counts n characters written to an eliding builder whose start is
// full, without their text: the caller writes at least keep more bytes
// after them, so that none of them could have been kept.
func (b *Builder) skip(n int) {
	if b.keep == 0 || !b.headFull {
		panic("Builder.skip: not an eliding builder with a full start")
	}
	b.dropped += utf8.RuneCount(b.tail) + n
	b.tail = b.tail[:0]
}

// Elided returns what an eliding builder kept: its start, how many
// characters it dropped, and its end.
func (b *Builder) Elided() (head string, dropped int, tail string) {
	return b.b.String(), b.dropped, string(b.tail)
}

// reserve makes room for n more bytes, charging the buffer Grow makes.
func (b *Builder) reserve(n int) bool {
	if b.err != nil {
		return false
	}
	if b.b.Cap()-b.b.Len() >= n {
		return true
	}
	// strings.Builder.Grow allocates 2*cap+n.
	if err := Alloc(b.Th, int64(2*b.b.Cap()+n)); err != nil {
		b.err = err
		return false
	}
	if err := Interrupted(b.Th); err != nil {
		b.err = err
		return false
	}
	b.b.Grow(n)
	return true
}

// Grow makes room for n more bytes, as strings.Builder.Grow does, charged.
func (b *Builder) Grow(n int) {
	if n > 0 {
		b.reserve(n)
	}
}

// WriteString appends s unless the budget refuses it.
func (b *Builder) WriteString(s string) (int, error) {
	if b.keep > 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.elide(s)
		return len(s), nil
	}
	if !b.reserve(len(s)) {
		return 0, b.err
	}
	return b.b.WriteString(s)
}

// WriteByte appends c unless the budget refuses it.
func (b *Builder) WriteByte(c byte) error {
	if b.keep > 0 {
		_, err := b.WriteString(string([]byte{c}))
		return err
	}
	if !b.reserve(1) {
		return b.err
	}
	return b.b.WriteByte(c)
}

// WriteRune appends r unless the budget refuses it.
func (b *Builder) WriteRune(r rune) (int, error) {
	if b.keep > 0 {
		return b.WriteString(string(r))
	}
	if !b.reserve(utf8.RuneLen(r)) {
		return 0, b.err
	}
	return b.b.WriteRune(r)
}

// Len is the number of bytes written (kept, for an eliding builder).
func (b *Builder) Len() int { return b.b.Len() + len(b.tail) }

// String returns what was written (the start, for an eliding builder).
func (b *Builder) String() string { return b.b.String() }

// Err is the error that refused a write (a MemoryError, or the
// execution's interruption), nil if none did.
func (b *Builder) Err() error { return b.err }
