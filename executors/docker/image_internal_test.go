package docker

import (
	"strings"
	"testing"
)

// The default image's absence names the build command even where the
// image exists (the engine tests only see that case without it).
func TestMissingImageTexts(t *testing.T) {
	for _, c := range []struct {
		image string
		want  []string
		not   string
	}{
		{DefaultImage, []string{"star-agent/python:latest is not in the Docker engine", "build it with `star-agent sandbox image build`"}, "--docker-image"},
		{"python:3.12-slim", []string{"python:3.12-slim is not in the Docker engine", "never pulls", "`star-agent sandbox image build`", "--docker-image"}, ""},
	} {
		msg := missingImage(c.image).Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", c.image, msg, w)
			}
		}
		if c.not != "" && strings.Contains(msg, c.not) {
			t.Errorf("%s: %q says %q", c.image, msg, c.not)
		}
	}
}
