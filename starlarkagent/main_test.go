package starlarkagent

import (
	"os"
	"testing"

	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/wasm"
)

// The children of process isolation and of the WebAssembly sandbox are
// copies of this test binary.
func TestMain(m *testing.M) {
	isolation.RunChildIfRequested()
	wasm.RunChildIfRequested()
	os.Exit(m.Run())
}
