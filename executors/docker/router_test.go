package docker_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors/router"
)

// With --engine auto, code that imports a module only CPython has goes to
// the container; variables cross both ways; a value that cannot leave
// CPython keeps later steps that use it there.
func TestRouterAuto(t *testing.T) {
	img := testImage(t)
	e, err := router.Open(router.Config{Executor: "docker", Imports: []string{"difflib", "array"},
		Docker: router.DockerConfig{Image: img, Labels: map[string]string{runLabel: runID}}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	}()
	res := ok(t, e, "words = ['kitten', 'sitting']\nn = len(words)")
	if res.Engine != "starlark" {
		t.Errorf("plain code ran in %s", res.Engine)
	}
	res = ok(t, e, "from difflib import SequenceMatcher\nimport array\nratio = round(SequenceMatcher(None, *words).ratio(), 3)\nbuf = array.array('i', [1, 2])\nratio")
	if res.Engine != "python:docker" || res.Value != 0.615 {
		t.Errorf("difflib step: engine %s value %#v", res.Engine, res.Value)
	}
	res = ok(t, e, "[ratio * 2, n]")
	if res.Engine != "starlark" || !reflect.DeepEqual(res.Value, []any{1.23, int64(2)}) {
		t.Errorf("back in Starlark: engine %s value %#v notes %q", res.Engine, res.Value, res.Notes)
	}
	res = ok(t, e, "buf.tolist()")
	if res.Engine != "python:docker" || !reflect.DeepEqual(res.Value, []any{int64(1), int64(2)}) || !strings.Contains(strings.Join(res.Notes, " "), "buf") {
		t.Errorf("python-only value: engine %s value %#v notes %q", res.Engine, res.Value, res.Notes)
	}
}

// An image that is missing fails router.Open, before any model call.
func TestRouterOpenChecksImage(t *testing.T) {
	engine(t)
	_, err := router.Open(router.Config{Executor: "docker", Docker: router.DockerConfig{Image: "star-agent/no-such-image:" + runID}})
	if err == nil || !strings.Contains(err.Error(), "--executor docker: the image") {
		t.Errorf("Open with a missing image: %v", err)
	}
}
