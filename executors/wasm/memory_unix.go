//go:build unix

package wasm

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapAllocator backs each linear memory with one anonymous mapping of the
// maximum size. Pages cost host memory only when the guest touches them and
// growing never copies, so host RSS follows the guest's real use instead of
// overshooting it the way a growing Go slice does.
type mmapAllocator struct{}

func (mmapAllocator) Allocate(capacity, max uint64) experimental.LinearMemory {
	buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		// Without a mapping, fall back to a Go slice that grows by copying.
		return &sliceMemory{buf: make([]byte, 0, capacity), max: max}
	}
	return &mmapMemory{buf: buf}
}

type sliceMemory struct {
	buf []byte
	max uint64
}

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size > uint64(cap(m.buf)) {
		nb := make([]byte, size)
		copy(nb, m.buf)
		m.buf = nb
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *sliceMemory) Free() { m.buf = nil }

type mmapMemory struct{ buf []byte }

func (m *mmapMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

func (m *mmapMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
	}
}

func memoryAllocator() experimental.MemoryAllocator { return mmapAllocator{} }
