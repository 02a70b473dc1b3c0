package runner_test

import (
	"os"
	"testing"

	"github.com/star-agent/star-agent/executors/wasm"
)

// The wasm sandbox children are copies of this test binary.
func TestMain(m *testing.M) {
	wasm.RunChildIfRequested()
	os.Exit(m.Run())
}
