package cli

import (
	"os"
	"testing"

	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/wasm"
)

// The run command's engine and sandbox children are copies of this test
// binary.
func TestMain(m *testing.M) {
	isolation.RunChildIfRequested()
	wasm.RunChildIfRequested()
	runChildIfRequested()
	os.Exit(m.Run())
}
