//go:build !linux

package wasm

import "os/exec"

// setParentDeathSignal does nothing here: the child ends when its stdin
// closes, which happens when this process dies, unless the code in it
// never reads again.
func setParentDeathSignal(*exec.Cmd) {}
