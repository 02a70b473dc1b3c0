package starlarkagent

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/executors"
)

// MaxOutputLength is the length in characters beyond which the last output
// shown to the model is truncated, keeping its head and tail.
const MaxOutputLength = 20_000

// truncate keeps the head and tail of s when it has more than max
// characters, with a marker in between.
func truncate(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	half := max / 2
	return string(r[:half]) +
		fmt.Sprintf("\n..._This content has been truncated to stay below %d characters_...\n", max) +
		string(r[len(r)-half:])
}

// observation formats a successful execution the way smolagents does.
func observation(res executors.Result, maxLogs int) string {
	var b strings.Builder
	b.WriteString("Execution logs:\n")
	b.WriteString(truncate(res.Stdout, maxLogs))
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	b.WriteString("Last output from code snippet:\n")
	b.WriteString(truncate(lastOutput(res), MaxOutputLength))
	return b.String() + notes(res)
}

// notes renders what the executor has to tell the model beyond the code's
// own output: variables that could not move between engines, a sandbox
// that was restarted.
func notes(res executors.Result) string {
	var b strings.Builder
	for _, n := range res.Notes {
		b.WriteString("\nNote: ")
		b.WriteString(n)
	}
	return b.String()
}

// lastOutput is the value of the code as str() shows it: a string
// without quotes, other values as their repr.
func lastOutput(res executors.Result) string {
	if s, ok := res.Value.(string); ok {
		return s
	}
	if res.Repr != "" {
		return res.Repr
	}
	return pyRepr(res.Value)
}

// partialLogs is the observation of a failed execution: what it printed
// before failing.
func partialLogs(res executors.Result, maxLogs int) string {
	if res.Stdout == "" {
		return strings.TrimPrefix(notes(res), "\n")
	}
	return "Execution logs:\n" + truncate(res.Stdout, maxLogs) + notes(res)
}
