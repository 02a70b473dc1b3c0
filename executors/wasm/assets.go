package wasm

import (
	"archive/zip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"sync"
)

// The interpreter and its standard library, built by cpython/build.sh from
// Debian's sources (versions and checksums in cpython/VERSIONS).
var (
	//go:embed cpython/python.wasm
	pythonWasm []byte

	//go:embed cpython/python311.zip
	stdlibFS embed.FS
)

// stdlibZip is the standard library's file in stdlibFS's cpython/.
const stdlibZip = "python311.zip"

// stdlibDir is the standard library as a directory tree: the embedded
// zip, read by Go's archive/zip, once per process (about 1 ms). Mounted
// as /usr/local/lib/python3.11 in place of python311.zip, it lets the
// interpreter import through its ordinary path finder instead of
// zipimport, whose reading of the zip's 483-entry directory in
// WebAssembly cost about 7 ms of every start, and each import after it
// more: a sandbox's first result comes about 10 ms sooner. stdlibNames
// gives its code the names a traceback shows.
var stdlibDir = sync.OnceValues(func() (fs.FS, error) {
	f, err := stdlibFS.Open("cpython/" + stdlibZip)
	if err != nil {
		return nil, err
	}
	ra, ok := f.(io.ReaderAt)
	st, serr := f.Stat()
	if !ok || serr != nil {
		return nil, fmt.Errorf("wasm: the embedded %s cannot be read in place", stdlibZip)
	}
	z, err := zip.NewReader(ra, st.Size())
	if err != nil {
		return nil, fmt.Errorf("wasm: the embedded %s: %w", stdlibZip, err)
	}
	return z, nil
})

// hideFile is an fs.FS without the file name at its root.
type hideFile struct {
	fs.FS
	name string
}

func (h hideFile) Open(name string) (fs.File, error) {
	if name == h.name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return h.FS.Open(name)
}

// stdlibNames, run before the runner, makes the interpreter load the
// standard library's .pyc files (in /usr/local/lib/python3.11 and the
// packages under it) with the names of their sources in the sandbox
// (/usr/local/lib/python3.11/json/decoder.py), which tracebacks show;
// Python's own loader of .pyc files keeps the names they were compiled
// with, the build machine's paths. It uses the import system's frozen
// classes, so that it imports no file itself.
const stdlibNames = `def _stdlib_names():
    import sys, _imp, _frozen_importlib_external as ext
    root = "/usr/local/lib/python3.11"
    fix = _imp._fix_co_filename
    class Loader(ext.SourcelessFileLoader):
        def get_code(self, fullname):
            code = super().get_code(fullname)
            fix(code, self.path[:-1])
            return code
    def hook(path):
        if path == root or path.startswith(root + "/"):
            return ext.FileFinder(path, (Loader, [".pyc"]))
        raise ImportError("not the standard library")
    sys.path_hooks.insert(0, hook)
    for p in list(sys.path_importer_cache):
        if p == root or p.startswith(root + "/"):
            del sys.path_importer_cache[p]
_stdlib_names()
del _stdlib_names
`
