package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
)

// childRunEnv makes the test binary "star-agent" itself, with the
// transfer tool and a scripted model whose answers are the JSON list in
// the variable: a real process with a real terminal.
const childRunEnv = "STAR_AGENT_TEST_RUN"

type transferArgs struct {
	To     string `json:"to" jsonschema:"Who receives the money."`
	Amount int    `json:"amount" jsonschema:"How much."`
}

var transferTool = tool.MustNew("transfer", "Sends money.", func(_ context.Context, a transferArgs) (string, error) {
	return "sent " + strings.Repeat("$", 0) + itoa(a.Amount) + " to " + a.To, nil
})

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func runChildIfRequested() {
	answers := os.Getenv(childRunEnv)
	if answers == "" {
		return
	}
	var contents []string
	if err := json.Unmarshal([]byte(answers), &contents); err != nil {
		panic(err)
	}
	cfg := Config{Tools: []tool.Tool{transferTool}, Model: scripted.New(contents...)}
	os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cfg))
}

// childCommand is star-agent with the scripted model answering answers.
func childCommand(t *testing.T, answers []string, args ...string) *exec.Cmd {
	t.Helper()
	b, _ := json.Marshal(answers)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childRunEnv+"="+string(b))
	return cmd
}

// approvalSession is the model's side: code in the CPython sandbox that
// makes three calls of transfer, catching the denial as ToolError.
var approvalSession = []string{
	"Thought: pay.\n<code>\nimport sys\nprint(sys.implementation.name)\nprint(transfer(\"alice\", 5))\ntry:\n    transfer(to=\"mallory\", amount=1000)\nexcept ToolError as e:\n    print(\"caught:\", type(e).__name__, e)\nprint(transfer(\"bob\", 500))\n</code>",
	"Thought: done.\n<code>\nfinal_answer(\"paid\")\n</code>",
}

// TestApprovalAtTerminal runs star-agent run under a pseudo-terminal with
// the code in the WebAssembly sandbox, and in the Docker one where there
// is an engine: each call of transfer, bridged from CPython to the host,
// waits while the terminal shows it as transfer(to=…) and the operator
// answers yes, no with a reason, and edit.
func TestApprovalAtTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts CPython sandboxes")
	}
	t.Run("wasm", func(t *testing.T) { approvalAtTerminal(t, "wasm") })
	t.Run("docker", func(t *testing.T) {
		if err := exec.Command("docker", "image", "inspect", "star-agent/python:latest").Run(); err != nil {
			t.Skip("no Docker engine with the star-agent/python:latest image (star-agent sandbox image build)")
		}
		approvalAtTerminal(t, "docker")
	})
}

// approvalAtTerminal runs the dialogue with the code in the executor.
func approvalAtTerminal(t *testing.T, executor string) {
	// The operator takes longer than --exec-timeout to answer the first
	// call: the wait does not count. --run-timeout does bound it.
	cmd := childCommand(t, approvalSession, "run", "--executor", executor, "--engine", "python", "--imports", "sys", "--require-approval", "trans*",
		"--exec-timeout", "2s", "--run-timeout", "10m", "pay people")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var (
		mu  sync.Mutex
		out bytes.Buffer
	)
	got := make(chan struct{}, 1)
	go func() {
		r := bufio.NewReader(tty)
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			select {
			case got <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	// wait reads the terminal until re matches after from, and returns
	// where the match ends.
	wait := func(from int, re string) int {
		t.Helper()
		rx := regexp.MustCompile(re)
		deadline := time.After(2 * time.Minute)
		for {
			mu.Lock()
			s := out.String()
			mu.Unlock()
			if loc := rx.FindStringIndex(s[from:]); loc != nil {
				return from + loc[1]
			}
			if strings.Contains(s[from:], "━━━ Run ") {
				t.Fatalf("the run ended without showing %q:\n%s", re, s)
			}
			select {
			case <-got:
			case <-deadline:
				t.Fatalf("the terminal never showed %q; it shows:\n%s", re, s)
			}
		}
	}
	pos := wait(0, `Approval needed \(step 1\) ━━━\r?\ntransfer\(to='alice', amount=5\)\r?\n\(answer within [0-9ms]+: the run stops at --run-timeout\)\r?\nApprove\? \[y\]es, \[n\]o, \[e\]dit the arguments: `)
	// The call waits: nothing runs until the operator answers, past
	// --exec-timeout.
	time.Sleep(2500 * time.Millisecond)
	mu.Lock()
	early := strings.Contains(out.String(), "sent 5")
	mu.Unlock()
	if early {
		t.Fatal("the call ran before it was approved")
	}
	io.WriteString(tty, "y\n")
	pos = wait(pos, `transfer\(to='mallory', amount=1000\)\r?\n.*\r?\nApprove\? .*: `)
	io.WriteString(tty, "n\n")
	pos = wait(pos, `Reason \(for the model\): `)
	io.WriteString(tty, "not a customer\n")
	pos = wait(pos, `transfer\(to='bob', amount=500\)\r?\n.*\r?\nApprove\? .*: `)
	io.WriteString(tty, "e\n")
	pos = wait(pos, `New arguments \(a JSON object\): `)
	io.WriteString(tty, `{"to": "bob", "amount": 50}`+"\n")
	wait(pos, `Run succeeded`)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("star-agent run: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{
		"cpython", // the code ran in the CPython sandbox
		"sent 5 to alice",
		"caught: ToolError tool transfer failed: denied by the operator: not a customer",
		"sent 50 to bob",
		"paid",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "sent 500") || strings.Contains(s, "to mallory") && strings.Contains(s, "sent 1000") {
		t.Errorf("a call ran without approval or with its old arguments:\n%s", s)
	}
}

// TestApprovalWithoutTerminal: with no terminal to ask, a call that
// needs approval is denied, the model reads why, and the operator is told
// on standard error.
func TestApprovalWithoutTerminal(t *testing.T) {
	cmd := childCommand(t, []string{
		"Thought: pay.\n<code>\nprint(transfer(\"alice\", 5))\n</code>",
		"Thought: done.\n<code>\nfinal_answer(\"could not pay\")\n</code>",
	}, "run", "--require-approval", "transfer", "pay alice")
	cmd.SysProcAttr = noTerminal()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if want := "star-agent: denied transfer(to='alice', amount=5): approval is required (--require-approval) and star-agent has no terminal to ask on"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	if want := "ToolError: tool transfer failed: denied by the operator: approval is required (--require-approval) and star-agent has no terminal to ask on"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
	}
	if strings.Contains(stdout.String(), "sent 5") {
		t.Errorf("the call ran:\n%s", stdout.String())
	}
}
