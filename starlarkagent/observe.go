package starlarkagent

import (
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/prompts"
)

// MaxOutputLength is the length in characters beyond which the last output
// shown to the model is truncated, keeping its head and tail.
const MaxOutputLength = 20_000

// truncate keeps the head and tail of s when it has more than max
// characters, with the ValueTruncated marker in between.
func truncate(p *prompts.Set, s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	half := max / 2
	return string(r[:half]) + promptText(p, prompts.ValueTruncated, prompts.Data{MaxLength: max}) + string(r[len(r)-half:])
}

// executorMarker is what executors (the local engine, the Python runner)
// put where they dropped the middle of a long printed output.
var executorMarker = regexp.MustCompile(`\n\[output truncated: (\d+) characters in the middle were dropped; the first (\d+) and the last (\d+) are kept\]\n`)

// cutLogs keeps at most max characters of what the code printed, its head
// and its tail, with one marker (prompts.OutputTruncated) saying how many
// were dropped. An output the executor already cut keeps its cut when that
// fits, and is cut further when the executor's cap was larger; either way
// the executor's marker is replaced by ours with the total count, so that
// the model never reads two markers, nor a cut through one, and always
// reads how the output ends.
func cutLogs(p *prompts.Set, res executors.Result, max int) string {
	s := res.Stdout
	if res.Truncated {
		if head, tail, dropped, ok := splitAtMarker(s); ok {
			return cutMiddle(p, []rune(head), []rune(tail), dropped, max)
		}
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return cutMiddle(p, r[:max-max/2], r[max-max/2:], 0, max)
}

// cutMiddle joins the start of head and the end of tail, at most max
// characters in all, with a marker counting the characters dropped: those
// already dropped between head and tail, and those cut here.
func cutMiddle(p *prompts.Set, head, tail []rune, dropped, max int) string {
	keepHead := min(len(head), max-max/2)
	keepTail := min(len(tail), max-keepHead)
	if keepHead < len(head) { // the tail is short: give it the rest
		keepHead = min(len(head), max-keepTail)
	}
	dropped += len(head) - keepHead + len(tail) - keepTail
	marker := promptText(p, prompts.OutputTruncated, prompts.Data{Dropped: dropped, Head: keepHead, Tail: keepTail})
	return string(head[:keepHead]) + marker + string(tail[len(tail)-keepTail:])
}

// splitAtMarker finds the executor's marker in s: the one that the counts
// it states place exactly, since the code may have printed one of its own.
func splitAtMarker(s string) (head, tail string, dropped int, ok bool) {
	for _, m := range executorMarker.FindAllStringSubmatchIndex(s, -1) {
		d, _ := strconv.Atoi(s[m[2]:m[3]])
		h, _ := strconv.Atoi(s[m[4]:m[5]])
		t, _ := strconv.Atoi(s[m[6]:m[7]])
		head, tail = s[:m[0]], s[m[1]:]
		if utf8.RuneCountInString(head) == h && utf8.RuneCountInString(tail) == t {
			return head, tail, d, true
		}
	}
	return "", "", 0, false
}

// observation is what the model reads about an execution that succeeded.
func observation(p *prompts.Set, res executors.Result, maxLogs int) string {
	return promptText(p, prompts.Execution, prompts.Data{
		Logs:       cutLogs(p, res, maxLogs),
		LastOutput: truncate(p, lastOutput(res), MaxOutputLength),
		Notes:      res.Notes,
	})
}

// lastOutput is the value of the code as str() shows it: a string
// without quotes, other values as their repr.
func lastOutput(res executors.Result) string {
	if s, ok := res.Value.(string); ok {
		return s
	}
	if hasImage(res.Value) {
		v := describeImages(res.Value)
		if s, ok := v.(string); ok {
			return s
		}
		return pyRepr(v)
	}
	if res.Repr != "" {
		return res.Repr
	}
	return pyRepr(res.Value)
}

// partialLogs is the observation of a failed execution: what it printed
// before failing, and the executor's notes.
func partialLogs(p *prompts.Set, res executors.Result, maxLogs int) string {
	return promptText(p, prompts.FailedExecution, prompts.Data{Logs: cutLogs(p, res, maxLogs), Notes: res.Notes})
}
