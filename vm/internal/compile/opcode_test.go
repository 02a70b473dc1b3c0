package compile_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/vm/internal/compile"
)

// TestOpcodeNames checks that every opcode has a name, including the
// highest-numbered one (a regression test for an off-by-one in
// Opcode.String), and that out-of-range opcodes are reported as
// illegal rather than out of bounds.
func TestOpcodeNames(t *testing.T) {
	// star-agent: the fused opcodes of the decoded form follow.
	for op := compile.Opcode(0); op <= compile.FusedMax; op++ {
		if name := op.String(); strings.HasPrefix(name, "illegal op") {
			t.Errorf("opcode %d has no name", op)
		}
	}
	if name := (compile.FusedMax + 1).String(); !strings.HasPrefix(name, "illegal op") {
		t.Errorf("Opcode(FusedMax+1).String() = %q, want illegal op", name)
	}
}
