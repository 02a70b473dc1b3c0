package starlarkagent

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/star-agent/star-agent/providers"
)

// Images reach the model three ways: with the task (RunOptions.Images),
// returned by tools (an MCP image, a Go tool's image value), and as the
// value of the code (a full-Python sandbox's figure). A value is an image
// when it is the JSON-shaped map the MCP client makes of image content:
//
//	{"type": "image", "mime_type": "image/png", "data": "<base64>"}
//
// Such images found in a step's tool results and last value become the
// step's ObservationImages, sent with the observation; the text the model
// reads shows a short placeholder in their place.

// MaxImageBytes is the largest image the agent sends to a model.
const MaxImageBytes = 20 << 20

// maxObservationImages caps the images attached to one observation.
const maxObservationImages = 8

// imageMIME are the types every provider accepts.
var imageMIME = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// ImageValue returns the value a tool returns for an image, the shape the
// agent recognises in tool results and code values.
func ImageValue(img providers.Image) map[string]any {
	return map[string]any{"type": "image", "mime_type": img.MIMEType, "data": base64.StdEncoding.EncodeToString(img.Data)}
}

// checkImage fills in a missing MIME type from the bytes and refuses what
// a model cannot read.
func checkImage(img providers.Image) (providers.Image, error) {
	if len(img.Data) == 0 {
		return img, fmt.Errorf("image is empty")
	}
	if len(img.Data) > MaxImageBytes {
		return img, fmt.Errorf("image of %d bytes is larger than %d bytes: scale it down", len(img.Data), MaxImageBytes)
	}
	detected := http.DetectContentType(img.Data)
	if img.MIMEType == "" {
		img.MIMEType = detected
	}
	if !imageMIME[img.MIMEType] {
		return img, fmt.Errorf("image type %q is not PNG, JPEG, GIF or WebP", img.MIMEType)
	}
	if detected != img.MIMEType && detected != "application/octet-stream" {
		return img, fmt.Errorf("image said to be %s holds %s data", img.MIMEType, detected)
	}
	return img, nil
}

// asImage reports whether v is an image value, and decodes it.
func asImage(v any) (providers.Image, bool) {
	m, ok := v.(map[string]any)
	if !ok || m["type"] != "image" {
		return providers.Image{}, false
	}
	mime, _ := m["mime_type"].(string)
	data, _ := m["data"].(string)
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return providers.Image{}, false
	}
	img, err := checkImage(providers.Image{MIMEType: mime, Data: b})
	return img, err == nil
}

// collectImages appends the images in v (an image value, or lists and
// maps holding them) to out, skipping those already there.
func collectImages(out []providers.Image, v any) []providers.Image {
	if len(out) >= maxObservationImages {
		return out
	}
	if img, ok := asImage(v); ok {
		for _, o := range out {
			if bytes.Equal(o.Data, img.Data) {
				return out
			}
		}
		return append(out, img)
	}
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			out = collectImages(out, x)
		}
	case map[string]any:
		for _, x := range v {
			out = collectImages(out, x)
		}
	}
	return out
}

// describeImages returns v with each image value replaced by a short text,
// for the text the model reads (the image itself is attached).
func describeImages(v any) any {
	if img, ok := asImage(v); ok {
		return fmt.Sprintf("<%s image, %d bytes, attached>", img.MIMEType, len(img.Data))
	}
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = describeImages(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = describeImages(x)
		}
		return out
	}
	return v
}

// hasImage reports whether v holds an image value.
func hasImage(v any) bool { return len(collectImages(nil, v)) > 0 }

// imageStore keeps the bytes of a memory's images once, by content hash:
// in the JSON of a memory or a run result, every base64 "data" next to a
// "mime_type" (a providers.Image, an image value) is replaced by
// "data_sha256", and "images" maps each hash to the base64 bytes.
type imageStore map[string]string

// imageKey is the content hash naming an image in the store.
func imageKey(data []byte) string {
	h := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(h[:])
}

// pack replaces the image data in the JSON body by references.
func (s imageStore) pack(body []byte) ([]byte, error) {
	if !bytes.Contains(body, []byte(`"mime_type"`)) {
		return body, nil
	}
	v, err := decodeJSON(body)
	if err != nil {
		return nil, err
	}
	return marshal(s.packValue(v))
}

func (s imageStore) packValue(v any) any {
	switch v := v.(type) {
	case []any:
		for i, x := range v {
			v[i] = s.packValue(x)
		}
	case map[string]any:
		if _, ok := v["mime_type"].(string); ok {
			if data, ok := v["data"].(string); ok {
				if b, err := base64.StdEncoding.DecodeString(data); err == nil && len(b) > 0 {
					key := imageKey(b)
					s[key] = base64.StdEncoding.EncodeToString(b)
					delete(v, "data")
					v["data_sha256"] = key
					return v
				}
			}
		}
		for k, x := range v {
			v[k] = s.packValue(x)
		}
	}
	return v
}

// unpack puts the image data back into a JSON body.
func (s imageStore) unpack(body []byte) ([]byte, error) {
	if !bytes.Contains(body, []byte(`"data_sha256"`)) {
		return body, nil
	}
	v, err := decodeJSON(body)
	if err != nil {
		return nil, err
	}
	v, err = s.unpackValue(v)
	if err != nil {
		return nil, err
	}
	return marshal(v)
}

func (s imageStore) unpackValue(v any) (any, error) {
	var err error
	switch v := v.(type) {
	case []any:
		for i, x := range v {
			if v[i], err = s.unpackValue(x); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		if key, ok := v["data_sha256"].(string); ok {
			if _, ok := v["mime_type"].(string); ok {
				data, ok := s[key]
				if !ok {
					return nil, fmt.Errorf("image %s is not among the images", key)
				}
				delete(v, "data_sha256")
				v["data"] = data
				return v, nil
			}
		}
		for k, x := range v {
			if v[k], err = s.unpackValue(x); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
