package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
)

// grace is how long past -timeout the tool waits for a process before it
// kills it: the engine stops itself at -timeout, CPython does not.
const grace = 10 * time.Second

// runCPython runs file with python3 in the file's directory (so that the
// file can import its siblings), with a fixed hash seed so that the order
// of sets of strings is the same from run to run.
func runCPython(python, file string, timeout time.Duration) run {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-s", filepath.Base(file))
	cmd.Dir = filepath.Dir(file)
	cmd.Env = append(os.Environ(), "PYTHONHASHSEED=0", "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return run{Stdout: stdout.String(), TimedOut: true}
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return run{TimedOut: true, Msg: err.Error()}
	}
	return parseCPython(stdout.String(), stderr.String(), code)
}

// runEngine runs file in the engine: in `binary exec --json` when binary
// is set, else in a child process of this tool (-child), so that code
// which crashes the engine or outlives its deadline inside a builtin
// takes only the child with it.
func runEngine(binary, file string, timeout time.Duration) (run, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout+grace)
	defer cancel()
	code, err := os.ReadFile(file)
	if err != nil {
		return run{}, err
	}
	var cmd *exec.Cmd
	if binary != "" {
		args := []string{"exec", "--json", "--exec-timeout", timeout.String()}
		if imports := importsOf(string(code)); len(imports) > 0 {
			args = append(args, "--imports", strings.Join(imports, ","))
		}
		cmd = exec.CommandContext(ctx, binary, append(args, file)...)
	} else {
		self, err := os.Executable()
		if err != nil {
			return run{}, err
		}
		cmd = exec.CommandContext(ctx, self, "-child", "-timeout", timeout.String(), file)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		return run{TimedOut: true}, nil
	}
	r, perr := parseEngine(stdout.Bytes())
	if perr != nil {
		// exec exits 1 when the file raised; anything else without a
		// JSON line is a tool or engine failure.
		return run{}, errors.Join(perr, err, errors.New(strings.TrimSpace(stderr.String())))
	}
	return r, nil
}

// runChild is -child: it runs file in the in-process engine, with the
// default limits but the time limit, and the default authorized imports
// plus those the file names that the engine allows, and writes the
// result as `star-agent exec --json` does.
func runChild(file string, timeout time.Duration) error {
	code, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	ex, err := starlarkexec.New(starlarkexec.Options{
		Limits:            executors.Limits{Timeout: timeout},
		AuthorizedImports: importsOf(string(code)),
	})
	if err != nil {
		return err
	}
	defer ex.Close()
	res, err := ex.Execute(context.Background(), string(code))
	if err != nil && res.Err == nil {
		res.Err = &executors.ExecError{Type: "SystemError", Message: "the engine failed: " + err.Error()}
	}
	out := execResult{Stdout: res.Stdout}
	if res.Err != nil {
		out.Error = &struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}{res.Err.Type, res.Err.Message}
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// importStmt matches the modules an import statement names:
// "import a.b as c, d" and "from a.b import c" (not relative imports).
var importStmt = regexp.MustCompile(`(?m)^[ \t]*(?:import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)|from[ \t]+([\w.]+)[ \t]+import)`)

// importsOf lists the top-level modules code imports that the engine may
// be allowed to import: host modules (os, sys, ...) are left out, the
// engine refuses them whatever it is told.
func importsOf(code string) []string {
	var mods []string
	for _, m := range importStmt.FindAllStringSubmatch(code, -1) {
		names := []string{m[2]}
		if m[1] != "" {
			names = strings.Split(m[1], ",")
		}
		for _, n := range names {
			n = strings.Fields(n)[0]
			top, _, _ := strings.Cut(n, ".")
			if executors.IsModuleName(top) && !executors.IsHostModule(top) && !slices.Contains(mods, top) {
				mods = append(mods, top)
			}
		}
	}
	slices.Sort(mods)
	return mods
}
