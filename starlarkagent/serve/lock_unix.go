//go:build unix

package serve

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDB takes an exclusive lock on PATH.lock for as long as the server
// uses the database: a second server on the same file would mark the first
// one's live runs interrupted at its start.
func lockDB(path string) (*os.File, error) {
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("store %s: another star-agent serve is using this database; give each server its own --db", path)
		}
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
	}
	return f, nil
}
