package starlarkexec

import (
	"os"
	"testing"
)

// The engine children of IsolationProcess are copies of this test binary.
func TestMain(m *testing.M) {
	RunChildIfRequested()
	os.Exit(m.Run())
}
