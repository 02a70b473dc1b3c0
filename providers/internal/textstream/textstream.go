// Package textstream splits a finished text into stream deltas, for models
// that know their whole answer up front (test doubles, recorded sessions)
// but must still behave like a streaming server.
package textstream

import (
	"context"
	"fmt"

	"github.com/star-agent/star-agent/providers"
)

// Yield streams text to yield in chunks of about four words (whitespace kept
// intact, so stop sequences and code fences are often split across chunks,
// as with real servers), then an empty delta carrying usage. If ctx is done
// it yields the context's error and stops; if yield returns false it stops.
func Yield(ctx context.Context, text string, usage providers.Usage, yield func(providers.Delta, error) bool) {
	for len(text) > 0 {
		if err := ctx.Err(); err != nil {
			yield(providers.Delta{}, fmt.Errorf("stream: %w", err))
			return
		}
		n := chunkEnd(text, 4)
		if !yield(providers.Delta{Content: text[:n]}, nil) {
			return
		}
		text = text[n:]
	}
	u := usage
	yield(providers.Delta{Usage: &u}, nil)
}

// chunkEnd returns the length of the prefix of s holding its first n words
// and the whitespace after them.
func chunkEnd(s string, n int) int {
	i := 0
	for w := 0; w < n && i < len(s); w++ {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		for i < len(s) && !isSpace(s[i]) {
			i++
		}
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }
