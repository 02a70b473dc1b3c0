package builtins

import (
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Runtime returns the helpers that lowered code calls, by the names in
// package contract, except HelperImport, which the engine provides
// (TestRuntimeProvidesContract checks the list). Each call returns a
// new HelperBox: an executor calls it once and keeps the result.
func Runtime() starlark.StringDict {
	box := &core.ThreadBox{}
	d := starlark.StringDict{
		contract.HelperPlus:     &core.PlusGuard{Box: box},
		contract.HelperIPlus:    core.InplacePlus{PlusGuard: &core.PlusGuard{Box: box, Inplace: true}},
		contract.HelperUnpack:   core.NewUnpacker(box),
		contract.HelperCmpConst: starlark.NewBuiltin(contract.HelperCmpConst, core.CmpConsts{}.Make),
		contract.HelperMul:      starlark.NewBorrowingBuiltin(contract.HelperMul, core.SaMulFast),
		contract.HelperPow:      starlark.NewBorrowingBuiltin(contract.HelperPow, core.SaPowFast),
		contract.HelperFormat:   starlark.NewBorrowingBuiltin(contract.HelperFormat, core.SaFmt),
		contract.HelperAttr:     starlark.NewBorrowingBuiltin(contract.HelperAttr, core.SaAttr),
		contract.HelperIs:       starlark.NewBorrowingBuiltin(contract.HelperIs, core.SaIs),
		contract.HelperIter:     starlark.NewBorrowingBuiltin(contract.HelperIter, core.SaIter),
		contract.HelperMod:      starlark.NewBuiltin(contract.HelperMod, core.SaMod),

		contract.HelperEnter:     starlark.NewBuiltin(contract.HelperEnter, core.SaEnter),
		contract.HelperBox:       box,
		contract.HelperTry:       starlark.NewBuiltin(contract.HelperTry, core.SaTry),
		contract.HelperExcMatch:  starlark.NewBuiltin(contract.HelperExcMatch, core.SaExcMatch),
		contract.HelperRaise:     starlark.NewBuiltin(contract.HelperRaise, core.SaRaise),
		contract.HelperReraise:   starlark.NewBuiltin(contract.HelperReraise, core.SaReraise),
		contract.HelperAssert:    starlark.NewBuiltin(contract.HelperAssert, core.SaAssert),
		contract.HelperCell:      starlark.NewBuiltin(contract.HelperCell, core.SaCell),
		contract.HelperGlobals:   starlark.NewBuiltin(contract.HelperGlobals, core.SaGlobals),
		contract.HelperClass:     starlark.NewBuiltin(contract.HelperClass, core.SaClass),
		contract.HelperSuper:     starlark.NewBuiltin(contract.HelperSuper, core.SaSuper),
		contract.HelperSetSlice:  starlark.NewBuiltin(contract.HelperSetSlice, core.SaSetSlice),
		contract.HelperUnbind:    starlark.NewBuiltin(contract.HelperUnbind, core.SaUnbind),
		contract.HelperDelGlobal: starlark.NewBuiltin(contract.HelperDelGlobal, core.SaDelGlobal),
		contract.HelperDelSlice:  starlark.NewBuiltin(contract.HelperDelSlice, core.SaDelSlice),
		contract.HelperBinop:     starlark.NewBuiltin(contract.HelperBinop, core.SaBinop),
		contract.HelperEq:        starlark.NewBorrowingBuiltin(contract.HelperEq, core.SaEq),
		contract.HelperNe:        starlark.NewBorrowingBuiltin(contract.HelperNe, core.SaNe),
		contract.HelperSetVar:    starlark.NewBuiltin(contract.HelperSetVar, core.SaSetVar),
		contract.HelperKwargs:    starlark.NewBuiltin(contract.HelperKwargs, core.SaKwargs),
		contract.HelperGenerator: starlark.NewBuiltin(contract.HelperGenerator, core.SaGenerator),
		contract.HelperYield:     starlark.NewBuiltin(contract.HelperYield, core.SaYield),
		contract.HelperYieldFrom: starlark.NewBuiltin(contract.HelperYieldFrom, core.SaYieldFrom),
		contract.HelperGenexpr:   starlark.NewBuiltin(contract.HelperGenexpr, core.SaGenexpr),
		contract.HelperLoop:      starlark.NewBorrowingBuiltin(contract.HelperLoop, core.SaLoop),
		contract.HelperLoopCheck: starlark.NewBorrowingBuiltin(contract.HelperLoopCheck, core.SaLoopCheck),
		contract.HelperStar:      starlark.NewBuiltin(contract.HelperStar, core.SaStar),
		contract.HelperIndex:     starlark.NewBorrowingBuiltin(contract.HelperIndex, core.SaIndex),
		contract.HelperSlice:     starlark.NewBuiltin(contract.HelperSlice, core.SaSlice),

		contract.HelperWithEnter: starlark.NewBuiltin(contract.HelperWithEnter, core.SaWithEnter),
		contract.HelperWithExit:  starlark.NewBuiltin(contract.HelperWithExit, core.SaWithExit),
		contract.HelperInplace:   core.InplaceGuard{},
		contract.HelperMatmul:    starlark.NewBuiltin(contract.HelperMatmul, core.SaMatmul),
		contract.HelperDelItem:   starlark.NewBuiltin(contract.HelperDelItem, core.SaDelItem),
		contract.HelperEllipsis:  core.Ellipsis,
		contract.HelperUnstar:    starlark.NewBuiltin(contract.HelperUnstar, core.SaUnstar),

		contract.HelperLt:       &core.CmpGuard{Op: syntax.LT, Box: box},
		contract.HelperLe:       &core.CmpGuard{Op: syntax.LE, Box: box},
		contract.HelperGt:       &core.CmpGuard{Op: syntax.GT, Box: box},
		contract.HelperGe:       &core.CmpGuard{Op: syntax.GE, Box: box},
		contract.HelperFloorDiv: &core.DivGuard{Box: box},
		contract.HelperRem:      &core.DivGuard{Box: box, Mod: true},
		contract.HelperNumMul:   &core.NumMulGuard{Box: box},
	}
	return d
}
