package isolation

import (
	"io"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// rawPipe reads and writes a non-blocking pipe with raw read(2) and
// write(2), waiting in the runtime's poller when the pipe is empty or
// full. A system call made the usual way tells the runtime that it may
// block: the first one after the process was idle wakes the runtime's
// monitor thread, which then polls every 20 µs for a while, and one that
// is descheduled (a write that wakes the other process often is) can
// have its P handed to another thread. A step's hand-off makes a few of
// these calls in each process, and the wake-ups they cause were a large
// part of its cost (BenchmarkIsolatedCPU: context switches per step).
// A read or write of a non-blocking pipe never blocks, so the raw call
// is safe.
type rawPipe struct {
	f  *os.File
	rc syscall.RawConn
}

// newRawPipe returns f as a rawPipe, or f itself when its descriptor is
// not one the runtime polls.
func newRawPipe(f *os.File) interface {
	io.ReadWriter
	SetReadDeadline(time.Time) error
} {
	rc, err := f.SyscallConn()
	if err != nil || f.SetReadDeadline(time.Time{}) != nil {
		return f // not pollable: deadlines would not work either
	}
	return rawPipe{f: f, rc: rc}
}

func (p rawPipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n uintptr
	var errno syscall.Errno
	err := p.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
			if errno != syscall.EINTR {
				return errno != syscall.EAGAIN
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

func (p rawPipe) Write(b []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	err := p.rc.Write(func(fd uintptr) bool {
		for written < len(b) {
			rest := b[written:]
			n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
			switch e {
			case 0:
				written += int(n)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if err == nil && errno != 0 {
		err = &os.PathError{Op: "write", Path: p.f.Name(), Err: errno}
	}
	return written, err
}

func (p rawPipe) SetReadDeadline(t time.Time) error { return p.f.SetReadDeadline(t) }
