package core

// The data model of user classes beyond what class.go's interfaces give:
// the with statement, in-place operators, @, del x[k], and the numeric
// hooks (__abs__, __round__, __floor__, __ceil__, __pow__, __divmod__)
// that builtins reach through the protocols of numbers.go.
//
// Every special method runs as an ordinary call of user code on the
// execution's thread (CallDunder), so steps, the deadline, the memory
// budget and the call depth bound it as they bound any call; nothing
// here gives user code a value it could not already reach.

import (
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// ContextManager is a value of the runtime's own (not a user class)
// that the with statement accepts: contextlib's managers.
type ContextManager interface {
	starlark.Value
	// Enter is __enter__: its result is bound by "as".
	Enter(th *starlark.Thread) (starlark.Value, error)
	// Exit is __exit__ with exc (an exception instance, or nil when the
	// body finished normally); suppress reports that exc is swallowed.
	Exit(th *starlark.Thread, exc *Instance) (suppress bool, err error)
}

// SaWithEnter implements contract.HelperWithEnter.
func SaWithEnter(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 1 argument", contract.HelperWithEnter)
	}
	switch m := args[0].(type) {
	case *Instance:
		if m.Dunder("__enter__") != nil {
			if m.Dunder("__exit__") == nil {
				return nil, Errorf(pyexc.TypeError, "'%s' object does not support the context manager protocol (missed __exit__ method)", m.class.PyName)
			}
			v, _, err := m.CallDunder(th, "__enter__")
			return v, err
		}
	case ContextManager:
		return m.Enter(th)
	}
	return nil, Errorf(pyexc.TypeError, "'%s' object does not support the context manager protocol", TypeName(args[0]))
}

// SaWithExit implements contract.HelperWithExit.
func SaWithExit(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s takes 2 arguments", contract.HelperWithExit)
	}
	exc, _ := args[1].(*Instance)
	switch m := args[0].(type) {
	case *Instance:
		var typ, val starlark.Value = starlark.None, starlark.None
		if exc != nil {
			typ, val = exc.class, exc
		}
		v, ok, err := m.CallDunder(th, "__exit__", typ, val, starlark.None)
		if !ok || err != nil || exc == nil {
			return starlark.False, err
		}
		t, err := Truth(th, v)
		return starlark.Bool(t), err
	case ContextManager:
		suppress, err := m.Exit(th, exc)
		return starlark.Bool(suppress && exc != nil), err
	}
	return nil, Errorf(pyexc.TypeError, "'%s' object does not support the context manager protocol", TypeName(args[0]))
}

// Truth is bool(v) for a caller with a thread: an instance's __bool__
// (or __len__) runs on th and may fail, as in Python; bool and len must
// return what Python requires of them.
func Truth(th *starlark.Thread, v starlark.Value) (bool, error) {
	o, ok := v.(*Instance)
	if !ok {
		return bool(v.Truth()), nil
	}
	if r, ok, err := o.CallDunder(th, "__bool__"); ok {
		if err != nil {
			return false, err
		}
		b, isBool := r.(starlark.Bool)
		if !isBool {
			return false, Errorf(pyexc.TypeError, "__bool__ should return bool, returned %s", TypeName(r))
		}
		return bool(b), nil
	}
	if o.Dunder("__len__") != nil {
		n, err := o.PyLen(th)
		return n != 0, err
	}
	return bool(o.Truth()), nil
}

// InplaceGuard is contract.HelperInplace: InplaceGuard % x is x, or for
// an instance a wrapper whose operators call the in-place methods.
type InplaceGuard struct{}

func (InplaceGuard) String() string       { return "<in-place guard>" }
func (InplaceGuard) Type() string         { return "inplace_guard" }
func (InplaceGuard) Freeze()              {}
func (InplaceGuard) Truth() starlark.Bool { return true }
func (InplaceGuard) Hash() (uint32, error) {
	return 0, Errorf(pyexc.TypeError, "unhashable type: 'inplace_guard'")
}

// Binary wraps the operand of guard % x.
func (InplaceGuard) Binary(op syntax.Token, x starlark.Value, side starlark.Side) (starlark.Value, error) {
	if op != syntax.PERCENT || side != starlark.Left {
		return nil, nil
	}
	switch x := x.(type) {
	case *Instance:
		if !x.class.shared() {
			return &inplaceOperand{x}, nil
		}
	case *starlark.List, *starlark.Set, *starlark.Dict:
		return &inplaceContainer{x}, nil
	}
	return x, nil
}

// inplaceContainer is a list, set or dict on the left of an augmented
// assignment other than +=: Python changes it in place (y = x; x *= 2
// changes y too), where Starlark's x = x op y would make a new value.
type inplaceContainer struct{ x starlark.Value }

func (p *inplaceContainer) String() string        { return p.x.String() }
func (p *inplaceContainer) Type() string          { return p.x.Type() }
func (p *inplaceContainer) Freeze()               {}
func (p *inplaceContainer) Truth() starlark.Bool  { return p.x.Truth() }
func (p *inplaceContainer) Hash() (uint32, error) { return p.x.Hash() }

// Binary runs set |= &= -= ^= and dict |=: the result of x op y becomes
// x's contents, in the result's order, which is the order Python's
// in-place update leaves. Other operators are x op y.
func (p *inplaceContainer) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if side != starlark.Left {
		return nil, nil
	}
	r, err := starlark.Binary(op, p.x, y)
	if err != nil {
		return nil, BinaryError(op.String()+"=", p.x, y, err)
	}
	switch x := p.x.(type) {
	case *starlark.Set:
		if rs, ok := r.(*starlark.Set); ok {
			if err := x.Clear(); err != nil {
				return nil, err
			}
			for v := range rs.Elements() {
				if err := x.Insert(v); err != nil {
					return nil, err
				}
			}
			return x, nil
		}
	case *starlark.Dict:
		if rd, ok := r.(*starlark.Dict); ok && op == syntax.PIPE {
			for _, kv := range rd.Items() {
				if err := x.SetKey(kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
			return x, nil
		}
	}
	return r, nil
}

// imul is list *= n: the list repeated in place, its growth charged to
// the budget first.
func (p *inplaceContainer) imul(th *starlark.Thread, n starlark.Value) (starlark.Value, error) {
	list, ok := p.x.(*starlark.List)
	if !ok {
		return Mul(th, p.x, n)
	}
	if isNumber(n) && n.Type() == "float" {
		return nil, Errorf(pyexc.TypeError, "can't multiply sequence by non-int of type 'float'")
	}
	count, err := Index(n)
	if err != nil {
		return nil, Errorf(pyexc.TypeError, "can't multiply sequence by non-int of type '%s'", TypeName(n))
	}
	c, ok := count.Int64()
	if !ok && count.Sign() > 0 {
		return nil, Errorf(pyexc.OverflowError, "cannot fit 'int' into an index-sized integer")
	}
	m := int64(list.Len())
	if c <= 0 || m == 0 {
		return list, list.Clear()
	}
	if c > (1<<62)/(m*ElemSize) {
		return nil, Errorf(pyexc.MemoryError, "repeat count %d is too large", c)
	}
	if err := Alloc(th, m*c*ElemSize); err != nil {
		return nil, err
	}
	for i := int64(1); i < c; i++ {
		for j := int64(0); j < m; j++ {
			if err := list.Append(list.Index(int(j))); err != nil {
				return nil, err
			}
		}
	}
	return list, nil
}

// inplaceOperand is an instance on the left of an augmented assignment.
type inplaceOperand struct{ o *Instance }

var inplaceNames = map[syntax.Token]string{
	syntax.PLUS: "__iadd__", syntax.MINUS: "__isub__", syntax.STAR: "__imul__",
	syntax.SLASH: "__itruediv__", syntax.SLASHSLASH: "__ifloordiv__", syntax.PERCENT: "__imod__",
	syntax.AMP: "__iand__", syntax.PIPE: "__ior__", syntax.CIRCUMFLEX: "__ixor__",
	syntax.LTLT: "__ilshift__", syntax.GTGT: "__irshift__",
}

func (p *inplaceOperand) String() string        { return p.o.String() }
func (p *inplaceOperand) Type() string          { return p.o.Type() }
func (p *inplaceOperand) Freeze()               {}
func (p *inplaceOperand) Truth() starlark.Bool  { return p.o.Truth() }
func (p *inplaceOperand) Hash() (uint32, error) { return p.o.Hash() }

// inplace calls the in-place method name with y; ok is false when the
// class has none or it returned NotImplemented.
func (p *inplaceOperand) inplace(th *starlark.Thread, name string, y starlark.Value) (starlark.Value, bool, error) {
	v, ok, err := p.o.CallDunder(th, name, y)
	if !ok || err == nil && v == NotImplemented {
		return nil, false, nil
	}
	return v, true, err
}

// Binary runs x op= y: the in-place method, else x op y.
func (p *inplaceOperand) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if side != starlark.Left {
		return nil, nil
	}
	if name, ok := inplaceNames[op]; ok {
		if v, ok, err := p.inplace(nil, name, y); ok {
			return v, err
		}
	}
	v, err := starlark.Binary(op, p.o, y)
	if err != nil {
		return nil, BinaryError(op.String()+"=", p.o, y, err)
	}
	return v, nil
}

// NumberPow runs x **= y: __ipow__, else x ** y.
func (p *inplaceOperand) NumberPow(th *starlark.Thread, a, b starlark.Value) (starlark.Value, bool, error) {
	if a != starlark.Value(p) {
		return nil, false, nil
	}
	if v, ok, err := p.inplace(th, "__ipow__", b); ok {
		return v, true, err
	}
	v, err := Pow(th, p.o, b)
	return v, true, err
}

// matmul runs x @ y or x @= y (inplace).
func matmul(th *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
	if p, ok := x.(*inplaceOperand); ok {
		if v, ok, err := p.inplace(th, "__imatmul__", y); ok {
			return v, err
		}
		x = p.o
	}
	if o, ok := x.(*Instance); ok {
		if v, ok, err := o.CallDunder(th, "__matmul__", y); ok && (err != nil || v != NotImplemented) {
			return v, err
		}
	}
	if o, ok := y.(*Instance); ok {
		if v, ok, err := o.CallDunder(th, "__rmatmul__", x); ok && (err != nil || v != NotImplemented) {
			return v, err
		}
	}
	return nil, Errorf(pyexc.TypeError, "unsupported operand type(s) for @: '%s' and '%s'", TypeName(x), TypeName(y))
}

// SaMatmul implements contract.HelperMatmul.
func SaMatmul(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, y, err := twoArgs(contract.HelperMatmul, args, kwargs)
	if err != nil {
		return nil, err
	}
	return matmul(th, x, y)
}

// SaDelItem implements contract.HelperDelItem: an instance's
// __delitem__, else the element removed from a list or a dict as pop
// does.
func SaDelItem(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, k, err := twoArgs(contract.HelperDelItem, args, kwargs)
	if err != nil {
		return nil, err
	}
	if o, ok := x.(*Instance); ok {
		_, ok, err := o.CallDunder(th, "__delitem__", k)
		if !ok {
			return nil, Errorf(pyexc.TypeError, "'%s' object does not support item deletion", o.class.PyName)
		}
		return starlark.None, err
	}
	pop, err := GetAttr(th, x, "pop")
	if err != nil {
		if typ, _ := Classify(err); typ == pyexc.AttributeError.Name() {
			return nil, Errorf(pyexc.TypeError, "'%s' object does not support item deletion", TypeName(x))
		}
		return nil, err
	}
	if _, err := starlark.Call(th, pop, starlark.Tuple{k}, nil); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// InplacePlus is contract.HelperIPlus: the guard of x += y (PlusGuard
// with Inplace set) that first gives an instance its __iadd__.
type InplacePlus struct{ *PlusGuard }

// Get wraps the left operand of +=.
func (g InplacePlus) Get(x starlark.Value) (starlark.Value, bool, error) {
	if o, ok := x.(*Instance); ok && o.Dunder("__iadd__") != nil {
		return &iaddOperand{o: o, g: g.PlusGuard}, true, nil
	}
	return g.PlusGuard.Get(x)
}

// iaddOperand is an instance with __iadd__ on the left of +=.
type iaddOperand struct {
	o *Instance
	g *PlusGuard
}

func (p *iaddOperand) String() string        { return p.o.String() }
func (p *iaddOperand) Type() string          { return p.o.Type() }
func (p *iaddOperand) Freeze()               {}
func (p *iaddOperand) Truth() starlark.Bool  { return p.o.Truth() }
func (p *iaddOperand) Hash() (uint32, error) { return p.o.Hash() }

// Get is x += y: __iadd__, else x + y.
func (p *iaddOperand) Get(y starlark.Value) (starlark.Value, bool, error) {
	v, _, err := p.o.CallDunder(nil, "__iadd__", y)
	if err != nil {
		return nil, false, err
	}
	if v != NotImplemented {
		return v, true, nil
	}
	v, err = Add(p.o.class.thread(), p.o, y)
	return v, err == nil, err
}

var (
	_ PyRounder      = (*Instance)(nil)
	_ numberPower    = (*Instance)(nil)
	_ numberDivmoder = (*Instance)(nil)
)

// PyAbs is abs(o): __abs__.
func (o *Instance) PyAbs() (starlark.Value, error) {
	v, ok, err := o.CallDunder(nil, "__abs__")
	if !ok {
		return nil, Errorf(pyexc.TypeError, "bad operand type for abs(): '%s'", o.class.PyName)
	}
	return v, err
}

// PyRound is round(o[, ndigits]): __round__.
func (o *Instance) PyRound(ndigits starlark.Value) (starlark.Value, error) {
	var args []starlark.Value
	if ndigits != nil && ndigits != starlark.None {
		args = append(args, ndigits)
	}
	v, ok, err := o.CallDunder(nil, "__round__", args...)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "type %s doesn't define __round__ method", o.class.PyName)
	}
	return v, err
}

// PyFloorCeil is math.floor(o) or math.ceil(o): __floor__ or __ceil__.
func (o *Instance) PyFloorCeil(ceil bool) (starlark.Value, error) {
	name := "__floor__"
	if ceil {
		name = "__ceil__"
	}
	v, ok, err := o.CallDunder(nil, name)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "must be real number, not %s", o.class.PyName)
	}
	return v, err
}

// NumberPow is a ** b with o either operand: __pow__ or __rpow__.
func (o *Instance) NumberPow(th *starlark.Thread, a, b starlark.Value) (starlark.Value, bool, error) {
	return o.binaryDunder(th, a, b, "__pow__", "__rpow__")
}

// NumberDivmod is divmod(a, b) with o either operand: __divmod__ or
// __rdivmod__.
func (o *Instance) NumberDivmod(a, b starlark.Value) (starlark.Value, bool, error) {
	return o.binaryDunder(nil, a, b, "__divmod__", "__rdivmod__")
}

// binaryDunder calls name on a (when o is a) or rname on b (when o is
// b); ok is false when neither applies or both return NotImplemented.
func (o *Instance) binaryDunder(th *starlark.Thread, a, b starlark.Value, name, rname string) (starlark.Value, bool, error) {
	if a == starlark.Value(o) {
		if v, ok, err := o.CallDunder(th, name, b); ok && (err != nil || v != NotImplemented) {
			return v, true, err
		}
		return nil, false, nil // b, if an instance, has its turn next
	}
	if v, ok, err := o.CallDunder(th, rname, a); ok && (err != nil || v != NotImplemented) {
		return v, true, err
	}
	return nil, false, nil
}

// Ellipsis is the value of "...".
var Ellipsis = &Singleton{Name: "Ellipsis"}
