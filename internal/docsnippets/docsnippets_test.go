package docsnippets

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// root is the module's root, seen from this package's directory.
const root = "../.."

// A snippet is a complete program found in a page.
type snippet struct {
	page string // relative to the module root
	line int    // of the opening fence
	code string
}

func (s snippet) name() string { return fmt.Sprintf("%s:%d", s.page, s.line) }

// extract returns the ```go blocks of text that start with "package main".
func extract(page string, text []byte) []snippet {
	var out []snippet
	var cur *snippet
	var body strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```go":
			cur = &snippet{page: page, line: n}
			body.Reset()
		case cur != nil && trimmed == "```":
			if code := body.String(); strings.HasPrefix(strings.TrimSpace(code), "package main") {
				cur.code = code
				out = append(out, *cur)
			}
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	return out
}

// pages lists README.md and docs/*.md, relative to the module root.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	list := []string{"README.md"}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, rel)
	}
	return list
}

func TestExtract(t *testing.T) {
	page := "text\n```go\npackage main\n\nfunc main() {}\n```\n```go\nx := 1\n```\n```sh\npackage main\n```\n"
	got := extract("p.md", []byte(page))
	if len(got) != 1 || got[0].line != 2 || got[0].code != "package main\n\nfunc main() {}\n" {
		t.Fatalf("extract = %+v, want the one program at line 2", got)
	}
}

// TestProgramsCompile type-checks (go vet) every program of the pages in
// a directory of its own inside the module, whose name starts with "_" so
// that ./... never sees it.
func TestProgramsCompile(t *testing.T) {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not %s: %v", root, err)
	}
	var all []snippet
	perPage := map[string]int{}
	for _, p := range pages(t) {
		text, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		s := extract(p, text)
		perPage[p] = len(s)
		all = append(all, s...)
	}
	// The README's library snippet and docs/library.md's are programs;
	// if the extraction found none, this test would pass while checking
	// nothing.
	if perPage["README.md"] < 1 || perPage["docs/library.md"] < 2 {
		t.Fatalf("README.md has %d complete Go programs and docs/library.md %d, want the README's library snippet and library.md's", perPage["README.md"], perPage["docs/library.md"])
	}
	tmp, err := os.MkdirTemp(".", "_snippets-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	for i, s := range all {
		t.Run(s.name(), func(t *testing.T) {
			code := s.code
			dir := filepath.Join(tmp, fmt.Sprintf("p%d", i))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", "vet", "./"+filepath.ToSlash(dir))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s does not compile as written (go vet: %v):\n%s\n--- the program:\n%s", s.name(), err, out, numbered(code))
			}
		})
	}
}

func numbered(code string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(code, "\n"), "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	return b.String()
}
