package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
)

// DefaultCacheDir is where compiled code is cached unless Options.CacheDir
// says otherwise: star-agent/wazero under os.UserCacheDir when that exists
// or can be created, else star-agent-UID/wazero under os.TempDir (see
// TempCacheDir), else "" (no disk cache: every start compiles). It creates
// the directory it returns.
func DefaultCacheDir() string {
	dir, _ := defaultCacheDir()
	return dir
}

// defaultCacheDir is DefaultCacheDir and, when there is no cache, why.
func defaultCacheDir() (string, error) {
	var errs []error
	if base, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(base, "star-agent", "wazero")
		if err := os.MkdirAll(dir, 0o700); err == nil {
			return dir, nil
		} else {
			errs = append(errs, err)
		}
	} else {
		errs = append(errs, err)
	}
	dir, err := TempCacheDir()
	if err == nil {
		return dir, nil
	}
	return "", errors.Join(append(errs, err)...)
}

// TempCacheDir returns star-agent-UID/wazero under os.TempDir, the cache
// used when there is no user cache directory (HOME unset, as in many
// containers). The per-user directory is created with mode 0700 and
// used only if it is a real directory (not a symbolic link) owned by this
// user and closed to others, so that another user of a shared /tmp can
// neither plant compiled code in it nor read it.
func TempCacheDir() (string, error) {
	user := filepath.Join(os.TempDir(), "star-agent-"+userID())
	if err := os.Mkdir(user, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("temporary cache: %w", err)
	}
	if err := private(user); err != nil {
		return "", fmt.Errorf("temporary cache %s: %w", user, err)
	}
	dir := filepath.Join(user, "wazero")
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("temporary cache: %w", err)
	}
	if err := private(dir); err != nil {
		return "", fmt.Errorf("temporary cache %s: %w", dir, err)
	}
	return dir, nil
}

// warmMarker names the file that says the cache in a directory holds
// python.wasm compiled by this build of wazero: written after a sandbox
// started from it, looked for to decide whether a start will compile.
var warmMarker = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write(pythonWasm)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/tetratelabs/wazero" {
				io.WriteString(h, m.Version+m.Sum)
			}
		}
	}
	return "python-" + hex.EncodeToString(h.Sum(nil)[:12]) + ".compiled"
})

// coldStart reports whether starting from cache dir compiles python.wasm
// (nothing cached yet, or no cache at all).
func coldStart(dir string) bool {
	if dir == "" {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, warmMarker()))
	return err != nil
}

// markWarm records that dir now holds the compiled code.
func markWarm(dir string) {
	if dir != "" {
		os.WriteFile(filepath.Join(dir, warmMarker()), nil, 0o600)
	}
}

// progress says once per process and cache directory that a start is
// compiling python.wasm, which takes seconds, so that a person waiting
// knows why.
var progress struct {
	sync.Mutex
	said map[string]bool
}

func sayCompiling(w io.Writer, dir string, why error) {
	progress.Lock()
	defer progress.Unlock()
	if progress.said[dir] {
		return
	}
	if progress.said == nil {
		progress.said = map[string]bool{}
	}
	progress.said[dir] = true
	if dir != "" {
		fmt.Fprintf(w, "star-agent: wasm: compiling CPython to machine code (first start, a few seconds; cached in %s)\n", dir)
		return
	}
	msg := "no cache directory"
	if why != nil {
		msg += " (" + why.Error() + ")"
	}
	fmt.Fprintf(w, "star-agent: wasm: compiling CPython to machine code (a few seconds); %s, so every new process compiles again: set XDG_CACHE_HOME or HOME to a writable directory\n", msg)
}
