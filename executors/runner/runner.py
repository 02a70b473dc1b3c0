# star-agent runner: executes model-written Python for a Go host, speaking
# JSON lines on its stdin and stdout (see package runner for the protocol).
# It keeps one namespace across executions, captures what the code prints,
# bridges tool calls back to the host, and never unpickles anything.
#
# Everything the runner needs is bound as default arguments or closure cells
# at start, so that code which rebinds sys.stdout, json or builtins cannot
# redirect the protocol channel.

import ast
import base64
import builtins
import datetime
import io
import json
import linecache
import math
import os
import sys
import traceback

PROTOCOL = 1


def _private_channels():
    """Returns binary streams for the protocol, away from fds 0 and 1.

    Where the platform can duplicate descriptors, the real stdin and stdout
    move to private descriptors and 0 and 1 are pointed at /dev/null (or
    closed, where there is no dup2), so even os.write(1, ...) cannot reach
    the host. Without dup the runner keeps private file objects on 0 and 1
    and user code only sees replacement sys streams.
    """
    try:
        rfd, wfd = os.dup(0), os.dup(1)
    except (AttributeError, OSError):
        rfd = wfd = None
    if rfd is not None:
        try:
            if hasattr(os, "dup2"):
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.close(null)
            else:
                # WASI has dup but no dup2: close 0 and 1 instead, so
                # os.write(1, ...) fails with EBADF.
                os.close(0)
                os.close(1)
            return os.fdopen(rfd, "rb", buffering=0), os.fdopen(wfd, "wb", buffering=0)
        except OSError:
            pass
    return (os.fdopen(0, "rb", buffering=0, closefd=False),
            os.fdopen(1, "wb", buffering=0, closefd=False))


class Capture(io.TextIOBase):
    """A text stream that keeps the first and the last characters of what
    is written, at most max in all, and counts the rest: the end of a long
    output (a summary, the last error) matters as much as its start."""

    def __init__(self, max_chars):
        self.max = max_chars
        self.head_max = max_chars - max_chars // 2
        self.tail_max = max_chars // 2
        self.parts = []
        self.kept = 0
        self.tail = []
        self.tail_len = 0
        self.total = 0

    @property
    def dropped(self):
        return max(self.total - self.max, 0)

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not " + type(s).__name__)
        n = len(s)
        self.total += n
        room = self.head_max - self.kept
        if room > 0:
            self.parts.append(s[:room])
            self.kept += min(n, room)
            s = s[room:]
        if s and self.tail_max > 0:
            s = s[-self.tail_max:]
            self.tail.append(s)
            self.tail_len += len(s)
            if self.tail_len > 2 * self.tail_max:
                t = "".join(self.tail)[-self.tail_max:]
                self.tail, self.tail_len = [t], len(t)
        return n

    def flush(self):
        pass

    def isatty(self):
        return False

    @property
    def encoding(self):
        return "utf-8"

    def text(self):
        out = "".join(self.parts)
        tail = "".join(self.tail)
        if not self.dropped:
            return out + tail
        tail = tail[-self.tail_max:] if self.tail_max else ""
        return out + ("\n[output truncated: %d characters in the middle were dropped; the first %d and the last %d are kept]\n"
                      % (self.dropped, self.kept, len(tail))) + tail


class FinalAnswerException(BaseException):
    """Raised by final_answer; derives from BaseException so that
    `except Exception` in user code does not catch it."""


class ToolError(Exception):
    """Raised in the code when a tool fails and the host names no Python type."""


class _Opaque:
    """A value from the host that Python cannot rebuild ({"$repr": ...})."""

    def __init__(self, type_name, text):
        self.type_name, self.text = type_name, text

    def __repr__(self):
        return self.text


# ---- values as tagged JSON -------------------------------------------------

_MAX_DEPTH = 100
_INT64 = 1 << 63


class Unencodable(Exception):
    pass


def encode(v, depth=0, strict=False, _seen=None):
    """Converts v to JSON-ready data with tags for what JSON cannot say.

    With strict, values that have no tag raise Unencodable; otherwise they
    become {"$repr": ..., "type": ...}.
    """
    t = type(v)
    if v is None or t is bool or t is str:
        return v
    if t is int:
        if -_INT64 <= v < _INT64:
            return v
        return {"$int": str(v)}
    if t is float:
        if math.isfinite(v):
            return v
        return {"$float": "nan" if v != v else ("inf" if v > 0 else "-inf")}
    if depth > _MAX_DEPTH:
        if strict:
            raise Unencodable("nested too deeply")
        return _opaque(v)
    if _seen is None:
        _seen = set()
    if t in (list, tuple, set, frozenset, dict):
        if id(v) in _seen:
            if strict:
                raise Unencodable("contains itself")
            return _opaque(v)
        _seen.add(id(v))
        try:
            if t is list:
                return [encode(x, depth + 1, strict, _seen) for x in v]
            if t is dict:
                if all(type(k) is str for k in v) and not (
                        len(v) == 1 and next(iter(v)).startswith("$")):
                    return {k: encode(x, depth + 1, strict, _seen) for k, x in v.items()}
                return {"$dict": [[encode(k, depth + 1, strict, _seen), encode(x, depth + 1, strict, _seen)]
                                  for k, x in v.items()]}
            items = [encode(x, depth + 1, strict, _seen) for x in v]
            if t is tuple:
                return {"$tuple": items}
            return {"$set" if t is set else "$frozenset": items}
        finally:
            _seen.discard(id(v))
    if t in (bytes, bytearray):
        return {"$bytes": base64.b64encode(v).decode("ascii")}
    if t is datetime.datetime:
        return {"$datetime": v.isoformat()}
    if t is datetime.date:
        return {"$date": v.isoformat()}
    if t is datetime.time:
        return {"$time": v.isoformat()}
    if t is datetime.timedelta:
        return {"$timedelta": [v.days, v.seconds, v.microseconds]}
    if t is _Opaque:
        return {"$repr": v.text, "type": v.type_name}
    if strict:
        raise Unencodable("a value of type %s cannot be represented as JSON" % t.__name__)
    return _opaque(v)


def _opaque(v):
    return {"$repr": _safe_repr(v), "type": type(v).__name__}


def _safe_repr(v, limit=10000):
    try:
        r = repr(v)
    except BaseException as e:  # a broken __repr__ must not break the runner
        r = "<%s object (repr failed: %s)>" % (type(v).__name__, type(e).__name__)
    if len(r) > limit:
        r = r[:limit] + "..."
    return r


def _decode_tag(d):
    if len(d) == 1 or (len(d) == 2 and "$repr" in d):
        for k, x in d.items():
            if k == "$tuple":
                return tuple(x)
            if k == "$set":
                return set(x)
            if k == "$frozenset":
                return frozenset(x)
            if k == "$bytes":
                return base64.b64decode(x)
            if k == "$datetime":
                return datetime.datetime.fromisoformat(x)
            if k == "$date":
                return datetime.date.fromisoformat(x)
            if k == "$time":
                return datetime.time.fromisoformat(x)
            if k == "$timedelta":
                return datetime.timedelta(days=x[0], seconds=x[1], microseconds=x[2])
            if k == "$int":
                return int(x)
            if k == "$float":
                return float(x)
            if k == "$dict":
                return {(_freeze(a)): b for a, b in x}
            if k == "$repr":
                return _Opaque(d.get("type", "object"), x)
    return d


def _freeze(k):
    # Dict keys decoded from JSON lists must be hashable.
    return tuple(_freeze(x) for x in k) if type(k) is list else k


def decode(text):
    return json.loads(text, object_hook=_decode_tag)


# ---- the runner --------------------------------------------------------------

class Runner:
    def __init__(self, inp, out):
        self.inp, self.out = inp, out
        self.ns = {"__name__": "__main__", "__builtins__": builtins}
        self.tools = {}
        self.max_output = 50000
        self.authorized = None  # None: everything
        self.forbidden = []
        self.capture = None
        self.exec_id = None
        self.call_seq = 0
        self.final = None  # (value,) once final_answer was called
        self.seq = 0
        self.imported = []
        self.real_import = builtins.__import__
        builtins.__import__ = self._guarded_import
        self.static_names = {"final_answer": self._make_final_answer()}

    # -- channel

    def send(self, msg):
        data = json.dumps(msg, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        self.out.write(data.encode("ascii") + b"\n")

    def recv(self):
        line = self.inp.readline()
        if not line:
            return None
        return line

    # -- import policy

    def check_import(self, module):
        """Mirrors executors.ImportPolicy.Check; returns an error message or None."""
        top = module.split(".", 1)[0]
        listing = "[" + ", ".join(self.authorized or []) + "]"
        if top in self.forbidden or module in self.forbidden:
            return ("import of %s is not allowed: it gives access to the host; authorized imports are: %s"
                    % (module, listing))
        if self.authorized is None or "*" in self.authorized:
            return None
        for a in self.authorized:
            if a == module or a == top or module.startswith(a + "."):
                return None
        return ("import of %s is not allowed; authorized imports are: %s (add it with --imports %s if it is safe)"
                % (module, listing, top))

    def _guarded_import(self, name, globals=None, locals=None, fromlist=(), level=0):
        # Only imports made by the user's code (whose globals are the
        # namespace) are checked; the standard library imports freely.
        if globals is None:
            # A direct __import__('x') call passes no globals.
            globals = sys._getframe(1).f_globals
        if globals is self.ns and level == 0:
            msg = self.check_import(name)
            if msg is not None:
                raise ImportError(msg, name=name)
            if name not in self.imported:
                self.imported.append(name)
        return self.real_import(name, globals, locals, fromlist, level)

    # -- final answer and tools

    def _make_final_answer(self):
        runner = self

        def final_answer(answer):
            """Ends the task with answer."""
            if runner.final is None:
                runner.final = (answer,)
            raise FinalAnswerException()

        return final_answer

    def _make_tool(self, spec):
        runner = self
        name = spec["name"]

        def call_tool(*args, **kwargs):
            return runner.call(name, args, kwargs)

        call_tool.__name__ = call_tool.__qualname__ = name
        params = ", ".join(spec.get("inputs") or [])
        call_tool.__doc__ = "%s(%s)\n\n%s" % (name, params, spec.get("description") or "")
        return call_tool

    def call(self, name, args, kwargs):
        self.call_seq += 1
        seq = self.call_seq
        self.send({"op": "call", "id": self.exec_id, "call": seq, "tool": name,
                   "args": [encode(a, strict=True) for a in args],
                   "kwargs": {k: encode(v, strict=True) for k, v in kwargs.items()}})
        line = self.recv()
        if line is None:
            raise SystemExit(0)
        msg = decode(line)
        if msg.get("op") != "return" or msg.get("call") != seq:
            raise RuntimeError("runner protocol: expected return of call %d, got %r" % (seq, msg.get("op")))
        err = msg.get("error")
        if err:
            raise self._tool_exception(err.get("type") or "ToolError", err.get("message") or "")
        return msg.get("value")

    _exc_types = {}

    def _tool_exception(self, type_name, message):
        cls = getattr(builtins, type_name, None)
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            if type_name == "ToolError":
                cls = ToolError
            else:
                cls = self._exc_types.get(type_name)
                if cls is None:
                    cls = type(type_name, (ToolError,), {"__module__": "builtins"})
                    self._exc_types[type_name] = cls
        return cls(message)

    # -- execution

    def op_exec(self, msg):
        code = msg["code"]
        self.seq += 1
        filename = "<code>"
        res = {"op": "result", "id": msg["id"], "stdout": "", "truncated": False,
               "value": None, "repr": "", "final": False, "error": None, "imports": []}
        self.final = None
        self.imported = []
        self.exec_id = msg["id"]
        self.call_seq = 0
        cap = Capture(self.max_output)
        self.capture = cap
        value, has_value, error = None, False, None
        try:
            tree = ast.parse(code, filename, "exec")
        except SyntaxError as e:
            error = self._syntax_error(e, code)
            tree = None
        # Register the source so that tracebacks show the lines.
        lines = code.splitlines(True)
        linecache.cache[filename] = (len(code), None, lines, filename)
        if tree is not None:
            error = self._static_imports(tree, code)
        if tree is not None and error is None:
            self.ns.update(self.tools)
            self.ns.update(self.static_names)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            saved = sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__
            sys.stdout = sys.stderr = sys.__stdout__ = sys.__stderr__ = cap
            try:
                exec(compile(tree, filename, "exec"), self.ns)
                if last is not None:
                    value = eval(compile(last, filename, "eval"), self.ns)
                    has_value = True
            except FinalAnswerException:
                pass
            except BaseException as e:
                if self.final is None:
                    error = self._runtime_error(e, code, filename)
            finally:
                sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = saved
                self.capture = None
        if self.final is not None:
            res["final"] = True
            value, has_value, error = self.final[0], True, None
        res["stdout"] = cap.text()
        res["truncated"] = cap.dropped > 0
        res["imports"] = self.imported
        if error is not None:
            res["error"] = error
        elif has_value and (value is not None or res["final"]):
            res["value"] = encode(value)
            res["repr"] = _safe_repr(value, self.max_output)
        self.send(res)
        self.final = None

    def _static_imports(self, tree, code):
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    return self._error("ImportError", "relative imports are not supported", node.lineno, code)
                names = [node.module]
            for n in names:
                msg = self.check_import(n)
                if msg is not None:
                    return self._error("ImportError", msg, node.lineno, code)
        return None

    def _error(self, typ, message, line, code, tb=""):
        src = ""
        lines = code.splitlines()
        if line and 0 < line <= len(lines):
            src = lines[line - 1].strip()
        return {"type": typ, "message": message, "line": line or 0, "source": src, "traceback": tb}

    def _syntax_error(self, e, code):
        tb = "".join(traceback.format_exception_only(type(e), e))
        return self._error(type(e).__name__, e.msg or "", e.lineno or 0, code, tb)

    def _runtime_error(self, e, code, filename):
        if isinstance(e, SyntaxError) and e.filename == filename:
            return self._syntax_error(e, code)
        tb = e.__traceback__
        # Drop the runner's own frame(s) so the traceback starts in the code.
        while tb is not None and tb.tb_frame.f_code.co_filename != filename:
            tb = tb.tb_next
        line = 0
        t = tb
        while t is not None:
            if t.tb_frame.f_code.co_filename == filename:
                line = t.tb_lineno
            t = t.tb_next
        try:
            text = "".join(traceback.format_exception(type(e), e, tb))
        except BaseException:
            text = ""
        try:
            message = str(e)
        except BaseException:
            message = ""
        if isinstance(e, KeyError) and len(e.args) == 1:
            message = _safe_repr(e.args[0])
        return self._error(type(e).__name__, message, line, code, text)

    def op_config(self, msg):
        if "max_output" in msg:
            self.max_output = int(msg["max_output"])
        if "authorized" in msg:
            self.authorized = msg["authorized"]
        if "forbidden" in msg:
            self.forbidden = msg["forbidden"] or []
        if "sys_path" in msg:
            for p in msg["sys_path"]:
                if p not in sys.path:
                    sys.path.append(p)
        self.send({"op": "result", "id": msg["id"]})

    def op_tools(self, msg):
        for name in self.tools:
            if self.ns.get(name) is self.tools[name]:
                del self.ns[name]
        self.tools = {t["name"]: self._make_tool(t) for t in msg["tools"]}
        self.ns.update(self.tools)
        self.send({"op": "result", "id": msg["id"]})

    def op_vars(self, msg):
        self.ns.update(msg["vars"])
        self.send({"op": "result", "id": msg["id"]})

    def op_dump(self, msg):
        """Returns the user's variables that JSON can carry, and why the others cannot."""
        out, skipped = {}, {}
        for k, v in list(self.ns.items()):
            if k.startswith("__") or k in self.tools or k in self.static_names:
                continue
            if type(v).__name__ in ("module", "function", "type", "builtin_function_or_method"):
                skipped[k] = "a %s cannot leave the Python sandbox" % type(v).__name__
                continue
            try:
                out[k] = encode(v, strict=True)
            except Unencodable as e:
                skipped[k] = str(e)
        self.send({"op": "result", "id": msg["id"], "value": out, "skipped": skipped})

    def serve(self):
        sys.stdin = sys.__stdin__ = io.StringIO("")
        self.send({"op": "ready", "protocol": PROTOCOL, "python": sys.version.split()[0]})
        ops = {"exec": self.op_exec, "config": self.op_config, "tools": self.op_tools,
               "vars": self.op_vars, "dump": self.op_dump}
        while True:
            line = self.recv()
            if line is None:
                return
            msg = decode(line)
            op = ops.get(msg.get("op"))
            if op is None:
                self.send({"op": "result", "id": msg.get("id", 0), "error": {
                    "type": "ProtocolError", "message": "unknown op %r" % msg.get("op"),
                    "line": 0, "source": "", "traceback": ""}})
                continue
            op(msg)


def main():
    inp, out = _private_channels()
    # Keep sys.stdout away from the protocol even before the first exec.
    sys.stdout = sys.__stdout__ = io.StringIO()
    Runner(inp, out).serve()


if __name__ == "__main__":
    main()
