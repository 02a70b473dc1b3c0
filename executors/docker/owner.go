package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	ctr "github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// LabelOwner names the star-agent process that created a container, as
// "HOST BOOT-ID PID START" (START: the process's start time in clock
// ticks since boot, so that a reused PID is not mistaken for the owner).
// A container whose owner died without removing it (SIGKILL, an OOM kill
// of star-agent itself) is removed by the next star-agent on the same
// host that starts a container (Sweep). Containers without the label, or
// from another host or an earlier boot, are left to `star-agent sandbox
// prune`.
const LabelOwner = "io.star-agent.owner"

var self = sync.OnceValue(func() string { return processOwner(os.Getpid()) })

// processOwner is the owner label of process pid, or "" where it cannot
// be known (no /proc).
func processOwner(pid int) string {
	host, err := os.Hostname()
	if err != nil {
		return ""
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	start, ok := startTicks(pid)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s %s %d %d", host, strings.TrimSpace(string(boot)), pid, start)
}

// startTicks reads the start time of process pid from /proc/PID/stat
// (field 22, after the command name, which may hold spaces and parens).
func startTicks(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); the start time is field 22.
	if len(f) < 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}

// orphaned reports whether a container's owner label names a process of
// this host and boot that is gone.
func orphaned(label string) bool {
	me := strings.Fields(self())
	f := strings.Fields(label)
	if len(me) != 4 || len(f) != 4 || f[0] != me[0] || f[1] != me[1] {
		return false // not ours to judge: another host, another boot, or no label
	}
	pid, err := strconv.Atoi(f[2])
	if err != nil || pid <= 0 {
		return false
	}
	// Gone, or the PID now names a process that started later.
	start, ok := startTicks(pid)
	return !ok || strconv.FormatUint(start, 10) != f[3]
}

// Sweep removes the containers star-agent processes of this host left
// behind when they died, and returns their IDs. Executors call it once per
// process, in the background, when they first start a container.
func Sweep(ctx context.Context, cli client.APIClient) ([]string, error) {
	list, err := cli.ContainerList(ctx, ctr.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", LabelManaged+"=true"))})
	if err != nil {
		return nil, fmt.Errorf("docker: sweep: %w", err)
	}
	var removed []string
	for _, c := range list {
		if !orphaned(c.Labels[LabelOwner]) {
			continue
		}
		if err := cli.ContainerRemove(ctx, c.ID, ctr.RemoveOptions{Force: true}); err == nil || cerrdefs.IsNotFound(err) {
			removed = append(removed, c.ID)
		}
	}
	return removed, nil
}

var sweepOnce sync.Once

// sweepInBackground runs Sweep once per process, bounded in time; what it
// cannot remove is left to `star-agent sandbox prune`.
func sweepInBackground(cli client.APIClient) {
	sweepOnce.Do(func() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			Sweep(ctx, cli)
		}()
	})
}

// Orphan judges a container for SweepIf: its labels and when the engine
// created it.
type Orphan func(labels map[string]string, created time.Time) bool

// SweepIf removes the star-agent containers (io.star-agent.managed=true)
// for which orphan reports true, running or not, and returns their IDs.
// It is how a program that knows more than this host's processes (star-agent
// serve, whose replicas may share one engine) removes the containers of
// owners that are gone, named by Options.Owner labels.
func SweepIf(ctx context.Context, cli client.APIClient, orphan Orphan) ([]string, error) {
	list, err := cli.ContainerList(ctx, ctr.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", LabelManaged+"=true"))})
	if err != nil {
		return nil, fmt.Errorf("docker: sweep: %w", err)
	}
	var removed []string
	var errs []error
	for _, c := range list {
		if !orphan(c.Labels, time.Unix(c.Created, 0)) {
			continue
		}
		err := cli.ContainerRemove(ctx, c.ID, ctr.RemoveOptions{Force: true})
		switch {
		case err == nil, cerrdefs.IsNotFound(err):
			removed = append(removed, c.ID)
		case cerrdefs.IsConflict(err):
			// Being removed already (by another sweeper, by its owner).
		default:
			errs = append(errs, fmt.Errorf("docker: sweep: removing %s: %w", short(c.ID), err))
		}
	}
	return removed, errors.Join(errs...)
}
