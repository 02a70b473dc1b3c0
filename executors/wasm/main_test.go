package wasm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
)

func TestMain(m *testing.M) {
	RunChildIfRequested()
	if os.Getenv(firstResultEnv) != "" {
		os.Exit(firstResult()) // BenchmarkFirstResult's one-shot program
	}
	os.Exit(m.Run())
}

// TestChildNotTakenOver: a program whose main does not call
// RunChildIfRequested, started as the sandbox child, exits on the unknown
// flag as Go programs do; Execute must fail at once and name the call.
func TestChildNotTakenOver(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "program")
	script := "#!/bin/sh\necho \"flag provided but not defined: $1\" >&2\nexit 2\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := New(Options{Limits: executors.Limits{Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.childExe = exe
	_, err = e.Execute(context.Background(), "1")
	if err == nil {
		t.Fatal("Execute succeeded with a child that never took over")
	}
	t.Log(err)
	for _, want := range []string{"must call wasm.RunChildIfRequested()", "flag provided but not defined: -star-agent-child"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestChildStartsNoChildren: a copy of the program that runs as itself
// (its main did not take over) refuses to start sandboxes, instead of
// starting copies without end.
func TestChildStartsNoChildren(t *testing.T) {
	t.Setenv(childEnv, "{}")
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), "did not call wasm.RunChildIfRequested") {
		t.Fatalf("err = %v, want one naming wasm.RunChildIfRequested", err)
	}
}

// TestCancelledSetUp: SetTools and SetVariables under a ctx that ended.
func TestCancelledSetUp(t *testing.T) {
	for _, s := range strategies {
		t.Run(s.name, func(t *testing.T) {
			runnertest.CancelledSetUp(t, func(t *testing.T) executors.Executor {
				return newExec(t, Options{Cancel: s.cancel})
			})
		})
	}
}
