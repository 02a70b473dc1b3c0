// Package spawn starts the child processes of the executors (sandbox and
// engine children) so that the parent-death signal they ask for works.
//
// On Linux the parent-death signal fires when the thread that started the
// child ends, not the process, and Go ends a thread when a goroutine locked
// to it exits: a caller of Execute may be such a goroutine, and its child
// would then be killed under it. Start therefore starts every child from
// one goroutine locked to its thread for as long as the process lives.
package spawn

import "os/exec"

// Start starts cmd as cmd.Start does, from a thread that lives as long as
// the process (on Linux; elsewhere it is cmd.Start).
func Start(cmd *exec.Cmd) error { return start(cmd) }
