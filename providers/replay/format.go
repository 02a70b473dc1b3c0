// Package replay records a session's model exchanges as JSON lines and plays
// them back, so that demos and golden tests run a real agent loop (the code
// still executes for real) without a model server.
//
// # File format
//
// A recording is a text file of JSON lines, one Exchange per model call, in
// call order:
//
//	{"v":1,"n":1,"time":"2026-01-02T15:04:05.123Z","model":"gpt-4o-mini",
//	 "messages":2,"messages_sha256":"9f2c…","last":{"role":"user","content":"…"},
//	 "stop":["<end_code>"],"content":"Thought: …","usage":{"input_tokens":812,"output_tokens":64},
//	 "duration_ms":1530}
//
// To keep files small and readable, the conversation sent is not stored in
// full: only its length, a SHA-256 of all its messages and the last message
// in full (the task or the latest observation, which is what tells one step
// from another). Both the hash and the last message are computed on the
// normalized text (see Normalize), so run-to-run noise such as durations
// does not count as a difference. The API key, headers and base URL are
// never recorded. A call that failed is recorded with "error" (the error's
// text) instead of "content"; a call cancelled by its context is not
// recorded at all. Blank lines and lines starting with "#" are ignored, so a
// recording may carry comments.
//
// # Matching
//
// Model plays exchanges back in order. Before answering call n it compares
// the request with exchange n, according to Model.Match: by default the
// role and normalized content of the last message (MatchLast); or the hash of
// the whole normalized conversation (MatchAll: catches a changed system
// prompt or tool list too); or nothing but order (MatchOrder). A difference,
// or a call past the end of the recording, is a *MismatchError naming the
// exchange and showing expected and actual text around the first
// difference.
package replay

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/star-agent/star-agent/providers"
)

// FormatVersion is the value of Exchange.Version this package writes.
const FormatVersion = 1

// Exchange is one model call of a recording: one JSON line.
type Exchange struct {
	// Version is the format version, FormatVersion.
	Version int `json:"v"`
	// N numbers the exchange, from 1.
	N int `json:"n"`
	// Time is when the call started.
	Time time.Time `json:"time"`
	// Model is the model's id as reported by ModelID.
	Model string `json:"model"`
	// Messages is the number of messages sent.
	Messages int `json:"messages"`
	// MessagesSHA256 is the hex SHA-256 of the normalized conversation,
	// as computed by Hash.
	MessagesSHA256 string `json:"messages_sha256"`
	// Last is the last message sent, its content normalized. Its images
	// are not kept: LastImages holds their SHA-256 digests.
	Last providers.Message `json:"last"`
	// LastImages are the hex SHA-256 digests of the last message's images.
	LastImages []string `json:"last_images,omitempty"`
	// Stop holds the stop sequences of the call.
	Stop []string `json:"stop,omitempty"`
	// Content is the model's answer.
	Content string `json:"content"`
	// ToolCalls are the native tool calls of the answer.
	ToolCalls []providers.ToolCall `json:"tool_calls,omitempty"`
	// Usage is the token usage the model reported, if any.
	Usage *providers.Usage `json:"usage,omitempty"`
	// DurationMS is how long the call took, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Error, when set, is the text of the error the call failed with.
	Error string `json:"error,omitempty"`
}

// Read parses a recording. Blank lines and lines starting with "#" are
// skipped. Errors name the line.
func Read(r io.Reader) ([]Exchange, error) {
	var out []Exchange
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" || strings.HasPrefix(b, "#") {
			continue
		}
		var e Exchange
		dec := json.NewDecoder(strings.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("replay: line %d: %w", line, err)
		}
		if e.Version != FormatVersion {
			return nil, fmt.Errorf("replay: line %d: format version %d, want %d", line, e.Version, FormatVersion)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: read line %d: %w", line+1, err)
	}
	return out, nil
}

// Hash returns the hex SHA-256 of a conversation after normalizing each
// message's content with norm (nil means no normalization). Each role and
// content is length-prefixed, so no two conversations share an encoding.
// Images (by digest) and tool calls count too, in a message that has any,
// so the hash of a conversation of text alone is what it always was.
func Hash(msgs []providers.Message, norm func(string) string) string {
	h := sha256.New()
	var n [8]byte
	put := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
	for _, m := range msgs {
		c := m.Content
		if norm != nil {
			c = norm(c)
		}
		put(string(m.Role))
		put(c)
		if len(m.Images) > 0 || len(m.ToolCalls) > 0 || m.ToolCallID != "" {
			put("\x00extra")
			for _, d := range ImageDigests(m.Images) {
				put("image:" + d)
			}
			for _, tc := range m.ToolCalls {
				put("call:" + tc.ID + ":" + tc.Name + ":" + string(tc.Arguments))
			}
			put("answers:" + m.ToolCallID)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ImageDigests returns the hex SHA-256 digest of each image's data.
func ImageDigests(images []providers.Image) []string {
	var out []string
	for _, im := range images {
		sum := sha256.Sum256(im.Data)
		out = append(out, hex.EncodeToString(sum[:]))
	}
	return out
}

var (
	// Go durations (1.5s, 320ms, 12µs, 1m2.5s, 1h0m0s).
	goDuration = regexp.MustCompile(`\b(?:\d+(?:\.\d+)?(?:ns|us|µs|μs|ms|h|m|s))+\b`)
	// Spelled-out durations (0.52 seconds, 3 sec, 15 milliseconds).
	wordDuration = regexp.MustCompile(`\b\d+(?:\.\d+)? ?(?:seconds?|secs?|milliseconds?|microseconds?|nanoseconds?|minutes?)\b`)
	// RFC 3339 / ISO 8601 timestamps, with optional fraction and zone.
	timestamp = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?`)
	// Memory addresses as Go and CPython print them.
	address = regexp.MustCompile(`\b0x[0-9a-fA-F]{6,16}\b`)
	// Trailing whitespace at ends of lines.
	trailingSpace = regexp.MustCompile(`[ \t]+\n`)
)

// Normalize rewrites the parts of a message that legitimately vary from one
// run to the next, so a replay still matches: durations ("1.53s", "320ms",
// "0.5 seconds") become "<duration>", timestamps "<time>", memory addresses
// ("0xc000123456") "<addr>"; CRLF becomes LF and trailing spaces are
// dropped. It is idempotent. Anything else, including numbers an action
// prints, must match exactly.
func Normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = timestamp.ReplaceAllString(s, "<time>")
	s = address.ReplaceAllString(s, "<addr>")
	s = wordDuration.ReplaceAllString(s, "<duration>")
	s = goDuration.ReplaceAllString(s, "<duration>")
	s = trailingSpace.ReplaceAllString(s, "\n")
	return strings.TrimRight(s, " \t")
}
