// Package agenttest lets users of star-agent write golden tests of their own
// agents and tools as testscript (.txtar) files, on recorded sessions.
//
// A test binary that calls Main gains a "star-agent" command, the real
// "star-agent run" built around the tools and options of cli.Config. A
// script then plays a session recorded with --record: the model's answers
// come from the recording, and the code, with the user's tools, runs for
// real, so a change in a tool's behaviour shows up as a changed output or
// as a replay mismatch.
//
//	func TestMain(m *testing.M) {
//		agenttest.Main(m, cli.Config{Tools: []tool.Tool{myTool}})
//	}
//
//	func TestAgent(t *testing.T) {
//		agenttest.Run(t, "testdata/scripts")
//	}
//
// with testdata/scripts/weather.txtar:
//
//	exec star-agent run --replay session.jsonl 'What is the weather in Paris?'
//	stdout 'Final answer'
//	-- session.jsonl --
//	{"v":1,"n":1,...}
package agenttest

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/star-agent/star-agent/cmd/star-agent/cli"
	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/wasm"
)

// Commands returns the commands Main registers: "star-agent", whose only
// subcommand is run.
func Commands(cfg cli.Config) map[string]func() {
	return map[string]func(){
		"star-agent": func() {
			args := os.Args[1:]
			if len(args) > 0 && args[0] == "run" {
				args = args[1:]
			}
			os.Exit(cli.Main(args, os.Stdin, os.Stdout, os.Stderr, cfg))
		},
	}
}

// Main registers the star-agent command with testscript and runs the
// tests. Call it from TestMain. The command's engine and sandbox children
// are copies of the test binary, which Main serves first (see
// isolation.RunChildIfRequested).
func Main(m *testing.M, cfg cli.Config) {
	isolation.RunChildIfRequested()
	wasm.RunChildIfRequested()
	testscript.Main(m, Commands(cfg))
}

// Run runs the .txtar scripts in dir, where "exec star-agent run ..."
// runs the command Main registered.
func Run(t *testing.T, dir string) {
	t.Helper()
	testscript.Run(t, testscript.Params{Dir: dir, RequireExplicitExec: true})
}
