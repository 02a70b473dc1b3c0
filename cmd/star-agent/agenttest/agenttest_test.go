package agenttest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/star-agent/star-agent/cmd/star-agent/agenttest"
	"github.com/star-agent/star-agent/cmd/star-agent/cli"
	"github.com/star-agent/star-agent/tool"
)

type capitalArgs struct {
	Country string `json:"country" jsonschema:"The country, in English."`
}

// capital is the user's own tool that the golden test exercises.
var capital = tool.MustNew("get_capital", "Returns the capital city of a country.",
	func(_ context.Context, a capitalArgs) (string, error) {
		switch a.Country {
		case "France":
			return "Paris", nil
		case "Italy":
			return "Rome", nil
		}
		return "", fmt.Errorf("unknown country %q", a.Country)
	})

func TestMain(m *testing.M) {
	agenttest.Main(m, cli.Config{Tools: []tool.Tool{capital}})
}

func TestGolden(t *testing.T) {
	agenttest.Run(t, "testdata")
}
