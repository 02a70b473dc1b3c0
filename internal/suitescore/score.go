package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// A run is what one interpreter did with one file: what it printed and
// the exception that ended it, if any.
type run struct {
	Stdout   string
	Exc      string // the uncaught exception's type, without its module; "" if none
	Msg      string // its message
	TimedOut bool   // killed by the tool's own timer
}

// Outcomes of a file, in the order the report lists them.
const (
	identical   = "identical"
	diffStdout  = "different stdout"
	diffExc     = "different exception"
	unsupported = "engine refused: unsupported syntax or construct"
	importRef   = "engine refused: import not allowed or module not provided"
	accessRef   = "engine refused: name or attribute not allowed"
	limitHit    = "engine refused: limit hit"
	selfSkip    = "the test skips itself on the engine (prints SKIP)"
	crashed     = "engine crashed"
	skipped     = "skipped: CPython itself failed"
)

var outcomes = []string{identical, diffStdout, diffExc, unsupported, importRef, accessRef, limitHit, selfSkip, crashed, skipped}

// cannotRun are the exceptions that say CPython 3.11 could not run the
// file at all: syntax it does not have (a later Python's, MicroPython's)
// or a module it does not have (micropython, uctypes, a sibling file).
var cannotRun = []string{"SyntaxError", "IndentationError", "TabError", "ImportError", "ModuleNotFoundError"}

// skipReason says why a file is left out of the score, from CPython's
// run; "" when it counts.
func skipReason(py run) string {
	switch {
	case py.TimedOut:
		return "CPython timed out"
	case slices.Contains(cannotRun, py.Exc):
		return "CPython: " + py.Exc + ": " + shorten(py.Msg)
	case firstLine(py.Stdout) == "SKIP":
		return "the test skips itself on CPython (prints SKIP)"
	}
	return ""
}

// classify compares the engine's run of a file with CPython's and
// returns the outcome and, unless identical or skipped, its cause: the
// text the report groups files by. code is the file's text, where a test
// that skips itself says what it checked.
func classify(code string, py, en run) (outcome, cause string) {
	if why := skipReason(py); why != "" {
		return skipped, why
	}
	if en.Stdout == py.Stdout && en.Exc == py.Exc && !en.TimedOut {
		return identical, ""
	}
	what := en.Exc + ": " + shorten(en.Msg)
	switch {
	case en.TimedOut:
		return limitHit, "killed by suitescore's timer"
	case firstLine(en.Stdout) == "SKIP":
		return selfSkip, "the test's guard fails: " + skipGuard(code)
	case (en.Exc == "ImportError" || en.Exc == "ModuleNotFoundError") &&
		(strings.Contains(en.Msg, "is not allowed") || strings.Contains(en.Msg, "does not provide it")):
		return importRef, what
	case strings.Contains(en.Msg, "not supported by the Starlark engine") || strings.Contains(en.Msg, "full Python is not available"):
		return unsupported, what
	case strings.HasPrefix(en.Msg, "access to ") && strings.Contains(en.Msg, " is not allowed"):
		return accessRef, what
	case isLimit(en):
		return limitHit, what
	case en.Exc == "SystemError" && strings.Contains(en.Msg, "process ended unexpectedly"):
		return crashed, what
	case en.Exc != py.Exc && en.Exc != "":
		return diffExc, what
	case en.Exc != py.Exc:
		return diffExc, "no exception where CPython raised " + py.Exc + ": " + shorten(py.Msg)
	}
	if strings.Contains(en.Stdout, "\n[output truncated") {
		return limitHit, "output truncated at the output limit"
	}
	return diffStdout, firstDifference(py.Stdout, en.Stdout)
}

// skipGuard is the check a test made before it printed SKIP: the first
// line of the try block whose handler prints it ("import struct",
// "bytearray"), or the condition of the if that prints it.
func skipGuard(code string) string {
	lines := strings.Split(code, "\n")
	at := slices.IndexFunc(lines, func(l string) bool {
		l = strings.TrimSpace(l)
		return l == `print("SKIP")` || l == `print('SKIP')`
	})
	if at < 0 {
		return "?"
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	blank := func(l string) bool { l = strings.TrimSpace(l); return l == "" || strings.HasPrefix(l, "#") }
	// The enclosing block's header: the nearest line above with less
	// indentation.
	h := at - 1
	for h >= 0 && (blank(lines[h]) || indent(lines[h]) >= indent(lines[at])) {
		h--
	}
	if h < 0 {
		return "?"
	}
	header := strings.TrimSpace(lines[h])
	if !strings.HasPrefix(header, "except") {
		return header
	}
	// A handler: find its try, and the try block's first line.
	t := h - 1
	for t >= 0 && !(indent(lines[t]) == indent(lines[h]) && strings.TrimSpace(lines[t]) == "try:") {
		t--
	}
	for i := t + 1; t >= 0 && i < h; i++ {
		if !blank(lines[i]) {
			return strings.TrimSpace(lines[i])
		}
	}
	return header
}

// crashCause is what the report says of an engine that gave no result:
// the Go runtime's "fatal error: ..." or "panic: ..." line when there is
// one.
func crashCause(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "panic: ") {
			return "the engine's process died: " + shorten(l)
		}
	}
	return "the engine gave no result"
}

// isLimit reports an error that is one of the engine's limits, not
// Python's: the time, memory, operation and depth budgets.
func isLimit(en run) bool {
	switch en.Exc {
	case "TimeoutError", "MemoryError", "StepLimitError":
		return strings.Contains(en.Msg, "limit") || strings.Contains(en.Msg, "Starlark engine's process")
	case "RecursionError":
		return strings.Contains(en.Msg, "(limit ") || strings.Contains(en.Msg, "Starlark engine's process")
	}
	return false
}

// firstDifference describes the first line where two outputs differ,
// without its line number, so that files differing the same way group.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			switch {
			case i >= len(g):
				return fmt.Sprintf("output ends early: CPython %s", quote(wl))
			case i >= len(w):
				return fmt.Sprintf("output goes on: engine %s", quote(gl))
			}
			return fmt.Sprintf("CPython %s, engine %s", quote(wl), quote(gl))
		}
	}
	return "outputs differ" // not reached for different strings
}

// quote is a line as Go quotes it, cut at 60 characters.
func quote(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// shorten is the part of an exception message that groups: its first
// line, before any "; " (where the engine's advice and lists begin), at
// most 80 characters.
func shorten(msg string) string {
	msg = firstLine(msg)
	if i := strings.Index(msg, "; "); i >= 0 {
		msg = msg[:i]
	}
	if r := []rune(msg); len(r) > 80 {
		msg = string(r[:80]) + "…"
	}
	return msg
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// excLine matches the last line of a traceback: "KeyError: 'k'",
// "json.decoder.JSONDecodeError: ...", "StopIteration".
var excLine = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.]*)(?:: (.*))?$`)

// parseCPython is CPython's run from its standard output, standard error
// and exit status. An uncaught exception is the last line of the
// traceback; SystemExit prints none and counts as no exception.
func parseCPython(stdout, stderr string, exitCode int) run {
	r := run{Stdout: stdout}
	if exitCode == 0 {
		return r
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if !strings.Contains(stderr, "Traceback (most recent call last):") && !strings.Contains(stderr, "  File ") {
		return r // SystemExit(n), or a message of SystemExit("...")
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if m := excLine.FindStringSubmatch(lines[i]); m != nil {
			r.Exc, r.Msg = bareType(m[1]), m[2]
			break
		}
	}
	return r
}

// bareType is an exception's type without its module: what the engine
// reports.
func bareType(t string) string {
	if i := strings.LastIndex(t, "."); i >= 0 {
		return t[i+1:]
	}
	return t
}

// execResult is the part of `star-agent exec --json`'s line the score
// reads; the in-process engine writes the same shape.
type execResult struct {
	Stdout string `json:"stdout"`
	Error  *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// parseEngine is the engine's run from the first JSON line it wrote.
// SystemExit counts as no exception, as it does for CPython.
func parseEngine(out []byte) (run, error) {
	line, _, _ := strings.Cut(string(out), "\n")
	var res execResult
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		return run{}, fmt.Errorf("engine output is not a JSON result: %w: %.200q", err, out)
	}
	r := run{Stdout: res.Stdout}
	if res.Error != nil && res.Error.Type != "SystemExit" {
		r.Exc, r.Msg = bareType(res.Error.Type), res.Error.Message
	}
	return r, nil
}

// A fileScore is one file's line in the report.
type fileScore struct {
	File     string  `json:"file"`
	Outcome  string  `json:"outcome"`
	Cause    string  `json:"cause,omitempty"`
	CPython  string  `json:"cpython_exception,omitempty"`
	Engine   string  `json:"engine_exception,omitempty"`
	EngineEr string  `json:"engine_error,omitempty"` // the engine could not be run at all
	Seconds  float64 `json:"seconds"`                // both runs, wall clock
}

// A group is the files that differ (or are skipped) for one cause.
type group struct {
	Cause   string   `json:"cause"`
	Outcome string   `json:"outcome"`
	Count   int      `json:"count"`
	Files   []string `json:"files"`
}

// groupCauses groups the files of the given outcomes by cause, the most
// frequent cause first (then by cause text), files in name order.
func groupCauses(scores []fileScore, keep func(outcome string) bool) []group {
	byCause := map[string]*group{}
	for _, s := range scores {
		if !keep(s.Outcome) {
			continue
		}
		key := s.Outcome + "\x00" + s.Cause
		g := byCause[key]
		if g == nil {
			g = &group{Cause: s.Cause, Outcome: s.Outcome}
			byCause[key] = g
		}
		g.Count++
		g.Files = append(g.Files, s.File)
	}
	var groups []group
	for _, g := range byCause {
		slices.Sort(g.Files)
		groups = append(groups, *g)
	}
	slices.SortFunc(groups, func(a, b group) int {
		return cmp.Or(b.Count-a.Count, strings.Compare(a.Cause, b.Cause), strings.Compare(a.Outcome, b.Outcome))
	})
	return groups
}

// countOutcomes counts the files of each outcome.
func countOutcomes(scores []fileScore) map[string]int {
	n := map[string]int{}
	for _, s := range scores {
		n[s.Outcome]++
	}
	return n
}
