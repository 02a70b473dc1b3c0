package wasm

import (
	"io"
	"io/fs"
	"sync"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// The runner protocol does not travel on the guest's stdin and stdout. WASI
// gives a module no way to duplicate or renumber its standard descriptors
// from Python (no dup2), so anything the code wrote to fd 1 used to reach
// the host as protocol. Instead the host mounts channelDir, a directory
// holding one file, channelName, backed by the host's end of the protocol
// pipes. The runner opens it before any code runs, and it cannot be opened
// a second time. The guest's own stdin is empty and its stdout and stderr
// go to the stderr tail that explains a crash, so print(), os.write(1, ...)
// and a C extension writing to stdout are captured output, never protocol.
//
// Code that looks for the runner's descriptor can still write to it: inside
// one interpreter nothing is hidden from introspection (a per-execution
// secret would be just as readable, through gc.get_objects or frames). The
// host therefore validates every message strictly (package runner): a
// message that does not answer the outstanding request, a second result,
// a message that is too big: each is a protocol violation that replaces
// the sandbox. What code can forge on the channel is only what it could
// produce honestly (its own result), and nothing that outlives its step.
const (
	channelDir  = "/.runner"
	channelName = "channel"
	channelPath = channelDir + "/" + channelName
)

// channelFS is the directory mounted at channelDir.
type channelFS struct {
	experimentalsys.UnimplementedFS
	r io.Reader
	w io.Writer

	mu     sync.Mutex
	opened bool
}

func (c *channelFS) OpenFile(path string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if path == "." || path == "" {
		// wazero opens the mount's root to resolve paths in it.
		return dirFile{}, 0
	}
	if path != channelName {
		return nil, experimentalsys.ENOENT
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opened {
		// Only the runner, at start, may hold the channel.
		return nil, experimentalsys.EACCES
	}
	c.opened = true
	return &channelFile{r: c.r, w: c.w}, 0
}

func (c *channelFS) Stat(path string) (sys.Stat_t, experimentalsys.Errno) {
	if path == "." || path == "" {
		return sys.Stat_t{Mode: fs.ModeDir | 0o500, Nlink: 1}, 0
	}
	if path != channelName {
		return sys.Stat_t{}, experimentalsys.ENOENT
	}
	return sys.Stat_t{Mode: fs.ModeNamedPipe | 0o600, Nlink: 1}, 0
}

func (c *channelFS) Lstat(path string) (sys.Stat_t, experimentalsys.Errno) { return c.Stat(path) }

// channelFile is the runner's end of the protocol: reads come from the
// host's requests, writes go to the host's reader.
type channelFile struct {
	experimentalsys.UnimplementedFile
	r io.Reader
	w io.Writer
}

func (f *channelFile) IsDir() (bool, experimentalsys.Errno) { return false, 0 }

func (f *channelFile) Stat() (sys.Stat_t, experimentalsys.Errno) {
	return sys.Stat_t{Mode: fs.ModeNamedPipe | 0o600, Nlink: 1}, 0
}

func (f *channelFile) Read(buf []byte) (int, experimentalsys.Errno) {
	if len(buf) == 0 {
		return 0, 0
	}
	n, err := f.r.Read(buf)
	if err != nil && n == 0 {
		if err == io.EOF {
			return 0, 0
		}
		return 0, experimentalsys.EIO
	}
	return n, 0
}

func (f *channelFile) Write(buf []byte) (int, experimentalsys.Errno) {
	n, err := f.w.Write(buf)
	if err != nil {
		return n, experimentalsys.EIO
	}
	return n, 0
}

func (f *channelFile) Close() experimentalsys.Errno { return 0 }

// dirFile is the mount's root directory, which lists nothing.
type dirFile struct {
	experimentalsys.UnimplementedFile
}

func (dirFile) IsDir() (bool, experimentalsys.Errno) { return true, 0 }

func (dirFile) Stat() (sys.Stat_t, experimentalsys.Errno) {
	return sys.Stat_t{Mode: fs.ModeDir | 0o500, Nlink: 1}, 0
}

func (dirFile) Readdir(int) ([]experimentalsys.Dirent, experimentalsys.Errno) { return nil, 0 }

func (dirFile) Close() experimentalsys.Errno { return 0 }
