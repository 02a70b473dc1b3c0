package compile

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/star-agent/star-agent/vm/resolve"
	"github.com/star-agent/star-agent/vm/syntax"
)

// TestPlusFolding ensures that the compiler generates optimized code for
// n-ary addition of strings, lists, and tuples.
func TestPlusFolding(t *testing.T) {
	isPredeclared := func(name string) bool { return name == "x" }
	isUniversal := func(name string) bool { return false }
	for i, test := range []struct {
		src  string // source expression
		want string // disassembled code
	}{
		{
			// string folding
			`"a" + "b" + "c" + "d"`,
			`constant "abcd"; return`,
		},
		{
			// string folding with variable:
			`"a" + "b" + x + "c" + "d"`,
			`constant "ab"; predeclared x; plus; constant "cd"; plus; return`,
		},
		{
			// list folding
			`[1] + [2] + [3]`,
			`constant 1; constant 2; constant 3; makelist<3>; return`,
		},
		{
			// list folding with variable
			`[1] + [2] + x + [3]`,
			`constant 1; constant 2; makelist<2>; ` +
				`predeclared x; plus; ` +
				`constant 3; makelist<1>; plus; ` +
				`return`,
		},
		{
			// tuple folding
			`() + (1,) + (2, 3)`,
			`constant 1; constant 2; constant 3; maketuple<3>; return`,
		},
		{
			// tuple folding with variable
			`() + (1,) + x + (2, 3)`,
			`constant 1; maketuple<1>; predeclared x; plus; ` +
				`constant 2; constant 3; maketuple<2>; plus; ` +
				`return`,
		},
	} {
		expr, err := syntax.ParseExpr("in.star", test.src, 0)
		if err != nil {
			t.Errorf("#%d: %v", i, err)
			continue
		}
		locals, err := resolve.Expr(expr, isPredeclared, isUniversal)
		if err != nil {
			t.Errorf("#%d: %v", i, err)
			continue
		}
		got := disassemble(Expr(syntax.LegacyFileOptions(), expr, "<expr>", locals).Toplevel)
		if test.want != got {
			t.Errorf("expression <<%s>> generated <<%s>>, want <<%s>>",
				test.src, got, test.want)
		}
	}
}

// disassemble is a trivial disassembler tailored to the accumulator test.
func disassemble(f *Funcode) string {
	out := new(bytes.Buffer)
	code := f.Code
	for pc := 0; pc < len(code); {
		op := Opcode(code[pc])
		pc++
		// TODO(adonovan): factor in common with interpreter.
		var arg uint32
		if op >= OpcodeArgMin {
			for s := uint(0); ; s += 7 {
				b := code[pc]
				pc++
				arg |= uint32(b&0x7f) << s
				if b < 0x80 {
					break
				}
			}
		}

		if out.Len() > 0 {
			out.WriteString("; ")
		}
		fmt.Fprintf(out, "%s", op)
		if op >= OpcodeArgMin {
			switch op {
			case CONSTANT:
				switch x := f.Prog.Constants[arg].(type) {
				case string:
					fmt.Fprintf(out, " %q", x)
				default:
					fmt.Fprintf(out, " %v", x)
				}
			case LOCAL:
				fmt.Fprintf(out, " %s", f.Locals[arg].Name)
			case PREDECLARED:
				fmt.Fprintf(out, " %s", f.Prog.Names[arg])
			default:
				fmt.Fprintf(out, "<%d>", arg)
			}
		}
	}
	return out.String()
}

// TestInsns checks Funcode.Insns against a decoding of Code: the same
// instructions and operands, at the same addresses, with the jumps'
// targets turned from addresses into indices.
func TestInsns(t *testing.T) {
	src := "x if y else [z for z in x if z] or (y and not x)"
	expr, err := syntax.ParseExpr("in.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	isPredeclared := func(name string) bool { return name == "x" || name == "y" }
	locals, err := resolve.Expr(expr, isPredeclared, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	f := Expr(syntax.LegacyFileOptions(), expr, "<expr>", locals).Toplevel
	insns := f.Insns()
	i, jumps, fused := 0, 0, 0
	code := f.Code
	for pc := uint32(0); pc < uint32(len(code)); i++ {
		in := insns[i]
		op := Opcode(code[pc])
		if in.PC != pc || in.Unfused() != op {
			t.Fatalf("insn %d: %s at %d, want %s at %d", i, in.Unfused(), in.PC, op, pc)
		}
		// star-agent: the NOPs after it, and a fused one's second
		// operand.
		pad := 0
		for i+1+pad < len(insns) && insns[i+1+pad].Op == NOP {
			pad++
		}
		if int(in.Pad) != pad {
			t.Errorf("insn %d: %s with %d NOPs after, want %d", i, op, in.Pad, pad)
		}
		if in.Op != op {
			fused++
			if next := insns[i+1+pad]; in.Arg2 != next.Arg {
				t.Errorf("insn %d: %s fused with %s %d, want %d", i, in.Op, next.Op, in.Arg2, next.Arg)
			}
		}
		pc++
		var arg uint32
		if op >= OpcodeArgMin {
			for s := uint(0); ; s += 7 {
				b := code[pc]
				pc++
				arg |= uint32(b&0x7f) << s
				if b < 0x80 {
					break
				}
			}
		}
		switch op {
		case JMP, CJMP, ITERJMP:
			jumps++
			if insns[in.Arg].PC != arg {
				t.Errorf("insn %d: %s to insn %d at %d, want %d", i, op, in.Arg, insns[in.Arg].PC, arg)
			}
		default:
			if in.Arg != arg {
				t.Errorf("insn %d: %s %d, want %d", i, op, in.Arg, arg)
			}
		}
	}
	if i != len(insns) || jumps < 4 || fused == 0 {
		t.Errorf("%d insns, %d jumps, %d fused; want %d insns, some jumps, some fused", len(insns), jumps, fused, i)
	}
}
