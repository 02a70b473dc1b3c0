package decimal

import (
	"strconv"
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Decimal.__format__ and round(), math.floor and math.ceil of Decimals.

// PyFloorCeil is math.floor(d) and math.ceil(d).
func (d *Decimal) PyFloorCeil(ceil bool) (starlark.Value, error) {
	switch d.kind {
	case 'n', 'N':
		return nil, core.Errorf(pyexc.ValueError, "cannot round a NaN")
	case 'F':
		return nil, core.Errorf(pyexc.OverflowError, "cannot round an infinity")
	}
	if d.exp >= 0 {
		return d.PyInt()
	}
	mode := "ROUND_FLOOR"
	if ceil {
		mode = "ROUND_CEILING"
	}
	return d.rescale(0, mode).PyInt()
}

// PyFormat is Decimal.__format__: the float presentation types with the
// context's rounding, exact digits otherwise.
func (d *Decimal) PyFormat(th *starlark.Thread, spec string) (string, error) {
	fs, err := parseDecimalSpec(spec)
	if err != nil {
		return "", err
	}
	if !d.finite() {
		body := d.toString(false)
		if d.sign == 1 {
			body = body[1:]
		}
		if fs.typ == '%' {
			body += "%"
		}
		return fs.align(d.signString(fs), body, "", ""), nil
	}
	v := d
	typ := fs.typ
	if typ == 0 {
		typ = 'g'
		if d.ctx.capitals == 1 {
			typ = 'G'
		}
	}
	if typ == '%' {
		v = v.derive(v.sign, v.coef, v.exp+2)
	}
	rounding := d.ctx.rounding
	if fs.prec >= 0 && strings.ContainsRune("fF%", rune(typ)) {
		if err := checkDecDigits(max(v.adjusted(), 0) + fs.prec); err != nil {
			return "", err
		}
	}
	if fs.prec >= 0 {
		switch typ {
		case 'e', 'E':
			v = v.round(fs.prec+1, rounding)
		case 'f', 'F', '%':
			v = v.rescale(-fs.prec, rounding)
		case 'g', 'G':
			if v.digits() > fs.prec {
				v = v.round(fs.prec, rounding)
			}
		}
	}
	if v.coef.Sign() == 0 && v.exp > 0 && strings.ContainsRune("fF%", rune(typ)) {
		v = v.rescale(0, rounding)
	}
	coef := v.coef.String()
	leftdigits := v.exp + len(coef)
	var dotplace int
	switch typ {
	case 'e', 'E':
		dotplace = 1
		if v.coef.Sign() == 0 && fs.prec >= 0 {
			dotplace = 1 - fs.prec
		}
	case 'f', 'F', '%':
		dotplace = leftdigits
	default:
		if v.exp <= 0 && leftdigits > -6 {
			dotplace = leftdigits
		} else {
			dotplace = 1
		}
	}
	var intpart, fracpart string
	switch {
	case dotplace < 0:
		intpart, fracpart = "0", strings.Repeat("0", -dotplace)+coef
	case dotplace > len(coef):
		intpart = coef + strings.Repeat("0", dotplace-len(coef))
	default:
		intpart, fracpart = coef[:dotplace], coef[dotplace:]
		if intpart == "" {
			intpart = "0"
		}
	}
	if th != nil {
		if err := core.Alloc(th, int64(len(coef)+core.Abs(dotplace)+fs.width)); err != nil {
			return "", err
		}
	}
	if err := checkDecDigits(len(coef) + core.Abs(dotplace)); err != nil {
		return "", err
	}
	exp := leftdigits - dotplace
	sign := v.signString(fs)
	if fracpart != "" || fs.alt {
		fracpart = "." + fracpart
	}
	echar := ""
	if exp != 0 || typ == 'e' || typ == 'E' {
		e := map[byte]string{'E': "E", 'G': "E"}[typ]
		if e == "" {
			e = "e"
		}
		echar = e + strconv.Itoa(exp)
		if exp >= 0 {
			echar = e + "+" + strconv.Itoa(exp)
		}
	}
	if typ == '%' {
		fracpart += "%"
	}
	if fs.zeropad {
		minWidth := fs.width - len(sign) - len(fracpart) - len(echar)
		intpart = decGroupDigits(intpart, fs.thousands, max(minWidth, 1), true)
	} else {
		intpart = decGroupDigits(intpart, fs.thousands, 1, false)
	}
	return fs.align(sign, intpart, fracpart, echar), nil
}

// round is _round: d to places significant digits (zeros unchanged).
func (d *Decimal) round(places int, rounding string) *Decimal {
	if places <= 0 {
		places = 1
	}
	if !d.finite() || d.coef.Sign() == 0 {
		return d
	}
	ans := d.rescale(d.adjusted()-places+1, rounding)
	if ans.adjusted() != d.adjusted() {
		// 99.97 to 3 digits is 100.0: once more.
		ans = ans.rescale(ans.adjusted()-places+1, rounding)
	}
	return ans
}

type decimalSpec struct {
	fill      string
	alignChar byte
	sign      byte
	zeropad   bool
	alt       bool
	width     int
	thousands string
	prec      int
	typ       byte
	noNegZero bool
}

func (d *Decimal) signString(fs decimalSpec) string {
	if d.sign == 1 && !(fs.noNegZero && d.isZero()) {
		return "-"
	}
	switch fs.sign {
	case '+':
		return "+"
	case ' ':
		return " "
	}
	return ""
}

// parseDecimalSpec reads [[fill]align][sign][z][#][0][width][,|_][.prec][type].
func parseDecimalSpec(spec string) (decimalSpec, error) {
	fs := decimalSpec{prec: -1, fill: " "}
	bad := core.Errorf(pyexc.ValueError, "invalid format string")
	r := []rune(spec)
	i := 0
	isAlign := func(c rune) bool { return c == '<' || c == '>' || c == '=' || c == '^' }
	if len(r) >= 2 && isAlign(r[1]) {
		fs.fill, fs.alignChar = string(r[0]), byte(r[1])
		i = 2
	} else if len(r) >= 1 && isAlign(r[0]) {
		fs.alignChar = byte(r[0])
		i = 1
	}
	if i < len(r) && (r[i] == '+' || r[i] == '-' || r[i] == ' ') {
		fs.sign = byte(r[i])
		i++
	}
	if i < len(r) && r[i] == 'z' {
		fs.noNegZero = true
		i++
	}
	if i < len(r) && r[i] == '#' {
		fs.alt = true
		i++
	}
	if i < len(r) && r[i] == '0' {
		fs.zeropad = true
		if fs.alignChar == 0 {
			fs.fill, fs.alignChar = "0", '='
		}
		i++
	}
	start := i
	for i < len(r) && r[i] >= '0' && r[i] <= '9' {
		i++
	}
	if i > start {
		w, err := strconv.Atoi(string(r[start:i]))
		if err != nil || w > 1<<20 {
			return fs, core.Errorf(pyexc.ValueError, "Too many decimal digits in format string")
		}
		fs.width = w
	}
	if i < len(r) && r[i] == ',' {
		fs.thousands = string(r[i])
		i++
	}
	if i < len(r) && r[i] == '.' {
		i++
		start = i
		for i < len(r) && r[i] >= '0' && r[i] <= '9' {
			i++
		}
		if i == start {
			return fs, bad
		}
		p, err := strconv.Atoi(string(r[start:i]))
		if err != nil || p > 1<<20 {
			return fs, core.Errorf(pyexc.ValueError, "Too many decimal digits in format string")
		}
		fs.prec = p
	}
	if i < len(r) {
		if i != len(r)-1 || !strings.ContainsRune("eEfFgGn%", r[i]) {
			return fs, bad
		}
		fs.typ = byte(r[i])
		if fs.typ == 'n' {
			return fs, core.Errorf(pyexc.NotImplementedError, "decimal: the 'n' format is not supported by the Starlark engine")
		}
	}
	if fs.alignChar == 0 {
		fs.alignChar = '>'
	}
	return fs, nil
}

// decGroupDigits inserts the thousands separator into intpart, padding it
// with zeros to minWidth when zeropad.
func decGroupDigits(intpart, sep string, minWidth int, zeropad bool) string {
	if zeropad {
		for len(intpart) < minWidth {
			if sep != "" && (len(intpart)+1)%4 == 0 {
				// The separator position: pad with a zero group start.
				intpart = "0" + intpart
				continue
			}
			intpart = "0" + intpart
		}
	}
	if sep == "" {
		return intpart
	}
	var groups []string
	for len(intpart) > 3 {
		groups = append([]string{intpart[len(intpart)-3:]}, groups...)
		intpart = intpart[:len(intpart)-3]
	}
	groups = append([]string{intpart}, groups...)
	return strings.Join(groups, sep)
}

func (fs decimalSpec) align(sign, intpart, fracpart, exp string) string {
	body := intpart + fracpart + exp
	padding := fs.width - len([]rune(sign+body))
	if padding <= 0 {
		return sign + body
	}
	fill := strings.Repeat(fs.fill, padding)
	switch fs.alignChar {
	case '<':
		return sign + body + fill
	case '=':
		return sign + fill + body
	case '^':
		half := padding / 2
		return strings.Repeat(fs.fill, half) + sign + body + strings.Repeat(fs.fill, padding-half)
	}
	return fill + sign + body
}
