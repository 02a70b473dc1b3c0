package starlarkagent

import (
	"context"
	"slices"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tool"
)

func TestSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tracer := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("test")
	sub := scripted.New(action("sub", "final fine"))
	helper, _ := newTestAgent(t, sub, Options{Name: "helper", Description: "Helps.", Tracer: tracer})
	m := &scripted.Model{ID: "gpt-test", Responses: []scripted.Response{
		{Content: action("a", "call echo fail"), Usage: &providers.Usage{InputTokens: 7, OutputTokens: 3}},
		{Content: action("b", "call helper go\nfinal done")},
	}}
	a, _ := newTestAgent(t, m, Options{Tracer: tracer, Tools: []tool.Tool{echoTool{}}, ManagedAgents: []*Agent{helper}})
	if _, err := a.Run(context.Background(), "t", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		names = append(names, s.Name())
		if _, ok := byName[s.Name()]; !ok {
			byName[s.Name()] = s
		}
	}
	for _, want := range []string{"invoke_agent agent", "invoke_agent helper", "chat gpt-test", "chat scripted", "execute_tool echo", "execute_tool helper", "execute_code"} {
		if !slices.Contains(names, want) {
			t.Errorf("no span %q in %q", want, names)
		}
	}
	attrs := func(s sdktrace.ReadOnlySpan) map[string]any {
		m := map[string]any{}
		for _, kv := range s.Attributes() {
			m[string(kv.Key)] = kv.Value.AsInterface()
		}
		return m
	}
	chat := attrs(byName["chat gpt-test"])
	if chat["gen_ai.request.model"] != "gpt-test" || chat["gen_ai.usage.input_tokens"] != int64(7) || chat["gen_ai.usage.output_tokens"] != int64(3) || chat["gen_ai.operation.name"] != "chat" {
		t.Errorf("chat span attributes %v", chat)
	}
	echo := attrs(byName["execute_tool echo"])
	if echo["gen_ai.tool.name"] != "echo" || echo["error.type"] == nil {
		t.Errorf("tool span attributes %v", echo)
	}
	code := attrs(byName["execute_code"])
	if code["error.type"] != "ToolError" {
		t.Errorf("code span attributes %v", code)
	}
	// The managed agent's run is nested in the manager's tool call.
	h, call := byName["invoke_agent helper"], byName["execute_tool helper"]
	if h.Parent().SpanID() != call.SpanContext().SpanID() {
		t.Errorf("invoke_agent helper is not a child of execute_tool helper")
	}
	root := attrs(byName["invoke_agent agent"])
	if root["gen_ai.agent.name"] != "agent" || root["gen_ai.usage.input_tokens"].(int64) < 7 {
		t.Errorf("agent span attributes %v", root)
	}
}
