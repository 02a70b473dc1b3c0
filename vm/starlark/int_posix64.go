//go:build (linux || darwin || dragonfly || freebsd || netbsd || solaris) && (amd64 || arm64 || mips64x || ppc64 || ppc64le || loong64 || s390x)

package starlark

// This file defines an optimized Int implementation for 64-bit machines
// running POSIX. It reserves a portion of the address space using mmap
// and represents small values as addresses within that range. This
// disambiguates small values from *big.Int pointers, letting all Int
// values be represented as an unsafe.Pointer, so that Int-to-Value
// interface conversion need not allocate.
//
// star-agent: upstream reserved 4 GB, for int32 values. The range is now
// the widest of 2^44, 2^40, 2^36 and 2^32 bytes that the system grants
// (smallRange): 2^44 keeps values in [-2^43, 2^43) allocation-free, so
// that loops whose values pass 2^31 (i*i for i below a million, running
// sums) do not allocate an int64 box for each result. The reservation is
// address space only (PROT_READ, never touched, not charged against
// overcommit), on 64-bit systems whose user address space is 2^47 bytes
// or more; where the kernel grants less (39-bit arm64), a smaller range
// is taken.

// Although iOS (which, like macOS, appears as darwin/arm64) is
// POSIX-compliant, it limits each process to about 700MB of virtual
// address space, which defeats the optimization.  Similarly,
// OpenBSD's default ulimit for virtual memory is a measly GB or so.
// On both those platforms the attempted optimization will fail and
// fall back to the slow implementation.

// An alternative approach to this optimization would be to embed the
// int32 values in pointers using odd values, which can be distinguished
// from (even) *big.Int pointers. However, the Go runtime does not allow
// user programs to manufacture pointers to arbitrary locations such as
// within the zero page, or non-span, non-mmap, non-stack locations,
// and it may panic if it encounters them; see Issue #382.

import (
	"log"
	"math"
	"math/big"
	"unsafe"

	"golang.org/x/sys/unix"
)

// intImpl represents a union of (int64, *big.Int) in a single pointer,
// so that Int-to-Value conversions of int32 values need not allocate.
//
// The pointer is a pointer into a reserved portion of the address space
// (smallints), if the value is in the small range (smallRange) and the
// address space allocation succeeded; otherwise a pointer to an int64 holding the value or, if the
// value is big, to an intBox whose first word is bigMark.
//
// star-agent: upstream kept every value beyond int32 as a *big.Int, so
// that past 2**31 every + and * allocated a big.Int and its words and
// computed with math/big. An int64 beyond int32 is now one 8-byte
// allocation without pointers (the runtime's cheapest, which the
// collector does not scan) and machine arithmetic with overflow checks.
// The one int64 that would read as bigMark, math.MinInt64, is kept as a
// big.Int.
//
// See int_generic.go for the basic representation concepts.
type intImpl unsafe.Pointer

// intBox is a big int: mark is bigMark.
type intBox struct {
	mark int64
	big  *big.Int
}

const bigMark = math.MinInt64

// minInt64IsBig reports that math.MinInt64 is held as a big.Int.
const minInt64IsBig = true

// get returns the (small, big) arms of the union.
func (i Int) get() (int64, *big.Int) {
	if off := uintptr(i.impl) - smallints; off < smallRange {
		return int64(off) - smallHalf, nil
	}
	if x := *(*int64)(i.impl); x != bigMark {
		return x, nil
	}
	return 0, (*intBox)(i.impl).big
}

// makeSmallInt returns the Int of an int64.
func makeSmallInt(x int64) Int {
	off := uintptr(x + smallHalf)
	if off >= smallRange {
		if x == bigMark {
			return makeBigInt(big.NewInt(x))
		}
		p := new(int64)
		*p = x
		return Int{intImpl(p)}
	}
	return Int{intImpl(off + smallints)}
}

// Precondition: x cannot be represented as int64, or is bigMark.
func makeBigInt(x *big.Int) Int { return Int{intImpl(&intBox{mark: bigMark, big: x})} }

// smallints is the base address of a smallRange byte memory region.
// Pointers to addresses in this region represent the values in
// [-smallHalf, smallHalf): smallints+smallHalf is zero.
// We assume smallints is not at the very top of the address space.
//
// A smallRange of zero means the optimization is disabled and every Int
// is a pointer to an int64 or an intBox.
var (
	smallints, smallRange = reserveAddresses()
	smallHalf             = int64(smallRange / 2)
)

func reserveAddresses() (uintptr, uintptr) {
	var err error
	for _, bits := range []uint{44, 40, 36, 32} {
		var b []byte
		if b, err = unix.Mmap(-1, 0, 1<<bits, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANON); err == nil {
			return uintptr(unsafe.Pointer(&b[0])), 1 << bits
		}
	}
	log.Printf("Starlark failed to allocate 4GB address space: %v. Integer performance may suffer.", err)
	return 0, 0 // optimization disabled
}
