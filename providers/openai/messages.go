package openai

import (
	"encoding/json"
	"strconv"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/star-agent/star-agent/providers"
)

// messages converts a conversation to Chat Completions messages.
//
// Images of a user message become image_url content parts with data:
// URLs after its text. Chat Completions accepts images only in user
// messages, so the images of any other message (a tool result's, an
// observation written as an assistant turn) follow it as a user message
// of their own; after tool messages, that message comes once the whole
// run of tool messages is over, since they must directly follow the
// assistant message whose calls they answer.
//
// Each image stands as a placeholder URL recorded in images (see
// imageTable), replaced by its data: URL as the body is sent.
func messages(msgs []providers.Message, images *imageTable) []goopenai.ChatCompletionMessage {
	out := make([]goopenai.ChatCompletionMessage, 0, len(msgs))
	var pending []providers.Image // images waiting for the end of a run of tool messages
	flush := func() {
		if len(pending) > 0 {
			out = append(out, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleUser,
				MultiContent: imageParts("Images from the tool results above:", pending, images)})
			pending = nil
		}
	}
	for _, msg := range msgs {
		if msg.Role != providers.RoleTool {
			flush()
		}
		m := goopenai.ChatCompletionMessage{Role: string(msg.Role), Content: msg.Content}
		switch {
		case msg.Role == providers.RoleTool:
			m.ToolCallID = msg.ToolCallID
			pending = append(pending, msg.Images...)
		case len(msg.Images) > 0 && msg.Role == providers.RoleUser:
			m.Content, m.MultiContent = "", imageParts(msg.Content, msg.Images, images)
		}
		for _, c := range msg.ToolCalls {
			args := string(c.Arguments)
			if args == "" {
				args = "{}"
			}
			m.ToolCalls = append(m.ToolCalls, goopenai.ToolCall{ID: c.ID, Type: goopenai.ToolTypeFunction,
				Function: goopenai.FunctionCall{Name: c.Name, Arguments: args}})
		}
		out = append(out, m)
		if len(msg.Images) > 0 && msg.Role != providers.RoleUser && msg.Role != providers.RoleTool {
			out = append(out, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleUser,
				MultiContent: imageParts("Images from the message above:", msg.Images, images)})
		}
	}
	flush()
	return out
}

// imageParts is text followed by one image_url part per image.
func imageParts(text string, imgs []providers.Image, images *imageTable) []goopenai.ChatMessagePart {
	parts := make([]goopenai.ChatMessagePart, 0, len(imgs)+1)
	if text != "" {
		parts = append(parts, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeText, Text: text})
	}
	for _, img := range imgs {
		parts = append(parts, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeImageURL,
			ImageURL: &goopenai.ChatMessageImageURL{URL: images.placeholder(img)}})
	}
	return parts
}

// tools converts tool definitions to Chat Completions function tools.
func tools(defs []providers.ToolDefinition) []goopenai.Tool {
	out := make([]goopenai.Tool, len(defs))
	for i, d := range defs {
		params := d.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		out[i] = goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
			Name: d.Name, Description: d.Description, Parameters: params}}
	}
	return out
}

// toolChoice converts GenerateOptions.ToolChoice: "", "auto", "required"
// and "none" are passed as they are; any other value names the one tool
// the model must call.
func toolChoice(c string) any {
	switch c {
	case "":
		return nil
	case "auto", "required", "none":
		return c
	}
	return goopenai.ToolChoice{Type: goopenai.ToolTypeFunction, Function: goopenai.ToolFunction{Name: c}}
}

// toolCalls converts the tool calls of a response. Arguments that are not
// a JSON value (a model's broken output) are kept as a JSON string, so
// the caller can show the model what it wrote; empty arguments are {}.
func toolCalls(calls []goopenai.ToolCall) []providers.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]providers.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = providers.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: arguments(c.Function.Arguments)}
		if out[i].ID == "" {
			// Some compatible servers give no ids; a tool message still
			// needs one to answer.
			out[i].ID = "call_" + strconv.Itoa(i)
		}
	}
	return out
}

func arguments(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if !json.Valid([]byte(s)) {
		b, _ := json.Marshal(s)
		return b
	}
	return json.RawMessage(s)
}

// toolCallAccumulator assembles streamed tool calls: the first delta of a
// call carries its index, id, type and name; later ones carry the same
// index and more of the arguments.
type toolCallAccumulator struct {
	calls []goopenai.ToolCall
	index map[int]int // stream index → position in calls
}

func (a *toolCallAccumulator) add(deltas []goopenai.ToolCall) {
	for _, d := range deltas {
		idx := len(a.calls)
		if d.Index != nil {
			idx = *d.Index
		}
		if a.index == nil {
			a.index = map[int]int{}
		}
		pos, ok := a.index[idx]
		if !ok {
			pos = len(a.calls)
			a.index[idx] = pos
			a.calls = append(a.calls, goopenai.ToolCall{Type: goopenai.ToolTypeFunction})
		}
		c := &a.calls[pos]
		if d.ID != "" {
			c.ID = d.ID
		}
		if d.Function.Name != c.Function.Name {
			// OpenAI names a call in its first delta only; a few servers
			// repeat the name in every delta.
			c.Function.Name += d.Function.Name
		}
		c.Function.Arguments += d.Function.Arguments
	}
}
