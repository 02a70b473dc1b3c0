package core

// Abstract base classes (the abc module): a class deriving from ABC
// cannot be instantiated while a method decorated with @abstractmethod,
// in it or a base, is not overridden.
//
// abstractmethod returns its function unchanged, as in Python, so that
// binding and super() treat it as any method; it records the function on
// the execution's thread, where __sa_class, which runs on the same thread
// right after the class body, finds which names of the body are abstract.

import (
	"sort"
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// ABC is abc.ABC, the base class of abstract base classes.
var ABC = &Class{PyName: "ABC", Module: "abc", Dict: map[string]starlark.Value{}}

// abstractKey is the thread-local key of the set of functions
// abstractmethod marked in the execution.
const abstractKey = "star-agent.abstract"

// AbstractMethod is abc.abstractmethod.
func AbstractMethod(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Value
	if err := starlark.UnpackPositionalArgs("abstractmethod", args, kwargs, 1, &fn); err != nil {
		return nil, err
	}
	set, _ := th.Local(abstractKey).(map[starlark.Value]bool)
	if set == nil {
		set = map[starlark.Value]bool{}
		th.SetLocal(abstractKey, set)
	}
	if _, ok := fn.(starlark.Callable); !ok {
		return nil, Errorf(pyexc.TypeError, "abstractmethod() needs a function, not '%s'", TypeName(fn))
	}
	if err := Alloc(th, DictEntrySize); err != nil {
		return nil, err
	}
	set[fn] = true
	return fn, nil
}

// markAbstract records the names of c's namespace that hold functions
// abstractmethod marked on th (directly, or as a property's getter or a
// static or class method's function).
func markAbstract(th *starlark.Thread, c *Class) {
	set, _ := th.Local(abstractKey).(map[starlark.Value]bool)
	if len(set) == 0 {
		return
	}
	for _, name := range c.order {
		v := c.Dict[name]
		switch x := v.(type) {
		case *property:
			v = x.get
		case *staticMethod:
			v = x.fn
		case *classMethod:
			v = x.fn
		}
		if set[v] {
			c.abstract = append(c.abstract, name)
		}
	}
}

// checkAbstract refuses to instantiate a subclass of ABC that has
// abstract methods not overridden.
func (c *Class) checkAbstract() error {
	if !c.IsSubclassOf(ABC) {
		return nil
	}
	var missing []string
	for k := c; k != nil; k = k.Base {
		for _, name := range k.abstract {
			if _, owner := c.lookup(name); owner == k {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	s := ""
	if len(missing) > 1 {
		s = "s"
	}
	return Errorf(pyexc.TypeError, "Can't instantiate abstract class %s with abstract method%s %s", c.PyName, s, strings.Join(missing, ", "))
}

// AbcModule returns the members of the abc module.
func AbcModule() starlark.StringDict {
	return starlark.StringDict{
		"ABC":            ABC,
		"abstractmethod": starlark.NewBuiltin("abstractmethod", AbstractMethod),
	}
}
