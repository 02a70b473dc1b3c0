package e2b

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
)

// These tests hold the fake to what E2B does, so that the executor's tests
// against it mean something: it refuses what the service refuses.

func fakeRequest(t *testing.T, method, url, host string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestFakeControlPlaneIsStrict(t *testing.T) {
	f := newFake(t)
	key := map[string]string{"X-API-Key": f.APIKey, "Content-Type": "application/json"}
	for _, c := range []struct {
		name         string
		method, path string
		header       map[string]string
		body         string
		status       int
		says         string
	}{
		{"no key", "POST", "/sandboxes", map[string]string{"Content-Type": "application/json"}, `{"templateID":"base"}`, 401, `"code":401`},
		{"wrong key", "POST", "/sandboxes", map[string]string{"X-API-Key": "e2b_nope"}, `{"templateID":"base"}`, 401, "Invalid API key"},
		{"unknown field", "POST", "/sandboxes", key, `{"templateID":"base","bogus":1}`, 400, "unknown field"},
		{"no template", "POST", "/sandboxes", key, `{"timeout":5}`, 400, "templateID is required"},
		{"unknown template", "POST", "/sandboxes", key, `{"templateID":"nope"}`, 404, "template 'nope' not found"},
		{"kill unknown", "DELETE", "/sandboxes/inope", key, ``, 404, `sandbox \"inope\" not found`},
		{"extend unknown", "POST", "/sandboxes/inope/timeout", key, `{"timeout":5}`, 404, "not found"},
		{"info unknown", "GET", "/sandboxes/inope", key, ``, 404, "not found"},
	} {
		status, body := fakeRequest(t, c.method, f.URL+c.path, "", c.header, c.body)
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, status, body, c.status, c.says)
		}
	}
}

func TestFakeEnvdIsStrict(t *testing.T) {
	f := newFake(t)
	a := newAPI(f.URL, f.APIKey, http.DefaultClient)
	info, err := a.create(context.Background(), createRequest{TemplateID: "base", Timeout: 30, Secure: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.kill(context.Background(), info.SandboxID)
	host := "49983-" + info.SandboxID + "." + f.Domain
	good := map[string]string{"X-Access-Token": info.EnvdAccessToken, "Connect-Protocol-Version": "1", "Content-Type": "application/json"}
	with := func(k, v string) map[string]string {
		h := map[string]string{}
		for a, b := range good {
			h[a] = b
		}
		if v == "" {
			delete(h, k)
		} else {
			h[k] = v
		}
		return h
	}
	input := `{"process":{"pid":1},"input":{"stdin":"aGk="}}`
	for _, c := range []struct {
		name   string
		host   string
		header map[string]string
		status int
		says   string
	}{
		{"unknown sandbox", "49983-inope." + f.Domain, good, 404, "The sandbox was not found"},
		{"no access token", host, with("X-Access-Token", ""), 401, "access token"},
		{"wrong access token", host, with("X-Access-Token", "x"), 401, "access token"},
		{"no protocol version", host, with("Connect-Protocol-Version", ""), 400, "Connect-Protocol-Version"},
		{"stream content type on a unary call", host, with("Content-Type", "application/connect+json"), 415, ""},
		{"unknown pid", host, good, 404, `"code":"not_found"`},
	} {
		status, body := fakeRequest(t, "POST", f.URL+"/process.Process/SendInput", c.host, c.header, input)
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, status, body, c.status, c.says)
		}
	}
	status, _ := fakeRequest(t, "POST", f.URL+"/process.Process/Start", host, good, `{"process":{"cmd":"true"}}`)
	if status != 415 {
		t.Errorf("a stream with a unary content type: %d", status)
	}
	var got map[string]any
	status, body := fakeRequest(t, "GET", f.URL+"/sandboxes/"+info.SandboxID, "", map[string]string{"X-API-Key": f.APIKey}, "")
	if json.Unmarshal([]byte(body), &got) != nil || status != 200 || got["sandboxID"] != info.SandboxID {
		t.Errorf("info: %d %s", status, body)
	}
}

// TestFakeEndedProcess: a process that has ended is not_found, for input
// and for re-attaching; and a stream's deadline kills its process, which is
// why the runner's stream carries none.
func TestFakeEndedProcess(t *testing.T) {
	f := newFake(t)
	a := newAPI(f.URL, f.APIKey, http.DefaultClient)
	ctx := context.Background()
	info, err := a.create(ctx, createRequest{TemplateID: "base", Timeout: 30, Secure: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.kill(ctx, info.SandboxID)
	ev := newEnvd(f.URL, "49983-"+info.SandboxID+"."+f.Domain, info.EnvdAccessToken, http.DefaultClient)
	st, err := ev.startProcess(ctx, processConfig{Cmd: "python3", Args: []string{"-c", "print('hi')"}})
	if err != nil {
		t.Fatal(err)
	}
	var pid uint32
	var out []byte
	var exited bool
	for st.Receive() {
		e := st.Msg().Event
		switch {
		case e.Start != nil:
			pid = e.Start.Pid
		case e.Data != nil:
			out = append(out, e.Data.Stdout...)
		case e.End != nil:
			exited = e.End.Exited && e.End.ExitCode == 0
		}
	}
	if err := st.Err(); err != nil || string(out) != "hi\n" || !exited || pid == 0 {
		t.Fatalf("err %v, out %q, exited %v, pid %d", err, out, exited, pid)
	}
	st.Close()
	if err := ev.input(ctx, pid, []byte("x")); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("input to an ended process: %v", err)
	}
	st, err = ev.connectProcess(ctx, pid)
	if err == nil {
		st.Receive()
		err = st.Err()
		st.Close()
	}
	if connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("connect to an ended process: %v", err)
	}

	dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	st, err = ev.startProcess(dctx, processConfig{Cmd: "python3", Args: []string{"-c", "import time; time.sleep(30)"}})
	if err != nil {
		t.Fatal(err)
	}
	for st.Receive() {
	}
	st.Close()
	waitNoProcesses(t, f)
}

// TestEnvdInputAndSignals drives the client's CloseStdin and SendSignal
// against the fake: stdin's end reaches the process, SIGKILL ends it.
func TestEnvdInputAndSignals(t *testing.T) {
	f := newFake(t)
	a := newAPI(f.URL, f.APIKey, http.DefaultClient)
	ctx := context.Background()
	info, err := a.create(ctx, createRequest{TemplateID: "base", Timeout: 30, Secure: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.kill(ctx, info.SandboxID)
	ev := newEnvd(f.URL, "49983-"+info.SandboxID+"."+f.Domain, info.EnvdAccessToken, http.DefaultClient)
	events := func(code string, act func(pid uint32)) (out string, status string) {
		st, err := ev.startProcess(ctx, processConfig{Cmd: "python3", Args: []string{"-c", code}})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for st.Receive() {
			e := st.Msg().Event
			switch {
			case e.Start != nil:
				act(e.Start.Pid)
			case e.Data != nil:
				out += string(e.Data.Stdout)
			case e.End != nil:
				status = e.End.Status
			}
		}
		return out, status
	}
	out, _ := events("import sys; print(len(sys.stdin.read()))", func(pid uint32) {
		if err := ev.input(ctx, pid, []byte("abcd")); err != nil {
			t.Error(err)
		}
		if err := ev.closeInput(ctx, pid); err != nil {
			t.Error(err)
		}
	})
	if out != "4\n" {
		t.Errorf("stdin then EOF: printed %q", out)
	}
	_, status := events("import time; time.sleep(60)", func(pid uint32) {
		if err := ev.signal(ctx, pid, "SIGNAL_SIGKILL"); err != nil {
			t.Error(err)
		}
	})
	if status != "signal: killed" {
		t.Errorf("after SIGKILL: status %q", status)
	}
}
