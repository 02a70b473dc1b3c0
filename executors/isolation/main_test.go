package isolation

import (
	"os"
	"testing"

	"github.com/star-agent/star-agent/internal/gctune"
)

// The engine children are copies of this test binary. As in star-agent's
// main, the collector's default (gctune) is set first, so that children
// and benchmarks run as the CLI's do.
func TestMain(m *testing.M) {
	gctune.Apply()
	RunChildIfRequested()
	os.Exit(m.Run())
}
