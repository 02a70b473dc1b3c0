package builtins

// Names of the runtime helpers that the Python front end
// (executors/local/pyfront) emits in lowered code. They begin with "__", a
// prefix the front end refuses in user-written identifiers and attributes,
// so user code can reach them only through the syntax that lowers to them.
//
// Runtime() (in runtime.go) must provide every one of them.
const (
	// HelperImport: __sa_import("a.b") returns module a.b, and
	// __sa_import("a.b", True) returns the top-level package a (for
	// "import a.b"). The engine provides it and checks the import policy.
	HelperImport = "__sa_import"
	// HelperMul: __sa_mul(a, b) is a * b with the repeat bounded by the
	// memory budget and big-integer products bounded in size.
	HelperMul = "__sa_mul"
	// HelperPow: __sa_pow(a, b) is a ** b with Python semantics
	// (int ** negative int is a float, results bounded in size).
	HelperPow = "__sa_pow"
	// HelperFormat: __sa_fmt(value, conversion, spec) renders one f-string
	// replacement field; conversion is "", "r", "s" or "a"; spec is the
	// format spec after ':' (already rendered if it had nested fields).
	HelperFormat = "__sa_fmt"
	// HelperAttr: __sa_attr(x, "name") reads attribute name of x, giving
	// builtin values (str, list, dict, set, ...) their Python methods that
	// go.starlark.net lacks, and bounded versions of those that can
	// allocate without limit (str.join, str.replace, ...). The front end
	// emits it for every attribute whose name is in CompatAttrs.
	HelperAttr = "__sa_attr"
)
