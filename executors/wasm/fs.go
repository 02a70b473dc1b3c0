package wasm

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetratelabs/wazero"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"
)

// confinedFS is a host directory that the guest cannot leave. wazero's
// DirFS follows symbolic links wherever they point and lets the guest
// create links to any host path; confinedFS resolves every path it is given
// and refuses those that resolve outside the directory, and refuses to
// create symbolic links at all.
type confinedFS struct {
	experimentalsys.FS
	root string // symlinks resolved
}

func confine(host string, writable bool) (experimentalsys.FS, error) {
	abs, err := filepath.Abs(host)
	if err != nil {
		return nil, fmt.Errorf("wasm: mount %s: %w", host, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("wasm: mount %s: %w", host, err)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("wasm: mount %s: not a directory", host)
	}
	var c experimentalsys.FS = &confinedFS{FS: sysfs.DirFS(root), root: root}
	if !writable {
		c = &sysfs.ReadFS{FS: c}
	}
	return c, nil
}

func withSysFSMount(c wazero.FSConfig, f experimentalsys.FS, guest string) wazero.FSConfig {
	return c.(sysfs.FSConfig).WithSysFSMount(f, guest)
}

// inside reports whether the guest path p, resolved on the host, stays in
// the root. A path that does not exist yet is judged by its parent.
func (c *confinedFS) inside(p string) experimentalsys.Errno {
	full := filepath.Join(c.root, filepath.FromSlash(p))
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		parent, perr := filepath.EvalSymlinks(filepath.Dir(full))
		if perr != nil {
			return 0 // the operation itself will fail with ENOENT
		}
		real = filepath.Join(parent, filepath.Base(full))
	}
	if real == c.root || strings.HasPrefix(real, c.root+string(filepath.Separator)) {
		return 0
	}
	return experimentalsys.EACCES
}

// parentInside is inside for operations that act on a link itself.
func (c *confinedFS) parentInside(p string) experimentalsys.Errno {
	dir := filepath.ToSlash(filepath.Dir(filepath.FromSlash(p)))
	return c.inside(dir)
}

func (c *confinedFS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if e := c.inside(p); e != 0 {
		return nil, e
	}
	return c.FS.OpenFile(p, flag, perm)
}

func (c *confinedFS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	if e := c.parentInside(p); e != 0 {
		return sys.Stat_t{}, e
	}
	return c.FS.Lstat(p)
}

func (c *confinedFS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	if e := c.inside(p); e != 0 {
		return sys.Stat_t{}, e
	}
	return c.FS.Stat(p)
}

func (c *confinedFS) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	if e := c.inside(p); e != 0 {
		return e
	}
	return c.FS.Mkdir(p, perm)
}

func (c *confinedFS) Chmod(p string, perm fs.FileMode) experimentalsys.Errno {
	if e := c.inside(p); e != 0 {
		return e
	}
	return c.FS.Chmod(p, perm)
}

func (c *confinedFS) Rename(from, to string) experimentalsys.Errno {
	if e := c.parentInside(from); e != 0 {
		return e
	}
	if e := c.parentInside(to); e != 0 {
		return e
	}
	return c.FS.Rename(from, to)
}

func (c *confinedFS) Rmdir(p string) experimentalsys.Errno {
	if e := c.parentInside(p); e != 0 {
		return e
	}
	return c.FS.Rmdir(p)
}

func (c *confinedFS) Unlink(p string) experimentalsys.Errno {
	if e := c.parentInside(p); e != 0 {
		return e
	}
	return c.FS.Unlink(p)
}

func (c *confinedFS) Link(from, to string) experimentalsys.Errno {
	if e := c.inside(from); e != 0 {
		return e
	}
	if e := c.parentInside(to); e != 0 {
		return e
	}
	return c.FS.Link(from, to)
}

// Symlink is refused: a link the guest makes could point anywhere on the host.
func (c *confinedFS) Symlink(string, string) experimentalsys.Errno { return experimentalsys.EPERM }

func (c *confinedFS) Readlink(p string) (string, experimentalsys.Errno) {
	if e := c.parentInside(p); e != 0 {
		return "", e
	}
	return c.FS.Readlink(p)
}

func (c *confinedFS) Utimens(p string, atim, mtim int64) experimentalsys.Errno {
	if e := c.inside(p); e != 0 {
		return e
	}
	return c.FS.Utimens(p, atim, mtim)
}
