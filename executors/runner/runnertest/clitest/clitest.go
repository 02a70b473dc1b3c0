// Package clitest checks that the CLI's flags open a full-Python executor
// as `star-agent exec` does. It is apart from runnertest because it imports
// the CLI, which imports every executor, and an executor's own tests
// import runnertest.
package clitest

import (
	"context"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/starlarkagent/cli"
)

// Open parses args as the flags of `star-agent exec`, opens the executor
// they describe (authorizing zlib) and checks that plain code stays in
// Starlark while code that imports zlib runs in the sandbox, whose
// Result.Engine is engine, with the variable set in Starlark. The caller
// checks what the service saw and closes the executor.
func Open(t *testing.T, args []string, engine string) executors.Executor {
	t.Helper()
	var flags cli.ExecutorFlags
	fl := pflag.NewFlagSet("exec", pflag.ContinueOnError)
	flags.Register(fl)
	if err := fl.Parse(args); err != nil {
		t.Fatal(err)
	}
	e, err := flags.Open(executors.Limits{}, []string{"zlib"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := e.Execute(ctx, "n = 41")
	if err != nil || res.Err != nil || res.Engine != "starlark" {
		t.Fatalf("plain code: engine %q, %v %v", res.Engine, err, res.Err)
	}
	res, err = e.Execute(ctx, "import zlib\nlen(zlib.decompress(zlib.compress(b'x'))) + n")
	if err != nil || res.Err != nil {
		t.Fatalf("%v %v", err, res.Err)
	}
	if res.Engine != engine || res.Value != int64(42) {
		t.Errorf("engine %q value %#v", res.Engine, res.Value)
	}
	return e
}
