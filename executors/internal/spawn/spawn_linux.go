package spawn

import (
	"os/exec"
	"runtime"
	"sync"
)

var spawner struct {
	once sync.Once
	reqs chan request
}

type request struct {
	cmd  *exec.Cmd
	done chan error
}

func start(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.reqs = make(chan request)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for r := range spawner.reqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawner.reqs <- request{cmd, done}
	return <-done
}
