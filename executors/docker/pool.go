package docker

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docker/docker/client"
)

// A Pool keeps a few started, never-used containers ready, so that an
// executor's first execution does not wait for a container to start (a
// quarter to half a second, more under gVisor). An executor whose
// Options.Pool is set takes one when it starts its container, if the
// pool's containers were made from the same configuration as its own;
// otherwise, or when the pool is empty, it starts one itself (a miss).
// A container serves one executor: it is removed when that executor is
// closed, never returned to the pool, so no state passes from one run to
// the next. The pool refills in the background, one container at a time.
//
// A pooled container has started python3 with the runner, which waits
// for its handshake to be read; the executor's own configuration (import
// policy, output and value caps) is sent after it is taken, as for a
// container it starts itself.
type Pool struct {
	// spec is what executors must match; start what the pool starts
	// (spec with the Owner labels).
	spec, start spec
	cli         client.APIClient
	ownClient   bool
	size        int

	mu       sync.Mutex
	idle     []*container
	starting bool
	closed   bool
	lastErr  error
	wake     chan struct{}
	done     chan struct{}
	stopFill context.CancelFunc

	hits, misses atomic.Uint64
	// removals counts the removals of the pool's own containers (dead
	// ones, and all at Close).
	removals sync.WaitGroup
}

// PoolOptions configure a Pool.
type PoolOptions struct {
	// Size is how many started containers the pool keeps.
	Size int
	// MaxMemory bounds the sum of the memory limits of the containers the
	// pool keeps: Size is lowered to fit. 0 means no bound beyond Size.
	MaxMemory int64
	// Options are those of the executors that will take from the pool;
	// Limits, Memory, Image, Runtime, Network, Labels and the other
	// container settings must be theirs for them to match. Imports are
	// not part of a container and need not match.
	Options Options
}

// PoolStats count what a pool served.
type PoolStats struct {
	// Hits counts executors that took a started container.
	Hits uint64
	// Misses counts executors that found the pool empty (or made from
	// another configuration) and started their own.
	Misses uint64
	// Idle is how many started containers wait now.
	Idle int
}

// NewPool returns a pool and starts filling it. It does not wait for the
// first container; Close removes every container it holds.
func NewPool(opts PoolOptions) (*Pool, error) {
	if opts.Size < 1 {
		return nil, errors.New("docker: a pool needs a size of at least 1")
	}
	probe, err := New(opts.Options)
	if err != nil {
		return nil, err
	}
	// probe is never started: the pool takes its configuration and its
	// client.
	s := probe.spec()
	p := &Pool{spec: s, start: s.withOwner(opts.Options.Owner), cli: probe.cli, ownClient: probe.ownClient, size: opts.Size,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	if opts.MaxMemory > 0 && s.memory > 0 {
		if n := int(opts.MaxMemory / s.memory); n < p.size {
			p.size = max(n, 1)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.stopFill = cancel
	go p.fill(ctx)
	p.wake <- struct{}{}
	return p, nil
}

// Size is how many containers the pool keeps (PoolOptions.Size, lowered
// to fit MaxMemory).
func (p *Pool) Size() int { return p.size }

// Stats returns the pool's counts.
func (p *Pool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return PoolStats{Hits: p.hits.Load(), Misses: p.misses.Load(), Idle: len(p.idle)}
}

// Err is the error of the pool's last failed start, nil once a start
// succeeds again.
func (p *Pool) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastErr
}

// take returns a started container made from s, now counted in pending,
// or nil (a miss).
func (p *Pool) take(s spec, pending *sync.WaitGroup) *container {
	if !sameSpec(p.spec, s) {
		p.misses.Add(1)
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle) > 0 && !p.closed {
		c := p.idle[0]
		p.idle = p.idle[1:]
		select {
		case <-c.exited:
			// Died while it waited (the engine restarted, someone
			// removed it): never handed out.
			c.Kill()
			continue
		default:
		}
		c.pending = pending
		p.hits.Add(1)
		p.signal()
		return c
	}
	p.misses.Add(1)
	p.signal()
	return nil
}

func (p *Pool) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// fill starts containers until the pool is full, and again whenever one
// is taken, until ctx ends. A failed start is retried with a growing
// pause.
func (p *Pool) fill(ctx context.Context) {
	defer close(p.done)
	pause := time.Second
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		for {
			p.mu.Lock()
			full := p.closed || len(p.idle) >= p.size
			p.starting = !full
			p.mu.Unlock()
			if full {
				break
			}
			sctx, cancel := context.WithTimeout(ctx, startTimeout)
			c, err := startContainer(sctx, p.cli, p.start, &p.removals)
			if err == nil {
				err = ready(sctx, c)
			}
			cancel()
			p.mu.Lock()
			p.starting = false
			if err != nil {
				p.lastErr = fmt.Errorf("docker: pool: %w", err)
				p.mu.Unlock()
				select {
				case <-ctx.Done():
					return
				case <-time.After(pause):
				}
				pause = min(2*pause, 30*time.Second)
				continue
			}
			pause, p.lastErr = time.Second, nil
			if p.closed {
				p.mu.Unlock()
				c.Kill()
				return
			}
			p.idle = append(p.idle, c)
			p.mu.Unlock()
		}
	}
}

// ready waits until the runner in c has written its handshake (which the
// executor that takes c reads): CPython has started and imported what
// the runner needs, a tenth of a second that the taker then does not
// wait for.
func ready(ctx context.Context, c *container) error {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !c.spoke.Load() {
		select {
		case <-c.exited:
			err := fmt.Errorf("the runner in container %s stopped before its handshake: %s", short(c.id), c.why)
			c.Kill()
			return err
		case <-ctx.Done():
			c.Kill()
			return fmt.Errorf("the runner in container %s did not start: %w", short(c.id), context.Cause(ctx))
		case <-tick.C:
		}
	}
	return nil
}

// Close stops filling and removes every container the pool holds,
// waiting up to 20 s for the engine. Containers already taken belong to
// their executors.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	p.stopFill()
	<-p.done
	for _, c := range idle {
		c.Kill()
	}
	done := make(chan struct{})
	go func() {
		p.removals.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-time.After(reapTimeout):
		err = fmt.Errorf("docker: pool: containers were not removed within %s; `star-agent sandbox prune` removes them", reapTimeout)
	}
	if p.ownClient {
		if c, ok := p.cli.(interface{ Close() error }); ok {
			c.Close()
		}
	}
	return err
}

// sameSpec reports whether containers made from a and b are alike.
func sameSpec(a, b spec) bool {
	return a.memory == b.memory && reflect.DeepEqual(a.config, b.config) && reflect.DeepEqual(a.host, b.host)
}
