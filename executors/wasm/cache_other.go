//go:build !unix

package wasm

import (
	"fmt"
	"os"
)

func userID() string {
	for _, k := range []string{"USERNAME", "USER"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return "user"
}

// private checks that dir is a directory and not a symbolic link; where
// there are no Unix owners, os.TempDir is per user (Windows).
func private(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("not a directory (a symbolic link or a file is in its place)")
	}
	return nil
}
