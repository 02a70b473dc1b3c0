//go:build (!linux && !darwin && !dragonfly && !freebsd && !netbsd && !solaris) || (!amd64 && !arm64 && !mips64x && !ppc64 && !ppc64le && !loong64 && !s390x)

package starlark

// generic Int implementation as a union

import "math/big"

type intImpl struct {
	// star-agent: small holds any int64; the arithmetic checks for
	// overflow (add64, ...).
	small_ int64    // any int64
	big_   *big.Int // big != nil <=> value is not representable as int64
}

// minInt64IsBig reports that math.MinInt64 is held as a big.Int (see
// int_posix64.go).
const minInt64IsBig = false

// smallRange is the size of the address range of small ints (see
// int_posix64.go): none here.
const smallRange = 0

// --- low-level accessors ---

// get returns the small and big components of the Int.
// small is defined only if big is nil.
// small is sign-extended to 64 bits for ease of subsequent arithmetic.
func (i Int) get() (small int64, big *big.Int) {
	return i.impl.small_, i.impl.big_
}

func makeSmallInt(x int64) Int {
	return Int{intImpl{small_: x}}
}

// Precondition: x cannot be represented as int64.
func makeBigInt(x *big.Int) Int {
	return Int{intImpl{big_: x}}
}
