package docker_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	ctr "github.com/docker/docker/api/types/container"

	"github.com/star-agent/star-agent/executors/docker"
)

// childEnv makes the test binary a star-agent that starts a container,
// prints its ID and waits to be killed.
const childEnv = "STAR_AGENT_DOCKER_TEST_CHILD"

func orphanChild(img string) int {
	e, err := docker.New(docker.Options{Image: img, Labels: map[string]string{runLabel: os.Getenv("RUN_ID")}})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	res, err := e.Execute(context.Background(), "1")
	if err != nil || res.Err != nil {
		fmt.Println("error:", err, res.Err)
		return 1
	}
	fmt.Println(e.ContainerID())
	select {}
}

// When star-agent itself dies (SIGKILL, no Close), its container's stdin
// closes with the attachment, the runner exits, and what is left is a
// stopped container that carries the labels prune removes by.
func TestHostCrashLeavesOnlyLabelled(t *testing.T) {
	img := testImage(t)
	cli := engine(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+img, "RUN_ID="+runID)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	id := strings.TrimSpace(line)
	cmd.Process.Kill()
	cmd.Wait()
	if id == "" || strings.HasPrefix(id, "error") {
		t.Fatalf("child: %q", line)
	}
	t.Cleanup(func() { cli.ContainerRemove(context.Background(), id, ctr.RemoveOptions{Force: true}) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waitc, errc := cli.ContainerWait(ctx, id, ctr.WaitConditionNotRunning)
	select {
	case w := <-waitc:
		t.Logf("the orphaned runner exited with code %d", w.StatusCode)
	case err := <-errc:
		if cerrdefs.IsNotFound(err) {
			return // another star-agent on this host swept it (docker.Sweep)
		}
		t.Fatalf("the container of a killed star-agent is still running after 30 s: %v", err)
	}
	info, err := cli.ContainerInspect(context.Background(), id)
	if cerrdefs.IsNotFound(err) {
		return // swept
	}
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Labels[docker.LabelManaged] != "true" || info.Config.Labels[docker.LabelRole] != docker.RoleExecutor {
		t.Errorf("labels %v", info.Config.Labels)
	}
}
