package e2b

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors/e2b/e2bfake"
)

// fakeChildEnv makes the test binary serve a fake on loopback instead of
// running tests: it prints the fake's URL and serves until stdin closes.
// Benchmarks use it to keep the fake's memory and goroutines out of the
// client's figures.
const fakeChildEnv = "STAR_AGENT_E2B_FAKE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(fakeChildEnv) == "1" {
		f := e2bfake.New()
		fmt.Println(f.URL)
		io.Copy(io.Discard, os.Stdin)
		f.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childFake starts a fake in a child process and returns its options; the
// child ends (and kills its processes) when the test ends.
func childFake(tb testing.TB) Options {
	tb.Helper()
	needPython(tb)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fakeChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	url := strings.TrimSpace(line)
	d := e2bfake.New() // for its default key and domain only
	opts := Options{APIKey: d.APIKey, APIURL: url, EnvdURL: url, Domain: d.Domain, Imports: allImports}
	d.Close()
	return opts
}
