package gemini

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/star-agent/star-agent/providers"
)

// The Gemini API gives function calls no ids (Vertex AI sometimes does),
// while providers.ToolCall pairs a call with its answer by id. Calls
// without an id get a synthesised one, syntheticPrefix followed by the
// call's position and a hash of its name and arguments, so the same
// response always gets the same ids (recordings replay). Synthesised ids
// are never sent to Gemini: a function response names its call by the
// function's name, and the responses of one turn go in the order of the
// calls.
const syntheticPrefix = "gemini_call_"

func syntheticID(i int, name string, args []byte) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(args)
	return fmt.Sprintf("%s%d_%08x", syntheticPrefix, i, h.Sum32())
}

// contents converts a conversation to Gemini's turns and system
// instruction. All system messages are joined into the system
// instruction; consecutive messages of one role are merged into one turn
// of several parts (tool results are user turns of functionResponse
// parts, in the order of the calls they answer). Images become inlineData
// parts after the text; images of an assistant message go in a user turn
// after it.
func contents(msgs []providers.Message, images *imageTable) ([]*genai.Content, []*genai.Part) {
	var system []*genai.Part
	var out []*genai.Content
	add := func(role string, parts ...*genai.Part) {
		if len(parts) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			return
		}
		out = append(out, &genai.Content{Role: role, Parts: parts})
	}
	// calls maps a call id to its function name and its position in the
	// model turn that made it.
	type callRef struct {
		name string
		pos  int
	}
	calls := map[string]callRef{}
	for i := 0; i < len(msgs); i++ {
		msg := msgs[i]
		switch msg.Role {
		case providers.RoleSystem:
			system = append(system, &genai.Part{Text: msg.Content})
			system = append(system, imageParts(msg.Images, images)...)
		case providers.RoleAssistant:
			var parts []*genai.Part
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				parts = append(parts, &genai.Part{Text: msg.Content})
			}
			for pos, c := range msg.ToolCalls {
				calls[c.ID] = callRef{c.Name, pos}
				fc := &genai.FunctionCall{Name: c.Name, Args: argsMap(c.Arguments)}
				if !strings.HasPrefix(c.ID, syntheticPrefix) {
					fc.ID = c.ID
				}
				parts = append(parts, &genai.Part{FunctionCall: fc, ThoughtSignature: c.Signature})
			}
			add(genai.RoleModel, parts...)
			add(genai.RoleUser, imageParts(msg.Images, images)...)
		case providers.RoleTool:
			// The whole run of tool messages is one turn.
			j := i
			for j < len(msgs) && msgs[j].Role == providers.RoleTool {
				j++
			}
			run := slices.Clone(msgs[i:j])
			slices.SortStableFunc(run, func(a, b providers.Message) int {
				return calls[a.ToolCallID].pos - calls[b.ToolCallID].pos
			})
			var parts, pics []*genai.Part
			for _, t := range run {
				ref, ok := calls[t.ToolCallID]
				name := ref.name
				if !ok {
					name = t.ToolCallID
				}
				fr := &genai.FunctionResponse{Name: name, Response: map[string]any{"output": t.Content}}
				if !strings.HasPrefix(t.ToolCallID, syntheticPrefix) {
					fr.ID = t.ToolCallID
				}
				parts = append(parts, &genai.Part{FunctionResponse: fr})
				pics = append(pics, imageParts(t.Images, images)...)
			}
			add(genai.RoleUser, append(parts, pics...)...)
			i = j - 1
		default:
			parts := []*genai.Part{{Text: msg.Content}}
			add(genai.RoleUser, append(parts, imageParts(msg.Images, images)...)...)
		}
	}
	return out, system
}

// imageParts are inlineData parts carrying placeholders recorded in
// images (see imageTable).
func imageParts(imgs []providers.Image, images *imageTable) []*genai.Part {
	var parts []*genai.Part
	for _, img := range imgs {
		parts = append(parts, &genai.Part{InlineData: &genai.Blob{MIMEType: img.MIMEType, Data: images.placeholder(img)}})
	}
	return parts
}

// argsMap decodes a call's arguments; arguments that are not an object
// (which only a broken model writes) are sent as {"value": ...}.
func argsMap(raw json.RawMessage) map[string]any {
	m := map[string]any{}
	if len(raw) == 0 {
		return m
	}
	if json.Unmarshal(raw, &m) != nil {
		var v any
		json.Unmarshal(raw, &v)
		return map[string]any{"value": v}
	}
	return m
}

// tools converts tool definitions to one Gemini tool of function
// declarations, whose parameters are JSON schemas as given.
func tools(defs []providers.ToolDefinition) []*genai.Tool {
	if len(defs) == 0 {
		return nil
	}
	t := &genai.Tool{}
	for _, d := range defs {
		fd := &genai.FunctionDeclaration{Name: d.Name, Description: d.Description}
		if d.Parameters != nil {
			fd.ParametersJsonSchema = d.Parameters
		}
		t.FunctionDeclarations = append(t.FunctionDeclarations, fd)
	}
	return []*genai.Tool{t}
}

// toolConfig converts GenerateOptions.ToolChoice to function-calling
// modes: "required" is ANY, "none" NONE, a tool's name ANY restricted to
// it; "" and "auto" leave the default (AUTO).
func toolConfig(choice string) *genai.ToolConfig {
	var fc *genai.FunctionCallingConfig
	switch choice {
	case "", "auto":
		return nil
	case "required":
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}
	case "none":
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}
	default:
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{choice}}
	}
	return &genai.ToolConfig{FunctionCallingConfig: fc}
}

// functionCalls returns the calls among parts as tool calls; first is the
// position of the first, for synthesised ids when a stream brings calls
// in several chunks.
func functionCalls(parts []*genai.Part, first int) []providers.ToolCall {
	var out []providers.ToolCall
	for _, p := range parts {
		fc := p.FunctionCall
		if fc == nil {
			continue
		}
		args, _ := json.Marshal(fc.Args)
		if fc.Args == nil {
			args = []byte("{}")
		}
		id := fc.ID
		if id == "" {
			id = syntheticID(first+len(out), fc.Name, args)
		}
		out = append(out, providers.ToolCall{ID: id, Name: fc.Name, Arguments: args, Signature: p.ThoughtSignature})
	}
	return out
}

// thinkingConfig maps a reasoning effort to Gemini's thinking settings:
// Gemini 2.5 models take a token budget (none and minimal: 0, low: 1024,
// medium: 8192, high: 24576, others: dynamic), later models a thinking
// level (LOW, MEDIUM, HIGH...).
func thinkingConfig(model, effort string) *genai.ThinkingConfig {
	if effort == "" {
		return nil
	}
	if strings.HasPrefix(model, "gemini-2.") {
		budget, ok := map[string]int32{"none": 0, "minimal": 0, "low": 1024, "medium": 8192, "high": 24576}[strings.ToLower(effort)]
		if !ok {
			budget = -1 // dynamic: the model decides
		}
		return &genai.ThinkingConfig{ThinkingBudget: &budget}
	}
	return &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevel(strings.ToUpper(effort))}
}
