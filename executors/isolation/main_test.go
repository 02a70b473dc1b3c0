package isolation

import (
	"os"
	"testing"
)

// The engine children are copies of this test binary.
func TestMain(m *testing.M) {
	RunChildIfRequested()
	os.Exit(m.Run())
}
