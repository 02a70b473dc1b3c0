package docker_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	ctr "github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/docker"
)

// poolLabel marks the containers of one pool test, so that it counts only
// its own.
const poolLabel = "io.star-agent.test-pool"

func newPool(t *testing.T, size int, opts docker.Options) *docker.Pool {
	t.Helper()
	p, err := docker.NewPool(docker.PoolOptions{Size: size, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("pool Close: %v", err)
		}
	})
	return p
}

// waitIdle waits until the pool holds n started containers.
func waitIdle(t *testing.T, p *docker.Pool, n int) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); p.Stats().Idle < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the pool holds %d containers after 60 s, want %d (last error: %v)", p.Stats().Idle, n, p.Err())
		}
	}
}

// containers lists the IDs of the containers with the test's pool label.
func containers(t *testing.T, tag string) []string {
	t.Helper()
	cs, err := engine(t).ContainerList(context.Background(), listAll(filters.NewArgs(filters.Arg("label", poolLabel+"="+tag))))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	return ids
}

func poolOptions(t *testing.T, tag string) docker.Options {
	return docker.Options{
		Image:   testImage(t),
		Labels:  map[string]string{runLabel: runID, poolLabel: tag},
		Imports: executors.ImportPolicy{Authorized: []string{"*"}},
	}
}

// An executor's first execution runs in a container the pool started
// before; the container serves that executor only: it is removed with
// it, the next executor gets another one with none of the first one's
// state, and the pool refills.
func TestPoolServesFirstStart(t *testing.T) {
	eachRuntime(t, func(t *testing.T, runtime string) {
		tag := t.Name()
		opts := poolOptions(t, tag)
		opts.Runtime = runtime
		p := newPool(t, 1, opts)
		waitIdle(t, p, 1)
		warm := containers(t, tag)
		if len(warm) != 1 {
			t.Fatalf("pool containers %v, want 1", warm)
		}

		opts.Pool = p
		a := newExec(t, opts)
		t0 := time.Now()
		ok(t, a, "secret = 'of run a'")
		t.Logf("first result from a pooled container in %s", time.Since(t0))
		if a.ContainerID() != warm[0] {
			t.Errorf("executor a runs in %s, not in the pool's %s", a.ContainerID(), warm[0])
		}
		if s := p.Stats(); s.Hits != 1 || s.Misses != 0 {
			t.Errorf("stats %+v, want one hit", s)
		}
		waitIdle(t, p, 1) // refilled
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		gone(t, warm[0])

		b := newExec(t, opts)
		res := run(t, b, "secret")
		if res.Err == nil || res.Err.Type != "NameError" {
			t.Errorf("executor b sees a's state: %+v", res)
		}
		if b.ContainerID() == warm[0] || b.ContainerID() == "" {
			t.Errorf("executor b runs in %q", b.ContainerID())
		}
		if s := p.Stats(); s.Hits != 2 {
			t.Errorf("stats %+v, want two hits", s)
		}
	})
}

// An executor whose options make another container misses the pool and
// starts its own.
func TestPoolMiss(t *testing.T) {
	opts := poolOptions(t, t.Name())
	p := newPool(t, 1, opts)
	opts.Pool = p
	opts.Memory = 96 << 20
	e := newExec(t, opts)
	ok(t, e, "1")
	if s := p.Stats(); s.Hits != 0 || s.Misses != 1 {
		t.Errorf("stats %+v, want one miss", s)
	}
}

// Close removes the containers the pool holds; MaxMemory lowers the size.
func TestPoolClose(t *testing.T) {
	tag := t.Name()
	opts := poolOptions(t, tag)
	opts.Limits.MaxMemory = 64 << 20
	p, err := docker.NewPool(docker.PoolOptions{Size: 5, MaxMemory: 128 << 20, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if p.Size() != 2 {
		t.Errorf("size %d with 128 MiB for containers of 64 MiB, want 2", p.Size())
	}
	waitIdle(t, p, 2)
	if n := len(containers(t, tag)); n != 2 {
		t.Errorf("%d containers while the pool holds 2", n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if ids := containers(t, tag); len(ids) != 0 {
		t.Errorf("containers left after Close: %v", ids)
	}
}

// poolChildEnv makes the test binary a star-agent that fills a pool,
// prints its container's ID and waits to be killed.
const poolChildEnv = "STAR_AGENT_DOCKER_TEST_POOL_CHILD"

func poolChild(img string) int {
	p, err := docker.NewPool(docker.PoolOptions{Size: 1, Options: docker.Options{Image: img, Labels: map[string]string{runLabel: os.Getenv("RUN_ID"), poolLabel: os.Getenv("POOL_TAG")}}})
	if err != nil {
		println("error:", err.Error())
		return 1
	}
	for p.Stats().Idle < 1 {
		time.Sleep(20 * time.Millisecond)
	}
	println("ready")
	select {}
}

// A star-agent killed with SIGKILL cannot empty its pool: the waiting
// runner reads end-of-file on its stdin and exits, and what is left is a
// stopped container whose owner label names the dead process; the next
// star-agent on the host sweeps it away (docker.Sweep).
func TestPoolHostCrash(t *testing.T) {
	img := testImage(t)
	cli := engine(t)
	tag := t.Name()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), poolChildEnv+"="+img, "RUN_ID="+runID, "POOL_TAG="+tag)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stderr).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %q", line)
	}
	ids := containers(t, tag)
	// While its owner lives, a container is not the sweep's.
	if removed, err := docker.Sweep(context.Background(), cli); err != nil || len(ids) == 1 && slices.Contains(removed, ids[0]) {
		t.Errorf("Sweep with the owner alive: removed %v, %v", removed, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(ids) != 1 {
		t.Fatalf("containers of the child's pool: %v", ids)
	}
	t.Cleanup(func() { cli.ContainerRemove(context.Background(), ids[0], ctr.RemoveOptions{Force: true}) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waitc, errc := cli.ContainerWait(ctx, ids[0], ctr.WaitConditionNotRunning)
	select {
	case <-waitc:
	case err := <-errc:
		if cerrdefs.IsNotFound(err) {
			return // another star-agent on this host swept it first
		}
		t.Fatalf("the pooled container of a killed star-agent still runs after 30 s: %v", err)
	}
	info, err := cli.ContainerInspect(context.Background(), ids[0])
	if cerrdefs.IsNotFound(err) {
		return // swept
	}
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Labels[docker.LabelManaged] != "true" {
		t.Errorf("labels %v", info.Config.Labels)
	}
	owner := strings.Fields(info.Config.Labels[docker.LabelOwner])
	if len(owner) != 4 || owner[2] != strconv.Itoa(cmd.Process.Pid) {
		t.Fatalf("owner label %q: want the killed child's, pid %d", info.Config.Labels[docker.LabelOwner], cmd.Process.Pid)
	}
	if _, err := docker.Sweep(context.Background(), cli); err != nil {
		t.Fatal(err)
	}
	// Removed by this Sweep, or by a concurrent star-agent's: gone.
	if _, err := cli.ContainerInspect(context.Background(), ids[0]); !cerrdefs.IsNotFound(err) {
		t.Errorf("container %s of the dead child after Sweep: %v", ids[0], err)
	}
}

// Owner labels need not match a pool's: an executor with other Owner
// labels still takes the pool's container, which carries the pool's;
// a container it starts itself carries its own. SweepIf removes what
// its judge names, and only that.
func TestPoolOwnerLabels(t *testing.T) {
	ctx := context.Background()
	cli := engine(t)
	tag := t.Name()
	opts := poolOptions(t, tag)
	opts.Owner = map[string]string{"io.star-agent.replica": "r1"}
	p := newPool(t, 1, opts)
	waitIdle(t, p, 1)
	opts.Pool = p
	opts.Owner = map[string]string{"io.star-agent.replica": "r1", "io.star-agent.run": "run-a"}
	a := newExec(t, opts)
	ok(t, a, "1")
	own := opts
	own.Pool = nil
	b := newExec(t, own)
	ok(t, b, "1")
	if s := p.Stats(); s.Hits != 1 {
		t.Fatalf("stats %+v: other Owner labels made the executor miss the pool", s)
	}
	labels := func(id string) map[string]string {
		c, err := cli.ContainerInspect(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return c.Config.Labels
	}
	la, lb := labels(a.ContainerID()), labels(b.ContainerID())
	if la["io.star-agent.replica"] != "r1" || la["io.star-agent.run"] != "" {
		t.Errorf("the pool's container: %v", la)
	}
	if lb["io.star-agent.replica"] != "r1" || lb["io.star-agent.run"] != "run-a" {
		t.Errorf("a container the executor started: %v", lb)
	}
	removed, err := docker.SweepIf(ctx, cli, func(l map[string]string, created time.Time) bool {
		return l[poolLabel] == tag && l["io.star-agent.run"] == "" && time.Since(created) < time.Hour
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, a.ContainerID()) || slices.Contains(removed, b.ContainerID()) {
		t.Errorf("swept %v; a %s, b %s", removed, a.ContainerID(), b.ContainerID())
	}
	for _, id := range removed {
		gone(t, id)
	}
}
