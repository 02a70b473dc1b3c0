package tool

import "slices"

// ReservedNames are the names the agent gives its own functions and
// exception classes in the code's namespace: a tool or a variable the
// task hands to the code may not take them, or it would replace them
// (raise ToolError(...) would call a server; final_answer would be a
// number).
var ReservedNames = []string{"final_answer", "ToolError", "parallel", "search_tools", "help"}

// IsReserved reports whether name is one of ReservedNames.
func IsReserved(name string) bool { return slices.Contains(ReservedNames, name) }
