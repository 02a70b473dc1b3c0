package docker_test

import (
	"context"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors/docker"
)

func TestSmoke(t *testing.T) {
	e := newExec(t, docker.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.Execute(ctx, "import sys\nprint(sys.version)\n1+1")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
}
