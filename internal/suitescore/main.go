// Command suitescore scores star-agent's Starlark engine against CPython
// on a directory of Python test scripts (another interpreter's test suite,
// say): it runs every *.py file under -dir with python3 and with the
// engine, compares what each printed and the type of the exception that
// ended it, and prints the counts and the differences grouped by cause,
// the most frequent first, so that the report says what to build next.
//
//	go run ./internal/suitescore -dir /tmp/suite/micropython
//	go run ./internal/suitescore -dir DIR -binary ./star-agent -out report.json
//
// The engine runs in a child process per file: this tool itself run with
// -child (the library's executors/starlarkexec, default limits), or with
// -binary, `BINARY exec --json` of a star-agent build (to score an older
// commit). Either way it may import the default authorized modules and
// those the file imports that are not host modules.
//
// Files CPython cannot run (a SyntaxError, a module it does not have, a
// test that prints SKIP, a timeout) are skipped and counted as such. The
// tool measures against the python3 it finds; it is not a test, and no
// test needs python3. docs/conformance.md has the results.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

func main() {
	dir := flag.String("dir", "", "directory whose *.py files are scored (recursively)")
	engine := flag.String("engine", "starlark", "engine to score: starlark (the only one)")
	binary := flag.String("binary", "", "run the engine as `BINARY exec --json FILE` of this star-agent build instead of in process")
	timeout := flag.Duration("timeout", 10*time.Second, "time limit of each file, for CPython and for the engine")
	out := flag.String("out", "", "write the report as JSON to this file")
	python := flag.String("python", "python3", "the CPython to compare with (3.11)")
	jobs := flag.Int("j", 2, "files scored at once")
	causes := flag.Int("causes", 40, "causes listed in the text report (all are in -out)")
	child := flag.Bool("child", false, "internal: run the one file given in the in-process engine and print its JSON result")
	flag.Parse()

	if *child {
		if flag.NArg() != 1 {
			fail("-child needs one file")
		}
		if err := runChild(flag.Arg(0), *timeout); err != nil {
			fail("%v", err)
		}
		return
	}
	if *dir == "" || flag.NArg() > 0 {
		fail("usage: suitescore -dir DIR [-engine starlark] [-binary PATH] [-timeout 10s] [-out report.json]")
	}
	if *engine != "starlark" {
		fail("-engine %q: only starlark is scored", *engine)
	}
	version, err := exec.Command(*python, "--version").Output()
	if err != nil {
		fail("%s: %v", *python, err)
	}
	files, err := pyFiles(*dir)
	if err != nil {
		fail("%v", err)
	}
	scores := scoreAll(files, *dir, *python, *binary, *timeout, max(*jobs, 1))

	rep := report{
		Dir:     *dir,
		Engine:  *engine,
		Binary:  *binary,
		Python:  strings.TrimSpace(string(version)),
		Counts:  countOutcomes(scores),
		Causes:  groupCauses(scores, func(o string) bool { return o != identical && o != skipped }),
		Skipped: groupCauses(scores, func(o string) bool { return o == skipped }),
		Files:   scores,
	}
	rep.Total = len(scores)
	rep.print(os.Stdout, *causes)
	if *out != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(*out, append(data, '\n'), 0o644)
		}
		if err != nil {
			fail("%v", err)
		}
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "suitescore: "+format+"\n", args...)
	os.Exit(2)
}

// pyFiles lists the *.py files under dir, in name order.
func pyFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".py") {
			files = append(files, path)
		}
		return err
	})
	return files, err
}

// scoreAll scores the files, jobs at a time, and returns their scores in
// the files' order.
func scoreAll(files []string, dir, python, binary string, timeout time.Duration, jobs int) []fileScore {
	scores := make([]fileScore, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				scores[i] = scoreFile(files[i], dir, python, binary, timeout)
			}
		}()
	}
	for i := range files {
		next <- i
		if (i+1)%100 == 0 {
			fmt.Fprintf(os.Stderr, "suitescore: %d/%d files\n", i+1, len(files))
		}
	}
	close(next)
	wg.Wait()
	return scores
}

func scoreFile(file, dir, python, binary string, timeout time.Duration) (s fileScore) {
	name, _ := filepath.Rel(dir, file)
	s = fileScore{File: filepath.ToSlash(name)}
	start := time.Now()
	defer func() { s.Seconds = time.Since(start).Round(10 * time.Millisecond).Seconds() }()
	py := runCPython(python, file, timeout)
	s.CPython = py.Exc
	if why := skipReason(py); why != "" {
		s.Outcome, s.Cause = skipped, why
		return s // the engine need not run
	}
	code, err := os.ReadFile(file)
	if err == nil {
		var en run
		en, err = runEngine(binary, file, timeout)
		s.Engine = en.Exc
		s.Outcome, s.Cause = classify(string(code), py, en)
	}
	if err != nil {
		s.Outcome, s.Cause, s.EngineEr = crashed, crashCause(err.Error()), err.Error()
		if len(s.EngineEr) > 2000 {
			s.EngineEr = s.EngineEr[:2000] + "…"
		}
	}
	return s
}

// report is what the tool prints, and writes with -out.
type report struct {
	Dir     string         `json:"dir"`
	Engine  string         `json:"engine"`
	Binary  string         `json:"binary,omitempty"`
	Python  string         `json:"python"`
	Total   int            `json:"total"`
	Counts  map[string]int `json:"counts"`
	Causes  []group        `json:"causes"`
	Skipped []group        `json:"skipped"`
	Files   []fileScore    `json:"files"`
}

func (r report) print(w io.Writer, maxCauses int) {
	fmt.Fprintf(w, "%s: %d files, engine %s", r.Dir, r.Total, r.Engine)
	if r.Binary != "" {
		fmt.Fprintf(w, " (%s)", r.Binary)
	}
	fmt.Fprintf(w, ", against %s\n\n", r.Python)
	scored := r.Total - r.Counts[skipped]
	for _, o := range outcomes {
		if o == skipped {
			fmt.Fprintf(w, "%5d  %s\n", r.Counts[o], o)
		} else {
			fmt.Fprintf(w, "%5d  %s (%.1f%% of %d scored)\n", r.Counts[o], o, percent(r.Counts[o], scored), scored)
		}
	}
	fmt.Fprintf(w, "\nDifferences by cause, most frequent first:\n")
	for i, g := range r.Causes {
		if i == maxCauses {
			fmt.Fprintf(w, "  ... %d more causes (-out has them all)\n", len(r.Causes)-i)
			break
		}
		fmt.Fprintf(w, "%5d  [%s] %s\n       e.g. %s\n", g.Count, g.Outcome, g.Cause, examples(g.Files))
	}
	fmt.Fprintf(w, "\nSkipped, by reason:\n")
	for _, g := range r.Skipped {
		fmt.Fprintf(w, "%5d  %s\n       e.g. %s\n", g.Count, g.Cause, examples(g.Files))
	}
}

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// examples names up to three files.
func examples(files []string) string {
	if len(files) > 3 {
		return strings.Join(files[:3], ", ") + fmt.Sprintf(" (+%d)", len(files)-3)
	}
	return strings.Join(files, ", ")
}
