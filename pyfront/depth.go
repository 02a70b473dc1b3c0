package pyfront

import "strconv"

// How deeply code may nest. Everything after the parser recurses over
// the tree it builds: the lowering, the scope analysis, and
// go.starlark.net's resolver and compiler, which get a tree a few times
// deeper than Python's (the lowering wraps nodes in guards and helper
// calls). Go's stack grows until it reaches its limit and then kills the
// process, which no recover can catch, so the depth must be bounded
// before any of them runs: the parser measures the height of every
// construct as it builds it and refuses code nested deeper than
// maxDepth, having recursed at most maxDepth levels itself (a
// 1,000,000-deep input is refused after 1,000 levels, before a large
// tree exists).
//
// The height counts what the lowering will nest, not only what Python
// nests: a chain a + b + c is a tree as deep as it is long, and so are
// an elif chain, the handlers of a try, decorators, the parts of an
// f-string and the starred items of a display, which are flat in
// Python but become nested expressions and statements in Starlark.
//
// CPython 3.11 refuses expressions about 3,000 deep ("RecursionError:
// maximum recursion depth exceeded during compilation"), 200 nested
// brackets and 100 levels of indentation (the scanner applies the last
// two, as CPython does). Model-written code stays far below a few dozen
// levels; 1,000 leaves room for long generated chains while keeping the
// Starlark tree a few thousand levels deep at most, which costs
// go.starlark.net's compiler a few megabytes of stack.
const maxDepth = 1000

// cmpLevels is how deep the lowering nests each link of a comparison
// chain: a < f() < c evaluates f() once and only if a < f(), so it
// becomes (lambda t: a < t and t < c)(f()), four Starlark levels.
const cmpLevels = 4

// maxCompFor bounds the for clauses of one comprehension: a generator
// expression is lowered to one function per clause, each taking the loop
// variables of all the clauses before it, so its size grows with the
// square of their number. Nobody writes more than a handful.
const maxCompFor = 20

// construct names what nests, for the message that refuses it.
type construct uint8

const (
	cUnary construct = iota
	cNot
	cCond
	cBinary
	cBool
	cCompare
	cTrailer
	cLambda
	cNested
	cStarred
	cFString
	cComp
	cBlock
	cElif
	cExcept
	cDecorator
)

var constructs = [...]struct{ what, advice string }{
	cUnary:     {"unary operators (-x, +x, ~x)", exprAdvice},
	cNot:       {"'not' operators", exprAdvice},
	cCond:      {"conditional expressions (a if c else b)", exprAdvice},
	cBinary:    {"a chain of binary operators (a + b + ...)", exprAdvice},
	cBool:      {"a chain of 'and'/'or' operators", exprAdvice},
	cCompare:   {"a chain of comparisons", exprAdvice},
	cTrailer:   {"calls, subscripts and attributes (f(x)[0].a...)", exprAdvice},
	cLambda:    {"lambdas", "define the functions with def instead"},
	cNested:    {"nested expressions", exprAdvice},
	cStarred:   {"starred items (*a, **b)", "build the sequence in several statements"},
	cFString:   {"replacement fields of f-strings", "build the string in several statements or with str.join"},
	cComp:      {"comprehension clauses", "use for loops instead"},
	cBlock:     {"blocks", "move inner blocks into functions"},
	cElif:      {"elif branches (each is nested in the else of the one before)", "use a dict lookup or fewer branches"},
	cExcept:    {"except clauses (each is nested in the else of the one before)", "catch a tuple of exception types in one clause"},
	cDecorator: {"decorators", "apply some of the decorators by calling them"},
}

const exprAdvice = "split the expression into several statements, computing parts into variables"

// tooDeep reports code nested deeper than maxDepth at the current token.
// Where the level that crossed the limit is an ordinary one (an operand,
// a block), it names the construct entered last instead, whose chain is
// what made the code deep (the body of the last of 1,000 elifs crosses
// it).
func (p *parser) tooDeep(c construct) {
	if (c == cNested || c == cBlock) && p.last != cNested {
		c = p.last
	}
	k := constructs[c]
	p.fail("the code is nested too deeply: " + k.what + " nested more than " +
		strconv.Itoa(maxDepth) + " levels deep; " + k.advice)
}

// The parser keeps two counters. depth is the nesting level of what it
// is parsing now, counted from the module; recursion into a nested
// construct goes through enter, so it is bounded by maxDepth. peak is
// the deepest level reached by what was parsed since the last measure:
// after parsing an expression that began at the current depth, its
// height (how many levels it occupies below that point) is
// p.peak-p.depth. Constructs built by a loop rather than by recursion (a
// chain of operators, calls or subscripts) grow the height of what they
// wrap one level per link, bottom up, with grow.

// enter opens one level of nesting for the construct what.
func (p *parser) enter(what construct) {
	if what != cNested && what != cBlock {
		p.last = what
	}
	p.depth++
	if p.depth > p.peak {
		p.peak = p.depth
		if p.peak > maxDepth {
			p.tooDeep(what)
		}
	}
}

// leave closes the level enter opened.
func (p *parser) leave() { p.depth-- }

// measure starts measuring the height of what is parsed next at the
// current depth, and returns the peak to hand to settle.
func (p *parser) measure() int {
	saved := p.peak
	p.peak = p.depth
	return saved
}

// height is the height of what was parsed since measure (or since peak
// was last reset to depth).
func (p *parser) height() int { return p.peak - p.depth }

// grow returns the height of a node of height h after one more link of a
// chain: a new node whose children are the chain so far (height h) and
// what was parsed since peak was last reset to depth, and which the
// lowering nests levels deep.
func (p *parser) grow(h, levels int, what construct) int {
	h = max(h, p.peak-p.depth) + levels
	if p.depth+h > maxDepth {
		p.tooDeep(what)
	}
	return h
}

// wrap returns the height of a node whose first child, of height h, was
// parsed at the current depth and whose other children were parsed one
// level down (through enter), since peak was last reset to depth.
func (p *parser) wrap(h int, what construct) int {
	h = max(h+1, p.peak-p.depth)
	if p.depth+h > maxDepth {
		p.tooDeep(what)
	}
	return h
}

// settle ends a measurement begun by measure: what was parsed has height
// h.
func (p *parser) settle(saved, h int) {
	p.peak = max(saved, p.depth+h)
}

// lengthen adds n levels to what was just parsed: the lowering nests n
// of its parts that Python keeps side by side (the starred items of a
// display, the fields of an f-string).
func (p *parser) lengthen(n int, what construct) {
	if n <= 1 {
		return
	}
	p.peak += n - 1
	if p.peak > maxDepth {
		p.tooDeep(what)
	}
}
