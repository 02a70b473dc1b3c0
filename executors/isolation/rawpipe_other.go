//go:build !linux

package isolation

import (
	"io"
	"os"
	"time"
)

// newRawPipe returns f: raw pipe I/O is for Linux (rawpipe_linux.go).
func newRawPipe(f *os.File) interface {
	io.ReadWriter
	SetReadDeadline(time.Time) error
} {
	return f
}
