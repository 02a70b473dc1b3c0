package serve

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// needSandboxImage skips the test without Docker and the sandbox image
// (fails under CI=true, where .ci/run builds it).
func needSandboxImage(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("docker", "image", "inspect", "--format", "{{.Id}}", "star-agent/python:latest").CombinedOutput(); err != nil {
		msg := fmt.Sprintf("needs Docker and star-agent/python:latest (star-agent sandbox image build): %v %s", err, out)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// containers lists the IDs of the containers, running or not, that carry
// a label (KEY=VALUE).
func containers(t *testing.T, label string) []string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-a", "-q", "--no-trunc", "--filter", "label="+label).CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v %s", err, out)
	}
	return strings.Fields(string(out))
}

// exists reports whether a container is there, running or not.
func exists(t *testing.T, id string) bool {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-a", "-q", "--no-trunc", "--filter", "id="+id).CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v %s", err, out)
	}
	return strings.TrimSpace(string(out)) != ""
}

// TestSweepDeadReplicaContainers: two replicas with --executor docker on
// one PostgreSQL. A container labelled with a replica that never had a
// heartbeat is removed; the container of a run on A stays while A lives;
// after kill -9 of A mid-run, B takes the run over and removes A's
// container, although B's once-per-process sweep of this host's dead
// processes ran before A died.
func TestSweepDeadReplicaContainers(t *testing.T) {
	needSandboxImage(t)
	db := startPostgres(t)
	model := newPositionModel(t, twoStepAnswers...)
	var armed atomic.Bool
	asked := make(chan struct{}, 1)
	model.hold[1] = func(ctx context.Context, _ int) {
		if armed.CompareAndSwap(true, false) {
			asked <- struct{}{}
			<-ctx.Done() // the replica dies meanwhile
		}
	}
	test := fmt.Sprintf("io.star-agent.test=%d", time.Now().UnixNano())
	var id string
	t.Cleanup(func() {
		for _, l := range []string{test, LabelRun + "=" + id} {
			if ids := containers(t, l); len(ids) > 0 {
				exec.Command("docker", append([]string{"rm", "-f"}, ids...)...).Run()
			}
		}
	})
	// A container of a replica that is gone (no heartbeat ever), as a
	// pool's would be: no run label.
	out, err := exec.Command("docker", "run", "-d", "--network", "none", "--label", "io.star-agent.managed=true", "--label", "io.star-agent.role=executor",
		"--label", "io.star-agent.replica=gone/1/00000000", "--label", test, "--entrypoint", "sleep", "star-agent/python:latest", "600").CombinedOutput()
	if err != nil {
		t.Fatalf("docker run: %v %s", err, out)
	}
	dead := strings.TrimSpace(string(out))

	docker := []string{"--engine", "python", "--executor", "docker"}
	a := startReplica(t, "A", db, model, docker...)
	b := startReplica(t, "B", db, model, docker...)
	// B starts a container first: its sweep of this host's dead
	// processes (once per process) is over before A dies.
	if r := b.waitFinal(b.start("Warm up."), 60*time.Second); r.State != StateSuccess {
		t.Fatalf("warm-up run on B: %+v", r)
	}
	armed.Store(true)
	id = a.start("Compute.")
	select {
	case <-asked:
	case <-time.After(60 * time.Second):
		t.Fatal("step 2 never asked the model")
	}
	mine := containers(t, LabelRun+"="+id)
	if len(mine) != 1 {
		t.Fatalf("containers of run %s on A: %v", id, mine)
	}
	// Several sweeps (every --lease, 2 s) while A lives.
	deadline := time.Now().Add(30 * time.Second)
	for exists(t, dead) {
		if time.Now().After(deadline) {
			t.Fatal("the container of a replica that is gone was not removed within 30 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(5 * time.Second)
	if !exists(t, mine[0]) {
		t.Fatal("the container of a run on a live replica was removed")
	}

	killed := time.Now()
	a.cmd.Process.Kill()
	for deadline := killed.Add(60 * time.Second); exists(t, mine[0]); {
		if time.Now().After(deadline) {
			t.Fatal("A's container still there 60 s after A was killed")
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("kill -9 of A to the removal of its container: %s", time.Since(killed).Round(10*time.Millisecond))
	if r := b.waitFinal(id, 60*time.Second); r.State != StateSuccess || fmt.Sprint(r.Output) != "43" {
		t.Fatalf("after kill -9: %+v", r)
	}
}
