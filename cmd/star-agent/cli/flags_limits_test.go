package cli

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors"
)

func newFlagSet() *pflag.FlagSet {
	fl := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	return fl
}

// TestLimitFlagsAreOneSet: run, exec and serve show the same limit flags,
// with the same help and the same defaults, and read them into the same
// executors.Limits.
func TestLimitFlagsAreOneSet(t *testing.T) {
	root := NewRootCommand(Config{}, strings.NewReader(""), io.Discard, io.Discard)
	names := []string{"exec-timeout", "max-operations", "max-memory", "max-output", "max-value"}
	var first string
	seen := map[string]string{}
	for _, c := range root.Commands() {
		switch c.Name() {
		case "run", "exec", "serve":
		default:
			continue
		}
		if first == "" {
			first = c.Name()
		}
		for _, n := range names {
			f := c.Flags().Lookup(n)
			if f == nil {
				t.Errorf("%s has no --%s", c.Name(), n)
				continue
			}
			got := f.Usage + " | default " + f.DefValue
			if want, ok := seen[n]; ok && got != want {
				t.Errorf("%s --%s: %q; %s says %q", c.Name(), n, got, first, want)
			}
			seen[n] = got
		}
	}
	if len(seen) != len(names) {
		t.Fatalf("found %d of the %d limit flags", len(seen), len(names))
	}
}

// TestLimitFlagsDefaults: the flags' defaults are the executors' defaults,
// so giving none and giving the defaults mean the same.
func TestLimitFlagsDefaults(t *testing.T) {
	for _, cmd := range []string{"run", "exec", "serve"} {
		var f LimitFlags
		fl := newFlagSet()
		f.Register(fl, cmd)
		if err := fl.Parse(nil); err != nil {
			t.Fatal(err)
		}
		l, err := f.Limits(fl, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		d := executors.Limits{}.WithDefaults()
		d.MaxDepth = 0
		if l != d {
			t.Errorf("%s: %+v, want the defaults %+v", cmd, l, d)
		}
	}
}

// TestLimitFlagsOldSpellings: each command keeps its old spelling of the
// execution time limit, with a warning, and refuses nonsense.
func TestLimitFlagsOldSpellings(t *testing.T) {
	for _, c := range []struct {
		cmd, flag string
	}{{"exec", "--timeout"}, {"run", "--step-timeout"}, {"serve", "--step-timeout"}} {
		var f LimitFlags
		fl := newFlagSet()
		f.Register(fl, c.cmd)
		if err := fl.Parse([]string{c.flag, "5s"}); err != nil {
			t.Fatalf("%s %s: %v", c.cmd, c.flag, err)
		}
		var warn strings.Builder
		l, err := f.Limits(fl, &warn)
		if err != nil || l.Timeout != 5*time.Second {
			t.Errorf("%s %s 5s: %v, %v", c.cmd, c.flag, l.Timeout, err)
		}
		if !strings.Contains(warn.String(), "use --exec-timeout") {
			t.Errorf("%s %s: warning %q", c.cmd, c.flag, warn.String())
		}
	}
	var f LimitFlags
	fl := newFlagSet()
	f.Register(fl, "run")
	if err := fl.Parse([]string{"--timeout", "5s"}); err == nil {
		t.Error("run's --timeout is the whole run's limit, not a limit flag: LimitFlags must not take it")
	}
	for _, args := range [][]string{{"--exec-timeout", "0s"}, {"--max-output", "0"}, {"--max-memory", "lots"}, {"--max-value", "-1"}} {
		var f LimitFlags
		fl := newFlagSet()
		f.Register(fl, "exec")
		if err := fl.Parse(args); err != nil {
			continue
		}
		if _, err := f.Limits(fl, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		} else if ee, ok := err.(*ExitError); !ok || ee.Code != 2 {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
