//go:build !unix

package wasm

import "github.com/tetratelabs/wazero/experimental"

// memoryAllocator returns nil: wazero's default allocator is used.
func memoryAllocator() experimental.MemoryAllocator { return nil }
