package core

// The enum module: a class statement deriving from Enum, IntEnum, Flag or
// IntFlag turns the plain values of its body into members, instances of
// the class with name and value attributes, unique and compared by
// identity. IntEnum and IntFlag members also act as their int values in
// arithmetic and comparisons; Flag members combine with | & ^ ~ into
// pseudo-members named after their bits, as CPython 3.11's enum does.
// class.go calls the enum* methods below from the Instance methods they
// extend.

import (
	"math/bits"
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

var (
	enumBase    = &Class{PyName: "Enum", Module: "enum", Dict: map[string]starlark.Value{}, enum: true}
	intEnumBase = &Class{PyName: "IntEnum", Module: "enum", Base: enumBase, Dict: map[string]starlark.Value{}, enum: true}
	flagBase    = &Class{PyName: "Flag", Module: "enum", Base: enumBase, Dict: map[string]starlark.Value{}, enum: true}
	intFlagBase = &Class{PyName: "IntFlag", Module: "enum", Base: flagBase, Dict: map[string]starlark.Value{}, enum: true}
)

// enumInfo is what an enum class keeps besides its members: for flags,
// the masks of its bits and the pseudo-members made so far, by value.
type enumInfo struct {
	byValue     map[int64]*Instance
	flagMask    int64 // the bits of the members
	singlesMask int64 // the bits of the one-bit members
	allBits     int64 // 2**bit_length(flagMask) - 1
}

// enumKind reports whether c's members are ints (IntEnum, IntFlag) and
// whether they are flags (Flag, IntFlag).
func (c *Class) enumKind() (isInt, isFlag bool) {
	for k := c; k != nil; k = k.Base {
		switch k {
		case intEnumBase:
			isInt = true
		case intFlagBase:
			isInt, isFlag = true, true
		case flagBase:
			isFlag = true
		}
	}
	return isInt, isFlag
}

// autoValue is what enum.auto() returns: a placeholder for the next value.
type autoValue struct{}

func (a *autoValue) String() string        { return "auto()" }
func (a *autoValue) Type() string          { return "auto" }
func (a *autoValue) Freeze()               {}
func (a *autoValue) Truth() starlark.Bool  { return true }
func (a *autoValue) Hash() (uint32, error) { return uint32(UintptrOf(a)), nil }

func EnumModule() starlark.StringDict {
	return starlark.StringDict{
		"Enum":    enumBase,
		"IntEnum": intEnumBase,
		"Flag":    flagBase,
		"IntFlag": intFlagBase,
		"unique": Fn("unique", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("unique", args, kwargs, 1, &v); err != nil {
				return nil, err
			}
			c, ok := v.(*Class)
			if !ok || !c.enum {
				return v, nil
			}
			var dups []string
			for _, name := range c.order {
				if m, ok := c.Dict[name].(*Instance); ok && m.class == c && m.attrs["name"] != starlark.String(name) {
					dups = append(dups, name+" -> "+string(m.attrs["name"].(starlark.String)))
				}
			}
			if len(dups) > 0 {
				return nil, Errorf(pyexc.ValueError, "duplicate values found in %s: %s", c.String(), strings.Join(dups, ", "))
			}
			return c, nil
		}),
		"auto": Fn("auto", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args)+len(kwargs) > 0 {
				return nil, Errorf(pyexc.TypeError, "auto() takes no arguments")
			}
			return &autoValue{}, nil
		}),
	}
}

// nextEnumValue is Enum._generate_next_value_ (Flag's for flags): one
// more than the largest int value so far, or the next power of two.
func nextEnumValue(values []starlark.Value, isFlag bool) (starlark.Value, error) {
	if len(values) == 0 {
		return starlark.MakeInt(1), nil
	}
	if isFlag {
		var hi int64
		for _, v := range values {
			n, ok := flagInt(v)
			if !ok {
				return nil, Errorf(pyexc.TypeError, "invalid flag value %s", Repr(v))
			}
			hi = max(hi, n)
		}
		return starlark.MakeInt64(int64(1) << bits.Len64(uint64(hi))), nil
	}
	allInt := true
	for _, v := range values {
		if _, ok := v.(starlark.Int); !ok {
			allInt = false
		}
	}
	if allInt {
		m := values[0]
		for _, v := range values[1:] {
			if lt, _ := starlark.Compare(syntax.LT, m, v); lt {
				m = v
			}
		}
		return starlark.Binary(syntax.PLUS, m, starlark.MakeInt(1))
	}
	// Mixed values: CPython falls back to the latest value that + 1 works on.
	for i := len(values) - 1; i >= 0; i-- {
		switch values[i].(type) {
		case starlark.Int, starlark.Float:
			return starlark.Binary(syntax.PLUS, values[i], starlark.MakeInt(1))
		}
	}
	return starlark.MakeInt(1), nil
}

// flagInt is a flag value as an int64.
func flagInt(v starlark.Value) (int64, bool) {
	switch x := v.(type) {
	case starlark.Int:
		return x.Int64()
	case starlark.Bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// makeMembers turns the body values of an Enum subclass into members.
func makeMembers(c *Class) error {
	isInt, isFlag := c.enumKind()
	info := &enumInfo{byValue: map[int64]*Instance{}}
	c.enumData = info
	var values []starlark.Value
	for _, name := range c.order {
		v := c.Dict[name]
		if len(name) > 0 && name[0] == '_' {
			continue
		}
		switch v.(type) {
		case *starlark.Function, *starlark.Builtin, *staticMethod, *classMethod, *property:
			continue
		case *autoValue:
			next, err := nextEnumValue(values, isFlag)
			if err != nil {
				return err
			}
			v = next
		}
		if isInt {
			switch x := v.(type) {
			case starlark.Bool:
				v = BoolInt(x)
			case starlark.Int:
			default:
				return Errorf(pyexc.TypeError, "%s: the value of %s must be an int, not %s", c.PyName, name, TypeName(v))
			}
		}
		values = append(values, v)
		var alias *Instance
		for _, m := range c.members {
			if eq, err := starlark.Equal(m.attrs["value"], v); err == nil && eq {
				alias = m
				break
			}
		}
		if alias == nil {
			for _, m := range info.byValue {
				if eq, err := starlark.Equal(m.attrs["value"], v); err == nil && eq {
					alias = m
					break
				}
			}
		}
		if alias != nil {
			// An alias: Python binds the name to the existing member.
			c.Dict[name] = alias
			continue
		}
		m := newEnumMember(c, starlark.String(name), v)
		c.Dict[name] = m
		if isFlag {
			n, ok := flagInt(v)
			if !ok {
				return Errorf(pyexc.TypeError, "%s: the value of %s must be an int, not %s", c.PyName, name, TypeName(v))
			}
			if n < 0 {
				return Errorf(pyexc.ValueError, "%s: negative flag values are not supported by the Starlark engine", c.PyName)
			}
			info.byValue[n] = m
			info.flagMask |= n
			if n != 0 && n&(n-1) != 0 {
				continue // a multi-bit member: not iterated, as in CPython
			}
			info.singlesMask |= n
		}
		c.members = append(c.members, m)
	}
	if isFlag {
		info.allBits = int64(1)<<bits.Len64(uint64(info.flagMask)) - 1
	}
	return nil
}

func newEnumMember(c *Class, name, value starlark.Value) *Instance {
	return &Instance{class: c, attrs: map[string]starlark.Value{"name": name, "value": value, "_name_": name, "_value_": value}, order: []string{"name", "value"}, frozen: true}
}

// enumLookup is EnumClass(value).
func (c *Class) enumLookup(args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 || len(kwargs) != 0 {
		return nil, Errorf(pyexc.TypeError, "%s() takes exactly one argument", c.PyName)
	}
	for _, m := range c.members {
		if eq, err := starlark.Equal(m.attrs["value"], args[0]); err == nil && eq {
			return m, nil
		}
	}
	if _, isFlag := c.enumKind(); isFlag {
		if n, ok := flagInt(args[0]); ok {
			return c.flagMember(n)
		}
	}
	return nil, Errorf(pyexc.ValueError, "%s is not a valid %s", Repr(args[0]), c.PyName)
}

// binDigits is enum._bin: num in binary with its sign bit, padded to
// maxBits digits.
func binDigits(num int64, maxBits int) string {
	ceiling := int64(1) << bits.Len64(uint64(num))
	s := "0b" + strings.Replace(strconv64(num+ceiling), "1", "0", 1)
	sign, digits := s[:3], s[3:]
	if len(digits) < maxBits {
		d := strings.Repeat(sign[2:], maxBits) + digits
		digits = d[len(d)-maxBits:]
	}
	return sign + " " + digits
}

func strconv64(n int64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n >>= 1 {
		b = append([]byte{byte('0' + n&1)}, b...)
	}
	return string(b)
}

// flagMember is Flag._missing_: the member or pseudo-member for value,
// named after its bits (IntFlag keeps bits no member has and names them
// by number; Flag refuses them).
func (c *Class) flagMember(value int64) (*Instance, error) {
	info := c.enumData
	if m, ok := info.byValue[value]; ok {
		return m, nil
	}
	isInt, _ := c.enumKind()
	if value < ^info.allBits || value > info.allBits || value&(info.allBits^info.flagMask) != 0 {
		if !isInt {
			maxBits := max(bits.Len64(uint64(max(value, 0))), bits.Len64(uint64(info.flagMask)))
			if value < 0 {
				return nil, Errorf(pyexc.ValueError, "%s invalid value %d", c.String(), value)
			}
			return nil, Errorf(pyexc.ValueError, "%s invalid value %d\n    given %s\n  allowed %s", c.String(), value, binDigits(value, maxBits), binDigits(info.flagMask, maxBits))
		}
		if value < 0 {
			value += max(info.allBits+1, int64(1)<<bits.Len64(uint64(-value)))
		}
	}
	neg := int64(0)
	if value < 0 {
		neg = value
		value = info.allBits + 1 + value
	}
	if m, ok := info.byValue[value]; ok {
		return m, nil
	}
	memberValue := value & info.flagMask
	aliases := value &^ info.singlesMask
	var names []string
	var combined int64
	var inMembers []*Instance
	if memberValue != 0 || aliases != 0 {
		for _, m := range c.members {
			n, _ := flagInt(m.attrs["value"])
			if n != 0 && n&memberValue == n {
				names = append(names, string(m.attrs["name"].(starlark.String)))
				combined |= n
				inMembers = append(inMembers, m)
			}
		}
		if aliases != 0 {
			v := memberValue | aliases
			for _, name := range c.order {
				m, ok := c.Dict[name].(*Instance)
				if !ok || m.class != c || m.attrs["name"] != starlark.String(name) {
					continue
				}
				n, _ := flagInt(m.attrs["value"])
				in := false
				for _, x := range inMembers {
					in = in || x == m
				}
				if !in && n != 0 && n&v == n {
					names = append(names, name)
					combined |= n
					inMembers = append(inMembers, m)
				}
			}
			memberValue = v
		}
	}
	unknown := value ^ combined
	var name starlark.Value = starlark.None
	if combined != 0 {
		s := strings.Join(names, "|")
		if unknown != 0 {
			s += "|" + starlark.MakeInt64(unknown).String()
		}
		name = starlark.String(s)
	}
	m := newEnumMember(c, name, starlark.MakeInt64(value))
	if unknown == 0 || value&^info.flagMask == 0 {
		if len(info.byValue) > 4096 {
			return m, nil
		}
		info.byValue[value] = m
		if neg != 0 {
			info.byValue[neg] = m
		}
	}
	return m, nil
}

// Get is EnumClass["NAME"]; other classes are not subscriptable.
func (c *Class) Get(k starlark.Value) (starlark.Value, bool, error) {
	if !c.enum {
		return nil, false, Errorf(pyexc.TypeError, "'type' object is not subscriptable")
	}
	if s, ok := k.(starlark.String); ok {
		if m, ok := c.Dict[string(s)].(*Instance); ok && m.class == c {
			return m, true, nil
		}
	}
	return nil, false, keyError(k)
}

// Iterate iterates an enum's members.
func (c *Class) Iterate() starlark.Iterator {
	if !c.enum {
		return &errIterator{err: Errorf(pyexc.TypeError, "'type' object is not iterable")}
	}
	vals := make([]starlark.Value, len(c.members))
	for i, m := range c.members {
		vals[i] = m
	}
	return starlark.NewList(vals).Iterate()
}

// PyLen is len(EnumClass).
func (c *Class) PyLen(th *starlark.Thread) (int, error) {
	if !c.enum {
		return 0, Errorf(pyexc.TypeError, "object of type 'type' has no len()")
	}
	return len(c.members), nil
}

// Has implements "member in EnumClass".
func (c *Class) Has(x starlark.Value) (bool, error) {
	if !c.enum {
		return false, Errorf(pyexc.TypeError, "argument of type 'type' is not iterable")
	}
	if m, ok := x.(*Instance); ok && m.class == c {
		return true, nil
	}
	return false, nil
}

// enumClassString is repr(EnumClass): <enum 'Color'>, <flag 'Perm'>.
func (c *Class) enumClassString() string {
	if _, isFlag := c.enumKind(); isFlag && c != flagBase && c != intFlagBase {
		return "<flag '" + c.PyName + "'>"
	}
	return "<enum '" + c.PyName + "'>"
}

// The enum behaviour of members, called from Instance's methods in
// class.go when the class defines no dunder of its own for it.

func (o *Instance) enumName() (string, bool) {
	s, ok := o.attrs["name"].(starlark.String)
	return string(s), ok
}

// enumStr is str(member): Color.RED; an IntEnum's or IntFlag's is its
// value's; a nameless flag's Perm(0).
func (o *Instance) enumStr(th *starlark.Thread) (string, error) {
	if isInt, _ := o.class.enumKind(); isInt {
		return ReprValue(th, o.attrs["value"])
	}
	if name, ok := o.enumName(); ok {
		return o.class.PyName + "." + name, nil
	}
	v, err := ReprValue(th, o.attrs["value"])
	return o.class.PyName + "(" + v + ")", err
}

// enumRepr is repr(member): <Color.RED: 1>, <Perm: 0>.
func (o *Instance) enumRepr(th *starlark.Thread) (string, error) {
	v, err := ReprValue(th, o.attrs["value"])
	if name, ok := o.enumName(); ok {
		return "<" + o.class.PyName + "." + name + ": " + v + ">", err
	}
	return "<" + o.class.PyName + ": " + v + ">", err
}

// enumFormat is format(member, spec) for int members: the value's.
func (o *Instance) enumFormat(th *starlark.Thread, spec string) (string, bool, error) {
	if isInt, _ := o.class.enumKind(); !isInt {
		return "", false, nil
	}
	s, err := FormatValue(th, o.attrs["value"], spec)
	return s, true, err
}

// enumTruth is bool(member): an int's or a flag's value decides.
func (o *Instance) enumTruth() (starlark.Bool, bool) {
	isInt, isFlag := o.class.enumKind()
	if !isInt && !isFlag {
		return true, false
	}
	return o.attrs["value"].Truth(), true
}

// enumOperand is an operand of int-member arithmetic: an int member's
// value, or y itself.
func enumOperand(y starlark.Value) starlark.Value {
	if m, ok := y.(*Instance); ok && m.class.enum {
		if isInt, _ := m.class.enumKind(); isInt {
			return m.attrs["value"]
		}
	}
	return y
}

// enumCompare compares int members as their values.
func (o *Instance) enumCompare(op syntax.Token, y starlark.Value, depth int) (bool, bool, error) {
	isInt, _ := o.class.enumKind()
	if !isInt {
		return false, false, nil
	}
	r, err := pyCompareAll(op, o.attrs["value"], enumOperand(y))
	return r, true, err
}

// pyCompareAll is x op y for any comparison operator with Python's rules.
func pyCompareAll(op syntax.Token, x, y starlark.Value) (bool, error) {
	switch op {
	case syntax.EQL, syntax.NEQ:
		eq, err := pyEqual(nil, x, y)
		return eq == (op == syntax.EQL), err
	}
	return PyCompare(op, x, y)
}

// enumBinary is arithmetic on int members (as their values) and | & ^
// between flags of one class (or a flag and an int, for IntFlag).
func (o *Instance) enumBinary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, bool, error) {
	isInt, isFlag := o.class.enumKind()
	if isFlag && (op == syntax.PIPE || op == syntax.AMP || op == syntax.CIRCUMFLEX) {
		a, _ := flagInt(o.attrs["value"])
		var b int64
		switch other := y.(type) {
		case *Instance:
			if other.class != o.class {
				return nil, false, nil
			}
			b, _ = flagInt(other.attrs["value"])
		case starlark.Int, starlark.Bool:
			n, ok := flagInt(other)
			if !isInt || !ok {
				return nil, false, nil
			}
			b = n
		default:
			return nil, false, nil
		}
		var r int64
		switch op {
		case syntax.PIPE:
			r = a | b
		case syntax.AMP:
			r = a & b
		default:
			r = a ^ b
		}
		m, err := o.class.flagMember(r)
		return m, true, err
	}
	if !isInt {
		return nil, false, nil
	}
	x, other := o.attrs["value"], enumOperand(y)
	if side == starlark.Right {
		x, other = other, x
	}
	if op == syntax.PLUS {
		r, err := Add(nil, x, other)
		return r, true, err
	}
	r, err := starlark.Binary(op, x, other)
	return r, true, err
}

// enumUnary is -member, +member (ints) and ~member (flags, ints).
func (o *Instance) enumUnary(op syntax.Token) (starlark.Value, bool, error) {
	isInt, isFlag := o.class.enumKind()
	if isFlag && op == syntax.TILDE {
		v, _ := flagInt(o.attrs["value"])
		info := o.class.enumData
		if isInt {
			m, err := o.class.flagMember(^v)
			return m, true, err
		}
		m, err := o.class.flagMember(info.singlesMask &^ v)
		return m, true, err
	}
	if !isInt {
		return nil, false, nil
	}
	r, err := starlark.Unary(op, o.attrs["value"])
	return r, true, err
}

// enumHas is "flag in flags".
func (o *Instance) enumHas(x starlark.Value) (bool, bool, error) {
	if _, isFlag := o.class.enumKind(); !isFlag {
		return false, false, nil
	}
	m, ok := x.(*Instance)
	if !ok || m.class != o.class {
		return false, true, Errorf(pyexc.TypeError, "unsupported operand type(s) for 'in': '%s' and '%s'", TypeName(x), o.class.PyName)
	}
	a, _ := flagInt(o.attrs["value"])
	b, _ := flagInt(m.attrs["value"])
	return a&b == b, true, nil
}

// enumBits are the one-bit members a flag holds, in definition order.
func (o *Instance) enumBits() ([]starlark.Value, bool) {
	if _, isFlag := o.class.enumKind(); !isFlag {
		return nil, false
	}
	v, _ := flagInt(o.attrs["value"])
	var out []starlark.Value
	for _, m := range o.class.members {
		n, _ := flagInt(m.attrs["value"])
		if n != 0 && v&n == n {
			out = append(out, m)
		}
	}
	return out, true
}

// enumSetField refuses to change a member's name or value.
func (o *Instance) enumSetField(name string) error {
	switch name {
	case "name", "value", "_name_", "_value_":
		return Errorf(pyexc.AttributeError, "<enum 'Enum'> cannot set attribute '%s'", name)
	}
	return nil
}
