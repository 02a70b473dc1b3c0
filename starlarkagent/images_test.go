package starlarkagent

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/tools/mcp/mcptest"
)

// pngPixel is a 1x1 PNG, the image mcptest's pixel tool returns.
var pngPixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

func TestTaskImages(t *testing.T) {
	m := scripted.New("<code>\nfinal_answer('a pixel')\n</code>")
	a, err := New(Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// The MIME type is detected when missing.
	if _, err := a.Run(context.Background(), "what is this?", RunOptions{Images: []providers.Image{{Data: pngPixel}}}); err != nil {
		t.Fatal(err)
	}
	task := m.Calls()[0].Messages[1]
	if len(task.Images) != 1 || task.Images[0].MIMEType != "image/png" || !bytes.Equal(task.Images[0].Data, pngPixel) {
		t.Errorf("task message images %+v", task.Images)
	}
	for _, c := range []struct {
		img  providers.Image
		want string
	}{
		{providers.Image{MIMEType: "image/tiff", Data: pngPixel}, `"image/tiff" is not PNG, JPEG, GIF or WebP`},
		{providers.Image{MIMEType: "image/jpeg", Data: pngPixel}, "said to be image/jpeg holds image/png data"},
		{providers.Image{Data: []byte("#!/bin/sh\necho hi\n")}, "is not PNG"},
		{providers.Image{MIMEType: "image/png"}, "image is empty"},
		{providers.Image{MIMEType: "image/png", Data: make([]byte, MaxImageBytes+1)}, "larger than"},
	} {
		res, err := a.Run(context.Background(), "what is this?", RunOptions{Images: []providers.Image{c.img}})
		if err == nil || !strings.Contains(err.Error(), c.want) || res.State != StateError {
			t.Errorf("image %s of %d bytes: err %v, want %q", c.img.MIMEType, len(c.img.Data), err, c.want)
		}
	}
	if n := len(m.Calls()); n != 1 {
		t.Errorf("the model was called %d times; refused images must not reach it", n)
	}
}

func TestToolCallingMCPImage(t *testing.T) {
	tools := mcpTools(t, mcptest.Options{Only: []string{"pixel", "captioned"}})
	m := &scripted.Model{Responses: []scripted.Response{
		{ToolCalls: []providers.ToolCall{call("p", "pixel", `{}`), call("c", "captioned", `{}`)}},
		{ToolCalls: []providers.ToolCall{call("f", "final_answer", `{"answer": "one pixel"}`)}},
	}}
	a, err := New(Options{Model: m, ActionType: ActionToolCalling, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "look", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	msgs := m.Calls()[1].Messages
	tail := msgs[len(msgs)-3:]
	if tail[0].Role != providers.RoleTool || tail[0].Content != "<image/png image, 68 bytes, attached>" {
		t.Errorf("pixel answered %q", tail[0].Content)
	}
	if strings.Contains(tail[1].Content, "iVBOR") {
		t.Errorf("the base64 of the image reached the text: %q", tail[1].Content)
	}
	// Both calls return the same pixel: attached once.
	if img := tail[2]; img.Role != providers.RoleUser || len(img.Images) != 1 || !bytes.Equal(img.Images[0].Data, pngPixel) {
		t.Errorf("image message %+v", img)
	}
}

func TestCodeAgentMCPImage(t *testing.T) {
	tools := mcpTools(t, mcptest.Options{Only: []string{"pixel"}})
	m := scripted.New("<code>\nimg = pixel()\nimg\n</code>", "<code>\nfinal_answer('seen')\n</code>")
	a, err := New(Options{Model: m, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Run(context.Background(), "look", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	obs := lastMessage(t, m, 1)
	if len(obs.Images) != 1 || obs.Images[0].MIMEType != "image/png" || !bytes.Equal(obs.Images[0].Data, pngPixel) {
		t.Errorf("observation images %+v", obs.Images)
	}
	if strings.Contains(obs.Content, "iVBOR") || !strings.Contains(obs.Content, "<image/png image, 68 bytes, attached>") {
		t.Errorf("observation text %q", obs.Content)
	}
}

func TestMemoryJSONStoresImagesOnce(t *testing.T) {
	big := append(bytes.Clone(pngPixel), bytes.Repeat([]byte{0}, 3000)...)
	mem := &Memory{System: SystemPromptStep{SystemPrompt: "sys"}, Steps: []Step{
		&TaskStep{Task: "look", Images: []providers.Image{{MIMEType: "image/png", Data: big}}},
		&ActionStep{Number: 1, ModelInput: []providers.Message{{Role: providers.RoleUser, Content: "look", Images: []providers.Image{{MIMEType: "image/png", Data: big}}}},
			ObservationImages: []providers.Image{{MIMEType: "image/png", Data: big}},
			ToolCalls:         []ToolCall{{Name: "pixel", Result: map[string]any{"type": "image", "mime_type": "image/png", "data": base64.StdEncoding.EncodeToString(big)}}}},
	}}
	b, err := json.Marshal(mem)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.StdEncoding.EncodeToString(big)
	if n := strings.Count(string(b), enc); n != 1 {
		t.Fatalf("the image's bytes are in the JSON %d times, want 1:\n%s", n, b)
	}
	if !strings.Contains(string(b), `"data_sha256":"sha256:`) {
		t.Errorf("no reference by hash:\n%s", b)
	}
	var back Memory
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	task := back.Steps[0].(*TaskStep)
	act := back.Steps[1].(*ActionStep)
	if !bytes.Equal(task.Images[0].Data, big) || !bytes.Equal(act.ModelInput[0].Images[0].Data, big) || !bytes.Equal(act.ObservationImages[0].Data, big) {
		t.Errorf("images changed through JSON")
	}
	if img, ok := asImage(act.ToolCalls[0].Result); !ok || !bytes.Equal(img.Data, big) {
		t.Errorf("tool result image changed through JSON: %v", act.ToolCalls[0].Result)
	}
	// A reference to an image the file lacks is an error, not a silent loss.
	broken := strings.Replace(string(b), `"images":{"sha256:`, `"images":{"sha256:0`, 1)
	if err := json.Unmarshal([]byte(broken), &back); err == nil || !strings.Contains(err.Error(), "is not among the images") {
		t.Errorf("missing image: err %v", err)
	}
	// The run result's JSON does the same.
	res := &RunResult{State: StateSuccess, Steps: mem.Steps}
	rb, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var rback RunResult
	if err := json.Unmarshal(rb, &rback); err != nil || strings.Count(string(rb), enc) != 1 {
		t.Errorf("run result: %v, %d copies", err, strings.Count(string(rb), enc))
	}
}
