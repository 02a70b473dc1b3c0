package pystruct_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

// The expected outputs are CPython 3.11's (checked against python3 when the
// recorded version is installed: see builtinstest.RunCases).
func TestStruct(t *testing.T) { builtinstest.RunCases(t, structCases) }

var structCases = []builtinstest.Case{
	{Name: "basic", Src: `import struct
print(struct.calcsize('@lb'), struct.calcsize('<lb'), struct.calcsize('bl'), struct.calcsize('@bi'), struct.calcsize('@ih'), struct.calcsize('P'), struct.calcsize('3s2x?'), struct.calcsize('b0l'), struct.calcsize('<i  h '), struct.calcsize('< i'))
print(struct.pack('<hHiIqQ', -2, 3, -4, 5, -6, 7))
print(struct.pack('>e', 1.5), struct.pack('<f', 2.5), struct.pack('!d', -0.0), struct.pack('@bi', 1, 2))
print(struct.pack('3s', b'abcdef'), struct.pack('5s', b'ab'), struct.pack('5p', b'abcdefg'), struct.pack('c?', b'z', [1]), struct.pack('3x'))
print(struct.unpack('<hHiI', struct.pack('<hHiI', -1, 2, -3, 4)), struct.unpack('>q', b'\xff' * 8), struct.unpack('<Q', b'\xff' * 8))
print(struct.unpack('<2h3s', b'\x01\x00\x02\x00abc'), struct.unpack('3p', b'\x05ab'), struct.unpack('<?c', b'\x02z'))
print(struct.unpack('<f', struct.pack('<f', 0.1)), struct.unpack('<e', struct.pack('<e', 0.1)), struct.unpack('<e', struct.pack('<e', 1e-7)), struct.unpack('<e', struct.pack('<e', 3e-8)))
print(struct.pack('<e', 65504.0), struct.pack('<e', float('inf')), struct.pack('<e', float('nan')), struct.pack('<e', -0.0), struct.pack('<e', 2.0**-24), struct.pack('<e', 2.0**-25), struct.pack('<e', 3 * 2.0**-26))
s = struct.Struct('>I2s')
print(s.size, s.format, s.pack(7, b'xy'), s.unpack(b'\x00\x00\x00\x07xy'), struct.Struct(b'<i').format)
print(isinstance(s, struct.Struct), type(s).__name__, issubclass(struct.error, Exception), repr(s).startswith('<_struct.Struct object at 0x'))
print(list(struct.iter_unpack('<h', b'\x01\x00\x02\x00')), struct.unpack_from('<h', b'\x00\x01\x00', 1), struct.unpack_from('<h', b'\x00\x01\x02\x03', offset=-2))
class I:
    def __index__(self):
        return 7
print(struct.pack('<i', I()), struct.pack('<Q', True), struct.pack('<d', 3), struct.pack('P', -1))
header = struct.pack('<4sIH', b'RIFF', 36, 1)
magic, size, kind = struct.unpack('<4sIH', header)
print(magic, size, kind, len(header))
`, Want: "9 5 16 8 6 8 6 8 6 4\nb'\\xfe\\xff\\x03\\x00\\xfc\\xff\\xff\\xff\\x05\\x00\\x00\\x00\\xfa\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x07\\x00\\x00\\x00\\x00\\x00\\x00\\x00'\nb'>\\x00' b'\\x00\\x00 @' b'\\x80\\x00\\x00\\x00\\x00\\x00\\x00\\x00' b'\\x01\\x00\\x00\\x00\\x02\\x00\\x00\\x00'\nb'abc' b'ab\\x00\\x00\\x00' b'\\x04abcd' b'z\\x01' b'\\x00\\x00\\x00'\n(-1, 2, -3, 4) (-1,) (18446744073709551615,)\n(1, 2, b'abc') (b'ab',) (True, b'z')\n(0.10000000149011612,) (0.0999755859375,) (1.1920928955078125e-07,) (5.960464477539063e-08,)\nb'\\xff{' b'\\x00|' b'\\x00~' b'\\x00\\x80' b'\\x01\\x00' b'\\x00\\x00' b'\\x01\\x00'\n6 >I2s b'\\x00\\x00\\x00\\x07xy' (7, b'xy') <i\nTrue Struct True True\n[(1,), (2,)] (1,) (770,)\nb'\\x07\\x00\\x00\\x00' b'\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00' b'\\x00\\x00\\x00\\x00\\x00\\x00\\x08@' b'\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff'\nb'RIFF' 36 1 10\n"},
	{Name: "errors", Src: `import struct
cases = [('b', 300), ('B', -1), ('h', 70000), ('H', -1), ('i', 2**31), ('I', -1), ('I', 2**33), ('q', 2**63), ('Q', -1), ('<b', 300), ('<i', 2**31), ('<q', 2**64), ('<l', 2**40), ('<L', 2**40),
         ('i', 'x'), ('f', 'x'), ('i', 1.5), ('c', b'ab'), ('3s', 'abc'), ('3p', 'abc'), ('f', 1e40), ('<f', 1e40), ('<f', float('inf')), ('e', 1e6), ('e', 65520.0), ('l', 2**63), ('n', 2**63), ('N', -1), ('b', 2**70), ('z', 1), ('<n', 1), ('d', 10**400)]
for fmt, v in cases:
    try:
        print(fmt, struct.pack(fmt, v))
    except Exception as e:
        print(fmt, type(e).__name__, e)
def attempt(f, *args, **kw):
    try:
        print(f(*args, **kw))
    except Exception as e:
        print(type(e).__name__, e)
attempt(struct.pack, 'i')
attempt(struct.pack, 'i', 1, 2)
attempt(struct.unpack, '<i', b'ab')
attempt(struct.unpack, '<i', 'abcd')
attempt(struct.calcsize, '99999999999999999999i')
attempt(struct.calcsize, '<i 2')
attempt(struct.calcsize, '2 i')
attempt(struct.calcsize, ' <i')
attempt(struct.Struct, 5)
attempt(struct.unpack_from, '<i', b'abc', 2)
attempt(struct.unpack_from, '<i', b'abc', -10)
attempt(struct.unpack_from, '<i', b'abc', 5)
attempt(lambda: list(struct.iter_unpack('<i', b'abc')))
attempt(lambda: list(struct.iter_unpack('', b'abc')))
attempt(struct.pack_into, '<i', b'abcd', 0, 1)
try:
    struct.pack('>H', 70000)
except struct.error as e:
    print('caught struct.error:', e)
for fmt, v in [('>h', 70000), ('>H', -1), ('>H', 70000), ('>q', 2**64), ('>Q', -1), ('!b', 300), ('=h', 70000), ('>i', 2**40), ('>I', -1)]:
    try:
        print(fmt, struct.pack(fmt, v))
    except struct.error as e:
        print(fmt, e)
`, Want: "b error byte format requires -128 <= number <= 127\nB error ubyte format requires 0 <= number <= 255\nh error short format requires -32768 <= number <= 32767\nH error ushort format requires 0 <= number <= 65535\ni error 'i' format requires -2147483648 <= number <= 2147483647\nI error argument out of range\nI error 'I' format requires 0 <= number <= 4294967295\nq error argument out of range\nQ error argument out of range\n<b error byte format requires -128 <= number <= 127\n<i error 'i' format requires -2147483648 <= number <= 2147483647\n<q error argument out of range\n<l error 'l' format requires -2147483648 <= number <= 2147483647\n<L error 'L' format requires 0 <= number <= 4294967295\ni error required argument is not an integer\nf error required argument is not a float\ni error required argument is not an integer\nc error char format requires a bytes object of length 1\n3s error argument for 's' must be a bytes object\n3p error argument for 'p' must be a bytes object\nf b'\\x00\\x00\\x80\\x7f'\n<f OverflowError float too large to pack with f format\n<f b'\\x00\\x00\\x80\\x7f'\ne OverflowError float too large to pack with e format\ne OverflowError float too large to pack with e format\nl error argument out of range\nn error argument out of range\nN error argument out of range\nb error argument out of range\nz error bad char in struct format\n<n error bad char in struct format\nd error required argument is not a float\nerror pack expected 1 items for packing (got 0)\nerror pack expected 1 items for packing (got 2)\nerror unpack requires a buffer of 4 bytes\nTypeError a bytes-like object is required, not 'str'\nerror total struct size too long\nerror repeat count given without format specifier\nerror bad char in struct format\nerror bad char in struct format\nTypeError Struct() argument 1 must be a str or bytes object, not int\nerror unpack_from requires a buffer of at least 6 bytes for unpacking 4 bytes at offset 2 (actual buffer size is 3)\nerror offset -10 out of range for 3-byte buffer\nerror unpack_from requires a buffer of at least 9 bytes for unpacking 4 bytes at offset 5 (actual buffer size is 3)\nerror iterative unpacking requires a buffer of a multiple of 4 bytes\nerror cannot iteratively unpack with a struct of length 0\nTypeError argument must be read-write bytes-like object, not bytes\ncaught struct.error: 'H' format requires 0 <= number <= 65535\n>h 'h' format requires -32768 <= number <= 32767\n>H argument out of range\n>H 'H' format requires 0 <= number <= 65535\n>q int too large to convert\n>Q int too large to convert\n!b byte format requires -128 <= number <= 127\n=h short format requires -32768 <= number <= 32767\n>i 'i' format requires -2147483648 <= number <= 2147483647\n>I argument out of range\n"},
}

// What pack and unpack build is charged to the execution's budget (64 MiB
// in builtinstest.Run) before it is built.
func TestStructMemoryBudget(t *testing.T) {
	for name, src := range map[string]string{
		"pack padding":    "import struct\nb = struct.pack('2000000000x')\nprint(len(b))",
		"pack native":     "import struct\nb = struct.pack('@b200000000s', 1, b'x')\nprint(len(b))",
		"unpack items":    "import struct\nt = struct.unpack('<10000000b', bytes(10000000))\nprint(len(t))",
		"iter_unpack all": "import struct\nt = list(struct.iter_unpack('<1000000b', bytes(10000000)))\nprint(len(t))",
	} {
		t.Run(name, func(t *testing.T) {
			out, err := builtinstest.Run(t, src)
			if err == nil || !strings.Contains(err.Error(), "MemoryError") {
				t.Fatalf("got %q, %v; want a MemoryError", out, err)
			}
		})
	}
}
