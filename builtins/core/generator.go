package core

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Generators. Starlark has no coroutines, so the body of a generator
// function runs on a thread of its own, on a goroutine of its own, and
// hands control back and forth with its consumer over channels: exactly
// one of them runs Starlark code at any time. A yield sends the value to
// the consumer and blocks until the consumer asks for the next one; next()
// sends the request and blocks until the body yields, returns or raises.
//
// The engine decides what a generator's thread shares with the execution
// (output, memory budget, deadline, step and depth limits, cancellation)
// through Generators, and ends every suspended body when the execution
// ends, so that no goroutine outlives it. A suspended generator that user
// code can no longer reach is ended earlier, when the garbage collector
// finds it, by the next generator that starts.
//
// Generator expressions need no thread: their clauses are lowered to
// functions that a state machine in Go calls on the consumer's thread
// (saGenexpr).

// Generators runs the generator bodies of one execution. An engine
// attaches one to the execution's thread (SetGenerators) and calls Close
// when the execution ends; without one, a thread gets a default that
// shares its output and budget and is never closed (tests).
type Generators struct {
	// NewThread returns the thread a generator body runs on, sharing the
	// execution's printed output, memory budget and deadline, counted in
	// its steps and cancelled with it. consumer is the thread starting
	// the generator.
	NewThread func(consumer *starlark.Thread) *starlark.Thread
	// Switch, if set, is called each time control passes from one thread
	// of the execution to another: from has stopped running Starlark code
	// and to is about to. It runs on the consumer's goroutine.
	Switch func(from, to *starlark.Thread)
	// MaxDepth bounds the call depth of a generator's body, counting the
	// frames of the consumers it runs under (see CallDepth); 0 is no
	// bound.
	MaxDepth int

	// Fields below are used by the goroutine running Starlark code,
	// except where noted.
	current *starlark.Thread
	live    map[*genCore]bool // started, body not ended
	nextGC  int               // live count at which start collects garbage

	closed atomic.Bool
	mu     sync.Mutex // guards dead, which a cleanup appends to
	dead   []*genCore // generators user code no longer reaches
}

// GeneratorCost is the memory charged for a generator whose body has
// started: its goroutine's stack, its thread and channels.
const GeneratorCost = 16 << 10

const (
	generatorsKey = "star-agent.generators"
	genKey        = "star-agent.generator"  // a body's thread: its *genCore
	depthKey      = "star-agent.base-depth" // a body's thread: frames under it
	loopErrKey    = "star-agent.loop-error" // see saLoop
)

// SetGenerators attaches g to an execution's thread, which is running.
func SetGenerators(th *starlark.Thread, g *Generators) {
	g.current = th
	th.SetLocal(generatorsKey, g)
}

// GeneratorsOf returns the generators of th's execution, attaching a
// default to th if it has none.
func GeneratorsOf(th *starlark.Thread) *Generators {
	if g, ok := th.Local(generatorsKey).(*Generators); ok {
		return g
	}
	g := &Generators{NewThread: defaultThread, MaxDepth: 1000}
	SetGenerators(th, g)
	return g
}

// defaultThread shares what the builtins know of a thread: its output and
// budget.
func defaultThread(consumer *starlark.Thread) *starlark.Thread {
	th := &starlark.Thread{Name: consumer.Name, Print: consumer.Print}
	for _, k := range []string{contract.StdoutKey, contract.DeadlineKey, contract.ReaderKey, budgetKey} {
		if v := consumer.Local(k); v != nil {
			th.SetLocal(k, v)
		}
	}
	return th
}

// CallDepth is the call depth of th counting, for a generator's thread,
// the frames of the consumer that resumed it.
func CallDepth(th *starlark.Thread) int {
	base, _ := th.Local(depthKey).(int)
	return th.CallStackDepth() + base
}

// running returns the thread running Starlark code in the execution, or
// nil once it has ended.
func (g *Generators) running() *starlark.Thread {
	if g == nil || g.closed.Load() {
		return nil
	}
	return g.current
}

func (g *Generators) switchTo(from, to *starlark.Thread) {
	g.current = to
	if g.Switch != nil {
		g.Switch(from, to)
	}
}

// Threads returns the threads of the generators whose bodies have started
// and not ended, for the engine's memory walk. Call it from the goroutine
// running Starlark code.
func (g *Generators) Threads() []*starlark.Thread {
	out := make([]*starlark.Thread, 0, len(g.live))
	for c := range g.live {
		out = append(out, c.thread)
	}
	return out
}

// Close ends the body of every suspended generator and waits for its
// goroutine. Later attempts to resume one raise RuntimeError. Call it
// when no code of the execution runs any more.
func (g *Generators) Close() {
	g.closed.Store(true)
	g.mu.Lock()
	g.dead = nil
	g.mu.Unlock()
	for c := range g.live {
		c.stop()
	}
}

// reap ends the generators found unreachable, and collects garbage when
// many are alive, so that abandoned ones are found.
func (g *Generators) reap() {
	g.mu.Lock()
	dead := g.dead
	g.dead = nil
	g.mu.Unlock()
	for _, c := range dead {
		if c.group == g && c.state == genSuspended {
			c.stop()
		}
	}
	if len(dead) > 0 || g.nextGC == 0 {
		g.nextGC = 2*len(g.live) + 256
	}
	if len(g.live) >= g.nextGC {
		// The abandoned generators this finds are ended by the next
		// reap, once the runtime has run their cleanups.
		runtime.GC()
		g.nextGC = 2*len(g.live) + 256
	}
}

type genState uint8

const (
	genCreated genState = iota
	genSuspended
	genRunning
	genDone
	genStopped // suspended when its execution ended
)

// genCore is a generator's body and state. User code holds the Iterator
// that wraps it; the core does not refer to the Iterator, so that the
// garbage collector can find an abandoned generator while its goroutine
// still runs.
type genCore struct {
	name   string
	fn     starlark.Value
	args   starlark.Tuple
	home   *Generators // the execution that created it, for abandon
	state  genState
	retval starlark.Value // what the body returned

	// Once started.
	group  *Generators
	thread *starlark.Thread
	in     chan genMsg   // consumer to body: resume (value sent, or exception to raise)
	out    chan genMsg   // body to consumer: yielded value, or the end of the body
	kill   chan struct{} // closed to end a suspended body
	exited chan struct{} // closed when the body's goroutine ends
}

type genMsg struct {
	value starlark.Value
	err   error
	done  bool // out: the body returned value or raised err
}

// errStopped ends a suspended body whose generator is closed by the
// engine. User code cannot catch it (it is an Interrupt).
var errStopped = &Interrupt{Reason: "generator closed"}

func errEndedStep(name string) error {
	return Errorf(pyexc.RuntimeError, "this %s belongs to a code step that has ended and cannot be resumed here", name)
}

func SaGenerator(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 || len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "%s: bad arguments", contract.HelperGenerator)
	}
	name, ok := args[0].(starlark.String)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "%s: bad name", contract.HelperGenerator)
	}
	c := &genCore{name: string(name), fn: args[1], args: append(starlark.Tuple(nil), args[2:]...), home: GeneratorsOf(th)}
	it := &Iterator{name: "generator", label: string(name), gen: c, group: c.home}
	it.step = func(th *starlark.Thread) (starlark.Value, bool, error) {
		return c.resume(th, genMsg{})
	}
	runtime.AddCleanup(it, (*genCore).abandon, c)
	return it, nil
}

// abandon runs when user code can no longer reach the generator: the
// next generator started ends it. Called by the runtime, on a goroutine
// of its own.
func (c *genCore) abandon() {
	g := c.home
	if g.closed.Load() {
		return
	}
	g.mu.Lock()
	g.dead = append(g.dead, c)
	g.mu.Unlock()
}

// resume runs the body until it yields (ok), returns (not ok) or raises.
// m carries the value sent, or an exception to raise at the yield.
func (c *genCore) resume(th *starlark.Thread, m genMsg) (starlark.Value, bool, error) {
	switch c.state {
	case genRunning:
		return nil, false, Errorf(pyexc.ValueError, "generator already executing")
	case genDone:
		return nil, false, m.err
	case genStopped:
		return nil, false, errEndedStep("generator")
	case genCreated:
		if m.err != nil {
			c.state = genDone
			return nil, false, m.err
		}
		if m.value != nil && m.value != starlark.None {
			return nil, false, Errorf(pyexc.TypeError, "can't send non-None value to a just-started generator")
		}
	}
	g := GeneratorsOf(th)
	if c.state == genSuspended && c.group != g {
		return nil, false, errEndedStep("generator")
	}
	depth := CallDepth(th) + 1
	if g.MaxDepth > 0 && depth > g.MaxDepth {
		return nil, false, Errorf(pyexc.RecursionError, "maximum recursion depth exceeded (limit %d calls)", g.MaxDepth)
	}
	if c.state == genCreated {
		if err := c.start(th, g); err != nil {
			return nil, false, err
		}
	}
	c.thread.SetLocal(depthKey, depth)
	c.state = genRunning
	g.switchTo(th, c.thread)
	c.in <- m
	r := <-c.out
	g.switchTo(c.thread, th)
	if !r.done {
		c.state = genSuspended
		return r.value, true, nil
	}
	c.state = genDone
	delete(g.live, c)
	c.fn, c.args = nil, nil
	if r.err != nil {
		if isStopIteration(r.err) {
			return nil, false, Errorf(pyexc.RuntimeError, "generator raised StopIteration")
		}
		return nil, false, r.err
	}
	c.retval = r.value
	return nil, false, nil
}

// start creates the body's thread and goroutine, which waits for the
// consumer's hand-off (the first message on in).
func (c *genCore) start(th *starlark.Thread, g *Generators) error {
	if g.closed.Load() {
		return errEndedStep("generator")
	}
	g.reap()
	if err := Alloc(th, GeneratorCost); err != nil {
		return err
	}
	if g.live == nil {
		g.live = map[*genCore]bool{}
	}
	c.group = g
	c.thread = g.NewThread(th)
	c.thread.SetLocal(generatorsKey, g)
	c.thread.SetLocal(genKey, c)
	c.in = make(chan genMsg, 1)
	c.out = make(chan genMsg, 2) // a yield and the end: never blocks once the body is stopped
	c.kill = make(chan struct{})
	c.exited = make(chan struct{})
	g.live[c] = true
	go c.run()
	return nil
}

func (c *genCore) run() {
	defer close(c.exited)
	r := genMsg{done: true}
	select {
	case <-c.in:
		func() {
			defer func() {
				if p := recover(); p != nil {
					r.err = fmt.Errorf("internal error in generator %s: %v", c.name, p)
				}
			}()
			r.value, r.err = starlark.Call(c.thread, c.fn, c.args, nil)
		}()
	case <-c.kill:
		r.err = errStopped
	}
	c.out <- r
}

// suspend hands v to the consumer and waits to be resumed. It runs on the
// body's goroutine.
func (c *genCore) suspend(v starlark.Value) (starlark.Value, error) {
	c.out <- genMsg{value: v}
	select {
	case m := <-c.in:
		if m.err != nil {
			return nil, m.err
		}
		if m.value == nil {
			return starlark.None, nil
		}
		return m.value, nil
	case <-c.kill:
		return nil, errStopped
	}
}

// stop ends a started body that is not running and waits for its
// goroutine.
func (c *genCore) stop() {
	c.thread.Cancel("generator closed")
	close(c.kill)
	<-c.exited
	c.state = genStopped
	delete(c.group.live, c)
	c.fn, c.args = nil, nil
}

// close is generator.close(): GeneratorExit is raised at the yield.
func (c *genCore) close(th *starlark.Thread) error {
	switch c.state {
	case genCreated:
		c.state = genDone
		return nil
	case genRunning:
		return Errorf(pyexc.ValueError, "generator already executing")
	case genDone, genStopped:
		return nil
	}
	_, ok, err := c.resume(th, genMsg{err: &Error{Type: pyexc.GeneratorExit.Name()}})
	if err != nil {
		if isGeneratorExit(err) {
			return nil
		}
		return err
	}
	if ok {
		return Errorf(pyexc.RuntimeError, "generator ignored GeneratorExit")
	}
	return nil
}

func isGeneratorExit(err error) bool {
	var exc *Exception
	if errors.As(err, &exc) {
		return exc.Value.class.IsSubclassOf(excClasses[pyexc.GeneratorExit])
	}
	typ, _ := Classify(err)
	return typ == pyexc.GeneratorExit.Name()
}

// generatorAttr returns generator method name bound to it.
func generatorAttr(it *Iterator, name string) starlark.Value {
	c := it.gen
	var fn func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)
	switch name {
	case "send":
		fn = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("send", args, kwargs, 1, &v); err != nil {
				return nil, err
			}
			if it.done {
				return nil, &Error{Type: pyexc.StopIteration.Name()}
			}
			r, ok, err := c.resume(th, genMsg{value: v})
			if err != nil || !ok {
				it.done = true
			}
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, stopIteration(c.retval)
			}
			return r, nil
		}
	case "throw":
		fn = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var typ, val starlark.Value
			if err := starlark.UnpackPositionalArgs("throw", args, kwargs, 1, &typ, &val); err != nil {
				return nil, err
			}
			x := typ
			if val != nil && val != starlark.None {
				if _, ok := val.(*Instance); !ok {
					v, err := starlark.Call(th, typ, starlark.Tuple{val}, nil)
					if err != nil {
						return nil, err
					}
					x = v
				} else {
					x = val
				}
			}
			inst, err := newException(th, x)
			if err != nil {
				return nil, err
			}
			r, ok, err := c.resume(th, genMsg{err: &Exception{Value: inst}})
			if err != nil || !ok {
				it.done = true
			}
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, stopIteration(c.retval)
			}
			return r, nil
		}
	case "close":
		fn = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs("close", args, kwargs, 0); err != nil {
				return nil, err
			}
			if err := c.close(th); err != nil {
				return nil, err
			}
			if c.state == genDone || c.state == genStopped {
				it.done = true
			}
			return starlark.None, nil
		}
	default:
		return nil
	}
	return starlark.NewBuiltin(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return fn(th, args, kwargs)
	}).BindReceiver(it)
}

// stopIteration is the StopIteration of a generator that returned v.
func stopIteration(v starlark.Value) error {
	if v == nil || v == starlark.None {
		return &Error{Type: pyexc.StopIteration.Name()}
	}
	return &Error{Type: pyexc.StopIteration.Name(), Msg: Str(v)}
}

// Attr gives generators their methods send, throw and close.
func (it *Iterator) Attr(name string) (starlark.Value, error) {
	if it.gen == nil {
		return nil, nil
	}
	return generatorAttr(it, name), nil
}

// AttrNames lists the methods of generators.
func (it *Iterator) AttrNames() []string {
	if it.gen == nil {
		return nil
	}
	return []string{"close", "send", "throw"}
}

// SizeOf lets the engine's memory walk count a generator: what it will
// call its body with, and the cost of its goroutine while it runs.
func (it *Iterator) SizeOf(visit func(starlark.Value)) int64 {
	c := it.gen
	if c == nil {
		return 64
	}
	if c.fn != nil {
		visit(c.fn)
	}
	for _, a := range c.args {
		visit(a)
	}
	if c.retval != nil {
		visit(c.retval)
	}
	return 64
}

func currentGenerator(th *starlark.Thread, helper string) (*genCore, error) {
	c, ok := th.Local(genKey).(*genCore)
	if !ok || c.thread != th {
		return nil, Errorf(pyexc.SyntaxError, "%s outside a generator", helper)
	}
	return c, nil
}

func SaYield(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs(contract.HelperYield, args, kwargs, 0, &v); err != nil {
		return nil, err
	}
	c, err := currentGenerator(th, "yield")
	if err != nil {
		return nil, err
	}
	return c.suspend(v)
}

// SaYieldFrom delegates to a sub-iterator: values sent and exceptions
// thrown reach a sub-generator; GeneratorExit closes it.
func SaYieldFrom(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs(contract.HelperYieldFrom, args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	c, err := currentGenerator(th, "yield from")
	if err != nil {
		return nil, err
	}
	src, err := PyIter(th, x)
	if err != nil {
		return nil, err
	}
	var sent starlark.Value
	var thrown error
	for n := 1; ; n++ {
		if n%CheckEvery == 0 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
		var v starlark.Value
		var ok bool
		var err error
		switch {
		case thrown != nil && src.gen != nil:
			v, ok, err = src.gen.resume(th, genMsg{err: thrown})
		case thrown != nil:
			return nil, thrown
		case sent != nil && sent != starlark.None && src.gen != nil:
			v, ok, err = src.gen.resume(th, genMsg{value: sent})
		case sent != nil && sent != starlark.None:
			return nil, Errorf(pyexc.AttributeError, "'%s' object has no attribute 'send'", TypeName(src))
		default:
			v, ok, err = src.NextOn(th)
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			if src.gen != nil && src.gen.retval != nil {
				return src.gen.retval, nil
			}
			return starlark.None, nil
		}
		sent, thrown = nil, nil
		r, err := c.suspend(v)
		switch {
		case err == errStopped:
			return nil, err
		case err != nil && isGeneratorExit(err):
			if src.gen != nil {
				if cerr := src.gen.close(th); cerr != nil {
					return nil, cerr
				}
			}
			return nil, err
		case err != nil:
			thrown = err
		default:
			sent = r
		}
	}
}

// SaGenexpr builds a generator expression (see HelperGenexpr).
func SaGenexpr(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 || len(kwargs) > 0 {
		return nil, Errorf(pyexc.TypeError, "%s: bad arguments", contract.HelperGenexpr)
	}
	first, err := PyIter(th, args[0])
	if err != nil {
		return nil, err
	}
	fns := append(starlark.Tuple(nil), args[1:]...)
	levels := []*Iterator{first}
	vals := make(starlark.Tuple, len(fns))
	running := false
	it := &Iterator{name: "generator", label: "<genexpr>", group: GeneratorsOf(th)}
	it.step = func(th *starlark.Thread) (starlark.Value, bool, error) {
		if running {
			return nil, false, Errorf(pyexc.ValueError, "generator already executing")
		}
		running = true
		defer func() { running = false }()
		for n := 1; ; n++ {
			if n%CheckEvery == 0 {
				if err := Interrupted(th); err != nil {
					return nil, false, err
				}
			}
			k := len(levels) - 1
			if k < 0 {
				return nil, false, nil
			}
			v, ok, err := levels[k].NextOn(th)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				levels[k] = nil
				levels = levels[:k]
				continue
			}
			vals[k] = v
			r, err := starlark.Call(th, fns[k], vals[:k+1:k+1], nil)
			if err != nil {
				return nil, false, err
			}
			seq, ok := r.(starlark.Indexable)
			if !ok {
				return nil, false, Errorf(pyexc.SystemError, "%s: bad clause", contract.HelperGenexpr)
			}
			if seq.Len() == 0 {
				continue
			}
			if k == len(fns)-1 {
				return seq.Index(0), true, nil
			}
			next, err := PyIter(th, seq.Index(0))
			if err != nil {
				return nil, false, err
			}
			levels = append(levels, next)
		}
	}
	return it, nil
}

// loopIter is the operand of a lowered loop over an iterator: an error
// that ends the iteration is kept on the thread for HelperLoopCheck.
type loopIter struct {
	it *Iterator
	th *starlark.Thread
}

func (l *loopIter) String() string        { return l.it.String() }
func (l *loopIter) Type() string          { return l.it.Type() }
func (l *loopIter) Freeze()               {}
func (l *loopIter) Truth() starlark.Bool  { return true }
func (l *loopIter) Hash() (uint32, error) { return l.it.Hash() }
func (l *loopIter) Iterate() starlark.Iterator {
	return l
}

func (l *loopIter) Next(p *starlark.Value) bool {
	v, ok, err := l.it.NextOn(l.th)
	if err != nil {
		l.th.SetLocal(loopErrKey, err)
		return false
	}
	if ok {
		*p = v
	}
	return ok
}

func (l *loopIter) Done() {}

// loopError returns and clears the error that ended the last loop.
func loopError(th *starlark.Thread) error {
	err, _ := th.Local(loopErrKey).(error)
	if err != nil {
		th.SetLocal(loopErrKey, nil)
	}
	return err
}

func SaLoop(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var free bool
	if err := starlark.UnpackPositionalArgs(contract.HelperLoop, args, kwargs, 1, &x, &free); err != nil {
		return nil, err
	}
	if err := loopError(th); err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case *Iterator:
		return &loopIter{it: v, th: th}, nil
	case *Instance, starlark.Bytes:
		// An instance's __iter__ and __next__ run as the loop goes, as
		// in Python; bytes yield ints.
		it, err := PyIter(th, v)
		if err != nil {
			return nil, err
		}
		return &loopIter{it: it, th: th}, nil
	case *starlark.List:
		return &listLoop{l: v}, nil
	case *starlark.Dict:
		l, err := newKeysLoop(th, v, v.Keys(), "dictionary")
		if err != nil {
			return nil, err
		}
		return l, nil
	case *starlark.Set:
		l, err := newKeysLoop(th, v, setElements(v), "Set")
		if err != nil {
			return nil, err
		}
		return l, nil
	case *dictView:
		l, err := newKeysLoop(th, v.d, v.d.Keys(), "dictionary")
		if err != nil {
			return nil, err
		}
		if v.kind != "keys" {
			l.view = v
		}
		return l, nil
	case starlark.String:
	case starlark.Indexable:
		if free {
			it, err := PyIter(th, v)
			if err != nil {
				return nil, err
			}
			return &loopIter{it: it, th: th}, nil
		}
	case keyed:
		// Counter, defaultdict, OrderedDict: dicts.
		l, err := newKeysLoop(th, v, v.Keys(), "dictionary")
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	return SaIter(th, fn, starlark.Tuple{x}, nil)
}

// listLoop iterates a list as CPython's list iterator does: by index,
// reading the length again at each step, so that the loop's body may
// assign items and sees the items it appends. It holds no iteration
// lock: the list stays mutable.
type listLoop struct {
	l *starlark.List
	i int
}

func (l *listLoop) String() string        { return "<list_iterator object>" }
func (l *listLoop) Type() string          { return "list_iterator" }
func (l *listLoop) Freeze()               {}
func (l *listLoop) Truth() starlark.Bool  { return true }
func (l *listLoop) Hash() (uint32, error) { return uint32(UintptrOf(l)), nil }
func (l *listLoop) Iterate() starlark.Iterator {
	return l
}

func (l *listLoop) Next(p *starlark.Value) bool {
	if l.i >= l.l.Len() {
		return false
	}
	*p = l.l.Index(l.i)
	l.i++
	return true
}

func (l *listLoop) Done() {}

// keyed is a dict of a collections type: it iterates as its dict does.
type keyed interface {
	starlark.IterableMapping
	Keys() []starlark.Value
	Len() int
}

// keysLoop iterates the keys of a dict, or the elements of a set, as
// CPython does: the loop's body may assign to existing keys, and a change
// of size ends the loop with RuntimeError (raised by HelperLoopCheck).
// It iterates a snapshot of the keys, so that no iteration lock is held;
// the values of a view's loop are read as the loop reaches them, so that
// it sees what the body assigned.
type keysLoop struct {
	th   *starlark.Thread
	coll interface{ Len() int }
	keys []starlark.Value
	n, i int
	what string    // "dictionary" or "Set", for the error
	view *dictView // a values() or items() view, whose values it yields
}

func newKeysLoop(th *starlark.Thread, coll interface{ Len() int }, keys []starlark.Value, what string) (*keysLoop, error) {
	if err := Alloc(th, int64(len(keys))*SlotSize); err != nil {
		return nil, err
	}
	return &keysLoop{th: th, coll: coll, keys: keys, n: coll.Len(), what: what}, nil
}

func (l *keysLoop) String() string { return "<" + l.Type() + " object>" }
func (l *keysLoop) Type() string {
	switch {
	case l.what == "Set":
		return "set_iterator"
	case l.view != nil:
		return "dict_" + strings.TrimSuffix(l.view.kind, "s") + "iterator"
	}
	return "dict_keyiterator"
}
func (l *keysLoop) Freeze()               {}
func (l *keysLoop) Truth() starlark.Bool  { return true }
func (l *keysLoop) Hash() (uint32, error) { return uint32(UintptrOf(l)), nil }
func (l *keysLoop) Iterate() starlark.Iterator {
	return l
}

func (l *keysLoop) Next(p *starlark.Value) bool {
	if l.coll.Len() != l.n {
		l.th.SetLocal(loopErrKey, Errorf(pyexc.RuntimeError, "%s changed size during iteration", l.what))
		l.keys = nil
		return false
	}
	if l.i >= len(l.keys) {
		l.keys = nil
		return false
	}
	k := l.keys[l.i]
	l.i++
	if l.view == nil {
		*p = k
		return true
	}
	v, found, err := l.view.d.Get(k)
	if err == nil && !found {
		// Deleted and another key added: the size is the same.
		err = Errorf(pyexc.RuntimeError, "dictionary keys changed during iteration")
	}
	if err != nil {
		l.th.SetLocal(loopErrKey, err)
		l.keys = nil
		return false
	}
	if l.view.kind == "values" {
		*p = v
	} else {
		*p = starlark.Tuple{k, v}
	}
	return true
}

func (l *keysLoop) Done() {}

func SaLoopCheck(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs(contract.HelperLoopCheck, args, kwargs, 0, &v); err != nil {
		return nil, err
	}
	if err := loopError(th); err != nil {
		return nil, err
	}
	return v, nil
}

func SaStar(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg(contract.HelperStar, args, kwargs)
	if err != nil {
		return nil, err
	}
	switch x.(type) {
	case *Iterator, starlark.String, *Instance, starlark.Bytes, *starlark.Set:
		// Strings and bytes yield characters and ints, sets their
		// elements in CPython's order.
		vals, err := Collect(th, x)
		if err != nil {
			return nil, err
		}
		return starlark.Tuple(vals), nil
	case starlark.Iterable:
		return x, nil
	}
	return nil, Errorf(pyexc.TypeError, "'%s' object is not iterable", TypeName(x))
}
