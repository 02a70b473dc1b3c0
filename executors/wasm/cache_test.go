//go:build unix

package wasm

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

// TestCacheWithoutHome: with neither HOME nor XDG_CACHE_HOME the cache is
// a private per-user directory under the temporary directory.
func TestCacheWithoutHome(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_CACHE_HOME", "")
	os.Unsetenv("XDG_CACHE_HOME")
	t.Setenv("HOME", "")
	os.Unsetenv("HOME")
	dir, err := defaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(tmp, "star-agent-"+userID(), "wazero"); dir != want {
		t.Fatalf("cache dir %q, want %q", dir, want)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		fi, err := os.Lstat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
	if again, err := defaultCacheDir(); err != nil || again != dir {
		t.Fatalf("second time: %q, %v", again, err)
	}
}

// TestTempCacheRefusesOthers: a per-user directory that is a symbolic
// link, or open to other users, is not used.
func TestTempCacheRefusesOthers(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	user := filepath.Join(tmp, "star-agent-"+userID())

	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, user); err != nil {
		t.Fatal(err)
	}
	if _, err := TempCacheDir(); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlink: err = %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("wrote through the symlink: %v", entries)
	}
	os.Remove(user)

	if err := os.Mkdir(user, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(user, 0o777)
	if _, err := TempCacheDir(); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Errorf("mode 0777: err = %v", err)
	}
	os.Chmod(user, 0o700)
	if _, err := TempCacheDir(); err != nil {
		t.Errorf("mode 0700: %v", err)
	}
}

// TestColdStartSaysSo: the first start from an empty cache prints one
// line of progress; later ones print nothing.
func TestColdStartSaysSo(t *testing.T) {
	var buf bytes.Buffer
	dir := t.TempDir()
	for i := range 2 {
		e := newExec(t, Options{CacheDir: dir, Progress: &buf})
		if res := exec1(t, e, "1"); res.Value != int64(1) {
			t.Fatal(res)
		}
		e.Close()
		if i == 0 && !strings.Contains(buf.String(), "compiling CPython to machine code") {
			t.Fatalf("first start printed %q", buf.String())
		}
	}
	if n := strings.Count(buf.String(), "\n"); n != 1 {
		t.Errorf("progress printed %d lines: %q", n, buf.String())
	}
	if coldStart(dir) {
		t.Error("the cache is not marked warm after a start")
	}
}

// TestRunnerCodeCached: the first sandbox started with a cache directory
// leaves its compiled runner there; later ones start from it and work the
// same; a damaged one is replaced, not used.
func TestRunnerCodeCached(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, runnerCodeFile())
	fromCode := "'marshal' in final_answer.__globals__ and 'c' in final_answer.__globals__"
	for i, want := range []string{"False", "True", "False", "True"} {
		if i == 2 {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)-1] ^= 0xff
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		e := newExec(t, Options{CacheDir: dir, Progress: io.Discard})
		if res := exec1(t, e, fromCode); res.Repr != want {
			t.Fatalf("start %d: started from the compiled runner: %s %v, want %s", i+1, res.Repr, res.Err, want)
		}
		runnertest.OK(t, e, "import json\nx = json.dumps({'a': 1})")
		e.Close()
		if readRunnerCode(path) == nil {
			t.Fatalf("start %d: no compiled runner in the cache", i+1)
		}
	}
}
