package core

import "slices"

// endStepForgetting ends the running step, as EndStep does, and forgets
// its module at once: for a step whose functions read no global, and
// whose module, so, nothing needs kept up to date. Otherwise the module
// stays among those Sync and every global assignment visit until a
// collection frees it, and with a large state collections are rare: a
// thousand steps in between made each step walk a thousand modules.
func (ns *Namespace) endStepForgetting() {
	if c := ns.current; c != nil {
		for i := len(ns.mods) - 1; i >= 0; i-- {
			if ns.mods[i] == c {
				ns.mods = slices.Delete(ns.mods, i, i+1)
				break
			}
		}
	}
	ns.current = nil
}

// EndStepReading ends the running step, as EndStep does, knowing the
// globals its functions (defs and lambdas, at any depth) refer to: the
// only slots of its module anything reads once it has ended, and so the
// only ones Sync keeps up to date. With none, the module is forgotten
// at once (endStepForgetting). A step's module lingers until a
// collection frees it, and a long session of steps that each redefine a
// function left hundreds behind, each costing Sync every name its step
// bound.
func (ns *Namespace) EndStepReading(names []string) {
	c := ns.current
	if c == nil {
		return
	}
	var reads []globalSlot
	for _, name := range names {
		if i, ok := c.index[name]; ok {
			reads = append(reads, globalSlot{name, i})
		}
	}
	if len(reads) == 0 {
		ns.endStepForgetting()
		return
	}
	c.reads = reads
	ns.current = nil
}
