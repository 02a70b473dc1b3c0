package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/tool"
)

// The scripted model's answers: one step that prints, one that answers;
// and one step that calls a tool that blocks until the run is stopped.
var (
	twoSteps = []string{
		"Thought: count.\n<code>\nx = sum([1, 2, 3])\nprint(\"sum is\", x)\n</code>",
		"Thought: done.\n<code>\nfinal_answer(x * 7)\n</code>",
	}
	blocking = []string{
		"Thought: wait for the report.\n<code>\nprint(\"waiting\")\nwait_for_report()\n</code>",
	}
	failing = []string{
		"Thought: divide.\n<code>\nprint(\"before\")\ny = 1 / 0\n</code>",
		"Thought: fix it.\n<code>\nfinal_answer(\"fixed\")\n</code>",
	}
)

// countingExecutor is the real local engine, counted open and closed, so
// that tests can prove no executor outlives its run.
type countingExecutor struct {
	executors.Executor
	open   *atomic.Int64
	closed atomic.Bool
}

// Starts makes the executor counted as one sandbox start, as runner.Host
// counts its sandboxes.
func (e *countingExecutor) Starts() int { return 1 }

func (e *countingExecutor) Close() error {
	if e.closed.CompareAndSwap(false, true) {
		e.open.Add(-1)
	}
	return e.Executor.Close()
}

// harness is a server on a loopback listener with a factory of scripted
// agents.
type harness struct {
	t       *testing.T
	srv     *Server
	url     string
	token   string
	open    atomic.Int64 // executors open now
	built   atomic.Int64 // agents built
	script  func(task string) []string
	stopped bool
}

type harnessOpts struct {
	db     string
	token  string
	script func(task string) []string
	modify func(*Options)
}

// started is closed by wait_for_report each time it starts blocking.
var reportTool = func(started chan<- string) tool.Tool {
	return tool.MustNew("wait_for_report", "Waits until the report is ready.", func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case started <- "started":
		default:
		}
		<-ctx.Done()
		return "", ctx.Err()
	})
}

var pingTool = tool.MustNew("ping", "Answers pong.", func(_ context.Context, _ struct{}) (string, error) {
	return "pong", nil
})

func newHarness(t *testing.T, ho harnessOpts) (*harness, chan string) {
	t.Helper()
	h := &harness{t: t, token: ho.token, script: ho.script}
	if h.script == nil {
		h.script = func(task string) []string {
			switch {
			case strings.Contains(task, "block"):
				return blocking
			case strings.Contains(task, "fail"):
				return failing
			}
			return twoSteps
		}
	}
	if ho.db == "" {
		ho.db = ":memory:"
	}
	store, err := OpenStore(ho.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan string, 64)
	opts := Options{
		Store:         store,
		Token:         ho.token,
		MaxConcurrent: 4,
		Queue:         8,
		ShutdownGrace: 10 * time.Millisecond,
		ModelID:       "scripted",
		NewAgent: func(ctx context.Context, req AgentRequest) (*starlarkagent.Agent, error) {
			h.built.Add(1)
			l, err := starlarkexec.New(starlarkexec.Options{AuthorizedImports: req.Imports})
			if err != nil {
				return nil, err
			}
			h.open.Add(1)
			exec := &countingExecutor{Executor: l, open: &h.open}
			req.AddExecutor("local", exec)
			model := scripted.New(h.script(req.Task)...)
			a, err := starlarkagent.New(starlarkagent.Options{
				Model:    req.WrapModel(model),
				Executor: exec,
				Tools:    []tool.Tool{reportTool(started), pingTool},
			})
			if err != nil {
				exec.Close()
			}
			return a, err
		},
	}
	if ho.modify != nil {
		ho.modify(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.url = "http://" + ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { h.shutdown() })
	return h, started
}

func (h *harness) shutdown() {
	if h.stopped {
		return
	}
	h.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		h.t.Errorf("Shutdown: %v", err)
	}
	if n := h.open.Load(); n != 0 {
		h.t.Errorf("%d executors still open after Shutdown", n)
	}
}

// do sends a request with the harness's token and returns the status and
// body.
func (h *harness) do(method, path string, body string, hdr ...string) (int, http.Header, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func (h *harness) start(task string) string {
	h.t.Helper()
	b, _ := json.Marshal(map[string]any{"task": task})
	code, hdr, body := h.do("POST", "/v1/runs", string(b))
	if code != http.StatusAccepted {
		h.t.Fatalf("POST /v1/runs: %d %s", code, body)
	}
	var r struct{ ID, State string }
	json.Unmarshal(body, &r)
	if !validRunID(r.ID) || r.State != "queued" || hdr.Get("Location") != "/v1/runs/"+r.ID {
		h.t.Fatalf("POST /v1/runs answered %s with Location %q", body, hdr.Get("Location"))
	}
	return r.ID
}

type runJSON struct {
	ID          string                       `json:"id"`
	Task        string                       `json:"task"`
	State       State                        `json:"state"`
	Output      any                          `json:"output"`
	Repr        string                       `json:"repr"`
	Steps       []json.RawMessage            `json:"steps"`
	TokenUsage  *struct{ Input, Output int } `json:"token_usage"`
	Timing      *struct{ Duration float64 }  `json:"timing"`
	Error       string                       `json:"error"`
	LastEventID int64                        `json:"last_event_id"`
	StartedAt   *time.Time                   `json:"started_at"`
	EndedAt     *time.Time                   `json:"ended_at"`
}

func (h *harness) get(id string) runJSON {
	h.t.Helper()
	code, _, body := h.do("GET", "/v1/runs/"+id, "")
	if code != 200 {
		h.t.Fatalf("GET run: %d %s", code, body)
	}
	var r runJSON
	if err := json.Unmarshal(body, &r); err != nil {
		h.t.Fatalf("GET run: %v: %s", err, body)
	}
	return r
}

// wait reads the run's event stream to its end and returns the run.
func (h *harness) wait(id string) runJSON {
	h.t.Helper()
	evs := h.stream(id, "")
	if len(evs) == 0 || evs[len(evs)-1].Type != "end" {
		h.t.Fatalf("stream of %s did not end with an end event: %v", id, evs)
	}
	return h.get(id)
}

type sseEvent struct {
	ID   int64
	Type string
	Data string
}

// stream reads a whole event stream.
func (h *harness) stream(id, lastEventID string) []sseEvent {
	h.t.Helper()
	resp := h.openStream(id, lastEventID)
	defer resp.Body.Close()
	var out []sseEvent
	for ev := range readEvents(h.t, resp.Body) {
		out = append(out, ev)
	}
	return out
}

func (h *harness) openStream(id, lastEventID string) *http.Response {
	h.t.Helper()
	req, _ := http.NewRequest("GET", h.url+"/v1/runs/"+id+"/events", nil)
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h.t.Fatalf("GET events: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return resp
}

// readEvents parses a text/event-stream strictly: every event has an id,
// an event name and one data line of JSON, but reconnect, which has no id.
func readEvents(t *testing.T, r io.Reader) func(yield func(sseEvent) bool) {
	return func(yield func(sseEvent) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 4<<20)
		var ev sseEvent
		var fields int
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if fields == 0 {
					continue
				}
				if (fields != 3 && (fields != 2 || ev.Type != "reconnect")) || !json.Valid([]byte(ev.Data)) {
					t.Errorf("malformed event %+v", ev)
				}
				if !yield(ev) {
					return
				}
				ev, fields = sseEvent{}, 0
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "id: "):
				n, err := strconv.ParseInt(line[4:], 10, 64)
				if err != nil {
					t.Errorf("bad id line %q", line)
				}
				ev.ID = n
				fields++
			case strings.HasPrefix(line, "event: "):
				ev.Type = line[7:]
				fields++
			case strings.HasPrefix(line, "data: "):
				ev.Data = line[6:]
				fields++
			default:
				t.Errorf("unexpected line %q in the event stream", line)
			}
		}
	}
}

// types lists the types of the events, without the model's deltas (they
// depend on how the text is cut).
func types(evs []sseEvent) string {
	var s []string
	for _, e := range evs {
		if e.Type != "delta" {
			s = append(s, e.Type)
		}
	}
	return strings.Join(s, " ")
}

func TestRunToSuccess(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{})
	id := h.start("Add 1, 2 and 3, times 7.")
	evs := h.stream(id, "")
	want := "state state task code observation step code observation step step final_answer end"
	if got := types(evs); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	var text strings.Builder
	for _, e := range evs {
		if e.Type == "delta" {
			var d deltaEvent
			json.Unmarshal([]byte(e.Data), &d)
			if d.Step == 1 {
				text.WriteString(d.Content)
			}
		}
	}
	if !strings.Contains(text.String(), "x = sum([1, 2, 3])") {
		t.Errorf("the deltas of step 1 make %q", text.String())
	}
	for i, e := range evs {
		if e.ID != int64(i+1) {
			t.Fatalf("event %d has id %d: ids must count from 1 without gaps", i, e.ID)
		}
	}
	lastID := evs[len(evs)-1].ID
	evs = slices.DeleteFunc(evs, func(e sseEvent) bool { return e.Type == "delta" })
	if !strings.Contains(evs[4].Data, `"text":"Execution logs:\nsum is 6`) {
		t.Errorf("observation: %s", evs[4].Data)
	}
	var end endEvent
	json.Unmarshal([]byte(evs[len(evs)-1].Data), &end)
	if end.State != StateSuccess || fmt.Sprint(end.Output.V) != "42" || end.TokenUsage.InputTokens == 0 || end.Steps != 2 || end.Repr != "42" {
		t.Errorf("end event: %s", evs[len(evs)-1].Data)
	}
	var step map[string]any
	json.Unmarshal([]byte(evs[5].Data), &step)
	if step["type"] != "action" || step["step_number"] != 1.0 || step["token_usage"] == nil || step["timing"] == nil || step["model_input"] != nil {
		t.Errorf("step event: %s", evs[5].Data)
	}
	r := h.get(id)
	if r.State != StateSuccess || fmt.Sprint(r.Output) != "42" || r.Repr != "42" || len(r.Steps) != 4 || r.TokenUsage == nil || r.Timing == nil || r.StartedAt == nil || r.EndedAt == nil || r.LastEventID != lastID {
		t.Errorf("GET run: %+v", r)
	}
}

func TestStepErrorEvent(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{})
	id := h.start("This will fail first.")
	evs := h.stream(id, "")
	var errEv *sseEvent
	for i := range evs {
		if evs[i].Type == "error" {
			errEv = &evs[i]
			break
		}
	}
	if errEv == nil {
		t.Fatalf("no error event in %s", types(evs))
	}
	var e errorEvent
	json.Unmarshal([]byte(errEv.Data), &e)
	if e.Step != 1 || e.Kind != starlarkagent.ErrorExecution || e.Type != "ZeroDivisionError" || e.Line != 2 {
		t.Errorf("error event: %s", errEv.Data)
	}
	if r := h.get(id); r.State != StateSuccess || r.Output != "fixed" {
		t.Errorf("run: %+v", r)
	}
}

func TestAuth(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{token: "s3cret-token"})
	id := h.start("Add.")
	h.wait(id)
	for _, path := range []string{"/v1/runs", "/v1/runs/" + id, "/v1/runs/" + id + "/events", "/v1/config", "/v1/nothing"} {
		for _, auth := range []string{"", "Bearer wrong", "Bearer s3cret-tokenX", "Bearer s3cret-toke", "s3cret-token", "Basic czNjcmV0LXRva2Vu", "Bearer "} {
			code, hdr, body := h.do("GET", path, "", "Authorization", auth)
			if code != 401 || !strings.Contains(hdr.Get("WWW-Authenticate"), "Bearer") || !strings.Contains(string(body), `"unauthorized"`) {
				t.Errorf("GET %s with %q: %d %s", path, auth, code, body)
			}
		}
	}
	if code, _, body := h.do("POST", "/v1/runs", `{"task":"x"}`, "Authorization", ""); code != 401 {
		t.Errorf("POST without token: %d %s", code, body)
	}
	if code, _, body := h.do("POST", "/v1/runs/"+id+"/cancel", ``, "Authorization", "Bearer nope"); code != 401 {
		t.Errorf("cancel with a wrong token: %d %s", code, body)
	}
	// The scheme is case-insensitive, the token is not.
	for _, auth := range []string{"bearer s3cret-token", "BEARER s3cret-token"} {
		if code, _, body := h.do("GET", "/v1/runs/"+id, "", "Authorization", auth); code != 200 {
			t.Errorf("GET with %q: %d %s", auth, code, body)
		}
	}
	if code, _, _ := h.do("GET", "/v1/runs/"+id, "", "Authorization", "Bearer S3CRET-TOKEN"); code != 401 {
		t.Errorf("a token differing in case: %d", code)
	}
	// The query parameter, for EventSource.
	if code, _, body := h.do("GET", "/v1/runs/"+id+"?access_token=s3cret-token", "", "Authorization", ""); code != 200 {
		t.Errorf("access_token: %d %s", code, body)
	}
	if code, _, _ := h.do("GET", "/v1/runs/"+id+"?access_token=wrong", "", "Authorization", ""); code != 401 {
		t.Errorf("wrong access_token: %d", code)
	}
	// Open without a token.
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/", "/index.html"} {
		if code, _, body := h.do("GET", path, "", "Authorization", ""); code != 200 {
			t.Errorf("GET %s without token: %d %s", path, code, body)
		}
	}
}

func TestBadRequests(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{})
	big := `{"task":"` + strings.Repeat("a", 2<<20) + `"}`
	for _, c := range []struct {
		name, method, path, body, ctype string
		code                            int
		msg                             string
	}{
		{"oversized body", "POST", "/v1/runs", big, "", 413, "over the limit"},
		{"just over the limit", "POST", "/v1/runs", `{"task":"` + strings.Repeat("a", 1<<20) + `"}`, "", 413, "over the limit"},
		{"not JSON", "POST", "/v1/runs", `task=x`, "", 400, "not a run request"},
		{"two values", "POST", "/v1/runs", `{"task":"x"} {"task":"y"}`, "", 400, "more than one"},
		{"no task", "POST", "/v1/runs", `{}`, "", 400, `"task" is required`},
		{"blank task", "POST", "/v1/runs", `{"task":"  \n"}`, "", 400, `"task" is required`},
		{"task too long", "POST", "/v1/runs", `{"task":"` + strings.Repeat("a", maxTaskBytes+1) + `"}`, "", 400, "over the limit"},
		{"unknown field", "POST", "/v1/runs", `{"task":"x","tools":["rm"]}`, "", 400, "unknown field"},
		{"max_steps too big", "POST", "/v1/runs", `{"task":"x","max_steps":100000}`, "", 400, "max_steps"},
		{"max_steps negative", "POST", "/v1/runs", `{"task":"x","max_steps":-1}`, "", 400, "max_steps"},
		{"max_steps not a number", "POST", "/v1/runs", `{"task":"x","max_steps":"5"}`, "", 400, "not a run request"},
		{"images", "POST", "/v1/runs", `{"task":"x","images":["data:image/png;base64,AAAA"]}`, "", 400, "images"},
		{"bad import", "POST", "/v1/runs", `{"task":"x","imports":["os; rm -rf /"]}`, "", 400, "not a module name"},
		{"import everything", "POST", "/v1/runs", `{"task":"x","imports":["*"]}`, "", 400, "may not authorize"},
		{"import os", "POST", "/v1/runs", `{"task":"x","imports":["os.path"]}`, "", 400, "may not authorize"},
		{"import subprocess", "POST", "/v1/runs", `{"task":"x","imports":["subprocess.*"]}`, "", 400, "may not authorize"},
		{"import posix", "POST", "/v1/runs", `{"task":"x","imports":["posix"]}`, "", 400, "may not authorize"},
		{"import _io", "POST", "/v1/runs", `{"task":"x","imports":["_io"]}`, "", 400, "may not authorize"},
		{"import _posixsubprocess", "POST", "/v1/runs", `{"task":"x","imports":["_posixsubprocess"]}`, "", 400, "may not authorize"},
		{"import _frozen_importlib_external", "POST", "/v1/runs", `{"task":"x","imports":["_frozen_importlib_external"]}`, "", 400, "may not authorize"},
		{"import wildcard inside", "POST", "/v1/runs", `{"task":"x","imports":["a*b"]}`, "", 400, "may not authorize"},
		{"too many imports", "POST", "/v1/runs", `{"task":"x","imports":[` + strings.Repeat(`"m",`, maxImports) + `"m"]}`, "", 400, "over the limit"},
		{"argument final_answer", "POST", "/v1/runs", `{"task":"x","additional_args":{"final_answer":1}}`, "", 400, "reserved"},
		{"argument ToolError", "POST", "/v1/runs", `{"task":"x","additional_args":{"ToolError":1}}`, "", 400, "reserved"},
		{"argument parallel", "POST", "/v1/runs", `{"task":"x","additional_args":{"parallel":1}}`, "", 400, "reserved"},
		{"bad argument name", "POST", "/v1/runs", `{"task":"x","additional_args":{"__class__":1,"a b":2}}`, "", 400, "not a Python identifier"},
		{"form body", "POST", "/v1/runs", `{"task":"x"}`, "application/x-www-form-urlencoded", 415, "must be JSON"},
		{"text/plain body", "POST", "/v1/runs", `{"task":"x"}`, "text/plain", 415, "must be JSON"},
		{"no content type", "POST", "/v1/runs", `{"task":"x"}`, "-", 415, "must be JSON"},
		{"JSON with charset", "POST", "/v1/runs", `{"task":"x","max_steps":0,"images":[]}`, "application/json; charset=utf-8", 202, ""},
		{"unknown run", "GET", "/v1/runs/r_0000000000000000000000000a", "", "", 404, "no run with id"},
		{"malformed id", "GET", "/v1/runs/..%2f..%2fetc", "", "", 404, "no run with id"},
		{"unknown run events", "GET", "/v1/runs/r_0000000000000000000000000a/events", "", "", 404, "no run with id"},
		{"unknown run cancel", "POST", "/v1/runs/r_0000000000000000000000000a/cancel", "", "", 404, "no run with id"},
		{"GET cancel", "GET", "/v1/runs/r_0000000000000000000000000a/cancel", "", "", 405, "not allowed"},
		{"DELETE runs", "DELETE", "/v1/runs", "", "", 405, "not allowed"},
		{"unknown endpoint", "GET", "/v1/agents", "", "", 404, "no API endpoint"},
		{"bad limit", "GET", "/v1/runs?limit=1000", "", "", 400, "limit"},
		{"limit junk", "GET", "/v1/runs?limit=5x", "", "", 400, "limit"},
		{"bad cursor", "GET", "/v1/runs?cursor=AAAA", "", "", 400, "cursor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hdr := []string{}
			switch c.ctype {
			case "":
			case "-":
				hdr = append(hdr, "Content-Type", "")
			default:
				hdr = append(hdr, "Content-Type", c.ctype)
			}
			code, rh, body := h.do(c.method, c.path, c.body, hdr...)
			var e struct {
				Error struct{ Code, Message string }
			}
			if code == 202 && c.code == 202 {
				var r struct{ ID string }
				json.Unmarshal(body, &r)
				h.wait(r.ID)
				return
			}
			if code != c.code || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error.Message, c.msg) || rh.Get("Content-Type") != "application/json" {
				t.Errorf("%s %s: %d %s, want %d with %q", c.method, c.path, code, clip(string(body), 300), c.code, c.msg)
			}
			if code == 405 && rh.Get("Allow") == "" {
				t.Errorf("405 without Allow")
			}
		})
	}
	if n := h.built.Load(); n != 1 {
		t.Errorf("%d agents built for bad requests and one good one", n)
	}
}

func TestAdditionalArgsAndImports(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{script: func(string) []string {
		return []string{"<code>\nimport statistics\nfinal_answer([n * 2, statistics.mean(xs), label])\n</code>"}
	}})
	code, _, body := h.do("POST", "/v1/runs", `{"task":"t","max_steps":3,"additional_args":{"n":21,"xs":[1,2,3.5],"label":"é"},"imports":["statistics.*","numpy"]}`)
	if code != 202 {
		t.Fatalf("%d %s", code, body)
	}
	var r struct{ ID string }
	json.Unmarshal(body, &r)
	got := h.wait(r.ID)
	if got.State != StateSuccess || fmt.Sprint(got.Output) != "[42 2.1666666666666665 é]" {
		t.Errorf("run: %+v", got)
	}
}

// waitState polls a run until it reaches a final state.
func (h *harness) waitFinal(id string) runJSON {
	h.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if r := h.get(id); r.State.Final() {
			return r
		}
	}
	h.t.Fatalf("run %s did not end", id)
	return runJSON{}
}

func TestCancelRunning(t *testing.T) {
	h, started := newHarness(t, harnessOpts{})
	id := h.start("block on the report")
	<-started
	if r := h.get(id); r.State != StateRunning {
		t.Fatalf("state %s, want running", r.State)
	}
	code, _, body := h.do("POST", "/v1/runs/"+id+"/cancel", "")
	if code != 202 || !strings.Contains(string(body), `"state":"running"`) {
		t.Fatalf("cancel: %d %s", code, body)
	}
	r := h.waitFinal(id)
	if r.State != StateCancelled || !strings.Contains(r.Error, "cancelled by POST") {
		t.Errorf("cancelled run: %+v", r)
	}
	evs := h.stream(id, "")
	if got := types(evs); !strings.HasPrefix(got, "state state task code") || !strings.HasSuffix(got, "end") {
		t.Errorf("events: %s", got)
	}
	if !strings.Contains(evs[len(evs)-1].Data, `"state":"cancelled"`) {
		t.Errorf("end event: %s", evs[len(evs)-1].Data)
	}
	if code, _, body := h.do("POST", "/v1/runs/"+id+"/cancel", ""); code != 409 || !strings.Contains(string(body), "already ended (cancelled)") {
		t.Errorf("second cancel: %d %s", code, body)
	}
	// Another run is unaffected.
	if r := h.wait(h.start("Add.")); r.State != StateSuccess {
		t.Errorf("next run: %+v", r)
	}
	if n := h.open.Load(); n != 0 {
		t.Errorf("%d executors open after the runs ended", n)
	}
}

func TestQueueLimitAndCancelQueued(t *testing.T) {
	h, started := newHarness(t, harnessOpts{modify: func(o *Options) { o.MaxConcurrent, o.Queue = 1, 2 }})
	running := h.start("block 1")
	<-started
	q1, q2 := h.start("Add."), h.start("Add.")
	for range 3 {
		code, hdr, body := h.do("POST", "/v1/runs", `{"task":"Add."}`)
		secs, err := strconv.Atoi(hdr.Get("Retry-After"))
		if code != 429 || err != nil || secs < 1 || !strings.Contains(string(body), `"busy"`) {
			t.Fatalf("over the queue: %d Retry-After %q %s", code, hdr.Get("Retry-After"), body)
		}
	}
	if r := h.get(q1); r.State != StateQueued {
		t.Errorf("q1: %s", r.State)
	}
	// A queued run is cancelled at once.
	code, _, body := h.do("POST", "/v1/runs/"+q2+"/cancel", "")
	if code != 202 || !strings.Contains(string(body), `"state":"cancelled"`) {
		t.Errorf("cancel queued: %d %s", code, body)
	}
	if got := types(h.stream(q2, "")); got != "state end" {
		t.Errorf("events of a run cancelled in the queue: %s", got)
	}
	// The freed place takes a run again.
	q3 := h.start("Add.")
	h.do("POST", "/v1/runs/"+running+"/cancel", "")
	for _, id := range []string{q1, q3} {
		if r := h.wait(id); r.State != StateSuccess {
			t.Errorf("%s: %+v", id, r)
		}
	}
	if r := h.get(running); r.State != StateCancelled {
		t.Errorf("running: %s", r.State)
	}
	m := h.metricsText()
	for _, want := range []string{`star_agent_runs_rejected_total{reason="queue_full"} 3`, `star_agent_runs_total{state="cancelled"} 2`, `star_agent_runs_total{state="success"} 2`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func (h *harness) metricsText() string {
	_, _, b := h.do("GET", "/metrics", "")
	return string(b)
}

func TestSSEReplayAndReconnect(t *testing.T) {
	h, started := newHarness(t, harnessOpts{})
	id := h.start("block here")
	// A client that watches live, then drops the connection.
	resp := h.openStream(id, "")
	var seen []sseEvent
	for ev := range readEvents(t, resp.Body) {
		seen = append(seen, ev)
		if ev.Type == "code" {
			break
		}
	}
	resp.Body.Close()
	<-started
	h.do("POST", "/v1/runs/"+id+"/cancel", "")
	// It reconnects with the last id it saw: the rest comes, no repeats.
	last := seen[len(seen)-1].ID
	rest := h.stream(id, strconv.FormatInt(last, 10))
	if len(rest) == 0 || rest[0].ID != last+1 || rest[len(rest)-1].Type != "end" {
		t.Fatalf("after reconnecting with Last-Event-ID %d: %v", last, rest)
	}
	all := h.stream(id, "")
	if len(all) != len(seen)+len(rest) {
		t.Fatalf("full replay has %d events, the two connections %d+%d", len(all), len(seen), len(rest))
	}
	for i, ev := range append(seen, rest...) {
		if all[i] != ev {
			t.Errorf("event %d differs: %+v vs %+v", i, all[i], ev)
		}
	}
	// The query parameter works as the header does; past the end, only
	// nothing; junk is refused.
	if evs := h.stream(id+"/../"+id, ""); len(evs) == 0 {
		t.Log("path cleaning redirected") // the mux cleans paths; not an error
	}
	if got := h.stream(id, strconv.Itoa(len(all))); len(got) != 0 {
		t.Errorf("after the last id: %v", got)
	}
	code, _, _ := h.do("GET", "/v1/runs/"+id+"/events", "", "Last-Event-ID", "-3")
	if code != 400 {
		t.Errorf("negative Last-Event-ID: %d", code)
	}
	code, _, body := h.do("GET", "/v1/runs/"+id+"/events?last_event_id=3", "")
	if i := strings.Index(string(body), "id: "); code != 200 || i < 0 || !strings.HasPrefix(string(body[i:]), "id: 4\n") {
		t.Errorf("last_event_id=3: %d %.80q", code, body)
	}
}

func TestManyWatchersOfOneRun(t *testing.T) {
	h, started := newHarness(t, harnessOpts{})
	id := h.start("block for the watchers")
	<-started
	var wg sync.WaitGroup
	results := make([][]sseEvent, 20)
	ready := make(chan struct{}, len(results))
	for i := range results {
		wg.Go(func() {
			resp := h.openStream(id, "")
			defer resp.Body.Close()
			ready <- struct{}{}
			for ev := range readEvents(t, resp.Body) {
				results[i] = append(results[i], ev)
			}
		})
	}
	for range results {
		<-ready
	}
	h.do("POST", "/v1/runs/"+id+"/cancel", "")
	wg.Wait()
	for i, r := range results {
		if types(r) != types(results[0]) || r[len(r)-1].Type != "end" {
			t.Errorf("watcher %d saw %s, watcher 0 %s", i, types(r), types(results[0]))
		}
	}
}

func TestListRunsPaged(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{})
	var ids []string
	for i := range 5 {
		id := h.start(fmt.Sprintf("Add. %d", i))
		h.wait(id)
		ids = append(ids, id)
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("too many pages")
		}
		path := "/v1/runs?limit=2"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		code, _, body := h.do("GET", path, "")
		var page struct {
			Runs []struct {
				ID    string
				State State
				Steps *int
			}
			NextCursor string `json:"next_cursor"`
		}
		if code != 200 || json.Unmarshal(body, &page) != nil || len(page.Runs) > 2 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		for _, r := range page.Runs {
			if r.State != StateSuccess || r.Steps == nil || *r.Steps != 2 {
				t.Errorf("listed %+v", r)
			}
			got = append(got, r.ID)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
		if pages == 0 {
			// A run created meanwhile does not shift the next pages.
			h.wait(h.start("Add. later"))
		}
	}
	want := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("listed %v, want %v", got, want)
	}
}

func TestGracefulShutdown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	h, started := newHarness(t, harnessOpts{db: db, modify: func(o *Options) {
		o.ShutdownGrace = 300 * time.Millisecond
		o.MaxConcurrent, o.Queue = 1, 4
	}})
	running := h.start("block until shutdown")
	<-started
	queued := h.start("Add.")
	resp := h.openStream(running, "")
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		done <- h.srv.Shutdown(ctx)
	}()
	// During the grace period: no new runs, not ready, still answering.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		code, _, body := h.do("GET", "/readyz", "")
		if code == 503 {
			if !strings.Contains(string(body), "shutting down") {
				t.Errorf("readyz while draining: %s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("readyz never failed during the shutdown")
		}
	}
	if code, _, body := h.do("POST", "/v1/runs", `{"task":"Add."}`); code != 503 || !strings.Contains(string(body), "shutting_down") {
		t.Errorf("POST while draining: %d %s", code, body)
	}
	// The open stream gets the end of the run, then closes.
	var evs []sseEvent
	for ev := range readEvents(t, resp.Body) {
		evs = append(evs, ev)
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != "end" || !strings.Contains(evs[len(evs)-1].Data, `"state":"interrupted"`) {
		t.Errorf("stream during shutdown: %v", evs)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	h.stopped = true
	if n := h.open.Load(); n != 0 {
		t.Errorf("%d executors open after Shutdown", n)
	}
	// Both runs are interrupted in the database.
	h2, _ := newHarness(t, harnessOpts{db: db})
	for _, id := range []string{running, queued} {
		r := h2.get(id)
		if r.State != StateInterrupted || !strings.Contains(r.Error, "shut down") {
			t.Errorf("%s after shutdown: %+v", id, r)
		}
	}
}

func TestRestartServesEarlierRuns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	h, _ := newHarness(t, harnessOpts{db: db})
	id := h.start("Add.")
	before := h.wait(id)
	evsBefore := h.stream(id, "")
	h.shutdown()

	// A run the previous process left running (it died): written as the
	// server writes it, never ended.
	store, err := OpenStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	orphan := newRunID(time.Now())
	if _, err := store.createRun(ctx, &runRecord{ID: orphan, Task: "t", Request: json.RawMessage(`{"task":"t"}`), State: StateQueued, CreatedAt: time.Now(), Attempt: 1}, "dead", time.Minute); err != nil {
		t.Fatal(err)
	}
	f := fence{run: orphan, attempt: 1}
	store.addEvent(f, storedEvent{ID: 1, Type: "state", Data: json.RawMessage(`{"state":"queued"}`)})
	store.setRunning(f, time.Now())
	store.addEvent(f, storedEvent{ID: 2, Type: "state", Data: json.RawMessage(`{"state":"running"}`)})
	store.Flush(ctx)
	store.Close() // no end: as if killed

	h2, _ := newHarness(t, harnessOpts{db: db})
	after := h2.get(id)
	if after.State != StateSuccess || fmt.Sprint(after.Output) != fmt.Sprint(before.Output) || len(after.Steps) != len(before.Steps) || after.LastEventID != before.LastEventID {
		t.Errorf("after restart: %+v\nbefore: %+v", after, before)
	}
	evsAfter := h2.stream(id, "")
	if fmt.Sprint(evsAfter) != fmt.Sprint(evsBefore) {
		t.Errorf("events after restart differ:\n%v\n%v", evsAfter, evsBefore)
	}
	if rest := h2.stream(id, "5"); len(rest) != len(evsBefore)-5 || rest[0].ID != 6 {
		t.Errorf("Last-Event-ID after restart: %v", rest)
	}
	r := h2.get(orphan)
	if r.State != StateInterrupted || !strings.Contains(r.Error, "stopped while the run was running") {
		t.Errorf("orphan: %+v", r)
	}
	if got := types(h2.stream(orphan, "")); got != "state state end" {
		t.Errorf("orphan events: %s", got)
	}
	code, _, body := h2.do("GET", "/v1/runs", "")
	if code != 200 || !strings.Contains(string(body), id) || strings.Index(string(body), orphan) > strings.Index(string(body), id) {
		t.Errorf("list after restart: %s", body)
	}
	// New runs continue after the old ones.
	if r := h2.wait(h2.start("Add.")); r.State != StateSuccess {
		t.Errorf("new run after restart: %+v", r)
	}
}

func TestSchemaNewerThanCode(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	s, err := OpenStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.w.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(schema)+1))
	s.Close()
	if _, err := OpenStore(db, nil); err == nil || !strings.Contains(err.Error(), "newer than this star-agent") {
		t.Errorf("OpenStore of a newer schema: %v", err)
	}
}

func TestFailingRunDoesNotAffectOthers(t *testing.T) {
	var n atomic.Int64
	h, _ := newHarness(t, harnessOpts{modify: func(o *Options) {
		next := o.NewAgent
		o.NewAgent = func(ctx context.Context, req AgentRequest) (*starlarkagent.Agent, error) {
			switch n.Add(1) {
			case 1:
				panic("factory exploded")
			case 2:
				return nil, fmt.Errorf("no sandbox available")
			}
			return next(ctx, req)
		}
	}})
	a, b := h.start("Add."), h.start("Add.")
	ra, rb := h.wait(a), h.wait(b)
	c := h.wait(h.start("Add."))
	var errs []string
	for _, r := range []runJSON{ra, rb} {
		if r.State != StateError {
			t.Errorf("run %s: %+v", r.ID, r)
		}
		errs = append(errs, r.Error)
	}
	if !strings.Contains(strings.Join(errs, "|"), "factory exploded") || !strings.Contains(strings.Join(errs, "|"), "no sandbox available") {
		t.Errorf("errors: %q", errs)
	}
	if c.State != StateSuccess {
		t.Errorf("a later run: %+v", c)
	}
}

func TestRunTimeout(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{modify: func(o *Options) { o.RunTimeout = 200 * time.Millisecond }})
	r := h.wait(h.start("block forever"))
	if r.State != StateError || !strings.Contains(r.Error, "run timeout (200ms)") {
		t.Errorf("timed out run: %+v", r)
	}
}

func TestMetricsAndProbes(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{modify: func(o *Options) {
		o.Checks = []Check{{Name: "model", Check: func(context.Context) error { return nil }}}
	}})
	h.wait(h.start("This will fail first."))
	m := h.metricsText()
	for _, want := range []string{
		`star_agent_runs_total{state="success"} 1`,
		`star_agent_steps_total{type="action"} 2`,
		`star_agent_execution_errors_total{kind="execution",type="ZeroDivisionError"} 1`,
		`star_agent_tokens_total{direction="input",model="scripted"}`,
		`star_agent_model_call_duration_seconds_count{model="scripted"} 2`,
		`star_agent_step_duration_seconds_count{type="action"} 2`,
		`star_agent_runs_in_flight{state="running"} 0`,
		`star_agent_sandbox_starts_total{executor="local"} 1`,
		`star_agent_http_requests_total{code="202",route="/v1/runs"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	code, _, body := h.do("GET", "/readyz", "")
	if code != 200 || !strings.Contains(string(body), `"model":"ok"`) || !strings.Contains(string(body), `"database":"ok"`) {
		t.Errorf("readyz: %d %s", code, body)
	}
	h2, _ := newHarness(t, harnessOpts{modify: func(o *Options) {
		o.Checks = []Check{{Name: "docker", Check: func(context.Context) error { return fmt.Errorf("the Docker engine does not answer") }}}
	}})
	code, _, body = h2.do("GET", "/readyz", "")
	if code != 503 || !strings.Contains(string(body), `"docker":"the Docker engine does not answer"`) {
		t.Errorf("readyz with a failing check: %d %s", code, body)
	}
	if code, _, _ := h2.do("GET", "/healthz", ""); code != 200 {
		t.Errorf("healthz: %d", code)
	}
}

func TestStreamOutlivesReadTimeout(t *testing.T) {
	defer func(d time.Duration) { readTimeout = d }(readTimeout)
	readTimeout = 100 * time.Millisecond
	h, started := newHarness(t, harnessOpts{})
	id := h.start("block past the read timeout")
	<-started
	resp := h.openStream(id, "")
	defer resp.Body.Close()
	time.Sleep(3 * readTimeout)
	h.do("POST", "/v1/runs/"+id+"/cancel", "")
	var last sseEvent
	for ev := range readEvents(t, resp.Body) {
		last = ev
	}
	if last.Type != "end" || !strings.Contains(last.Data, `"state":"cancelled"`) {
		t.Errorf("a stream open longer than the read timeout ended with %+v", last)
	}
}

func TestHostCheckWithoutToken(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{})
	for host, want := range map[string]int{
		"attacker.example":      403,
		"attacker.example:8080": 403,
		"localhost:8080":        200,
		"LOCALHOST":             200,
		"127.0.0.1:9":           200,
		"[::1]:8080":            200,
		"10.1.2.3":              200,
	} {
		req, _ := http.NewRequest("GET", h.url+"/v1/runs", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("Host %s: %d %s, want %d", host, resp.StatusCode, body, want)
		}
	}
	// With a token, any name is served (the token is the guard).
	h2, _ := newHarness(t, harnessOpts{token: "tok"})
	req, _ := http.NewRequest("GET", h2.url+"/v1/runs", nil)
	req.Host = "agents.example.com"
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("named host with a token: %d", resp.StatusCode)
	}
}

func TestLongStreamAfterRestart(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	script := func(string) []string {
		return []string{"<code>\nn = 0\nfor i in range(700):\n    if ping() == \"pong\":\n        n += 1\nfinal_answer(n)\n</code>"}
	}
	h, _ := newHarness(t, harnessOpts{db: db, script: script})
	id := h.start("Ping 700 times.")
	live := h.stream(id, "")
	if len(live) < 700 {
		t.Fatalf("%d events, want over 700 (one per tool call)", len(live))
	}
	h.shutdown()
	h2, _ := newHarness(t, harnessOpts{db: db, script: script})
	stored := h2.stream(id, "")
	if len(stored) != len(live) {
		t.Fatalf("after restart %d events, live %d", len(stored), len(live))
	}
	for i := range stored {
		if stored[i] != live[i] || stored[i].ID != int64(i+1) {
			t.Fatalf("event %d: %+v, live %+v", i, stored[i], live[i])
		}
	}
	if r := h2.get(id); r.State != StateSuccess || fmt.Sprint(r.Output) != "700" {
		t.Errorf("run: %+v", r)
	}
}

func TestConfig(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{modify: func(o *Options) { o.RunTimeout = time.Minute }})
	code, _, body := h.do("GET", "/v1/config", "")
	var c map[string]any
	if code != 200 || json.Unmarshal(body, &c) != nil || c["model"] != "scripted" || c["max_concurrent"] != 4.0 || c["queue"] != 8.0 || c["run_timeout"] != 60.0 || c["max_steps"] != 20.0 {
		t.Errorf("config: %d %s", code, body)
	}
}

// Two servers on one database would mark each other's live runs
// interrupted: the second is refused while the first holds it, and may
// open it once the first has closed it.
func TestOneServerPerDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	first, err := OpenStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(db, nil); err == nil || !strings.Contains(err.Error(), "another star-agent serve is using this database") {
		t.Fatalf("second store on the same file: %v", err)
	}
	first.Close()
	second, err := OpenStore(db, nil)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	second.Close()
}

// An answer JSON has no exact word for (a NaN, a tuple) reaches the
// stream's final_answer and end events in the form of docs/json.md, as it
// reaches the run's record; such an answer used to make the events "not
// representable".
func TestFaithfulAnswerEvents(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{script: func(string) []string {
		return []string{"<code>\nfinal_answer((32.0, float('nan')))\n</code>"}
	}})
	id := h.start("t")
	if r := h.waitFinal(id); r.State != StateSuccess {
		t.Fatalf("run: %+v", r)
	}
	const want = `"output":{"$tuple":[32.0,{"$float":"nan"}]},"repr":"(32.0, nan)"`
	var seen []string
	for _, ev := range h.stream(id, "") {
		if ev.Type == "final_answer" || ev.Type == "end" {
			seen = append(seen, ev.Type)
			if !strings.Contains(ev.Data, want) {
				t.Errorf("%s event %s, want %s", ev.Type, ev.Data, want)
			}
		}
	}
	if strings.Join(seen, " ") != "final_answer end" {
		t.Errorf("events with the answer: %v", seen)
	}
	if r := h.get(id); r.Repr != "(32.0, nan)" {
		t.Errorf("GET run: repr %q, want (32.0, nan)", r.Repr)
	}
}

// The answers' repr is Python's, beside their JSON form; None has none,
// as in the CLI's --json.
func TestAnswerRepr(t *testing.T) {
	for _, c := range []struct{ code, repr string }{
		{"a, b = 0, 1\nfor _ in range(100):\n    a, b = b, a + b\nfinal_answer(a)", "354224848179261915075"},
		{"final_answer(32.0)", "32.0"},
		{"final_answer((1, 2))", "(1, 2)"},
		{"final_answer({1: 'a'})", "{1: 'a'}"},
		{"final_answer('it\\'s')", `"it's"`},
		{"final_answer(None)", ""},
	} {
		h, _ := newHarness(t, harnessOpts{script: func(string) []string {
			return []string{"<code>\n" + c.code + "\n</code>"}
		}})
		id := h.start("t")
		reprs := map[string]string{}
		for _, ev := range h.stream(id, "") {
			if ev.Type == "final_answer" || ev.Type == "end" {
				var d struct{ Repr *string }
				if err := json.Unmarshal([]byte(ev.Data), &d); err != nil {
					t.Fatal(err)
				}
				if d.Repr != nil {
					reprs[ev.Type] = *d.Repr
				}
			}
		}
		r := h.get(id)
		if r.State != StateSuccess || reprs["final_answer"] != c.repr || reprs["end"] != c.repr || r.Repr != c.repr {
			t.Errorf("%s: state %s, repr %q in the final_answer event, %q in the end event, %q in GET; want %q", c.code, r.State, reprs["final_answer"], reprs["end"], r.Repr, c.repr)
		}
	}
}

// The run list counts steps as the CLI and the run's page do: the action
// steps, not the task and final answer steps.
func TestStepCountsAgree(t *testing.T) {
	h, _ := newHarness(t, harnessOpts{script: func(string) []string { return failing }})
	id := h.start("Fail first, then fix it.")
	evs := h.stream(id, "")
	var end endEvent
	json.Unmarshal([]byte(evs[len(evs)-1].Data), &end)
	r := h.get(id)
	actions := 0
	for _, st := range r.Steps {
		var s struct{ Type string }
		json.Unmarshal(st, &s)
		if s.Type == "action" {
			actions++
		}
	}
	_, _, body := h.do("GET", "/v1/runs", "")
	var list struct{ Runs []struct{ Steps int } }
	json.Unmarshal(body, &list)
	if actions != 2 || end.Steps != 2 || len(list.Runs) != 1 || list.Runs[0].Steps != 2 {
		t.Errorf("%d action steps in GET /v1/runs/ID, %d in the end event, list %s; want 2 everywhere", actions, end.Steps, body)
	}
}

// A database written when the list counted every step is migrated.
func TestStepCountMigration(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	h, _ := newHarness(t, harnessOpts{db: db})
	id := h.start("Add.")
	h.wait(id)
	h.shutdown()
	s, err := OpenStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`UPDATE runs SET steps = 4; DROP TABLE approval_decisions; DROP TABLE replicas; DROP INDEX runs_idempotency; ALTER TABLE runs DROP COLUMN attempt; ALTER TABLE runs DROP COLUMN owner; ALTER TABLE runs DROP COLUMN lease_until; ALTER TABLE runs DROP COLUMN cancel_requested; ALTER TABLE runs DROP COLUMN idempotency_key; DROP INDEX runs_tenant; DROP INDEX runs_tenant_ended; ALTER TABLE runs DROP COLUMN tenant; PRAGMA user_version = 1` /* a version 1 database */); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenStore(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := s.getRun(context.Background(), id)
	if err != nil || rec.Steps != 2 {
		t.Errorf("after the migration: %+v, %v; want 2 steps", rec, err)
	}
}
