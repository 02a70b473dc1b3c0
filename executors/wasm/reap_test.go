package wasm

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
)

// childPid is the pid of e's sandbox process.
func childPid(t *testing.T, e *Executor) int {
	t.Helper()
	c, ok := e.Current().(*childProcess)
	if !ok {
		t.Fatalf("sandbox is a %T", e.Current())
	}
	return c.cmd.Process.Pid
}

// running reports whether pid is a live process (a zombie is not).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// exists reports whether pid is in the process table at all (a zombie
// is): after Close, children must be reaped, not just killed.
func exists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// TestNoChildLeftAfterClose: Close kills and reaps the sandbox process,
// and the ones replaced after a timeout, before it returns.
func TestNoChildLeftAfterClose(t *testing.T) {
	e, err := New(Options{Limits: executors.Limits{Timeout: 500 * time.Millisecond}, Imports: allImports})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	exec1(t, e, "1")
	first := childPid(t, e)
	if res := exec1(t, e, "while True:\n    pass"); res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Fatalf("timeout: %+v", res.Err)
	}
	exec1(t, e, "1")
	second := childPid(t, e)
	if first == second || !running(second) {
		t.Fatalf("pids %d %d", first, second)
	}
	e.Close()
	for _, pid := range []int{first, second} {
		if exists(pid) {
			t.Errorf("sandbox process %d is still there after Close", pid)
		}
	}
}

// TestNoChildLeftAfterParentDies: a parent killed with SIGKILL (no Close,
// no deferred code) while its sandbox runs an endless loop, which does not
// read the closed pipe: the parent-death signal must end the sandbox.
func TestNoChildLeftAfterParentDies(t *testing.T) {
	if os.Getenv("STAR_AGENT_TEST_PARENT") != "" {
		parentHelper()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoChildLeftAfterParentDies$")
	cmd.Env = append(os.Environ(), "STAR_AGENT_TEST_PARENT=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "sandbox ")))
	if err != nil {
		t.Fatalf("helper said %q", line)
	}
	if !running(pid) {
		t.Fatalf("sandbox %d is not running", pid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); running(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("sandbox %d outlived its parent by 10 s", pid)
		}
	}
}

// parentHelper starts a sandbox busy in an endless loop, prints its pid
// and waits to be killed.
func parentHelper() {
	e, err := New(Options{Limits: executors.Limits{Timeout: time.Hour}, Imports: allImports})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	if _, err := e.Execute(context.Background(), "1"); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	pid := e.Current().(*childProcess).cmd.Process.Pid
	go e.Execute(context.Background(), "while True:\n    pass")
	time.Sleep(200 * time.Millisecond)
	fmt.Printf("sandbox %d\n", pid)
	time.Sleep(time.Hour)
}

// TestSandboxOutlivesStartingThread: the parent-death signal fires when the
// thread that started the child ends, not the process. A goroutine locked
// to its thread that starts the sandbox and exits ends that thread; the
// sandbox, and its state, must survive it.
func TestSandboxOutlivesStartingThread(t *testing.T) {
	e, err := New(Options{Imports: allImports})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for started := false; !started; {
		done := make(chan bool)
		go func() {
			runtime.LockOSThread()
			if syscall.Gettid() == os.Getpid() {
				// The main thread never ends: try again on another.
				runtime.UnlockOSThread()
				done <- false
				return
			}
			// Never unlocked: the thread ends with the goroutine.
			exec1(t, e, "x = 1")
			done <- true
		}()
		started = <-done
	}
	pid := childPid(t, e)
	time.Sleep(300 * time.Millisecond)
	res := exec1(t, e, "x + 1")
	if res.Err != nil || res.Repr != "2" || childPid(t, e) != pid || !running(pid) {
		t.Fatalf("after the starting thread ended: %+v %q, sandbox %d then %d", res.Err, res.Repr, pid, childPid(t, e))
	}
}
