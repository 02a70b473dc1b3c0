package docker_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/docker"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/internal/leaktest"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

var run, ok = runnertest.Run, runnertest.OK

func TestConformance(t *testing.T) {
	img := testImage(t)
	eachRuntime(t, func(t *testing.T, runtime string) {
		runnertest.Conformance(t, func(t *testing.T) executors.Executor {
			return newExec(t, docker.Options{Image: img, Runtime: runtime})
		})
	})
}

// TestClockPauses: a bridged tool call that waits for a person does not
// use up the execution's time limit.
func TestClockPauses(t *testing.T) {
	img := testImage(t)
	runnertest.ClockPauses(t, func(t *testing.T, limit time.Duration) executors.Executor {
		return newExec(t, docker.Options{Image: img, Limits: executors.Limits{Timeout: limit}})
	})
}

// gone waits (bounded) until the container id no longer exists.
func gone(t *testing.T, id string) {
	t.Helper()
	cli := engine(t)
	for deadline := time.Now().Add(30 * time.Second); ; {
		_, err := cli.ContainerInspect(context.Background(), id)
		if cerrdefs.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("container %s still exists 30 s after it was abandoned (inspect: %v)", id[:12], err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestStateToolsFinal(t *testing.T) {
	e := newExec(t, docker.Options{})
	if err := e.SetTools(context.Background(), runnertest.Tools()); err != nil {
		t.Fatal(err)
	}
	ok(t, e, "import os\nhistory = []\ndef step(x):\n    history.append(add(x, 1))\n    return history")
	ok(t, e, "step(1)")
	res := ok(t, e, "step(10)")
	if !reflect.DeepEqual(res.Value, []any{int64(2), int64(11)}) {
		t.Errorf("state: got %#v", res.Value)
	}
	res = ok(t, e, "final_answer({'n': len(history), 'pid': os.getpid() > 0})")
	if !res.IsFinal || !reflect.DeepEqual(res.Value, map[string]any{"n": int64(2), "pid": true}) || res.Engine != docker.Engine {
		t.Errorf("final answer: %+v", res)
	}
	res = run(t, e, "print('before')\n1/0")
	if res.Err == nil || res.Err.Type != "ZeroDivisionError" || res.Err.Line != 2 || res.Stdout != "before\n" {
		t.Errorf("error: %+v stdout %q", res.Err, res.Stdout)
	}
	if e.Starts() != 1 {
		t.Errorf("%d containers started for one executor, want 1", e.Starts())
	}
}

// signal is a tool, started(), that tells the test the code is running.
func signal(t *testing.T, e executors.Executor) <-chan struct{} {
	t.Helper()
	c := make(chan struct{})
	var once sync.Once
	tools := append(runnertest.Tools(), runnertest.Func{S: tool.Spec{Name: "started"}, F: func(context.Context, map[string]any) (any, error) {
		once.Do(func() { close(c) })
		return nil, nil
	}})
	if err := e.SetTools(context.Background(), tools); err != nil {
		t.Fatal(err)
	}
	return c
}

// A container killed from outside in the middle of an execution: the
// result says the state is lost, and the next execution runs in a fresh
// container.
func TestKilledFromOutside(t *testing.T) {
	e := newExec(t, docker.Options{})
	started := signal(t, e)
	ok(t, e, "x = 41")
	id := e.ContainerID()
	cli := engine(t)
	go func() {
		<-started
		if err := cli.ContainerKill(context.Background(), id, "KILL"); err != nil {
			t.Errorf("docker kill: %v", err)
		}
	}()
	res := run(t, e, "import time\nstarted()\ntime.sleep(60)")
	if res.Err == nil || !strings.Contains(res.Err.Message, "killed") || !strings.Contains(res.Err.Message, "restarted") {
		t.Fatalf("result of a killed container: %+v", res.Err)
	}
	t.Logf("the model sees: %s", res.Err.Describe())
	if res.Err.Type != "SystemError" {
		t.Errorf("a kill from outside reported as %s", res.Err.Type)
	}
	gone(t, id)
	res = run(t, e, "x")
	if res.Err == nil || res.Err.Type != "NameError" {
		t.Errorf("x survived the kill: %+v", res)
	}
	if res := ok(t, e, "started(); 41 + 1"); res.Value != int64(42) {
		t.Errorf("fresh container: %#v", res.Value)
	}
	if e.Starts() != 2 {
		t.Errorf("starts %d, want 2", e.Starts())
	}
}

// Cancelling the context mid-execution returns at once and removes the
// container; the next execution says the state was lost.
func TestCancel(t *testing.T) {
	e := newExec(t, docker.Options{})
	started := signal(t, e)
	ok(t, e, "y = 1")
	id := e.ContainerID()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.Execute(ctx, "started()\nwhile True:\n    pass")
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Execute after cancel: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Execute did not return 30 s after its context was cancelled")
	}
	gone(t, id)
	res := run(t, e, "y")
	if res.Err == nil || res.Err.Type != "NameError" || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "cancelled") {
		t.Errorf("after cancel: %+v notes %q", res.Err, res.Notes)
	}
}

// A timeout stops the execution, removes its container, and the executor
// goes on with a fresh one.
func TestTimeout(t *testing.T) {
	e := newExec(t, docker.Options{Limits: executors.Limits{Timeout: 2 * time.Second}})
	ok(t, e, "z = 1")
	id := e.ContainerID()
	res := run(t, e, "import time\nwhile True:\n    time.sleep(0.01)")
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Fatalf("timeout: %+v", res.Err)
	}
	gone(t, id)
	if res := ok(t, e, "2 * 21"); res.Value != int64(42) {
		t.Errorf("after timeout: %#v", res.Value)
	}
}

// Close removes the container even while nothing runs, and Close of a
// never-started executor does nothing.
func TestCloseRemoves(t *testing.T) {
	e := newExec(t, docker.Options{})
	ok(t, e, "1")
	id := e.ContainerID()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	gone(t, id)
	if _, err := e.Execute(context.Background(), "1"); err == nil {
		t.Error("Execute after Close succeeded")
	}
	e2 := newExec(t, docker.Options{})
	if err := e2.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestImageErrors(t *testing.T) {
	engine(t)
	cases := []struct {
		name  string
		image string
		want  []string
	}{
		{"default missing", "", nil},
		{"other missing", "star-agent/no-such-image:" + runID, []string{"never pulls", "star-agent sandbox image build", "--docker-image"}},
		{"no python3", noPythonImage(t), []string{"has no python3"}},
		{"python3 that cannot start the runner", falsePythonImage(t), []string{"exited with code 1 before the runner's handshake", "3.8 or later"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.image == "" {
				cli := engine(t)
				if _, err := cli.ImageInspect(context.Background(), docker.DefaultImage); err == nil {
					t.Skipf("%s is present", docker.DefaultImage)
				}
				c.image = docker.DefaultImage
				c.want = []string{"not in the Docker engine", "`star-agent sandbox image build`"}
			}
			e := newExec(t, docker.Options{Image: c.image})
			_, err := e.Execute(context.Background(), "1")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			t.Logf("%v", err)
		})
	}
}

// An image's own ENTRYPOINT and CMD do not run: the runner does.
func TestImageEntrypointIgnored(t *testing.T) {
	e := newExec(t, docker.Options{Image: entrypointImage(t)})
	if res := ok(t, e, "6 * 7"); res.Value != int64(42) {
		t.Errorf("got %#v", res.Value)
	}
}

func TestNoEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no.sock"))
	e, err := docker.New(docker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	err = e.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot be reached") || !strings.Contains(err.Error(), "DOCKER_HOST") {
		t.Errorf("no engine: %v", err)
	}
}

func TestOptionsRejected(t *testing.T) {
	for _, o := range []docker.Options{
		{Memory: 1 << 20},
		{CPUs: 0.001},
		{PIDs: 2},
		{Mounts: []docker.Mount{{HostPath: "/tmp", GuestPath: "/"}}},
		{Mounts: []docker.Mount{{HostPath: "/tmp", GuestPath: "/proc/x"}}},
		{Mounts: []docker.Mount{{HostPath: "rel", GuestPath: "/data"}}},
		{PackageDirs: []string{"rel"}},
	} {
		if _, err := docker.New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// Mounts are read-only unless writable; package directories are on
// sys.path and importable once authorized.
func TestMountsAndPackages(t *testing.T) {
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, "in.txt"), []byte("hello"), 0644)
	out := t.TempDir()
	os.Chmod(out, 0777)
	pkgs := t.TempDir()
	os.MkdirAll(filepath.Join(pkgs, "greet"), 0755)
	os.WriteFile(filepath.Join(pkgs, "greet", "__init__.py"), []byte("def hi():\n    return 'hi'\n"), 0644)
	for _, d := range []string{data, out, pkgs} {
		os.Chmod(d, 0755)
	}
	os.Chmod(out, 0777)
	e := newExec(t, docker.Options{
		Mounts:      []docker.Mount{{HostPath: data, GuestPath: "/data"}, {HostPath: out, GuestPath: "/out", Writable: true}},
		PackageDirs: []string{pkgs},
		Imports:     executors.NewImportPolicy([]string{"greet", "os"}, nil),
	})
	res := ok(t, e, "import greet, os\n(open('/data/in.txt').read(), greet.hi())")
	if !reflect.DeepEqual(res.Value, runnerTuple("hello", "hi")) {
		t.Errorf("got %#v", res.Value)
	}
	res = run(t, e, "open('/data/new.txt', 'w')")
	if res.Err == nil || res.Err.Type != "OSError" && !strings.Contains(res.Err.Message, "Read-only") {
		t.Errorf("write to a read-only mount: %+v", res.Err)
	}
	ok(t, e, "open('/out/result.txt', 'w').write('done')")
	if b, err := os.ReadFile(filepath.Join(out, "result.txt")); err != nil || string(b) != "done" {
		t.Errorf("writable mount: %q %v", b, err)
	}
	res = run(t, e, "import subprocess")
	if res.Err == nil || res.Err.Type != "ImportError" {
		t.Errorf("unauthorized import: %+v", res.Err)
	}
}

func TestNumpyPandas(t *testing.T) {
	img := dataImage(t)
	e := newExec(t, docker.Options{Image: img})
	res := ok(t, e, `import numpy as np, pandas as pd
a = np.arange(12).reshape(3, 4)
df = pd.DataFrame({'x': [1, 2, 3], 'y': [2.5, 3.5, 4.5]})
print(df.describe().loc['mean'].to_dict())
final_answer({'sum': int(a.sum()), 'mean_y': float(df['y'].mean()), 'shape': list(a.shape)})`)
	want := map[string]any{"sum": int64(66), "mean_y": 3.5, "shape": []any{int64(3), int64(4)}}
	if !res.IsFinal || !reflect.DeepEqual(res.Value, want) {
		t.Errorf("got %#v, want %#v", res.Value, want)
	}
	if !strings.Contains(res.Stdout, "'y': 3.5") {
		t.Errorf("stdout %q", res.Stdout)
	}
	res = ok(t, e, "a.T.shape")
	if !reflect.DeepEqual(res.Value, runnerTuple(int64(4), int64(3))) {
		t.Errorf("state of numpy arrays: %#v", res.Value)
	}
}

func runnerTuple(v ...any) pyvalue.Tuple { return pyvalue.Tuple(v) }

type runnerTupleT = pyvalue.Tuple

// An executor leaves no goroutine behind once closed, after a normal run,
// a kill from outside and a timeout.
func TestNoGoroutinesLeft(t *testing.T) {
	img := testImage(t)
	// The executor's goroutines and the Docker client's, not the HTTP
	// connections the test's own client keeps alive across tests.
	goroutines := leaktest.Take("github.com/star-agent/star-agent/", "github.com/docker/")
	func() {
		e, err := docker.New(docker.Options{Image: img, Labels: map[string]string{runLabel: runID}, Limits: executors.Limits{Timeout: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := e.Close(); err != nil {
				t.Error(err)
			}
		}()
		ok(t, e, "1")
		engine(t).ContainerKill(context.Background(), e.ContainerID(), "KILL")
		run(t, e, "2")
		run(t, e, "while True: pass")
		ok(t, e, "3")
	}()
	goroutines.Check(t)
}

// A container killed while no code runs: once the host has seen its
// stream end, the next execution runs in a fresh container and its result
// says that the state was lost.
func TestKilledWhileIdle(t *testing.T) {
	e := newExec(t, docker.Options{})
	ok(t, e, "x = 1")
	id := e.ContainerID()
	if err := engine(t).ContainerKill(context.Background(), id, "KILL"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !e.Current().Session().StreamEnded(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the runner's stream did not end after the container was killed")
		}
	}
	res := run(t, e, "x")
	if res.Err == nil || res.Err.Type != "NameError" || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "ended between steps") {
		t.Fatalf("after an idle kill: %+v", res)
	}
	t.Logf("the model sees: %s; %s", res.Err.Describe(), res.Notes[0])
	gone(t, id)
	if res := ok(t, e, "2"); res.Value != int64(2) {
		t.Errorf("fresh container: %#v", res.Value)
	}
}

// A context that ends while the container is being created, attached or
// started leaves no container behind once the executor is closed,
// whichever step it interrupts.
func TestCancelDuringStart(t *testing.T) {
	img := testImage(t)
	label := "start-cancel-" + runID
	for _, d := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
		100 * time.Millisecond, 150 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond} {
		e, err := docker.New(docker.Options{Image: img, Labels: map[string]string{runLabel: runID, "io.star-agent.test-case": label}})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), d)
		e.Execute(ctx, "1")
		cancel()
		if err := e.Close(); err != nil {
			t.Errorf("Close after a start cancelled at %s: %v", d, err)
		}
	}
	f := filters.NewArgs(filters.Arg("label", "io.star-agent.test-case="+label))
	cs, err := engine(t).ContainerList(context.Background(), listAll(f))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		t.Errorf("container %s (%s) left behind", c.ID[:12], c.State)
		engine(t).ContainerRemove(context.Background(), c.ID, container.RemoveOptions{Force: true})
	}
}
