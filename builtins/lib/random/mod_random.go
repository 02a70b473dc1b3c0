package random

import (
	"crypto/sha512"
	"encoding/binary"
	"math"
	"math/big"
	"sync"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// random: CPython's Mersenne Twister and its derived methods, written to
// produce the same sequences as CPython 3.11 for the same seed.

type mt19937 struct {
	mu        sync.Mutex
	state     [624]uint32
	index     int
	gaussNext *float64
	// unseeded is set on the module's generator until its first use,
	// which seeds it from core.Entropy: a replayed execution draws the
	// numbers it drew the first time.
	unseeded bool
}

func (m *mt19937) initGenrand(s uint32) {
	m.state[0] = s
	for i := 1; i < 624; i++ {
		m.state[i] = 1812433253*(m.state[i-1]^(m.state[i-1]>>30)) + uint32(i)
	}
	m.index = 624
}

func (m *mt19937) initByArray(key []uint32) {
	m.initGenrand(19650218)
	i, j := 1, 0
	k := max(624, len(key))
	for ; k > 0; k-- {
		m.state[i] = (m.state[i] ^ ((m.state[i-1] ^ (m.state[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			m.state[0] = m.state[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = 623; k > 0; k-- {
		m.state[i] = (m.state[i] ^ ((m.state[i-1] ^ (m.state[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			m.state[0] = m.state[623]
			i = 1
		}
	}
	m.state[0] = 0x80000000
	m.index = 624
}

func (m *mt19937) genrand() uint32 {
	if m.index >= 624 {
		for k := 0; k < 624; k++ {
			y := (m.state[k] & 0x80000000) | (m.state[(k+1)%624] & 0x7fffffff)
			v := m.state[(k+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.state[k] = v
		}
		m.index = 0
	}
	y := m.state[m.index]
	m.index++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

func (m *mt19937) random() float64 {
	a, b := m.genrand()>>5, m.genrand()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// seedInt seeds as CPython's random.seed(int): the absolute value split
// into 32-bit words, least significant first.
func (m *mt19937) seedInt(n *big.Int) {
	n = new(big.Int).Abs(n)
	var key []uint32
	words := n.Bits()
	for _, w := range words {
		for s := 0; s < wordBits; s += 32 {
			key = append(key, uint32(uint64(w)>>s))
		}
	}
	for len(key) > 1 && key[len(key)-1] == 0 {
		key = key[:len(key)-1]
	}
	if len(key) == 0 {
		key = []uint32{0}
	}
	m.initByArray(key)
	m.gaussNext = nil
}

const wordBits = 32 << (^uint(0) >> 63)

func (m *mt19937) getrandbits(k int) *big.Int {
	if k == 0 {
		return new(big.Int) // CPython draws nothing for no bits
	}
	if k <= 32 {
		return big.NewInt(int64(m.genrand() >> (32 - k)))
	}
	// Word i holds bits 32i to 32i+31, as CPython fills them. The words
	// go into one big-endian buffer: or-ing each into the result was
	// quadratic (seconds for a million bits, past any deadline).
	words := (k-1)/32 + 1
	buf := make([]byte, 4*words)
	for i := 0; i < words; i++ {
		r := m.genrand()
		if k < 32 {
			r >>= 32 - k
		}
		binary.BigEndian.PutUint32(buf[4*(words-1-i):], r)
		k -= 32
	}
	return new(big.Int).SetBytes(buf)
}

// randbytes is CPython's getrandbits(8*n).to_bytes(n, "little"): the
// words in the order drawn, each little-endian, the last one cut to the
// bits that remain.
func (m *mt19937) randbytes(n int) []byte {
	buf := make([]byte, n+3)
	for i := 0; i < n; i += 4 {
		r := m.genrand()
		if left := n - i; left < 4 {
			r >>= 32 - 8*left
		}
		binary.LittleEndian.PutUint32(buf[i:], r)
	}
	return buf[:n]
}

func (m *mt19937) randbelow(n *big.Int) *big.Int {
	k := n.BitLen()
	r := m.getrandbits(k)
	for r.Cmp(n) >= 0 {
		r = m.getrandbits(k)
	}
	return r
}

func (m *mt19937) randbelowInt(n int) int { return int(m.randbelow(big.NewInt(int64(n))).Int64()) }

func (m *mt19937) seed(th *starlark.Thread, v starlark.Value) error {
	m.unseeded = false
	switch x := v.(type) {
	case starlark.NoneType:
		m.seedInt(big.NewInt(core.Entropy(th)))
	case starlark.Int:
		m.seedInt(x.BigInt())
	case starlark.Bool:
		m.seedInt(core.BoolInt(x).BigInt())
	case starlark.Float:
		// CPython hashes floats; integral floats hash to their value.
		if float64(x) == math.Trunc(float64(x)) {
			n, _ := big.NewFloat(float64(x)).Int(nil)
			m.seedInt(n)
			return nil
		}
		return core.Errorf(pyexc.TypeError, "seeding with a non-integral float is not supported here")
	case starlark.String, starlark.Bytes:
		var b []byte
		if s, ok := x.(starlark.String); ok {
			b = []byte(string(s))
		} else {
			b = []byte(string(x.(starlark.Bytes)))
		}
		sum := sha512.Sum512(b)
		m.seedInt(new(big.Int).SetBytes(append(b, sum[:]...)))
	default:
		return core.Errorf(pyexc.TypeError, "The only supported seed types are: None, int, float, str, bytes, and bytearray.")
	}
	return nil
}

func randomMembers(m *mt19937) starlark.StringDict {
	method := func(name string, f func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) *starlark.Builtin {
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			if m.unseeded {
				m.unseeded = false
				m.seedInt(big.NewInt(core.Entropy(th)))
			}
			return f(th, args, kwargs)
		})
	}
	randrange := func(start, stop, step *big.Int) (starlark.Value, error) {
		if stop == nil {
			if start.Sign() > 0 {
				return starlark.MakeBigInt(m.randbelow(start)), nil
			}
			return nil, core.Errorf(pyexc.ValueError, "empty range for randrange()")
		}
		width := new(big.Int).Sub(stop, start)
		if step.Cmp(big.NewInt(1)) == 0 {
			if width.Sign() > 0 {
				return starlark.MakeBigInt(new(big.Int).Add(start, m.randbelow(width))), nil
			}
			return nil, core.Errorf(pyexc.ValueError, "empty range for randrange() (%s, %s, %s)", start, stop, width)
		}
		if step.Sign() == 0 {
			return nil, core.Errorf(pyexc.ValueError, "zero step for randrange()")
		}
		n := new(big.Int)
		if step.Sign() > 0 {
			n.Add(width, step).Sub(n, big.NewInt(1)).Div(n, step)
		} else {
			n.Add(width, step).Add(n, big.NewInt(1)).Div(n, step)
		}
		if n.Sign() <= 0 {
			return nil, core.Errorf(pyexc.ValueError, "empty range for randrange()")
		}
		r := m.randbelow(n)
		return starlark.MakeBigInt(r.Mul(r, step).Add(r, start)), nil
	}
	intArgs := func(name string, vals ...starlark.Value) ([]*big.Int, error) {
		out := make([]*big.Int, len(vals))
		for i, v := range vals {
			if v == nil || v == starlark.None {
				continue
			}
			n, err := core.Index(v)
			if err != nil {
				return nil, err
			}
			out[i] = n.BigInt()
		}
		return out, nil
	}
	return starlark.StringDict{
		"seed": method("seed", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a starlark.Value = starlark.None
			var version int = 2
			if err := starlark.UnpackArgs("seed", args, kwargs, "a?", &a, "version?", &version); err != nil {
				return nil, err
			}
			return starlark.None, m.seed(th, a)
		}),
		"random": method("random", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.Float(m.random()), nil
		}),
		"getrandbits": method("getrandbits", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var k int
			if err := starlark.UnpackPositionalArgs("getrandbits", args, kwargs, 1, &k); err != nil {
				return nil, err
			}
			if k < 0 {
				return nil, core.Errorf(pyexc.ValueError, "number of bits must be non-negative")
			}
			if err := core.BigIntCheck(float64(k)); err != nil {
				return nil, err
			}
			return starlark.MakeBigInt(m.getrandbits(k)), nil
		}),
		"randbytes": method("randbytes", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var nv starlark.Value
			if err := starlark.UnpackPositionalArgs("randbytes", args, kwargs, 1, &nv); err != nil {
				return nil, err
			}
			n, err := core.IndexInt(nv)
			if err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, core.Errorf(pyexc.ValueError, "number of bits must be non-negative")
			}
			if err := core.Alloc(th, int64(n)); err != nil {
				return nil, err
			}
			return starlark.Bytes(m.randbytes(n)), nil
		}),
		"randrange": method("randrange", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a, b, c starlark.Value
			if err := starlark.UnpackArgs("randrange", args, kwargs, "start", &a, "stop?", &b, "step?", &c); err != nil {
				return nil, err
			}
			n, err := intArgs("randrange", a, b, c)
			if err != nil {
				return nil, err
			}
			if n[2] == nil {
				n[2] = big.NewInt(1)
			}
			return randrange(n[0], n[1], n[2])
		}),
		"randint": method("randint", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a, b starlark.Value
			if err := starlark.UnpackArgs("randint", args, kwargs, "a", &a, "b", &b); err != nil {
				return nil, err
			}
			n, err := intArgs("randint", a, b)
			if err != nil {
				return nil, err
			}
			return randrange(n[0], new(big.Int).Add(n[1], big.NewInt(1)), big.NewInt(1))
		}),
		"choice": method("choice", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var seq starlark.Value
			if err := starlark.UnpackArgs("choice", args, kwargs, "seq", &seq); err != nil {
				return nil, err
			}
			vals, err := indexableArg(th, seq)
			if err != nil {
				return nil, err
			}
			if vals.Len() == 0 {
				return nil, core.Errorf(pyexc.IndexError, "Cannot choose from an empty sequence")
			}
			return vals.Index(m.randbelowInt(vals.Len())), nil
		}),
		"shuffle": method("shuffle", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackArgs("shuffle", args, kwargs, "x", &x); err != nil {
				return nil, err
			}
			l, ok := x.(starlark.HasSetIndex)
			if !ok {
				return nil, core.Errorf(pyexc.TypeError, "'%s' object does not support item assignment", core.TypeName(x))
			}
			for i := l.Len() - 1; i > 0; i-- {
				if i%core.CheckEvery == 0 {
					if err := core.Interrupted(th); err != nil {
						return nil, err
					}
				}
				j := m.randbelowInt(i + 1)
				a, b := l.Index(i), l.Index(j)
				if err := l.SetIndex(i, b); err != nil {
					return nil, err
				}
				l.SetIndex(j, a)
			}
			return starlark.None, nil
		}),
		"sample": method("sample", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var pop starlark.Value
			var k int
			var counts starlark.Value = starlark.None
			if err := starlark.UnpackArgs("sample", args, kwargs, "population", &pop, "k", &k, "counts?", &counts); err != nil {
				return nil, err
			}
			if _, isSet := core.AsSet(pop); isSet {
				return nil, core.Errorf(pyexc.TypeError, "Population must be a sequence.  For dicts or sets, use sorted(d).")
			}
			seq, err := indexableArg(th, pop)
			if err != nil {
				return nil, err
			}
			n := seq.Len()
			if k < 0 || k > n {
				return nil, core.Errorf(pyexc.ValueError, "Sample larger than population or is negative")
			}
			if err := core.Alloc(th, int64(k)*core.ElemSize); err != nil {
				return nil, err
			}
			result := make([]starlark.Value, k)
			setsize := 21
			if k > 5 {
				setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
			}
			if n <= setsize {
				pool := make([]starlark.Value, n)
				for i := range pool {
					pool[i] = seq.Index(i)
				}
				for i := 0; i < k; i++ {
					j := m.randbelowInt(n - i)
					result[i] = pool[j]
					pool[j] = pool[n-i-1]
				}
			} else {
				selected := map[int]bool{}
				for i := 0; i < k; i++ {
					j := m.randbelowInt(n)
					for selected[j] {
						j = m.randbelowInt(n)
					}
					selected[j] = true
					result[i] = seq.Index(j)
				}
			}
			return starlark.NewList(result), nil
		}),
		"choices": method("choices", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var pop starlark.Value
			var weights, cum starlark.Value = starlark.None, starlark.None
			k := 1
			if err := starlark.UnpackArgs("choices", args, kwargs, "population", &pop, "weights?", &weights, "cum_weights?", &cum, "k?", &k); err != nil {
				return nil, err
			}
			seq, err := indexableArg(th, pop)
			if err != nil {
				return nil, err
			}
			n := seq.Len()
			if err := core.Alloc(th, int64(max(k, 0))*core.ElemSize); err != nil {
				return nil, err
			}
			out := make([]starlark.Value, 0, max(k, 0))
			if cum == starlark.None && weights == starlark.None {
				if n == 0 {
					return nil, core.Errorf(pyexc.IndexError, "Cannot choose from an empty population")
				}
				for i := 0; i < k; i++ {
					out = append(out, seq.Index(int(math.Floor(m.random()*float64(n)))))
				}
				return starlark.NewList(out), nil
			}
			var cw []float64
			if cum != starlark.None {
				vals, err := core.Collect(th, cum)
				if err != nil {
					return nil, err
				}
				for _, v := range vals {
					f, err := core.FloatArg(v)
					if err != nil {
						return nil, err
					}
					cw = append(cw, f)
				}
			} else {
				vals, err := core.Collect(th, weights)
				if err != nil {
					return nil, err
				}
				acc := 0.0
				for _, v := range vals {
					f, err := core.FloatArg(v)
					if err != nil {
						return nil, err
					}
					acc += f
					cw = append(cw, acc)
				}
			}
			if len(cw) != n {
				return nil, core.Errorf(pyexc.ValueError, "The number of weights does not match the population")
			}
			total := cw[n-1]
			if total <= 0 {
				return nil, core.Errorf(pyexc.ValueError, "Total of weights must be greater than zero")
			}
			for i := 0; i < k; i++ {
				x := m.random() * total
				lo, hi := 0, n-1
				for lo < hi { // bisect_right
					mid := (lo + hi) / 2
					if x < cw[mid] {
						hi = mid
					} else {
						lo = mid + 1
					}
				}
				out = append(out, seq.Index(lo))
			}
			return starlark.NewList(out), nil
		}),
		"uniform": method("uniform", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			a, b, err := twoFloats("uniform", args, kwargs)
			if err != nil {
				return nil, err
			}
			return starlark.Float(a + (b-a)*m.random()), nil
		}),
		"gauss": method("gauss", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			mu, sigma, err := muSigma("gauss", args, kwargs)
			if err != nil {
				return nil, err
			}
			var z float64
			if m.gaussNext != nil {
				z = *m.gaussNext
				m.gaussNext = nil
			} else {
				x2pi := m.random() * 2 * math.Pi
				g2rad := math.Sqrt(-2.0 * math.Log(1.0-m.random()))
				z = math.Cos(x2pi) * g2rad
				next := math.Sin(x2pi) * g2rad
				m.gaussNext = &next
			}
			return starlark.Float(mu + z*sigma), nil
		}),
		"normalvariate": method("normalvariate", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			mu, sigma, err := muSigma("normalvariate", args, kwargs)
			if err != nil {
				return nil, err
			}
			magic := 4 * math.Exp(-0.5) / math.Sqrt(2.0)
			var z float64
			for {
				u1 := m.random()
				u2 := 1.0 - m.random()
				z = magic * (u1 - 0.5) / u2
				if z*z/4.0 <= -math.Log(u2) {
					break
				}
			}
			return starlark.Float(mu + z*sigma), nil
		}),
		"expovariate": method("expovariate", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var l starlark.Value
			if err := starlark.UnpackPositionalArgs("expovariate", args, kwargs, 1, &l); err != nil {
				return nil, err
			}
			lambd, err := core.FloatArg(l)
			if err != nil {
				return nil, err
			}
			if lambd == 0 {
				return nil, core.Errorf(pyexc.ZeroDivisionError, "float division by zero")
			}
			return starlark.Float(-math.Log(1.0-m.random()) / lambd), nil
		}),
		"triangular": method("triangular", func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var lo, hi, mode starlark.Value = starlark.Float(0), starlark.Float(1), starlark.None
			if err := starlark.UnpackArgs("triangular", args, kwargs, "low?", &lo, "high?", &hi, "mode?", &mode); err != nil {
				return nil, err
			}
			low, err := core.FloatArg(lo)
			if err != nil {
				return nil, err
			}
			high, err := core.FloatArg(hi)
			if err != nil {
				return nil, err
			}
			u := m.random()
			c := 0.5
			if mode != starlark.None {
				md, err := core.FloatArg(mode)
				if err != nil {
					return nil, err
				}
				if high == low {
					return starlark.Float(low), nil
				}
				c = (md - low) / (high - low)
			}
			if u > c {
				u, c, low, high = 1.0-u, 1.0-c, high, low
			}
			return starlark.Float(low + (high-low)*math.Sqrt(u*c)), nil
		}),
	}
}

func twoFloats(name string, args starlark.Tuple, kwargs []starlark.Tuple) (float64, float64, error) {
	var x, y starlark.Value
	if err := starlark.UnpackArgs(name, args, kwargs, "a", &x, "b", &y); err != nil {
		return 0, 0, err
	}
	a, err := core.FloatArg(x)
	if err != nil {
		return 0, 0, err
	}
	b, err := core.FloatArg(y)
	return a, b, err
}

func muSigma(name string, args starlark.Tuple, kwargs []starlark.Tuple) (float64, float64, error) {
	var x, y starlark.Value = starlark.Float(0), starlark.Float(1)
	if err := starlark.UnpackArgs(name, args, kwargs, "mu?", &x, "sigma?", &y); err != nil {
		return 0, 0, err
	}
	a, err := core.FloatArg(x)
	if err != nil {
		return 0, 0, err
	}
	b, err := core.FloatArg(y)
	return a, b, err
}

// indexableArg returns seq as an Indexable; strings index by code point.
func indexableArg(th *starlark.Thread, seq starlark.Value) (starlark.Indexable, error) {
	switch s := seq.(type) {
	case starlark.String:
		vals, err := core.Collect(th, s)
		if err != nil {
			return nil, err
		}
		return starlark.Tuple(vals), nil
	case starlark.Indexable:
		return s, nil
	}
	return nil, core.Errorf(pyexc.TypeError, "'%s' object is not subscriptable", core.TypeName(seq))
}

func members() starlark.StringDict {
	m := &mt19937{unseeded: true}
	members := randomMembers(m)
	members["Random"] = core.Fn("Random", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var seed starlark.Value = starlark.None
		if err := starlark.UnpackPositionalArgs("Random", args, kwargs, 0, &seed); err != nil {
			return nil, err
		}
		r := &mt19937{}
		if err := r.seed(th, seed); err != nil {
			return nil, err
		}
		return &core.PyModule{ModName: "random.Random", Members: randomMembers(r)}, nil
	})
	return members
}

// Module returns a new random module.
func Module() *core.PyModule { return core.NewModule("random", members()) }
