package gemini

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"

	"github.com/star-agent/star-agent/providers"
)

// genai turns a request into maps and marshals them, which costs about
// 40 ms and 14 MB of garbage per megapixel of image (BenchmarkImageRequest).
// So an image's inlineData carries 12 placeholder bytes instead, and
// bodyTransport writes the image's base64 straight into the body as it
// is sent, in one pass. The placeholder is a 3-byte mark, a 6-byte nonce
// random per request, and the image's 3-byte index: its base64 is 16
// characters, the first 12 the same for every image of the request.

type imagesKey struct{}

// imageTable holds the images of one request.
type imageTable struct {
	head []byte // the 9 bytes before the index
	imgs []providers.Image
}

func (t *imageTable) empty() bool { return t == nil || len(t.imgs) == 0 }

// placeholder records img and returns the bytes standing for it.
func (t *imageTable) placeholder(img providers.Image) []byte {
	if t.head == nil {
		t.head = make([]byte, 9)
		copy(t.head, "\xf0SA")
		rand.Read(t.head[3:])
	}
	n := len(t.imgs)
	t.imgs = append(t.imgs, img)
	return append(bytes.Clone(t.head), byte(n>>16), byte(n>>8), byte(n))
}

// splice replaces each placeholder's quoted base64 in body by the
// image's.
func (t *imageTable) splice(body []byte) []byte {
	if t.empty() {
		return body
	}
	prefix := []byte(`"` + base64.StdEncoding.EncodeToString(t.head))
	size := len(body)
	for _, img := range t.imgs {
		size += base64.StdEncoding.EncodedLen(len(img.Data))
	}
	out := make([]byte, 0, size)
	for {
		i := bytes.Index(body, prefix)
		if i < 0 {
			break
		}
		rest := body[i+len(prefix):]
		var idx [3]byte
		if len(rest) < 5 || rest[4] != '"' {
			out = append(out, body[:i+len(prefix)]...)
			body = rest
			continue
		}
		if _, err := base64.StdEncoding.Decode(idx[:], rest[:4]); err != nil {
			out = append(out, body[:i+len(prefix)]...)
			body = rest
			continue
		}
		n := int(idx[0])<<16 | int(idx[1])<<8 | int(idx[2])
		if n >= len(t.imgs) {
			out = append(out, body[:i+len(prefix)]...)
			body = rest
			continue
		}
		out = append(out, body[:i+1]...)
		out = base64.StdEncoding.AppendEncode(out, t.imgs[n].Data)
		body = rest[4:] // from the closing quote
	}
	return append(out, body...)
}

// bodyTransport splices the images of the request's context into its
// body.
type bodyTransport struct {
	base http.RoundTripper
}

func (t *bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	images, _ := req.Context().Value(imagesKey{}).(*imageTable)
	if images.empty() || req.Body == nil || req.Body == http.NoBody {
		return base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	body = images.splice(body)
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return base.RoundTrip(req)
}

func withImages(ctx context.Context, images *imageTable) context.Context {
	if images.empty() {
		return ctx
	}
	return context.WithValue(ctx, imagesKey{}, images)
}
