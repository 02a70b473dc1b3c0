package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/star-agent/star-agent/cmd/star-agent/cli"
	"github.com/star-agent/star-agent/executors/e2b/e2bfake"
	"github.com/star-agent/star-agent/executors/isolation"
	"github.com/star-agent/star-agent/executors/wasm"
	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

func TestMain(m *testing.M) {
	// The commands' sandbox and engine children are copies of this binary.
	isolation.RunChildIfRequested()
	wasm.RunChildIfRequested()
	testscript.Main(m, map[string]func(){
		"star-agent": func() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Config{})) },
		// A real MCP server built with the official SDK, for --mcp.
		"mcptest-server": func() { os.Exit(mcptest.Main(os.Args[1:])) },
	})
}

var update = flag.Bool("update", false, "rewrite the files that cmp compares in testdata/scripts with what the commands print now")

// TestScripts runs the golden tests in testdata/scripts: each .txtar file is
// a star-agent session with its expected output. With -update, a file
// compared by cmp is rewritten with what the command printed (check the
// diff before committing it).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/scripts",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"jsonfields":    jsonFields,
			"waitfile":      waitFile,
			"openai-server": openaiServer,
			"http":          httpCmd,
			// A real MCP server on loopback; sets $MCP_URL.
			"mcp-http-server": mcptest.ScriptHTTPServer,
			"e2b-fake":        e2bFake,
			"mcp-stdio":       mcpStdio,
		},
		Condition: condition,
	})
}

// e2bFake is the script command "e2b-fake": it starts a local fake of
// E2B's API and envd (executors/e2b/e2bfake; sandboxes are local python3
// processes) and points E2B_* at it for the rest of the script.
func e2bFake(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: e2b-fake")
	}
	f := e2bfake.New()
	ts.Defer(f.Close)
	ts.Setenv("E2B_API_KEY", f.APIKey)
	ts.Setenv("E2B_API_URL", f.URL)
	ts.Setenv("E2B_ENVD_URL", f.URL)
	ts.Setenv("E2B_DOMAIN", f.Domain)
}

// condition answers the scripts' conditions about the machine:
//
//	[docker]        a Docker engine answers (docker version)
//	[docker-image]  the default sandbox image star-agent/python:latest exists
//	[runsc]         the Docker engine has gVisor's runsc registered
//	[chromium]      headless Chromium is installed
//
// Where CI=true a missing Docker engine, image or Chromium is an error,
// not a reason to skip: CI installs them before the tests.
func condition(cond string) (bool, error) {
	var ok bool
	var what string
	switch cond {
	case "docker":
		ok, what = exec.Command("docker", "version").Run() == nil, "a Docker engine"
	case "docker-image":
		ok, what = exec.Command("docker", "image", "inspect", "star-agent/python:latest").Run() == nil, "the image star-agent/python:latest (star-agent sandbox image build)"
	case "runsc":
		out, _ := exec.Command("docker", "info", "--format", "{{json .Runtimes}}").Output()
		ok, what = strings.Contains(string(out), `"runsc"`), "gVisor's runsc registered with the Docker engine (make gvisor)"
	case "chromium":
		_, err1 := exec.LookPath("chromium")
		_, err2 := exec.LookPath("chromium-browser")
		ok, what = err1 == nil || err2 == nil, "chromium"
	default:
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if !ok && os.Getenv("CI") == "true" {
		return false, fmt.Errorf("CI=true but %s is missing: .ci/run must install it", what)
	}
	return ok, nil
}

// httpCmd is the script command "http [-wait] [-H 'K: V']... METHOD URL
// [BODYFILE]": it sends one request and writes the status line ("200
// OK") and the body to stdout. With -wait it retries for up to a minute
// while the server does not accept connections (a server started in the
// background). "! http" expects a status of 400 or more.
func httpCmd(ts *testscript.TestScript, neg bool, args []string) {
	wait := false
	header := http.Header{}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-wait":
			wait, args = true, args[1:]
		case args[0] == "-H" && len(args) > 1:
			k, v, _ := strings.Cut(args[1], ":")
			header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
			args = args[2:]
		default:
			ts.Fatalf("usage: http [-wait] [-H 'K: V']... METHOD URL [BODYFILE]")
		}
	}
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: http [-wait] [-H 'K: V']... METHOD URL [BODYFILE]")
	}
	var body []byte
	if len(args) == 3 {
		body = []byte(ts.ReadFile(args[2]))
	}
	var resp *http.Response
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		req, err := http.NewRequest(args[0], args[1], bytes.NewReader(body))
		ts.Check(err)
		req.Header = header.Clone()
		resp, err = http.DefaultClient.Do(req)
		if err == nil {
			break
		}
		if !wait || time.Now().After(deadline) {
			ts.Fatalf("http %s %s: %v", args[0], args[1], err)
		}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%s\n%s", resp.Status, data)
	if failed := resp.StatusCode >= 400; failed != neg {
		ts.Fatalf("http %s %s: %s\n%s", args[0], args[1], resp.Status, data)
	}
}

// jsonFields is the script command "jsonfields FIELD...": it reads the
// previous command's stdout as JSON lines and prints each line with only
// the named fields, in that order and as they were written, so that cmp
// can compare what does not change from run to run (values, not
// timings).
func jsonFields(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: jsonfields FIELD...")
	}
	for _, line := range strings.Split(strings.TrimSuffix(ts.ReadFile("stdout"), "\n"), "\n") {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			ts.Fatalf("jsonfields: %q: %v", line, err)
		}
		var b strings.Builder
		for i, f := range args {
			v, ok := obj[f]
			if !ok {
				ts.Fatalf("jsonfields: no field %q in %s", f, line)
			}
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", f, v)
		}
		fmt.Fprintf(ts.Stdout(), "{%s}\n", b.String())
	}
}

// waitFile is the script command "waitfile FILE": it waits until FILE
// exists and is not empty, which a background command's --record file
// is once its first model exchange is done. It gives up after a minute.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Stat(ts.MkAbs(args[0])); err == nil && fi.Size() > 0 {
			return
		}
	}
	ts.Fatalf("%s: still missing or empty after a minute", args[0])
}

// openaiServer is the script command "openai-server [-key KEY] RESPONSES
// REQUESTS": it starts a local server that speaks the OpenAI Chat
// Completions API and sets $OPENAI_BASE to its base URL (for --api-base).
// RESPONSES holds Chat Completions response bodies, one JSON object a line
// ('#' lines are comments), answered in order, the content cut at the
// request's first stop sequence as a real server does; a streaming request
// gets them as server-sent events, with usage last. Each request body is
// appended to REQUESTS as one line of JSON, for the script to grep. With
// -key, a request without "Authorization: Bearer KEY" gets OpenAI's 401.
// The server lives until the script ends.
func openaiServer(ts *testscript.TestScript, neg bool, args []string) {
	var key string
	if len(args) > 1 && args[0] == "-key" {
		key, args = args[1], args[2:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: openai-server [-key KEY] RESPONSES REQUESTS")
	}
	var responses []map[string]any
	sc := bufio.NewScanner(strings.NewReader(ts.ReadFile(args[0])))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r map[string]any
		ts.Check(json.Unmarshal([]byte(line), &r))
		responses = append(responses, r)
	}
	log, err := os.Create(ts.MkAbs(args[1]))
	ts.Check(err)
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fail := func(status int, msg, code string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": code}})
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			fail(404, "Invalid URL ("+r.Method+" "+r.URL.Path+")", "")
			return
		}
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			fail(401, "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_api_key")
			return
		}
		var req struct {
			Model    string            `json:"model"`
			Messages []json.RawMessage `json:"messages"`
			Stop     []string          `json:"stop"`
			Stream   bool              `json:"stream"`
		}
		var body any
		raw := new(bytes.Buffer)
		if _, err := raw.ReadFrom(r.Body); err != nil || json.Unmarshal(raw.Bytes(), &req) != nil || json.Unmarshal(raw.Bytes(), &body) != nil {
			fail(400, "We could not parse the JSON body of your request.", "")
			return
		}
		if req.Model == "" || len(req.Messages) == 0 {
			fail(400, "you must provide a model parameter and messages", "")
			return
		}
		if len(req.Stop) > 4 {
			fail(400, "Invalid 'stop': array too long. Expected an array with maximum length 4.", "array_above_max_length")
			return
		}
		mu.Lock()
		enc := json.NewEncoder(log)
		enc.SetEscapeHTML(false)
		enc.Encode(body)
		var resp map[string]any
		if len(responses) > 0 {
			resp, responses = responses[0], responses[1:]
		}
		mu.Unlock()
		if resp == nil {
			fail(400, "openai-server: no recorded response left", "")
			return
		}
		choice := resp["choices"].([]any)[0].(map[string]any)
		msg := choice["message"].(map[string]any)
		// content is null in an answer that only calls tools.
		content, _ := msg["content"].(string)
		for _, stop := range req.Stop {
			if i := strings.Index(content, stop); i >= 0 {
				content = content[:i]
			}
		}
		if msg["content"] != nil {
			msg["content"] = content
		}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(resp)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(choices []any, usage any) {
			b, _ := json.Marshal(map[string]any{"id": resp["id"], "object": "chat.completion.chunk", "created": resp["created"],
				"model": resp["model"], "choices": choices, "usage": usage})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		delta := func(d map[string]any, finish any) []any {
			return []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}
		}
		send(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
		if content != "" {
			for _, piece := range strings.SplitAfter(content, "\n") {
				send(delta(map[string]any{"content": piece}, nil), nil)
			}
		}
		finish := "stop"
		// Tool calls stream as OpenAI streams them: each call's id, type
		// and name first, then its arguments in pieces, by index.
		calls, _ := msg["tool_calls"].([]any)
		for i, c := range calls {
			call := c.(map[string]any)
			fn := call["function"].(map[string]any)
			args, _ := fn["arguments"].(string)
			send(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": call["id"], "type": "function",
				"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil), nil)
			for len(args) > 0 {
				n := min(len(args), 8)
				send(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": args[:n]}}}}, nil), nil)
				args = args[n:]
			}
			finish = "tool_calls"
		}
		send(delta(map[string]any{}, finish), nil)
		send([]any{}, resp["usage"])
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	ts.Defer(func() {
		srv.Close()
		log.Close()
	})
	ts.Setenv("OPENAI_BASE", srv.URL+"/v1")
}

// mcpStdio is the script command "mcp-stdio REQUESTS [FLAG...]": it
// starts "star-agent mcp FLAG..." and speaks raw JSON-RPC to it over its
// standard input and output, as a desktop MCP client does. REQUESTS holds
// one JSON-RPC message a line ('#' lines are comments); after each request
// (a message with an id) it waits for the response with that id and
// prints it, one line, to stdout. Then it closes star-agent's standard
// input, as a client that goes away does, and waits for it to exit; what
// star-agent wrote to stderr goes to stderr. "! mcp-stdio" expects a
// non-zero exit status.
func mcpStdio(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: mcp-stdio REQUESTS [FLAG...]")
	}
	bin, err := exec.LookPath("star-agent")
	ts.Check(err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"mcp"}, args[1:]...)...)
	cmd.Dir = ts.Getenv("WORK")
	cmd.Env = append(os.Environ(), "HOME="+ts.Getenv("HOME"), "TMPDIR="+ts.Getenv("TMPDIR"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	ts.Check(err)
	outPipe, err := cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	out := bufio.NewReader(outPipe)
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		ts.Check(json.Unmarshal([]byte(line), &msg))
		_, err := io.WriteString(in, line+"\n")
		ts.Check(err)
		if msg.ID == nil {
			continue // a notification: no response
		}
		for {
			resp, err := out.ReadString('\n')
			if err != nil {
				ts.Fatalf("mcp-stdio: no response to %s: %v\nstderr: %s", line, err, stderr.String())
			}
			var r struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal([]byte(resp), &r) == nil && bytes.Equal(r.ID, msg.ID) {
				fmt.Fprint(ts.Stdout(), resp)
				break
			}
		}
	}
	in.Close()
	err = cmd.Wait()
	fmt.Fprint(ts.Stderr(), stderr.String())
	if failed := err != nil; failed != neg {
		ts.Fatalf("mcp-stdio: star-agent mcp: %v", err)
	}
}
