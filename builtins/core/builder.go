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
type Builder struct {
	Th  *starlark.Thread
	b   strings.Builder
	err error
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
	if !b.reserve(len(s)) {
		return 0, b.err
	}
	return b.b.WriteString(s)
}

// WriteByte appends c unless the budget refuses it.
func (b *Builder) WriteByte(c byte) error {
	if !b.reserve(1) {
		return b.err
	}
	return b.b.WriteByte(c)
}

// WriteRune appends r unless the budget refuses it.
func (b *Builder) WriteRune(r rune) (int, error) {
	if !b.reserve(utf8.RuneLen(r)) {
		return 0, b.err
	}
	return b.b.WriteRune(r)
}

// Len is the number of bytes written.
func (b *Builder) Len() int { return b.b.Len() }

// String returns what was written.
func (b *Builder) String() string { return b.b.String() }

// Err is the error that refused a write (a MemoryError, or the
// execution's interruption), nil if none did.
func (b *Builder) Err() error { return b.err }
