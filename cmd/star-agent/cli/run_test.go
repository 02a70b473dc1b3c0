package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/tool"
)

// runMain runs "star-agent run ARGS" with model m and tools.
func runMain(t *testing.T, m providers.Model, tools []tool.Tool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb, Config{Model: m, Tools: tools})
	return code, out.String(), errb.String()
}

type cityArgs struct {
	City string `json:"city" jsonschema:"The city."`
}

var weather = tool.MustNew("get_weather", "Returns the weather in a city.", func(_ context.Context, in cityArgs) (string, error) {
	return "sunny in " + in.City, nil
})

func TestFailureReportedOnce(t *testing.T) {
	m := &scripted.Model{Responses: []scripted.Response{{Err: errors.New("server said no-8841")}}}
	code, stdout, stderr := runMain(t, m, nil, "say hi")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(stdout+stderr, "no-8841"); n != 1 {
		t.Errorf("the failure is reported %d times:\n--- stdout\n%s--- stderr\n%s", n, stdout, stderr)
	}
	if !strings.Contains(stdout, "━━━ Run failed ━━━") || !strings.HasPrefix(stderr, "star-agent: ") {
		t.Errorf("stdout\n%s\nstderr\n%s", stdout, stderr)
	}
}

func TestRunToolCalling(t *testing.T) {
	m := &scripted.Model{Responses: []scripted.Response{
		{Content: "Checking.", ToolCalls: []providers.ToolCall{{ID: "a", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}}},
		{ToolCalls: []providers.ToolCall{{ID: "b", Name: "final_answer", Arguments: []byte(`{"answer":"sunny"}`)}}},
	}}
	code, stdout, stderr := runMain(t, m, []tool.Tool{weather}, "--action-type", "tool_calling", "weather in Paris?")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "get_weather(city='Paris')\nsunny in Paris\n") || !strings.Contains(stdout, "━━━ Final answer ━━━\nsunny") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if len(m.Calls()[0].Options.Tools) != 2 {
		t.Errorf("tools offered: %+v", m.Calls()[0].Options.Tools)
	}
	for _, args := range [][]string{
		{"--action-type", "json", "t"},
		{"--action-type", "tool_calling", "--structured-outputs", "t"},
		{"--max-memory", "lots", "t"},
		{"--max-memory", "9999999999GiB", "t"},
		{"--step-timeout", "-1s", "t"},
	} {
		if code, _, stderr := runMain(t, scripted.New(), nil, args...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}

func TestRunImage(t *testing.T) {
	dir := t.TempDir()
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
	os.WriteFile(filepath.Join(dir, "pixel.png"), png, 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an image\n"), 0o644)
	m := scripted.New("<code>\nfinal_answer('a pixel')\n</code>")
	code, stdout, stderr := runMain(t, m, nil, "--image", filepath.Join(dir, "pixel.png"), "--image", filepath.Join(dir, "pixel.png"), "what is it?")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	task := m.Calls()[0].Messages[1]
	if len(task.Images) != 2 || task.Images[0].MIMEType != "image/png" || !bytes.Equal(task.Images[1].Data, png) {
		t.Errorf("task images %+v", task.Images)
	}
	code, _, stderr = runMain(t, scripted.New(), nil, "--image", filepath.Join(dir, "notes.txt"), "t")
	if code != 2 || !strings.Contains(stderr, "notes.txt: the file holds text/plain; charset=utf-8, not a PNG") {
		t.Errorf("text file: exit %d, %s", code, stderr)
	}
	code, _, stderr = runMain(t, scripted.New(), nil, "--image", filepath.Join(dir, "missing.png"), "t")
	if code != 2 || !strings.Contains(stderr, "missing.png") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
}

func TestRunSavedAgent(t *testing.T) {
	a, err := starlarkagent.New(starlarkagent.Options{Model: scripted.New(), Tools: []tool.Tool{weather},
		Instructions: "Always answer in French.", ActionType: starlarkagent.ActionToolCalling})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := a.Save(dir); err != nil {
		t.Fatal(err)
	}
	a.Close()
	m := &scripted.Model{Responses: []scripted.Response{
		{ToolCalls: []providers.ToolCall{{ID: "b", Name: "final_answer", Arguments: []byte(`{"answer":"ensoleillé"}`)}}},
	}}
	code, stdout, stderr := runMain(t, m, []tool.Tool{weather}, "--agent", dir, "weather?")
	if code != 0 || !strings.Contains(stdout, "ensoleillé") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if sys := m.Calls()[0].Messages[0].Content; !strings.Contains(sys, "Always answer in French.") || len(m.Calls()[0].Options.Tools) != 2 {
		t.Errorf("the saved agent was not used: %s", sys)
	}
	code, _, stderr = runMain(t, scripted.New(), nil, "--agent", dir, "weather?")
	if code != 2 || !strings.Contains(stderr, `uses tool "get_weather"`) {
		t.Errorf("without its tool: exit %d, %s", code, stderr)
	}
}

func TestRunStepTimeout(t *testing.T) {
	m := scripted.New("<code>\nimport time\ntime.sleep(20)\n</code>", "<code>\nfinal_answer('gave up')\n</code>")
	code, stdout, stderr := runMain(t, m, nil, "--step-timeout", "300ms", "--max-memory", "64MiB", "--max-output", "1000", "loop")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	msgs := m.Calls()[1].Messages
	if obs := msgs[len(msgs)-1].Content; !strings.Contains(obs, "300ms") {
		t.Errorf("the step limit did not apply:\n%s", obs)
	}
}

func TestStreamShowsTheClosingTag(t *testing.T) {
	for _, c := range []struct {
		flags []string
		model string
		want  string
	}{
		{nil, "Thought: go.\n<code>\nfinal_answer(3)\n</code>", "<code>\nfinal_answer(3)\n</code>\n"},
		{[]string{"--markdown"}, "Thought: go.\n```python\nfinal_answer(3)\n```", "```python\nfinal_answer(3)\n```\n"},
	} {
		m := scripted.New(c.model)
		code, stdout, stderr := runMain(t, m, nil, append(c.flags, "--stream", "t")...)
		if code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("%v: exit %d\n%s\n%s", c.flags, code, stdout, stderr)
		}
	}
}

func TestRunSavesObservationImages(t *testing.T) {
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
	shot := tool.MustNew("screenshot", "Takes a screenshot.", func(context.Context, struct{}) (map[string]any, error) {
		return starlarkagent.ImageValue(providers.Image{MIMEType: "image/png", Data: png}), nil
	})
	dir := filepath.Join(t.TempDir(), "images")
	m := scripted.New("<code>\nscreenshot()\n</code>", "<code>\nfinal_answer('seen')\n</code>")
	code, stdout, stderr := runMain(t, m, []tool.Tool{shot}, "--image-dir", dir, "look")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	want := filepath.Join(dir, "4b7e4a6b0c5a4e9e.png")
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("%d files in %s\n%s", len(entries), dir, stdout)
	}
	got := filepath.Join(dir, entries[0].Name())
	b, _ := os.ReadFile(got)
	if !bytes.Equal(b, png) || !strings.Contains(stdout, "Image (image/png, 68 bytes) saved to "+got+"\n") {
		t.Errorf("saved %s (want a name like %s):\n%s", got, want, stdout)
	}
	if obs := m.Calls()[1].Messages; len(obs[len(obs)-1].Images) != 1 {
		t.Errorf("the model did not get the image")
	}
}

// faithfulAnswer is a final answer JSON has no exact word for.
const faithfulAnswer = "Thought: answer.\n<code>\nfinal_answer((32.0, float('nan'), {2: 'b', 1: 'a'}, b'x', {3}, 2**60))\n</code>"

// faithfulJSON is faithfulAnswer in the JSON form of docs/json.md.
const faithfulJSON = `{"$tuple":[32.0,{"$float":"nan"},{"$dict":[[2,"b"],[1,"a"]]},{"$bytes":"eA=="},{"$set":[3]},{"$int":"1152921504606846976"}]}`

// TestRunResultKeepsValues: the library's RunResult holds the answer in
// pyvalue's types, writes it in the documented JSON form (a NaN answer
// used to make the result unwritable), and reads it back the same; run
// --json prints that form.
func TestRunResultKeepsValues(t *testing.T) {
	m := &scripted.Model{Responses: []scripted.Response{{Content: faithfulAnswer}}}
	agent, err := starlarkagent.New(starlarkagent.Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	res, err := agent.Run(context.Background(), "answer", starlarkagent.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tu, ok := res.Output.(pyvalue.Tuple)
	if !ok || len(tu) != 6 {
		t.Fatalf("Output %#v, want a pyvalue.Tuple of 6", res.Output)
	}
	if f, ok := tu[0].(float64); !ok || f != 32 {
		t.Errorf("32.0 is %#v", tu[0])
	}
	if got := pyvalue.Repr(res.Output); got != "(32.0, nan, {2: 'b', 1: 'a'}, b'x', {3}, 1152921504606846976)" {
		t.Errorf("repr %s", got)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("RunResult as JSON: %v", err)
	}
	if !strings.Contains(string(data), `"output":`+faithfulJSON+`,"repr":"(32.0, nan, {2: 'b', 1: 'a'}, b'x', {3}, 1152921504606846976)"`) {
		t.Errorf("RunResult JSON %s\nwant output %s and its repr", data, faithfulJSON)
	}
	var back starlarkagent.RunResult
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if got := pyvalue.Repr(back.Output); got != pyvalue.Repr(res.Output) {
		t.Errorf("read back as %s", got)
	}
	last, ok := back.Steps[len(back.Steps)-1].(*starlarkagent.FinalAnswerStep)
	if !ok || pyvalue.Repr(last.Output) != pyvalue.Repr(res.Output) {
		t.Errorf("final answer step read back as %#v", back.Steps[len(back.Steps)-1])
	}

	// The agent's memory (what Save writes) keeps the values too.
	mem, err := json.Marshal(agent.Memory())
	if err != nil {
		t.Fatalf("memory as JSON: %v", err)
	}
	if !strings.Contains(string(mem), `"output":`+faithfulJSON) {
		t.Errorf("memory JSON %s\nwant output %s", mem, faithfulJSON)
	}
	var memBack starlarkagent.Memory
	if err := json.Unmarshal(mem, &memBack); err != nil {
		t.Fatal(err)
	}
	if steps := memBack.ActionSteps(); len(steps) == 0 || pyvalue.Repr(steps[len(steps)-1].Output) != pyvalue.Repr(res.Output) {
		t.Errorf("memory read back: %#v", memBack.Steps)
	}

	m = &scripted.Model{Responses: []scripted.Response{{Content: faithfulAnswer}}}
	code, stdout, stderr := runMain(t, m, nil, "--json", "answer")
	if code != 0 || !strings.Contains(stdout, `"output":`+faithfulJSON) {
		t.Errorf("run --json: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
