package pyfront

// Protected names: an executor's tools and final_answer must keep their
// meaning for the whole run, so code that would bind or delete one at
// module level (an assignment, a for target, an import, a def, a del, a
// function that declares it global and assigns it) is refused before it
// runs, as CPython refuses to assign to __debug__.

// LowerProtected is LowerIn for a program that must not bind or delete
// the names for which protected reports true at module level: such a
// program is refused with a SyntaxError naming the first of them, and
// nothing of it runs.
func LowerProtected(filename, src string, bound func(name string) bool, protected func(name string) bool) (*Program, error) {
	return lowerIn(filename, src, bound, protected)
}

// ProtectedMessage is the message of the error that refuses to bind or
// delete a protected name.
func ProtectedMessage(name string, deleted bool) string {
	if deleted {
		return name + " is a tool of this agent and cannot be deleted"
	}
	return name + " is a tool of this agent and cannot be reassigned; use another name"
}

func checkProtected(stmts []Stmt, protected func(string) bool) error {
	for _, s := range stmts {
		names, declared := map[string]bool{}, map[string]bool{}
		bindings([]Stmt{s}, names, declared, true)
		if err := refuse(s, names, protected, []Stmt{s}); err != nil {
			return err
		}
	}
	// Functions, at any depth, that declare a protected name global and
	// bind it.
	var err error
	var visit func([]Stmt)
	visit = func(body []Stmt) {
		walkStmts(body, nil, func(s Stmt) {
			if err != nil {
				return
			}
			switch n := s.(type) {
			case *FuncDef:
				declared := declaredNames(n.Body, false)
				names, inner := map[string]bool{}, map[string]bool{}
				bindings(n.Body, names, inner, true)
				for name := range names {
					if !declared[name] {
						delete(names, name)
					}
				}
				if err = refuse(n, names, protected, n.Body); err != nil {
					return
				}
				visit(n.Body)
			case *ClassDef:
				visit(n.Body)
			}
		})
	}
	visit(stmts)
	return err
}

// refuse returns the error for the first protected name among names,
// bound by the statements body (at n).
func refuse(n node, names map[string]bool, protected func(string) bool, body []Stmt) error {
	var found string
	for name := range names {
		if protected(name) && (found == "" || name < found) {
			found = name
		}
	}
	if found == "" {
		return nil
	}
	deleted := map[string]bool{}
	deletedNames(body, deleted)
	p := n.at()
	return &Error{Line: int(p.Line), Col: int(p.Col), Msg: ProtectedMessage(found, deleted[found])}
}
