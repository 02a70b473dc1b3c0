//go:build !linux

package image

import "os"

// removeTree removes dir, a build's temporary directory.
func removeTree(dir string) error { return os.RemoveAll(dir) }
