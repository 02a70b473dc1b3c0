import struct
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
final_answer("done")
