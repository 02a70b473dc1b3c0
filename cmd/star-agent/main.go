// Command star-agent runs code agents whose actions are Python, executed in
// a sandboxed Starlark engine or a full-Python sandbox.
//
// Usage:
//
//	star-agent exec [flags] FILE... | -     run code files as agent steps would
//	star-agent run  [flags] TASK            run an agent on a task
//	star-agent serve [flags]                 run agents as an HTTP service with a web page
//	star-agent sandbox image build|prune     build or clean up the Docker sandbox's image
//
// Run "star-agent help COMMAND" for the flags of each command.
package main

import (
	"os"

	"github.com/star-agent/star-agent/cmd/star-agent/cli"
	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/wasm"
	"github.com/star-agent/star-agent/internal/gctune"
)

func main() {
	// Sandbox and engine children are copies of this program: they take
	// over here, before anything else runs. The collector's default
	// (gctune) is for the Starlark engine, in this process and in its
	// isolated children (whose soft memory limit, set from their budget,
	// then replaces the default's); the WebAssembly sandbox's child keeps
	// Go's own, as its heap is mostly the sandbox's linear memory.
	wasm.RunChildIfRequested()
	gctune.Apply()
	isolation.RunChildIfRequested()
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Config{}))
}
