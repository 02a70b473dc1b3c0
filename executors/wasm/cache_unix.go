//go:build unix

package wasm

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

func userID() string { return strconv.Itoa(os.Getuid()) }

// private checks that dir is a directory, not a symbolic link, owned by
// this user and with no permissions for group or others.
func private(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("not a directory (a symbolic link or a file is in its place)")
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("owned by another user")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("open to other users (mode %v)", fi.Mode().Perm())
	}
	return nil
}
