// Package router sends each code action to the Starlark engine, or to a
// full-Python executor when the action needs CPython, carrying variables
// between the two so that one run can mix engines.
//
// An action goes to the local engine first. The local engine decides
// before running anything whether code needs full Python (an authorized
// import it does not have, syntax its front end cannot lower). A few
// constructs show only while the step runs (vars() without an argument, a
// dataclass option the engine lacks): the engine then undoes what the step
// bound and the step runs again in Python, from its start, unless it had
// already printed, called a tool or changed a value in place, so that
// nothing the world saw happens twice (see starlarkexec.Options.Rerun); the
// notes say which happened. The run again gets only what is left of the
// step's time limit (the local engine's Limits().Timeout). An action also goes to Python when it names a variable that
// lives only there (a value, such as a NumPy array, that cannot cross as
// JSON). Before an action runs in an engine, the variables the other engine
// changed are copied in; values that cannot cross are named in Result.Notes
// so that the model knows.
//
// Values that cross into Python are written out as JSON, and a value that
// shares structure (a = [0]*1000; b = [a]*1000; c = [b]*100 is a few
// kilobytes in the Starlark engine) can be huge written out. Each crossing
// therefore has a budget (half the Python sandbox's message limit, see
// runner.Limits): every variable's encoding is charged against it while it
// is encoded, and a variable that does not fit stays behind with a note.
package router

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner"
	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// Python is a full-Python executor whose state can be read back.
type Python interface {
	executors.Executor
	executors.StateExporter
}

// Local is the engine a Router tries first: the Starlark engine, in this
// process (*starlarkexec.Executor) or in a child process
// (*isolation.Executor).
type Local interface {
	executors.Executor
	executors.StateExporter
	executors.SyntaxChecker
}

// Router is an Executor that routes each action to the right engine.
type Router struct {
	local  Local
	python Python

	// last is the engine that ran the previous action: state flows from it
	// to the engine that runs the next one.
	last string
	// pythonOnly and localOnly name variables that could not cross, with why.
	pythonOnly map[string]string
	localOnly  map[string]string
}

// CarryBudgeter is implemented by Python executors that say how much
// variable data (in pyvalue.EncodeLimit's cost units) one crossing may carry.
type CarryBudgeter interface {
	CarryBudget() int64
}

// defaultCarryBudget is the budget of a crossing into a Python executor
// that does not say: half the message limit of a default sandbox.
var defaultCarryBudget = runner.Config{}.Limits().MaxMessage / 2

// New returns a Router over a local engine and a Python executor. The
// Router owns both: Close closes them. Make the local engine with Rerun set
// (starlarkexec.Options.Rerun, isolation.Options.Rerun), so that a step it
// stops at while running (a construct it finds it cannot run only then)
// runs again in Python.
func New(l Local, p Python) *Router {
	return &Router{local: l, python: p, last: starlarkexec.Engine, pythonOnly: map[string]string{}, localOnly: map[string]string{}}
}

// SetTools gives the tools to both engines.
func (r *Router) SetTools(ctx context.Context, tools []tool.Tool) error {
	if err := r.local.SetTools(ctx, tools); err != nil {
		return err
	}
	return r.python.SetTools(ctx, tools)
}

// SetVariables gives the variables to both engines.
func (r *Router) SetVariables(ctx context.Context, vars map[string]any) error {
	if err := r.local.SetVariables(ctx, vars); err != nil {
		return err
	}
	return r.python.SetVariables(ctx, vars)
}

// CheckSyntax reports whether code parses as Python, with the local
// engine's front end (see executors.SyntaxChecker); Python only the full
// Python executor can run parses too.
func (r *Router) CheckSyntax(code string) error { return r.local.CheckSyntax(code) }

var _ executors.SyntaxChecker = (*Router)(nil)

// Starts reports how many sandboxes the Python executor has started, for
// executors that count them (runner.Host does).
func (r *Router) Starts() int {
	if s, ok := r.python.(interface{ Starts() int }); ok {
		return s.Starts()
	}
	return 0
}

// Close closes both engines.
func (r *Router) Close() error {
	return errors.Join(r.local.Close(), r.python.Close())
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// mentions reports the names of set that appear as words in code. A word
// inside a string or comment counts too: the cost of a false match is only
// that Python runs the action.
func mentions(code string, set map[string]string) []string {
	if len(set) == 0 {
		return nil
	}
	var found []string
	for _, w := range identRE.FindAllString(code, -1) {
		if _, ok := set[w]; ok && !slices.Contains(found, w) {
			found = append(found, w)
		}
	}
	return found
}

// timeout is the step's time limit: the local engine's, which a step run
// again in Python shares.
func (r *Router) timeout() time.Duration {
	if l, ok := r.local.(interface{ Limits() executors.Limits }); ok {
		return l.Limits().WithDefaults().Timeout
	}
	return executors.Limits{}.WithDefaults().Timeout
}

// Execute runs code in the local engine, or in Python when it needs it.
func (r *Router) Execute(ctx context.Context, code string) (executors.Result, error) {
	start := time.Now()
	rerun := false
	var notes []string
	// When Python ran last, what stays there is known only once its
	// variables are read: read them now, so that an action that uses a
	// value only Python holds (a DataFrame made by the previous step)
	// goes there at once, and the read serves the crossing otherwise.
	confined := r.pythonOnly
	var exported *exportedVars
	if r.last != starlarkexec.Engine {
		vars, skipped, err := r.python.Variables(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return executors.Result{Engine: starlarkexec.Engine}, fmt.Errorf("router: read variables of %s: %w", r.last, err)
			}
			// The sandbox broke while its state was read (the code left a
			// value that broke it, or it was killed): the step has not
			// run, and both the model and the operator are told, never
			// a success. Its variables are gone; the next step starts
			// afresh from the Starlark engine's.
			lost := r.last
			r.last = starlarkexec.Engine
			clear(r.pythonOnly)
			return executors.Result{Engine: starlarkexec.Engine, Err: &executors.ExecError{
				Type:    "SystemError",
				Message: fmt.Sprintf("this step did not run: the full-Python sandbox (%s) broke when its variables were read for this step; the variables of the previous full-Python steps are lost; run this step again", lost),
				Hint:    fmt.Sprintf("reading the variables of %s failed: %v", lost, err),
			}}, nil
		}
		exported = &exportedVars{vars, skipped}
		confined = skipped
	}
	if names := mentions(code, confined); len(names) == 0 {
		if err := r.syncFrom(ctx, starlarkexec.Engine, exported, &notes); err != nil {
			return executors.Result{Engine: starlarkexec.Engine}, err
		}
		res, err := r.local.Execute(ctx, code)
		if err != nil || res.Err == nil || !res.Err.NeedsPython {
			res.Notes = append(notes, res.Notes...)
			return res, err
		}
		// A step the engine stopped at while running says so in its
		// notes (see starlarkexec.Options.Rerun): keep them.
		notes = append(notes, res.Notes...)
		why, _, _ := strings.Cut(res.Err.Message, ";")
		notes = append(notes, fmt.Sprintf("this step ran in full Python because the Starlark engine cannot run it (%s)", why))
		rerun = true
	} else {
		notes = append(notes, fmt.Sprintf("this step ran in full Python because it uses %s, which exist only there", strings.Join(names, ", ")))
	}
	if err := r.sync(ctx, "python", &notes); err != nil {
		return executors.Result{Engine: "python"}, err
	}
	pctx := ctx
	limit := r.timeout()
	left := limit - time.Since(start)
	timedOut := func() executors.Result {
		return executors.Result{Engine: "python", Duration: time.Since(start), Notes: notes, Err: &executors.ExecError{Type: "TimeoutError", Message: fmt.Sprintf(
			"execution exceeded the time limit of %s (the Starlark engine had used %s of it before the step ran again in full Python)", limit, (limit - left).Round(time.Millisecond))}}
	}
	if rerun {
		// Running the step again gives it only what is left of its time
		// limit: it is one step, not two. (The Starlark engine hands a
		// step on only before it called a tool, so no wait for a person
		// is in what it used; one in the rerun stops this clock too.)
		if left <= 0 {
			return timedOut(), nil
		}
		var cancel context.CancelFunc
		pctx, _, cancel = executors.StartClock(ctx, left)
		defer cancel()
	}
	res, err := r.python.Execute(pctx, code)
	if err != nil && rerun && ctx.Err() == nil && executors.TimedOut(pctx) {
		return timedOut(), nil
	}
	res.Notes = append(notes, res.Notes...)
	if names := mentions(code, r.localOnly); len(names) > 0 && res.Err != nil && res.Err.Type == "NameError" {
		res.Notes = append(res.Notes, fmt.Sprintf("%s were defined in the Starlark engine and cannot move to full Python (only JSON-representable values can); define them again in this step", strings.Join(names, ", ")))
	}
	return res, err
}

// exportedVars are the variables of an engine, read for a crossing.
type exportedVars struct {
	vars    map[string]any
	skipped map[string]string
}

// sync copies the variables of the engine that ran last into engine, if
// they differ.
func (r *Router) sync(ctx context.Context, engine string, notes *[]string) error {
	return r.syncFrom(ctx, engine, nil, notes)
}

// syncFrom is sync with the variables of the engine that ran last already
// read (pre), or nil to read them.
func (r *Router) syncFrom(ctx context.Context, engine string, pre *exportedVars, notes *[]string) error {
	if r.last == engine {
		return nil
	}
	var from executors.StateExporter = r.local
	var to executors.Executor = r.python
	only, otherOnly := r.localOnly, r.pythonOnly
	if engine == starlarkexec.Engine {
		from, to = r.python, r.local
		only, otherOnly = r.pythonOnly, r.localOnly
	}
	var vars map[string]any
	var skipped map[string]string
	if pre != nil {
		vars, skipped = pre.vars, pre.skipped
	} else {
		var err error
		if vars, skipped, err = from.Variables(ctx); err != nil {
			return fmt.Errorf("router: read variables of %s: %w", r.last, err)
		}
	}
	if engine != starlarkexec.Engine {
		vars, skipped = r.fit(vars, skipped)
	}
	if err := to.SetVariables(ctx, vars); err != nil {
		return fmt.Errorf("router: copy variables to %s: %w", engine, err)
	}
	// A name that crossed is no longer confined to either side.
	for name := range vars {
		delete(only, name)
		delete(otherOnly, name)
	}
	clear(only)
	maps.Copy(only, skipped)
	for _, name := range slices.Sorted(maps.Keys(skipped)) {
		*notes = append(*notes, fmt.Sprintf("variable %s stays in the %s engine and is not visible here: %s", name, r.last, skipped[name]))
	}
	r.last = engine
	return nil
}

// fit keeps the variables whose JSON form fits the crossing's budget, in
// name order, and moves the others to skipped with the reason. Encoding
// stops as soon as the budget is spent, so a variable that repeats one list
// many times costs no more than the budget to refuse.
func (r *Router) fit(vars map[string]any, skipped map[string]string) (map[string]any, map[string]string) {
	budget := defaultCarryBudget
	if b, ok := r.python.(CarryBudgeter); ok {
		budget = b.CarryBudget()
	}
	left := budget
	kept := make(map[string]any, len(vars))
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		if hugeInt(vars[name], 0) {
			if skipped == nil {
				skipped = map[string]string{}
			}
			skipped[name] = fmt.Sprintf("it holds an int of more than %d digits, which CPython cannot read from text (its limit); carry hex() of it and int(h, 16) there", maxIntDigits)
			continue
		}
		_, cost, err := pyvalue.EncodeLimit(vars[name], left)
		if err != nil {
			if skipped == nil {
				skipped = map[string]string{}
			}
			if errors.Is(err, pyvalue.ErrTooBig) {
				skipped[name] = fmt.Sprintf("it is too big to carry to full Python (written out as JSON it passes the %d MiB left of the %d MiB a step may carry; a list repeated many times counts each time); make it smaller or recompute it in a full-Python step", left>>20, budget>>20)
			} else {
				skipped[name] = err.Error()
			}
			continue
		}
		left -= cost
		kept[name] = vars[name]
	}
	return kept, skipped
}

// maxIntDigits is CPython's limit on the digits of an int read from text
// (sys.get_int_max_str_digits), which is how ints cross: a longer one
// would break the sandbox that reads it.
const maxIntDigits = 4300

// hugeInt reports whether v holds an int of more than maxIntDigits
// digits.
func hugeInt(v any, depth int) bool {
	if depth > 200 {
		return false
	}
	switch x := v.(type) {
	case *big.Int:
		// Digits from bits, rounded up: at worst one digit early.
		return x != nil && float64(x.BitLen())*math.Log10(2) > maxIntDigits
	case []any:
		for _, e := range x {
			if hugeInt(e, depth+1) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hugeInt(e, depth+1) {
				return true
			}
		}
	default:
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Slice, reflect.Array:
			if rv.Type().Elem().Kind() == reflect.Uint8 {
				return false
			}
			for i := 0; i < rv.Len(); i++ {
				if hugeInt(rv.Index(i).Interface(), depth+1) {
					return true
				}
			}
		case reflect.Map:
			iter := rv.MapRange()
			for iter.Next() {
				if hugeInt(iter.Key().Interface(), depth+1) || hugeInt(iter.Value().Interface(), depth+1) {
					return true
				}
			}
		case reflect.Struct:
			for i := 0; i < rv.NumField(); i++ {
				if rv.Type().Field(i).IsExported() && hugeInt(rv.Field(i).Interface(), depth+1) {
					return true
				}
			}
		}
	}
	return false
}
