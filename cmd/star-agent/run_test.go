package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/star-agent/star-agent/cmd/star-agent/cli"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/replay"
)

var updateSessions = flag.Bool("update-sessions", false,
	"re-record testdata/sessions/*.jsonl from their model answers and copy them into testdata/scripts")

// A session file in testdata/sessions is a replay recording whose first
// lines are comments giving the command line it was recorded with and the
// exit status it ends with:
//
//	# args: ["--max-steps", "2", "the task"]
//	# exit: 0
//
// Sessions are written by hand as exchanges holding only the model's
// answers ({"v":1,"n":1,"content":"..."}); -update-sessions runs the agent
// on them for real, in order, and rewrites each file with what was sent
// (so that replays check every observation), then copies every session into
// the testdata/scripts/run_*.txtar files that embed it under its name.

type session struct {
	path   string
	header []string // comment lines, kept on update
	args   []string
	exit   int
}

func readSessions(t *testing.T) []session {
	t.Helper()
	files, err := filepath.Glob("../../testdata/sessions/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sessions: %v", err)
	}
	var out []session
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := session{path: f}
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(line, "#") {
				break
			}
			s.header = append(s.header, line)
			if v, ok := strings.CutPrefix(line, "# args: "); ok {
				if err := json.Unmarshal([]byte(v), &s.args); err != nil {
					t.Fatalf("%s: args: %v", f, err)
				}
			}
			if v, ok := strings.CutPrefix(line, "# exit: "); ok {
				s.exit, _ = strconv.Atoi(v)
			}
		}
		if s.args == nil {
			t.Fatalf("%s: no '# args:' line", f)
		}
		out = append(out, s)
	}
	return out
}

// TestSessions replays every recorded session and checks its exit status;
// with -update-sessions it records them again first.
func TestSessions(t *testing.T) {
	for _, s := range readSessions(t) {
		t.Run(filepath.Base(s.path), func(t *testing.T) {
			if *updateSessions {
				record(t, s)
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"--replay", s.path}, s.args...)
			if code := cli.Main(args, strings.NewReader(""), &stdout, &stderr, cli.Config{}); code != s.exit {
				t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, s.exit, stdout.String(), stderr.String())
			}
			if strings.Contains(stderr.String(), "replay:") {
				t.Errorf("replay diverged:\n%s", stderr.String())
			}
		})
	}
	if *updateSessions {
		syncScripts(t)
	}
}

// record runs s's model answers for real and rewrites s with the exchanges.
func record(t *testing.T, s session) {
	f, err := os.Open(s.path)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := replay.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	model := replay.New(ex, s.path)
	model.Match = replay.MatchOrder
	var rec bytes.Buffer
	var stdout, stderr bytes.Buffer
	code := cli.Main(s.args, strings.NewReader(""), &stdout, &stderr, cli.Config{Model: replay.NewRecorder(estimated{model}, &rec)})
	if code != s.exit {
		t.Fatalf("recording: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, s.exit, stdout.String(), stderr.String())
	}
	for _, line := range strings.Split(rec.String(), "\n") {
		if strings.Contains(line, `"error":`) {
			t.Fatalf("recording: a model call failed: %s", line)
		}
	}
	if model.Remaining() != 0 {
		t.Fatalf("recording: %d answers were not used", model.Remaining())
	}
	out := strings.Join(s.header, "\n") + "\n" + rec.String()
	if err := os.WriteFile(s.path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// estimated fills in the token usage of hand-written answers: one token
// per four bytes, as a tokenizer roughly counts English and code.
// It does not stream, so that the recorder calls Generate.
type estimated struct{ m *replay.Model }

func (m estimated) ModelID() string { return m.m.ModelID() }

func (m estimated) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	msg, err := m.m.Generate(ctx, msgs, opts)
	if err != nil || (msg.Usage != nil && *msg.Usage != (providers.Usage{})) {
		return msg, err
	}
	in := 0
	for _, x := range msgs {
		in += len(x.Content)
	}
	msg.Usage = &providers.Usage{InputTokens: (in + 3) / 4, OutputTokens: (len(msg.Content) + 3) / 4}
	return msg, nil
}

// syncScripts copies each session into the scripts that embed a file of
// the same name.
func syncScripts(t *testing.T) {
	scripts, _ := filepath.Glob("../../testdata/scripts/run_*.txtar")
	for _, sc := range scripts {
		ar, err := txtar.ParseFile(sc)
		if err != nil {
			t.Fatal(err)
		}
		changed := false
		for i, f := range ar.Files {
			b, err := os.ReadFile(filepath.Join("../../testdata/sessions", f.Name))
			if err != nil || !strings.HasSuffix(f.Name, ".jsonl") {
				continue
			}
			ar.Files[i].Data, changed = b, true
		}
		if changed {
			if err := os.WriteFile(sc, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
