package core

import "slices"

// EndStepForgetting ends the running step, as EndStep does, and forgets
// its module at once: for a step that created no function, lambda or
// class, whose module nothing can reach once it ends. Otherwise the module
// stays among those Sync and every global assignment visit until a
// collection frees it, and with a large state collections are rare: a
// thousand steps in between made each step walk a thousand modules.
func (ns *Namespace) EndStepForgetting() {
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
