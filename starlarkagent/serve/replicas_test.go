package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run real `star-agent serve` processes (built once) on one
// PostgreSQL, with a model server that answers by the conversation's
// position, so that a resumed conversation gets the answer it is at.

// positionModel speaks OpenAI's Chat Completions and answers with
// answers[n], n being the assistant messages the conversation has. hold,
// when set for a position, is called before answering it (to keep a
// step in flight).
type positionModel struct {
	answers []string
	mu      sync.Mutex
	asked   map[int]int
	hold    map[int]func(ctx context.Context, ask int)
	url     string
}

func newPositionModel(t *testing.T, answers ...string) *positionModel {
	m := &positionModel{answers: answers, asked: map[int]int{}, hold: map[int]func(context.Context, int){}}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	m.url = srv.URL + "/v1"
	return m
}

func (m *positionModel) times(n int) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.asked[n]
}

func (m *positionModel) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
		Stream bool `json:"stream"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	n := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			n++
		}
	}
	m.mu.Lock()
	m.asked[n]++
	ask := m.asked[n]
	hold := m.hold[n]
	m.mu.Unlock()
	if hold != nil {
		hold(r.Context(), ask)
	}
	if n >= len(m.answers) {
		http.Error(w, `{"error":{"message":"no answer at this position"}}`, 400)
		return
	}
	content := m.answers[n]
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": "test",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(choices []any, usage any) {
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "test", "choices": choices, "usage": usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	send([]any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": content}, "finish_reason": nil}}, nil)
	send([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}, nil)
	send([]any{}, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// replica is one `star-agent serve` process.
type replica struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	name string
}

func startReplica(t *testing.T, name, db string, model *positionModel, extra ...string) *replica {
	t.Helper()
	dir := t.TempDir()
	addrFile := filepath.Join(dir, "addr")
	args := append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--addr-file", addrFile, "--isolation", "none",
		"--model", "openai:test", "--api-base", model.url, "--api-key", "k", "--lease", "2s", "--shutdown-grace", "1s"}, extra...)
	cmd := exec.Command(starAgent(t), args...)
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rp := &replica{t: t, cmd: cmd, name: name}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Logf("log of %s:\n%s", name, b)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			rp.url = "http://" + strings.TrimSpace(string(b))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not start", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return rp
}

func (rp *replica) do(method, path, body string) (int, []byte) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, rp.url+path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (rp *replica) start(task string) string {
	rp.t.Helper()
	code, body := rp.do("POST", "/v1/runs", fmt.Sprintf(`{"task": %q}`, task))
	var v struct{ ID string }
	if code != 202 || json.Unmarshal(body, &v) != nil {
		rp.t.Fatalf("POST on %s: %d %s", rp.name, code, body)
	}
	return v.ID
}

func (rp *replica) get(id string) runJSON {
	code, body := rp.do("GET", "/v1/runs/"+id, "")
	var v runJSON
	if code != 200 || json.Unmarshal(body, &v) != nil {
		return runJSON{State: State(fmt.Sprintf("GET %d %s", code, body))}
	}
	return v
}

func (rp *replica) waitFinal(id string, within time.Duration) runJSON {
	rp.t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := rp.get(id)
		if r.State.Final() && !strings.HasPrefix(string(r.State), "GET") {
			return r
		}
		if time.Now().After(deadline) {
			rp.t.Fatalf("run %s not ended on %s after %s: %+v", id, rp.name, within, r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stream reads a run's events from rp until the end event.
func (rp *replica) stream(id, last string) []sseEvent {
	rp.t.Helper()
	req, _ := http.NewRequest("GET", rp.url+"/v1/runs/"+id+"/events", nil)
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		rp.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []sseEvent
	var ev sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			fmt.Sscan(line[4:], &ev.ID)
		case strings.HasPrefix(line, "event: "):
			ev.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.Data = line[6:]
		case line == "" && ev.Type != "":
			out = append(out, ev)
			ev = sseEvent{}
		}
	}
	return out
}

func gapless(evs []sseEvent) bool {
	for i, ev := range evs {
		if ev.ID != int64(i+1) {
			return false
		}
	}
	return len(evs) > 0
}

var twoStepAnswers = []string{
	"Thought: compute.\n<code>\nx = 6 * 7\nprint(x)\n</code>",
	"Thought: answer.\n<code>\nfinal_answer(x + 1)\n</code>",
}

// TestKillReplicaMidStep: kill -9 of the replica running a run while its
// second step waits for the model: another replica takes it over within
// the lease, replays step 1 (the model is not asked again) and finishes
// with a value step 1 computed.
func TestKillReplicaMidStep(t *testing.T) {
	db := startPostgres(t)
	model := newPositionModel(t, twoStepAnswers...)
	asked := make(chan struct{}, 1)
	model.hold[1] = func(ctx context.Context, ask int) {
		if ask == 1 {
			asked <- struct{}{}
			<-ctx.Done() // the replica dies meanwhile
		}
	}
	a := startReplica(t, "A", db, model)
	b := startReplica(t, "B", db, model)
	c := startReplica(t, "C", db, model)
	id := a.start("Compute.")
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("step 2 never asked the model")
	}
	killed := time.Now()
	a.cmd.Process.Kill()
	r := b.waitFinal(id, 30*time.Second)
	t.Logf("kill -9 to the end of the run elsewhere: %s", time.Since(killed))
	if r.State != StateSuccess || fmt.Sprint(r.Output) != "43" {
		t.Fatalf("after kill -9: %+v", r)
	}
	if n := model.times(0); n != 1 {
		t.Errorf("step 1's model call was asked %d times, want once", n)
	}
	evs := c.stream(id, "")
	if !gapless(evs) || evs[len(evs)-1].Type != "end" {
		t.Fatalf("events on C: %v", evs)
	}
	resumed := 0
	for _, ev := range evs {
		if ev.Type == "state" && strings.Contains(ev.Data, `"attempt":2`) {
			resumed++
		}
	}
	if resumed != 1 {
		t.Errorf("want one resumption event: %v", types(evs))
	}
}

// TestPausedReplicaIsFenced: SIGSTOP the replica running a run until
// another has taken it over and finished it, then SIGCONT: the paused
// replica's late writes are refused, and a stream open on it ends with
// the stored events (following the run to its end, or with a reconnect
// event naming the last stored event it sent).
func TestPausedReplicaIsFenced(t *testing.T) {
	db := startPostgres(t)
	model := newPositionModel(t, twoStepAnswers...)
	asked := make(chan struct{}, 1)
	model.hold[1] = func(_ context.Context, ask int) {
		if ask == 1 {
			asked <- struct{}{}
			time.Sleep(4 * time.Second) // answered once the replica is stopped
		}
	}
	a := startReplica(t, "A", db, model)
	b := startReplica(t, "B", db, model)
	id := a.start("Compute.")
	<-asked
	onA := make(chan []sseEvent, 1)
	go func() { onA <- a.stream(id, "") }()
	time.Sleep(200 * time.Millisecond)
	a.cmd.Process.Signal(syscall.SIGSTOP)
	r := b.waitFinal(id, 30*time.Second)
	if r.State != StateSuccess || fmt.Sprint(r.Output) != "43" {
		t.Fatalf("taken over: %+v", r)
	}
	before := b.stream(id, "")
	a.cmd.Process.Signal(syscall.SIGCONT)
	time.Sleep(4 * time.Second) // A's model answer arrives; it runs step 2 and writes
	after := b.stream(id, "")
	if fmt.Sprint(after) != fmt.Sprint(before) || !gapless(after) {
		t.Errorf("the paused replica wrote after losing the run:\nbefore %v\nafter  %v", types(before), types(after))
	}
	if r := a.get(id); r.State != StateSuccess || fmt.Sprint(r.Output) != "43" {
		t.Errorf("A's view after SIGCONT: %+v", r)
	}
	var fromA []sseEvent
	select {
	case fromA = <-onA:
	case <-time.After(30 * time.Second):
		t.Fatal("the stream on A did not end")
	}
	if len(fromA) == 0 {
		t.Fatal("nothing streamed from A")
	}
	kept := fromA
	if last := fromA[len(fromA)-1]; last.Type == "reconnect" {
		var rc reconnectEvent
		json.Unmarshal([]byte(last.Data), &rc)
		kept = nil
		for _, ev := range fromA[:len(fromA)-1] {
			if ev.ID <= rc.LastEventID {
				kept = append(kept, ev)
			}
		}
		if int64(len(kept)) != rc.LastEventID {
			t.Errorf("reconnect at %d after %v", rc.LastEventID, types(fromA))
		}
		t.Logf("A's stream: %d events, reconnect at %d", len(fromA)-1, rc.LastEventID)
	} else if last.Type != "end" {
		t.Errorf("the stream on A ended with %s, neither end nor reconnect: %v", last.Type, types(fromA))
	}
	if len(kept) > len(after) || fmt.Sprint(kept) != fmt.Sprint(after[:len(kept)]) {
		t.Errorf("A streamed events that are not stored:\nA      %v\nstored %v", kept, after)
	}
}

// TestCrossReplicaStreamLatency measures how long an event takes from
// the replica running a run to a client streaming it from another.
func TestCrossReplicaStream(t *testing.T) {
	db := startPostgres(t)
	model := newPositionModel(t, twoStepAnswers...)
	var released time.Time
	model.hold[1] = func(context.Context, int) { time.Sleep(time.Second); released = time.Now() }
	a := startReplica(t, "A", db, model)
	b := startReplica(t, "B", db, model)
	id := a.start("Compute.")
	evs := b.stream(id, "")
	if !gapless(evs) || evs[len(evs)-1].Type != "end" {
		t.Fatalf("events on B: %v", evs)
	}
	t.Logf("model answer on A to the end of B's stream: %s", time.Since(released))
	if rest := b.stream(id, "4"); len(rest) != len(evs)-4 || rest[0].ID != 5 {
		t.Errorf("Last-Event-ID 4 on B: %v", rest)
	}
}

// TestPostgresRestartMidRun: PostgreSQL stops (for longer than the
// lease) while a run waits for its model and starts again: the run ends
// with the right answer and gapless ids, step 1 asked once.
func TestPostgresRestartMidRun(t *testing.T) {
	pg := startCluster(t)
	model := newPositionModel(t, twoStepAnswers...)
	asked := make(chan struct{}, 1)
	restarted := make(chan struct{})
	model.hold[1] = func(_ context.Context, ask int) {
		if ask == 1 {
			asked <- struct{}{}
			<-restarted
		}
	}
	a := startReplica(t, "A", pg.url, model)
	b := startReplica(t, "B", pg.url, model)
	id := a.start("Compute.")
	<-asked
	if err := pg.stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	if err := pg.start(); err != nil {
		t.Fatal(err)
	}
	close(restarted)
	r := b.waitFinal(id, 30*time.Second)
	if r.State != StateSuccess || fmt.Sprint(r.Output) != "43" {
		t.Fatalf("after the restart: %+v", r)
	}
	if n := model.times(0); n != 1 {
		t.Errorf("step 1 asked %d times", n)
	}
	if evs := b.stream(id, ""); !gapless(evs) || evs[len(evs)-1].Type != "end" {
		t.Errorf("events: %v", evs)
	}
}

// TestApprovalSurvivesItsReplica: a run on A waits for approval of a
// call; A is killed; the decision, sent to B while nobody runs the run, is
// stored; B takes the run over, replays it, asks for the same call's
// approval again under the same id, finds the decision and finishes.
func TestApprovalSurvivesItsReplica(t *testing.T) {
	db := startPostgres(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><p>the report is ready</p></body></html>")
	}))
	t.Cleanup(page.Close)
	model := newPositionModel(t,
		"Thought: compute.\n<code>\nx = 6 * 7\nprint(x)\n</code>",
		fmt.Sprintf("Thought: read.\n<code>\npage = visit_webpage(%q)\nfinal_answer(str(x) + ': ' + ('ready' if 'report is ready' in page else page))\n</code>", page.URL))
	extra := []string{"--tools", "visit_webpage", "--allow-private-urls", "--require-approval", "visit_webpage", "--approval-timeout", "2m"}
	a := startReplica(t, "A", db, model, extra...)
	b := startReplica(t, "B", db, model, extra...)
	id := a.start("Read the report.")
	pending := func(rp *replica) []pendingJSON {
		_, body := rp.do("GET", "/v1/runs/"+id, "")
		var v struct {
			State   State         `json:"state"`
			Pending []pendingJSON `json:"pending_approvals"`
		}
		json.Unmarshal(body, &v)
		return v.Pending
	}
	var p pendingJSON
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ps := pending(b); len(ps) > 0 {
			p = ps[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B never listed the pending approval: %+v", b.get(id))
		}
	}
	if p.Tool != "visit_webpage" {
		t.Fatalf("pending %+v", p)
	}
	a.cmd.Process.Kill()
	a.cmd.Wait()
	code, body := b.do("POST", "/v1/runs/"+id+"/approvals/"+p.ID, `{"approve": true}`)
	if code != http.StatusAccepted {
		t.Fatalf("approve through B after A died: %d %s", code, body)
	}
	r := b.waitFinal(id, 30*time.Second)
	if r.State != StateSuccess || fmt.Sprint(r.Output) != "42: ready" {
		t.Fatalf("after the takeover: %+v", r)
	}
	var requested, decided []string
	for _, ev := range b.stream(id, "") {
		var v struct {
			ID string `json:"id"`
		}
		json.Unmarshal([]byte(ev.Data), &v)
		switch ev.Type {
		case "approval_requested":
			requested = append(requested, v.ID)
		case "approval_decided":
			decided = append(decided, v.ID)
		}
	}
	// Asked on A, asked again on B under the same id, decided once.
	if len(requested) != 2 || requested[0] != p.ID || requested[1] != p.ID || len(decided) != 1 || decided[0] != p.ID {
		t.Errorf("approval events: requested %v, decided %v (want %s twice, then once)", requested, decided, p.ID)
	}
}
