package wasm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/star-agent/star-agent/executors/runner"
)

// Starting from the runner's compiled code. Compiling runner.Script is
// most of what the runner's own start costs in the WebAssembly
// interpreter (about 40 ms of CPU of 66). So the first sandbox started
// with a cache directory is asked for its compiled runner (a marshal of
// its code object, sent with its ready message before any code ran in
// it, see runner.EmitCodeArg); it is kept in the cache directory, keyed by
// python.wasm and the script, and later sandboxes get it as one more
// read-only file of the standard library's mount and exec it.

// runnerCodeFile is the compiled runner's name in the cache directory and,
// read-only, in /usr/local/lib inside the sandbox.
var runnerCodeFile = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write(pythonWasm)
	io.WriteString(h, stdlibNames) // the program is stdlibNames + runner.Script
	io.WriteString(h, runner.Script)
	return "star-agent-runner-" + hex.EncodeToString(h.Sum(nil)[:12]) + ".marshal"
})

// runnerLoader is the program that starts the runner from its compiled
// code.
func runnerLoader() string {
	return "import marshal, sys\n" +
		"p = '/usr/local/lib/" + runnerCodeFile() + "'\n" +
		"try:\n" +
		"    with open(p, 'rb') as f:\n" +
		"        c = marshal.loads(f.read())\n" +
		"except Exception as e:\n" +
		"    sys.exit('star-agent: the compiled runner ' + p + ' is unreadable: ' + repr(e))\n" +
		"del p, f\n" +
		"exec(c)\n"
}

// readRunnerCode returns the compiled runner stored at path, or nil when
// there is none or it is damaged (its SHA-256, which precedes it, does
// not match).
func readRunnerCode(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil || len(data) <= sha256.Size {
		return nil
	}
	sum := sha256.Sum256(data[sha256.Size:])
	if !bytes.Equal(sum[:], data[:sha256.Size]) {
		return nil
	}
	return data[sha256.Size:]
}

// keepRunnerCode stores the compiled runner sb's runner sent, if any, in
// dir, after its SHA-256, atomically, so that a reader never sees part
// of it.
func keepRunnerCode(dir string, sb runner.Sandbox) {
	code := sb.Session().RunnerCode()
	if dir == "" || len(code) == 0 {
		return
	}
	f, err := os.CreateTemp(dir, runnerCodeFile()+".*.tmp")
	if err != nil {
		return
	}
	sum := sha256.Sum256(code)
	_, err = f.Write(append(sum[:], code...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, runnerCodeFile()))
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// withFile is an fs.FS with one more file, held in memory, at its root.
type withFile struct {
	fs.FS
	name string
	data []byte
}

func (w withFile) Open(name string) (fs.File, error) {
	if name == w.name {
		return &memFile{Reader: bytes.NewReader(w.data), name: w.name, size: int64(len(w.data))}, nil
	}
	return w.FS.Open(name)
}

type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Name() string               { return f.name }
func (f *memFile) Size() int64                { return f.size }
func (f *memFile) Mode() fs.FileMode          { return 0o444 }
func (f *memFile) ModTime() time.Time         { return time.Time{} }
func (f *memFile) IsDir() bool                { return false }
func (f *memFile) Sys() any                   { return nil }
