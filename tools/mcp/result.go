package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/star-agent/star-agent/pyvalue"
)

// result turns a call's result into the value the code gets:
//
//   - isError: an *Error with the text of the content;
//   - a tool with an output schema: its structured content (dict, list,
//     ...), or the JSON its text holds if the server sent no structured
//     content;
//   - content that is all text: the parts joined with newlines, capped at
//     MaxResultBytes with a marker;
//   - otherwise one value per part, a list if there are several: text as
//     str, an image as {"type": "image", "mime_type": ..., "data": base64},
//     audio likewise, an embedded resource as its text or {"type":
//     "resource", "uri": ..., "mime_type": ..., "data": base64}, a
//     resource link as {"type": "resource_link", "uri": ..., "name": ...}.
func (t *Tool) result(res *sdk.CallToolResult) (any, error) {
	opts := t.srv.opts
	if res.IsError {
		msg := strings.TrimSpace(capText(joinText(res.Content), 4096))
		if msg == "" {
			msg = fmt.Sprintf("%s failed without saying why", t.spec.Name)
		}
		return nil, &Error{Server: t.srv.Name(), Tool: t.mcpName, Message: msg}
	}
	if t.structured {
		if res.StructuredContent != nil {
			return jsonValue(res.StructuredContent, opts.maxResult())
		}
		if text := joinText(res.Content); strings.TrimSpace(text) != "" && allText(res.Content) {
			if v, err := jsonValue(json.RawMessage(text), opts.maxResult()); err == nil {
				return v, nil
			}
		}
	}
	if allText(res.Content) {
		return capText(joinText(res.Content), opts.maxResult()), nil
	}
	parts := make([]any, 0, len(res.Content))
	budget := opts.maxResult()
	for _, c := range res.Content {
		var v any
		switch c := c.(type) {
		case *sdk.TextContent:
			s := capText(c.Text, max(budget, 0))
			budget -= len(s)
			v = s
		case *sdk.ImageContent:
			v = media("image", c.MIMEType, c.Data, opts.maxImage())
		case *sdk.AudioContent:
			v = media("audio", c.MIMEType, c.Data, opts.maxImage())
		case *sdk.EmbeddedResource:
			r := c.Resource
			if r == nil {
				continue
			}
			if r.Blob == nil {
				s := capText(r.Text, max(budget, 0))
				budget -= len(s)
				v = s
				break
			}
			m := media("resource", r.MIMEType, r.Blob, opts.maxImage())
			m["uri"] = r.URI
			v = m
		case *sdk.ResourceLink:
			m := map[string]any{"type": "resource_link", "uri": c.URI, "name": c.Name}
			if c.MIMEType != "" {
				m["mime_type"] = c.MIMEType
			}
			if c.Description != "" {
				m["description"] = trimRunes(c.Description, maxInputDescription)
			}
			v = m
		default:
			continue
		}
		parts = append(parts, v)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return parts, nil
}

func allText(cs []sdk.Content) bool {
	for _, c := range cs {
		switch c := c.(type) {
		case *sdk.TextContent:
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Blob != nil {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// joinText joins the text parts (and text resources) with newlines.
func joinText(cs []sdk.Content) string {
	var parts []string
	for _, c := range cs {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Blob == nil {
				parts = append(parts, c.Resource.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// capText cuts s to at most n bytes (at a rune boundary) and says so.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[... MCP result truncated: %d bytes, %d shown]", len(s), cut)
}

// media is an image, audio or binary resource part, its data encoded in
// base64 (the SDK hands it over decoded). A part over the cap keeps its
// type and size but not its data.
func media(kind, mime string, data []byte, maxBytes int) map[string]any {
	m := map[string]any{"type": kind, "mime_type": mime}
	if n := base64.StdEncoding.EncodedLen(len(data)); n > maxBytes {
		m["data"] = nil
		m["omitted"] = fmt.Sprintf("%d bytes of base64 data left out (over the %d-byte cap)", n, maxBytes)
		return m
	}
	m["data"] = base64.StdEncoding.EncodeToString(data)
	return m
}

// jsonValue converts structured content to the JSON-shaped values tools
// return (integers as int64), refusing values over the cap.
func jsonValue(v any, maxBytes int) (any, error) {
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("structured result cannot be encoded: %v", err)
		}
	}
	if len(b) > maxBytes {
		return nil, fmt.Errorf("structured result too large (%d bytes of JSON, the cap is %d): ask the tool for less (a filter, a page, a limit)", len(b), maxBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("structured result is not JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("structured result is not one JSON value")
	}
	return pyvalue.Numbers(out), nil
}
