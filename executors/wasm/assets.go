package wasm

import "embed"

// The interpreter and its standard library, built by cpython/build.sh from
// Debian's sources (versions and checksums in cpython/VERSIONS).
var (
	//go:embed cpython/python.wasm
	pythonWasm []byte

	//go:embed cpython/python311.zip
	stdlibFS embed.FS
)
