package docker_test

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"testing"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/docker"
)

// A matplotlib figure or a PIL image as the value of an action comes back
// as an image value ({"type": "image", "mime_type": "image/png", "data":
// base64}), which the agent shows a vision model.
func TestFiguresAndImagesComeBackAsPNG(t *testing.T) {
	e := newExec(t, docker.Options{Image: dataImage(t)})
	for _, code := range []string{
		"import matplotlib.pyplot as plt\nfig, ax = plt.subplots(figsize=(2, 2))\nax.plot([1, 2, 3], [1, 4, 9])\nfig",
		"ax",
		"from PIL import Image\nImage.new('RGB', (8, 8), (255, 0, 0))",
	} {
		res := ok(t, e, code)
		v, _ := res.Value.(map[string]any)
		if v["type"] != "image" || v["mime_type"] != "image/png" {
			t.Fatalf("%q: value %#v", code, res.Value)
		}
		data, err := base64.StdEncoding.DecodeString(v["data"].(string))
		if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%q: not a PNG (%v)", code, err)
		}
	}
	// Other values are untouched.
	if res := ok(t, e, "[1, 2]"); len(res.Value.([]any)) != 2 {
		t.Errorf("a list: %#v", res.Value)
	}
}

// NumPy scalars (what arr.sum() and arr.mean() give) cross as numbers.
func TestNumpyScalarsAreNumbers(t *testing.T) {
	e := newExec(t, docker.Options{Image: dataImage(t)})
	res := ok(t, e, "import numpy as np\na = np.arange(4)\n[a.sum(), a.mean(), np.float32(0.5), np.bool_(True), a.max() > 2]")
	want := []any{int64(6), 1.5, 0.5, true, true}
	if !reflect.DeepEqual(res.Value, want) {
		t.Errorf("got %#v, want %#v", res.Value, want)
	}
}

// A process the code forks inherits the runner's channel; when it reaches
// the end of the step it must end silently rather than answer for the
// runner (which broke the protocol and lost the parent's output).
func TestForkedChildrenDoNotSpeak(t *testing.T) {
	e := newExec(t, docker.Options{Image: testImage(t), Imports: executors.NewImportPolicy([]string{"os"}, nil)})
	res := ok(t, e, "import os\npid = os.fork()\nif pid == 0:\n    print('child')\nelse:\n    os.waitpid(pid, 0)\n    print('parent')")
	if res.Stdout != "parent\n" {
		t.Errorf("stdout %q, want the parent's output alone", res.Stdout)
	}
	if res := ok(t, e, "pid > 0"); res.Value != true {
		t.Errorf("the next step: %#v", res.Value)
	}
}
