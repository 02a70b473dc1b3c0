package openai

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/star-agent/star-agent/providers"
)

// bodyTransport finishes the JSON body go-openai wrote, just before it
// is sent (on every attempt, streaming or not):
//
//   - ExtraBody: go-openai's ChatCompletionRequest has a fixed set of
//     fields, and its own extra-body option works only for the request
//     types it builds as maps, so the fields travel in the request's
//     context and are merged here.
//   - Images: a data: URL is megabytes of base64, and go-openai marshals
//     each message with a MarshalJSON of its own, which encoding/json
//     then scans and compacts again: about 30 ms and 20 MB of garbage per
//     megapixel. So messages carry a short placeholder instead, and the
//     base64 is written once, here, straight into the body (base64 needs
//     no JSON escaping). BenchmarkImageEncoding measures it.
type bodyTransport struct {
	base http.RoundTripper
}

type bodyKey struct{}

// bodyParts are what bodyTransport adds to one call's request bodies.
type bodyParts struct {
	extra  map[string]any
	images *imageTable
}

// withBody returns ctx carrying the extra fields and images of a call.
func withBody(ctx context.Context, extra map[string]any, images *imageTable) context.Context {
	if len(extra) == 0 && images.empty() {
		return ctx
	}
	return context.WithValue(ctx, bodyKey{}, &bodyParts{extra: extra, images: images})
}

func (t *bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	parts, _ := req.Context().Value(bodyKey{}).(*bodyParts)
	if parts == nil || req.Body == nil || req.Body == http.NoBody {
		return base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(parts.extra) > 0 {
		if body, err = mergeBody(body, parts.extra); err != nil {
			return nil, err
		}
	}
	body = parts.images.splice(body)
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return base.RoundTrip(req)
}

// mergeBody sets extra's fields in the JSON object body, replacing fields
// of the same name.
func mergeBody(body []byte, extra map[string]any) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("extra body: the request body is not a JSON object: %w", err)
	}
	for k, v := range extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("extra body: field %q: %w", k, err)
		}
		obj[k] = b
	}
	return json.Marshal(obj)
}

// imageTable holds the images of one request, each standing in the
// messages as the URL "star-agent-image:NONCE:N", which splice replaces
// with its data: URL. The nonce is random per request, so no text a user
// or model wrote can match a placeholder.
type imageTable struct {
	prefix string // "star-agent-image:NONCE:"
	imgs   []providers.Image
}

func (t *imageTable) empty() bool { return t == nil || len(t.imgs) == 0 }

// placeholder records img and returns the URL standing for it.
func (t *imageTable) placeholder(img providers.Image) string {
	if t.prefix == "" {
		var b [8]byte
		rand.Read(b[:])
		t.prefix = "star-agent-image:" + hex.EncodeToString(b[:]) + ":"
	}
	t.imgs = append(t.imgs, img)
	return t.prefix + strconv.Itoa(len(t.imgs)-1)
}

// splice replaces every placeholder string in the JSON body by its data:
// URL, in one pass and one allocation.
func (t *imageTable) splice(body []byte) []byte {
	if t.empty() {
		return body
	}
	prefix := []byte(`"` + t.prefix)
	size := len(body)
	for _, img := range t.imgs {
		size += len("data:;base64,") + len(mimeType(img)) + base64.StdEncoding.EncodedLen(len(img.Data))
	}
	out := make([]byte, 0, size)
	for {
		i := bytes.Index(body, prefix)
		if i < 0 {
			break
		}
		rest := body[i+len(prefix):]
		end := bytes.IndexByte(rest, '"')
		n, err := strconv.Atoi(string(rest[:max(end, 0)]))
		if end < 0 || err != nil || n < 0 || n >= len(t.imgs) {
			// Not one of ours after all: copy it as it is.
			out = append(out, body[:i+len(prefix)]...)
			body = rest
			continue
		}
		img := t.imgs[n]
		out = append(out, body[:i+1]...) // up to and with the opening quote
		out = append(out, "data:"...)
		out = append(out, mimeType(img)...)
		out = append(out, ";base64,"...)
		out = base64.StdEncoding.AppendEncode(out, img.Data)
		body = rest[end:] // from the closing quote
	}
	return append(out, body...)
}

func mimeType(img providers.Image) string {
	if img.MIMEType == "" {
		return "image/png"
	}
	return img.MIMEType
}
