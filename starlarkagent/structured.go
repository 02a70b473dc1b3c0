package starlarkagent

import (
	"encoding/json"
	"strings"

	"github.com/star-agent/star-agent/providers"
)

// With Options.StructuredOutputs the code agent asks for an answer that is
// the JSON object {"thought": ..., "code": ...} (the provider enforces the
// schema where it supports response_format or responseSchema) and reads the
// code from it. An answer that is not such an object is parsed as usual,
// code block tags and all, so a provider that ignores the schema still
// works.

// thoughtCodeSchema is the schema of a structured answer.
var thoughtCodeSchema = &providers.ResponseSchema{
	Name: "thought_and_code",
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"thought": map[string]any{"type": "string", "description": "Your reasoning for this step."},
			"code":    map[string]any{"type": "string", "description": "The Python code to run in this step."},
		},
		"required":             []string{"thought", "code"},
		"additionalProperties": false,
	},
}

// parseStructured reads a structured answer: the JSON object, possibly in
// a markdown json fence, with a non-empty "code" string.
func parseStructured(out string) (thought, code string, ok bool) {
	t := strings.TrimSpace(out)
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```json")
		t = strings.TrimPrefix(t, "```")
		t = strings.TrimSuffix(strings.TrimSpace(t), "```")
		t = strings.TrimSpace(t)
	}
	if !strings.HasPrefix(t, "{") {
		return "", "", false
	}
	var v struct {
		Thought *string `json:"thought"`
		Code    *string `json:"code"`
	}
	if err := json.Unmarshal([]byte(t), &v); err != nil || v.Code == nil || strings.TrimSpace(*v.Code) == "" {
		return "", "", false
	}
	if v.Thought != nil {
		thought = *v.Thought
	}
	return thought, strings.TrimSpace(unfence(*v.Code)), true
}
