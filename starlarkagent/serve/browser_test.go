package serve_test

// The browser test: headless Chromium (Debian's chromium) drives the
// embedded page against a real server on loopback, with a real SQLite
// store and the local engine. The demo run and the runs of answers play
// recorded sessions; the other runs ask a local server that speaks
// OpenAI's Chat Completions protocol (the real provider talks to it), for
// the cases a recording cannot give: a model that never answers (to
// cancel) and one whose output is hostile HTML.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/openai"
	"github.com/star-agent/star-agent/providers/replay"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/starlarkagent/serve"
)

const (
	// demoTask is the task of testdata/sessions/demo.jsonl.
	demoTask       = "Which of the first 30 Fibonacci numbers are prime? Give them and their sum."
	demoAnswer     = "their sum is 544828"
	hostileTask    = `Show me hostile HTML <img src=x onerror="window.__pwned='task'"> please`
	slowTask       = "Wait for the slow report."
	browserToken   = "browser-test-token"
	browserTimeout = 3 * time.Minute
	// waitTimeout bounds each wait for the page; runs here take
	// milliseconds, so it only matters when the page is broken.
	waitTimeout = 30 * time.Second
)

// answers are the runs whose recorded sessions (testdata/sessions) answer
// with a value JSON writes in a form of its own (docs/json.md): the page
// shows it as Python does.
var answers = []struct{ task, session, repr string }{
	{"What is the 100th Fibonacci number?", "answer_bigint.jsonl", "354224848179261915075"},
	{"What is 128 divided by 4?", "answer_float.jsonl", "32.0"},
	{"Give the pair (1, 2).", "answer_tuple.jsonl", "(1, 2)"},
	{"Map the number 1 to the letter a.", "answer_dict.jsonl", "{1: 'a'}"},
}

// chromium finds Debian's chromium (or another Chrome). Without one the
// test skips, except in CI, where it must run.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium on PATH (tried chromium, chromium-browser, google-chrome): install Debian's package with `apt-get install -y chromium` to run the browser test"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: .ci/run installs it)")
	}
	t.Skip(msg)
	return ""
}

// chatServer speaks OpenAI's Chat Completions protocol on loopback: it
// validates requests as the vendor does and answers in JSON or SSE, with
// usage, cutting the answer at the first stop sequence. What it answers
// depends on the task in the conversation (see answer).
type chatServer struct {
	*httptest.Server
	release   chan struct{} // closed to let the slow run's second call answer
	hanging   chan struct{} // a request that will not be answered came in
	abandoned chan struct{} // its client went away
}

func newChatServer(t *testing.T) *chatServer {
	s := &chatServer{release: make(chan struct{}), hanging: make(chan struct{}, 8), abandoned: make(chan struct{}, 8)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func chatError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":null,"code":null}}`, msg)
}

// tallStep is a step whose code is taller than the window.
func tallStep(thought string) string {
	var b strings.Builder
	b.WriteString("Thought: " + thought + "\n<code>\ndata = [\n")
	for i := range 60 {
		fmt.Fprintf(&b, "    %d,  # item %d\n", i*i, i)
	}
	b.WriteString("]\nprint(\"total\", sum(data))\n</code>")
	return b.String()
}

// answer is the model's next message for a conversation. wait means: not
// before release is closed; hang: never.
func answer(msgs []map[string]any) (content string, wait, hang bool) {
	var all strings.Builder
	turns := 0
	for _, m := range msgs {
		c, _ := m["content"].(string)
		all.WriteString(c)
		if m["role"] == "assistant" {
			turns++
		}
	}
	switch {
	case strings.Contains(all.String(), slowTask):
		switch turns {
		case 0:
			return tallStep("First the data."), false, false
		case 1:
			return tallStep("The data again, once released."), true, false
		}
		return "", false, true
	case strings.Contains(all.String(), "hostile HTML"):
		if turns == 0 {
			return "Thought: I will print some <b>HTML</b> <img src=x onerror=\"window.__pwned='thought'\">\n<code>\n" +
				"html = \"<img src=x onerror=\\\"window.__pwned='output'\\\"><script>window.__pwned='script'</script>\"\n" +
				"print(html)\nhtml\n</code>", false, false
		}
		return "Thought: Now the answer, with the same HTML.\n<code>\nfinal_answer(\"<b>not bold</b>\" + html)\n</code>", false, false
	}
	return "Thought: I do not know this task.\n<code>\nfinal_answer(\"unknown task\")\n</code>", false, false
}

func (s *chatServer) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		chatError(w, 404, "Invalid URL ("+r.Method+" "+r.URL.Path+")")
		return
	}
	if r.Header.Get("Authorization") != "Bearer sk-browser-test" {
		chatError(w, 401, "Incorrect API key provided.")
		return
	}
	var body struct {
		Model         string           `json:"model"`
		Messages      []map[string]any `json:"messages"`
		Stop          []string         `json:"stop"`
		Stream        bool             `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		chatError(w, 400, "We could not parse the JSON body of your request.")
		return
	}
	if body.Model == "" || len(body.Messages) == 0 {
		chatError(w, 400, "you must provide a model parameter and messages")
		return
	}
	if len(body.Stop) > 4 {
		chatError(w, 400, "Invalid 'stop': array too long. Expected an array with maximum length 4.")
		return
	}
	content, wait, hang := answer(body.Messages)
	if wait {
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		}
	}
	if hang {
		s.hanging <- struct{}{}
		<-r.Context().Done()
		s.abandoned <- struct{}{}
		return
	}
	for _, stop := range body.Stop {
		if i := strings.Index(content, stop); i >= 0 {
			content = content[:i]
		}
	}
	prompt := 0
	for _, m := range body.Messages {
		c, _ := m["content"].(string)
		prompt += len(strings.Fields(c)) + 4
	}
	usage := map[string]any{"prompt_tokens": prompt, "completion_tokens": len(strings.Fields(content)),
		"total_tokens": prompt + len(strings.Fields(content))}
	if !body.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-browser", "object": "chat.completion", "created": 1764000000, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content, "refusal": nil},
				"logprobs": nil, "finish_reason": "stop"}},
			"usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	send := func(choices []any, u any) {
		c := map[string]any{"id": "chatcmpl-browser", "object": "chat.completion.chunk", "created": 1764000000,
			"model": body.Model, "choices": choices}
		if body.StreamOptions.IncludeUsage {
			c["usage"] = u
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		fl.Flush()
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}
	}
	send(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	for _, piece := range strings.SplitAfter(content, " ") {
		send(delta(map[string]any{"content": piece}, nil), nil)
	}
	send(delta(map[string]any{}, "stop"), nil)
	if body.StreamOptions.IncludeUsage {
		send([]any{}, usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
}

// startServer starts star-agent serve's server on loopback with a SQLite
// file store; it is shut down when the test ends.
func startServer(t *testing.T, llm *chatServer) string {
	t.Helper()
	demo, err := filepath.Abs("../../testdata/sessions/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	store, err := serve.OpenStore(filepath.Join(t.TempDir(), "runs.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{
		Store:         store,
		Token:         browserToken,
		MaxConcurrent: 2,
		Queue:         4,
		ShutdownGrace: 10 * time.Millisecond,
		ModelID:       "demo-model",
		NewAgent: func(ctx context.Context, req serve.AgentRequest) (*starlarkagent.Agent, error) {
			var model providers.Model
			var err error // runs are built concurrently
			session := ""
			if req.Task == demoTask {
				session = demo
			}
			for _, a := range answers {
				if req.Task == a.task {
					session = filepath.Join("testdata", "sessions", a.session)
				}
			}
			if session != "" {
				var m *replay.Model
				m, err = replay.Open(session)
				if err == nil {
					// The page is under test, not the recording: play it in
					// order, so that a reworded prompt or error message
					// elsewhere does not stop the run (the code still runs
					// for real, and fails and succeeds as recorded).
					m.Match = replay.MatchOrder
					model = m
				}
			} else {
				model, err = openai.New(openai.Options{Model: "gpt-4o-mini", BaseURL: llm.URL + "/v1", APIKey: "sk-browser-test", MaxRetries: -1})
			}
			if err != nil {
				return nil, err
			}
			exec, err := starlarkexec.New(starlarkexec.Options{AuthorizedImports: req.Imports})
			if err != nil {
				return nil, err
			}
			a, err := starlarkagent.New(starlarkagent.Options{Model: req.WrapModel(model), Executor: exec})
			if err != nil {
				exec.Close()
			}
			return a, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/"
}

// cutProxy forwards loopback connections to the server and can drop them
// all at once, as a lost network or a restarted load balancer does.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, d)
			p.mu.Unlock()
			p.wg.Add(2)
			go p.pipe(d, c)
			go p.pipe(c, d)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		p.cut()
		p.wg.Wait()
	})
	return p
}

func (p *cutProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// cut closes every connection made so far.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *cutProxy) url() string { return "http://" + p.ln.Addr().String() + "/" }

// browser drives one tab of headless Chromium.
type browser struct {
	t         *testing.T
	ctx       context.Context
	url       string
	artifacts string
	bg        sync.WaitGroup // goroutines that end with the browser
}

func newBrowser(t *testing.T, path string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.WindowSize(1280, 900),
		// Nothing but loopback: no name resolves, so no background service
		// of the browser reaches out.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("proxy-server", "http://127.0.0.1:9"), // refused: nothing leaves through it
		chromedp.Flag("proxy-bypass-list", "127.0.0.1"),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("no-pings", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, browserTimeout)
	dir := os.Getenv("STAR_AGENT_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, ctx: ctx, artifacts: dir}
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
		b.bg.Wait()
	})
	// Start the browser now, so that the console is watched from the first page.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting Chromium (%s): %v", path, err)
	}
	return b
}

// consoleErrors collects uncaught exceptions and the page's own errors
// (console.error calls with the "star-agent:" prefix app.js uses); the
// returned func reports those seen so far.
func (b *browser) consoleErrors() func() []string {
	var (
		mu   sync.Mutex
		msgs []string
	)
	seq := chromedp.Console(b.ctx)
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		for m, err := range seq {
			if err != nil {
				return
			}
			if m.IsException() || (m.Type == chromedp.ConsoleError && strings.HasPrefix(m.Text, "star-agent:")) {
				mu.Lock()
				msgs = append(msgs, m.String())
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), msgs...)
	}
}

func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.fail("%s: %v", what, err)
	}
}

func (b *browser) eval(js string, v any, opts ...chromedp.EvaluateOption) {
	b.t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](js, opts...))
	if err != nil {
		b.fail("evaluating %s: %v", js, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		b.fail("decoding the value of %s (%s): %v", js, raw, err)
	}
}

// waitFor polls the page until cond (a JavaScript expression) is true.
// It fails at once if the page shows its error banner, and when the
// test's deadline passes.
func (b *browser) waitFor(what, cond string) {
	b.t.Helper()
	js := `(() => {
		const banner = document.getElementById('page-error');
		if (banner && !banner.hidden) return 'page error: ' + document.getElementById('page-error-text').textContent;
		return (` + cond + `) ? 'ok' : false;
	})()`
	ctx, cancel := context.WithTimeout(b.ctx, waitTimeout)
	defer cancel()
	got, err := chromedp.Run(ctx, chromedp.Poll[string](js, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0)))
	if err != nil {
		b.fail("waiting for %s (at most %s): %v", what, waitTimeout, err)
	}
	if got != "ok" {
		b.fail("waiting for %s: the page shows an error: %s", what, strings.TrimPrefix(got, "page error: "))
	}
}

// fail saves a screenshot of the page as it is, then fails the test.
func (b *browser) fail(format string, args ...any) {
	b.t.Helper()
	msg := fmt.Sprintf(format, args...)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), 5*time.Second)
	defer cancel()
	if state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({
		address: location.href,
		state: document.getElementById('run-state')?.textContent,
		live: document.getElementById('live-text')?.textContent,
		steps: document.querySelectorAll('#timeline .step').length,
		scroll: ['scrollTop', 'scrollHeight', 'clientHeight'].map(k => document.getElementById('main')[k]),
	})`)); err == nil {
		msg += "\n(the page: " + state + ")"
	}
	if shot := b.screenshot("failure"); shot != "" {
		msg += "\n(screenshot of the page: " + shot + ")"
	}
	b.t.Fatal(msg)
}

// screenshot saves the whole page (the timeline scrolls inside <main>, so
// the viewport grows to show all of it) and returns the file's path.
func (b *browser) screenshot(name string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), 20*time.Second)
	defer cancel()
	h, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`Math.max(document.getElementById('main').scrollHeight + 60, window.innerHeight)`))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	size, err := chromedp.Run(ctx, chromedp.Evaluate[[2]int64](`[window.innerWidth, window.innerHeight]`))
	if err != nil {
		return ""
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(size[0], min(h, 6000))); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	// Back to the window's size (clearing the override leaves the tall one).
	defer chromedp.Do(ctx, chromedp.EmulateViewport(size[0], size[1]))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	path := filepath.Join(b.artifacts, "browser-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	b.t.Logf("screenshot: %s", path)
	return path
}

func (b *browser) colorScheme(scheme string) {
	b.t.Helper()
	_, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
	})
	if err != nil {
		b.fail("emulating prefers-color-scheme: %s: %v", scheme, err)
	}
}

// startRun types task into the composer and starts it; it returns the
// run's id, read from the address the page moves to.
func (b *browser) startRun(task, maxSteps string) string {
	b.t.Helper()
	b.do("opening the composer", chromedp.Navigate(b.url+"#/"), chromedp.WaitVisible(chromedp.ID("task")))
	b.do("typing the task", chromedp.SetValue(chromedp.ID("task"), task), chromedp.SetValue(chromedp.ID("max-steps"), maxSteps),
		chromedp.Click(chromedp.ID("start")))
	b.waitFor("the run view", `/^#\/runs\/r_[a-z0-9]+$/.test(location.hash) && !document.getElementById('run-view').hidden`)
	var hash string
	b.eval(`location.hash`, &hash)
	return strings.TrimPrefix(hash, "#/runs/")
}

func TestBrowser(t *testing.T) {
	path := chromium(t)
	llm := newChatServer(t)
	direct := startServer(t, llm)
	proxy := newCutProxy(t, strings.TrimSuffix(strings.TrimPrefix(direct, "http://"), "/"))
	url := proxy.url() // the page reaches the server through a connection the test can cut
	b := newBrowser(t, path)
	b.url = url
	exceptions := b.consoleErrors()

	// The page needs the token: a wrong one is refused, the right one
	// lets it read the server's configuration.
	b.do("opening the page", chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("token-input")))
	b.do("entering a wrong token", chromedp.SendKeys(chromedp.ID("token-input"), "not-the-token"), chromedp.Click(chromedp.ID("token-submit")))
	b.waitFor("the refused token to be told", `!document.getElementById('token-refused').hidden && document.getElementById('token-dialog').open`)
	b.screenshot("token")
	b.do("entering the token", chromedp.SendKeys(chromedp.ID("token-input"), browserToken), chromedp.Click(chromedp.ID("token-submit")))
	b.waitFor("the composer and the server's model", `!document.getElementById('token-dialog').open && !document.getElementById('composer-view').hidden && document.getElementById('server-info').textContent.includes('demo-model')`)

	checkHighlighter(b)

	// A recorded run from the page: its steps and answer appear.
	demo := b.startRun(demoTask, "5")
	b.waitFor("the final answer", `(document.querySelector('.final-answer .final-body') || {}).textContent?.includes(`+jsString(demoAnswer)+`)`)
	b.waitFor("the run to end in success", `document.getElementById('run-state').textContent === 'Success' && document.getElementById('cancel').hidden`)
	checkDemoRun(b, demo)
	b.screenshot("run")
	b.colorScheme("dark")
	var dark string
	b.eval(`getComputedStyle(document.body).backgroundColor`, &dark)
	b.screenshot("run-dark")
	b.colorScheme("light")
	var light string
	b.eval(`getComputedStyle(document.body).backgroundColor`, &light)
	if dark == light {
		b.fail("the page has the same background (%s) in dark and light mode", dark)
	}

	// Hostile model output and task stay text.
	hostile := b.startRun(hostileTask, "")
	b.waitFor("the hostile run's answer", `document.querySelector('.final-answer') && document.getElementById('run-state').textContent === 'Success'`)
	var got struct {
		Pwned    any    `json:"pwned"`
		Elements int    `json:"elements"`
		Task     string `json:"task"`
		Answer   string `json:"answer"`
		Thought  string `json:"thought"`
		Printed  string `json:"printed"`
	}
	b.eval(`({
		pwned: window.__pwned ?? null,
		elements: document.querySelectorAll('main img, main script, main b, #sidebar img, #sidebar script').length,
		task: document.getElementById('run-task').textContent,
		answer: document.querySelector('.final-answer .final-body').textContent,
		thought: document.querySelector('.step .thought-text').textContent,
		printed: document.querySelector('.step .out').textContent,
	})`, &got)
	if got.Pwned != nil || got.Elements != 0 {
		b.fail("server text was run as HTML: window.__pwned = %v, %d elements from it in the page", got.Pwned, got.Elements)
	}
	if got.Task != hostileTask || !strings.HasPrefix(got.Answer, "<b>not bold</b><img src=x") ||
		!strings.Contains(got.Thought, "<b>HTML</b>") || !strings.Contains(got.Printed, "<script>window.__pwned='script'</script>") {
		b.fail("hostile text not shown as text: task %q, answer %q, thought %q, printed %q", got.Task, got.Answer, got.Thought, got.Printed)
	}

	// A live run is followed to its bottom until the reader scrolls up;
	// then new steps leave the view where it is, and a button follows
	// again. Its model then never answers, and the run is cancelled from
	// the page.
	slow := b.startRun(slowTask, "")
	const atBottom = `(m => m.scrollHeight > m.clientHeight + 200 && m.scrollHeight - m.scrollTop - m.clientHeight < 64)(document.getElementById('main'))`
	b.waitFor("step 1 of the slow run, followed", `document.querySelector('.step[data-step="1"] .out') && `+atBottom)
	b.do("scrolling up", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, 700, 400, func(p *input.DispatchMouseEventParams) { p.DeltaX, p.DeltaY = -1, -100000 }))
	b.waitFor("the top of the run", `document.getElementById('main').scrollTop === 0`)
	var settled bool // the scroll events have been handled once two frames have passed
	b.eval(`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, &settled, chromedp.EvalAwaitPromise)
	close(llm.release)
	b.waitFor("step 2 of the slow run", `document.querySelector('.step[data-step="2"] .out')`)
	b.waitFor("the follow button", `!document.getElementById('jump').hidden`)
	var top float64
	b.eval(`document.getElementById('main').scrollTop`, &top)
	if top != 0 {
		b.fail("the view moved to %v while the reader was at the top", top)
	}
	b.screenshot("scrolled-up")
	b.do("following again", chromedp.Click(chromedp.ID("jump")))
	b.waitFor("the bottom of the run", atBottom+` && document.getElementById('jump').hidden`)
	select {
	case <-llm.hanging:
	case <-b.ctx.Done():
		b.fail("the model was never asked for step 3 of the slow run")
	}
	b.waitFor("the running state", `document.getElementById('run-state').textContent === 'Running' && !document.getElementById('cancel').hidden && !document.getElementById('live').hidden`)
	b.screenshot("running")
	// The connections drop: the page reconnects by itself and resumes
	// after the last event it saw (the end event below can only come
	// through a new stream), repeating nothing.
	proxy.cut()
	b.do("cancelling", chromedp.Click(chromedp.ID("cancel")))
	b.waitFor("the cancelled state", `document.getElementById('run-state').textContent === 'Cancelled' && (document.querySelector('.run-error') || {}).textContent?.includes('cancelled by POST') && document.getElementById('live').hidden && document.getElementById('cancel').hidden`)
	var counts []int
	b.eval(`['#timeline .step', '#timeline .codeblock', '#timeline .out', '#timeline .step[data-step="3"] .error-box', '#timeline .run-error'].map(q => document.querySelectorAll(q).length)`, &counts)
	if fmt.Sprint(counts) != "[3 2 2 1 1]" {
		b.fail("after the reconnection the page shows %v steps, code blocks, outputs, errors of step 3 (interrupted) and run errors; want [3 2 2 1 1]", counts)
	}
	// The cancel reaches the model call: its request is dropped.
	select {
	case <-llm.abandoned:
	case <-b.ctx.Done():
		b.fail("the model's request was not dropped when the run was cancelled")
	}

	// A past run, opened from the list, is replayed from the server.
	b.do("opening the composer", chromedp.Navigate(url+"#/"), chromedp.WaitVisible(chromedp.ID("task")))
	b.waitFor("the three runs in the list", `document.querySelectorAll('#run-list .run-item').length === 3`)
	var states []string
	b.eval(`[...document.querySelectorAll('#run-list .run-item')].map(a => a.dataset.id + ' ' + a.querySelector('.dot').className)`, &states)
	want := []string{slow + " dot state-cancelled", hostile + " dot state-success", demo + " dot state-success"}
	if strings.Join(states, "\n") != strings.Join(want, "\n") {
		b.fail("run list, newest first:\n%s\nwant:\n%s", strings.Join(states, "\n"), strings.Join(want, "\n"))
	}
	// The list counts the steps as the run does, and as the CLI (3 steps).
	var demoMeta string
	b.eval(`document.querySelector('#run-list .run-item[data-id="`+demo+`"] .run-item-meta').textContent`, &demoMeta)
	if !strings.Contains(demoMeta, "· 3 steps ·") {
		b.fail("the demo run is listed as %q, want 3 steps", demoMeta)
	}
	b.do("opening the demo run from the list", chromedp.Click(chromedp.CSS(`#run-list .run-item[data-id="`+demo+`"]`)))
	b.waitFor("the past run's answer", `location.hash === '#/runs/`+demo+`' && document.getElementById('run-state').textContent === 'Success' && (document.querySelector('.final-answer .final-body') || {}).textContent?.includes(`+jsString(demoAnswer)+`)`)
	checkDemoRun(b, demo)
	b.screenshot("past-run")

	// A fresh load of the page (same tab: the token is kept) opens the
	// run from its address.
	b.do("reloading", chromedp.Reload())
	b.waitFor("the reloaded run's answer", `document.getElementById('run-state').textContent === 'Success' && document.querySelectorAll('#timeline .step').length === 3 && document.querySelector('.final-answer')`)

	// The list is paged (30 runs a page): older runs load on demand.
	for i := range 30 {
		runByAPI(b, direct, fmt.Sprintf("Run number %d of the paging check.", i))
	}
	b.do("reloading the composer", chromedp.Navigate(url+"#/"), chromedp.Reload())
	b.waitFor("the first page of runs", `document.querySelectorAll('#run-list .run-item').length === 30 && !document.getElementById('more-runs').hidden`)
	b.do("loading older runs", chromedp.Click(chromedp.ID("more-runs")))
	b.waitFor("all the runs", `document.querySelectorAll('#run-list .run-item').length === 33 && document.getElementById('more-runs').hidden`)
	var last string
	b.eval(`[...document.querySelectorAll('#run-list .run-item')].pop().dataset.id`, &last)
	if last != demo {
		b.fail("the oldest run listed is %s, want the demo run %s", last, demo)
	}

	// Answers that JSON writes in forms of its own (a big int, a float
	// that is whole, a tuple, a dict with int keys) are shown, and copied,
	// as Python prints them.
	for _, p := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(b.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: p}, Setting: cdpbrowser.PermissionSettingGranted}); err != nil {
			b.fail("granting %s: %v", p, err)
		}
	}
	for _, a := range answers {
		b.startRun(a.task, "")
		b.waitFor("the answer to "+a.task, `document.getElementById('run-state').textContent === 'Success' && document.querySelector('.final-answer .final-body')`)
		var shown string
		b.eval(`document.querySelector('.final-answer .final-body').textContent`, &shown)
		b.do("copying the answer", chromedp.Click(chromedp.CSS(".final-answer .copy")))
		b.waitFor("the answer to be copied", `document.querySelector('.final-answer .copy').textContent === 'Copied'`)
		var copied string
		b.eval(`navigator.clipboard.readText()`, &copied, chromedp.EvalAwaitPromise)
		if shown != a.repr || copied != a.repr {
			b.fail("%s: the page shows %q and copies %q, want %q", a.task, shown, copied, a.repr)
		}
	}
	b.screenshot("answer-dict")

	// A narrow screen hides the list behind the menu button.
	b.do("narrowing the window", chromedp.EmulateViewport(390, 844))
	b.waitFor("the menu button", `getComputedStyle(document.getElementById('menu')).display !== 'none' && document.getElementById('sidebar').getBoundingClientRect().right <= 0`)
	b.screenshot("narrow")
	b.do("opening the list", chromedp.Click(chromedp.ID("menu")))
	b.waitFor("the list to slide in", `document.getElementById('sidebar').getBoundingClientRect().left >= 0`)
	b.do("restoring the window", chromedp.EmulateViewport(1280, 900))

	if msgs := exceptions(); len(msgs) > 0 {
		b.fail("the page reported errors in its console:\n%s", strings.Join(msgs, "\n"))
	}
}

// checkHighlighter checks the page's Python tokens on the cases that
// trip simple highlighters: quotes in comments, # in strings, string
// prefixes, triple quotes across lines, numbers in every notation.
func checkHighlighter(b *browser) {
	b.t.Helper()
	code := "def f(x=0x1F, y=1e-5):  # it's \"fine\"\n" +
		"    s = '''a\n#not a comment'''\n" +
		"    return f\"{x}\" + r'\\d' + \"#x\" if x1 else None\n" +
		"class K: pass\n@dec\nz = 3.14j + 1_000 + .5\nu = 'open"
	want := [][2]string{
		{"keyword", "def"}, {"function", "f"}, {"number", "0x1F"}, {"number", "1e-5"},
		{"comment", "# it's \"fine\""}, {"string", "'''a\n#not a comment'''"}, {"keyword", "return"},
		{"string", "f\"{x}\""}, {"string", "r'\\d'"}, {"string", "\"#x\""}, {"keyword", "if"}, {"keyword", "else"},
		{"constant", "None"}, {"keyword", "class"}, {"class", "K"}, {"keyword", "pass"}, {"decorator", "@dec"},
		{"number", "3.14j"}, {"number", "1_000"}, {"number", ".5"}, {"string", "'open"},
	}
	var got [][2]string
	b.eval(`pythonTokens(`+jsString(code)+`).filter(t => t[0] !== '')`, &got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		b.fail("highlighter tokens:\n%q\nwant:\n%q", got, want)
	}
	var text string
	b.eval(`highlightPython(`+jsString(code)+`).textContent`, &text)
	if text != code {
		b.fail("highlighted text %q differs from the code %q", text, code)
	}
}

// runByAPI starts a run with the API, as another client would, and waits
// for its end.
func runByAPI(b *browser, base, task string) {
	b.t.Helper()
	call := func(method, path, body string) map[string]any {
		req, err := http.NewRequestWithContext(b.ctx, method, base+path, strings.NewReader(body))
		if err != nil {
			b.fail("%s %s: %v", method, path, err)
		}
		req.Header.Set("Authorization", "Bearer "+browserToken)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.fail("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		var v map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode >= 300 {
			b.fail("%s %s: %s %v %v", method, path, resp.Status, v, err)
		}
		return v
	}
	id, _ := call("POST", "v1/runs", `{"task":`+jsString(task)+`}`)["id"].(string)
	for {
		if st, _ := call("GET", "v1/runs/"+id, "")["state"].(string); st != "queued" && st != "running" {
			return
		}
		select {
		case <-b.ctx.Done():
			b.fail("run %s did not end", id)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// checkDemoRun checks the steps of the recorded demo run as the page shows them.
func checkDemoRun(b *browser, id string) {
	b.t.Helper()
	var got struct {
		Steps      int      `json:"steps"`
		Failed     []string `json:"failed"`
		Final      []string `json:"final"`
		Errors     []string `json:"errors"`
		Keywords   []string `json:"keywords"`
		Meta       []string `json:"meta"`
		Printed    string   `json:"printed"`
		Thought    string   `json:"thought"`
		Task       string   `json:"task"`
		Options    string   `json:"options"`
		Stats      string   `json:"stats"`
		ErrorLine  string   `json:"errorLine"`
		PageErrors int      `json:"pageErrors"`
	}
	b.eval(`(() => {
		const steps = [...document.querySelectorAll('#timeline .step')];
		return {
			steps: steps.length,
			failed: steps.filter(s => s.classList.contains('failed')).map(s => s.dataset.step),
			final: steps.filter(s => s.classList.contains('final-step')).map(s => s.dataset.step),
			errors: [...document.querySelectorAll('#timeline .error-title')].map(e => e.textContent),
			keywords: [...new Set([...steps[1].querySelectorAll('.codeblock .tok-keyword')].map(e => e.textContent))].sort(),
			meta: steps.map(s => s.querySelector('.step-meta').textContent),
			printed: steps[1].querySelector('.out').textContent,
			thought: steps[0].querySelector('.thought-text').textContent,
			task: document.getElementById('run-task').textContent,
			options: document.getElementById('run-args').hidden ? '' : document.getElementById('run-args').textContent,
			stats: document.getElementById('run-stats').textContent,
			errorLine: (steps[0].querySelector('.gutter .err-line') || {}).textContent || '',
			pageErrors: document.getElementById('page-error').hidden ? 0 : 1,
		};
	})()`, &got)
	if got.Steps != 3 || strings.Join(got.Failed, ",") != "1" || strings.Join(got.Final, ",") != "3" {
		b.fail("run %s: %d steps, failed %v, final %v; want 3 steps, step 1 failed, step 3 final", id, got.Steps, got.Failed, got.Final)
	}
	if len(got.Errors) != 1 || !strings.HasPrefix(got.Errors[0], "ModuleNotFoundError") || got.ErrorLine != "1" {
		b.fail("run %s: error titles %q, error line %q; want one ModuleNotFoundError (sympy is not installed) at line 1", id, got.Errors, got.ErrorLine)
	}
	if strings.Join(got.Keywords, " ") != "def for if import in return while" {
		b.fail("run %s: highlighted keywords of step 2: %q, want def for if import in return while", id, got.Keywords)
	}
	// The tokens of each step are the recording's.
	for i, want := range []string{"854 → 69 tokens", "1,040 → 137 tokens", "1,219 → 71 tokens"} {
		if !strings.Contains(got.Meta[i], want) {
			b.fail("run %s: step %d shows %q, want %q", id, i+1, got.Meta[i], want)
		}
	}
	if !strings.Contains(got.Printed, "Prime ones: [2, 3, 5, 13, 89, 233, 1597, 28657, 514229]") {
		b.fail("run %s: step 2 printed %q", id, got.Printed)
	}
	if !strings.HasPrefix(got.Thought, "I will generate the first 30 Fibonacci numbers") || got.Task != demoTask || got.Options != "max 5 steps" {
		b.fail("run %s: thought %q, task %q, options %q (want max 5 steps)", id, got.Thought, got.Task, got.Options)
	}
	if !strings.Contains(got.Stats, "Input tokens3,113") || !strings.Contains(got.Stats, "Output tokens277") || !strings.Contains(got.Stats, "Duration") {
		b.fail("run %s: run stats %q, want the recording's 3,113 input and 277 output tokens and a duration", id, got.Stats)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
