# star-agent runner: executes model-written Python for a Go host, speaking
# JSON lines on its stdin and stdout (see package runner for the protocol).
# It keeps one namespace across executions, captures what the code prints,
# bridges tool calls back to the host, and never unpickles anything.
#
# Everything the runner needs is bound as default arguments or closure cells
# at start, so that code which rebinds sys.stdout, json or builtins cannot
# redirect the protocol channel.
#
# What this runner cannot do is keep secrets from the code it runs: both live
# in one interpreter, and gc.get_objects(), frames and closure cells reach
# everything. The import policy here is therefore advisory (it stops an
# honest mistake and the cheap routes: __import__ with made-up globals,
# importlib, a forbidden module reached as an attribute of an authorized
# one); the sandbox around the interpreter is the boundary. The host trusts
# no message: see package runner.

import binascii
import builtins
import io
import marshal
import math
import os
import sys

PROTOCOL = 1


def _open_channel(path):
    """Opens the host's dedicated protocol file (WebAssembly sandboxes)."""
    fd = os.open(path, os.O_RDWR)
    raw = io.FileIO(fd, "r+", closefd=False)
    return io.BufferedReader(raw, 1 << 16), raw


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


def _as_image(value):
    """Returns a matplotlib figure (or axes) or a PIL image as the image
    value the host shows a vision model, {"type": "image", "mime_type":
    "image/png", "data": base64}; any other value unchanged. It goes by
    the value's type, so it imports nothing."""
    mod = type(value).__module__ or ""
    try:
        buf = io.BytesIO()
        if mod.startswith("matplotlib."):
            fig = value if hasattr(value, "savefig") else getattr(value, "figure", None)
            if fig is None or not hasattr(fig, "savefig"):
                return value
            fig.savefig(buf, format="png")
        elif mod.startswith("PIL.") and hasattr(value, "save") and hasattr(value, "mode"):
            value.save(buf, format="PNG")
        else:
            return value
    except Exception:
        return value
    return {"type": "image", "mime_type": "image/png", "data": _b64encode(buf.getvalue())}


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


class TooBig(Unencodable):
    """The value's JSON would pass the size budget: a value that repeats
    one list many times ([a] * 1000 where a = [0] * 1000) is small in
    memory and huge once written out."""


def encode(v, depth=0, strict=False, _seen=None, budget=None):
    """Converts v to JSON-ready data with tags for what JSON cannot say.

    With strict, values that have no tag raise Unencodable; otherwise they
    become {"$repr": ..., "type": ...}. budget, [left, per_item], is what
    the result may cost: each item is charged per_item and a string its
    length too, as they are met (per_item 3 counts JSON bytes at least, 49
    the host's decoding cost); TooBig is raised as soon as it runs out,
    before the whole value is expanded.
    """
    t = type(v)
    if t.__module__ == "numpy" and getattr(v, "ndim", None) == 0 and hasattr(v, "item"):
        # A NumPy scalar (arr.sum(), np.float64(2.5)): its Python value.
        try:
            v = v.item()
        except Exception:
            pass
        else:
            t = type(v)
    if budget is not None:
        budget[0] -= (len(v) + budget[1]) if t is str else budget[1]
        if budget[0] < 0:
            raise TooBig("its JSON form is too big")
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
        return _charged(_opaque(v), budget)
    if _seen is None:
        _seen = set()
    if t in (list, tuple, set, frozenset, dict):
        if id(v) in _seen:
            if strict:
                raise Unencodable("contains itself")
            return _charged(_opaque(v), budget)
        _seen.add(id(v))
        try:
            if t is list:
                return [encode(x, depth + 1, strict, _seen, budget) for x in v]
            if t is dict:
                # A dict that would read as a tag (one "$" key, or exactly
                # "$repr" and "type") is written as $dict, as Go does.
                if all(type(k) is str for k in v) and not (
                        len(v) == 1 and next(iter(v)).startswith("$")) and not (
                        len(v) == 2 and "$repr" in v and "type" in v):
                    return {k: encode(x, depth + 1, strict, _seen, budget) for k, x in v.items()}
                return {"$dict": [[encode(k, depth + 1, strict, _seen, budget), encode(x, depth + 1, strict, _seen, budget)]
                                  for k, x in v.items()]}
            items = [encode(x, depth + 1, strict, _seen, budget) for x in v]
            if t is tuple:
                return {"$tuple": items}
            return {"$set" if t is set else "$frozenset": items}
        finally:
            _seen.discard(id(v))
    if t in (bytes, bytearray):
        if budget is not None:
            budget[0] -= len(v) * 4 // 3
            if budget[0] < 0:
                raise TooBig("its JSON form is too big")
        return {"$bytes": _b64encode(v)}
    if t.__module__ == "datetime":
        datetime = _lazy("datetime")
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
    return _charged(_opaque(v), budget)


def _expanded_cost(v, per_item, limit):
    """Estimates what encode charges for v, fast: a container met again is
    costed from memory, so [a] * 10000 takes 10,000 steps, not 10,000 times
    a's size. Stops counting once limit is passed."""
    memo = {}
    containers = (list, tuple, set, frozenset, dict)

    def cost(x, depth):
        t = type(x)
        if t is str:
            return len(x) + per_item
        if t in (bytes, bytearray):
            return len(x) * 4 // 3 + per_item
        if t not in containers or depth > _MAX_DEPTH:
            return per_item
        known = memo.get(id(x))
        if known is not None:
            return known
        memo[id(x)] = per_item  # a container that holds itself
        total = per_item
        items = x.items() if t is dict else x
        for e in items:
            total += cost(e, depth + 1) if t is not dict else cost(e[0], depth + 1) + cost(e[1], depth + 1)
            if total > limit:
                break
        memo[id(x)] = total
        return total

    return cost(v, 0)


def _charged(o, budget):
    if budget is not None:
        budget[0] -= len(o["$repr"]) + len(o["type"]) + 20
        if budget[0] < 0:
            raise TooBig("its JSON form is too big")
    return o


def _opaque(v):
    return {"$repr": _safe_repr(v), "type": type(v).__name__[:200]}


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
                return binascii.a2b_base64(x)
            if k == "$datetime":
                return _lazy("datetime").datetime.fromisoformat(x)
            if k == "$date":
                return _lazy("datetime").date.fromisoformat(x)
            if k == "$time":
                return _lazy("datetime").time.fromisoformat(x)
            if k == "$timedelta":
                return _lazy("datetime").timedelta(days=x[0], seconds=x[1], microseconds=x[2])
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


def _b64encode(b):
    return binascii.b2a_base64(b, newline=False).decode("ascii")


def _json_codec():
    """Returns dumps(obj) (compact, ASCII, no NaN: what the host reads)
    and loads(text) with the tags decoded, made from the C accelerator
    _json directly: the json package imports re, which costs every
    sandbox's start more than all the rest of the runner."""
    try:
        import _json
        encoder, scanner = _json.make_encoder, _json.make_scanner
    except (ImportError, AttributeError):
        import json
        return (lambda obj: json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False),
                lambda text: json.loads(text, object_hook=_decode_tag))

    def default(o):
        raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)

    encode = encoder(None, default, _json.encode_basestring_ascii, None, ":", ",", False, False, False)

    def dumps(obj):
        return "".join(encode(obj, 0))

    def constant(name):
        return {"-Infinity": -math.inf, "Infinity": math.inf, "NaN": math.nan}[name]

    class Context:
        strict = True
        object_hook = staticmethod(_decode_tag)
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = staticmethod(constant)
        memo = {}

    scan = scanner(Context())

    def loads(text):
        if type(text) is not str:
            text = text.decode("utf-8")
        text = text.strip(" \t\n\r")
        try:
            obj, end = scan(text, 0)
        except StopIteration as e:
            raise ValueError("invalid JSON at character %s" % e.value) from None
        if end != len(text):
            raise ValueError("invalid JSON: extra data at character %d" % end)
        return obj

    return dumps, loads


_dumps, decode = _json_codec()


def _message_cost(data):
    """Mirrors messageCost in session.go: a message's bytes plus 48 for each
    comma or colon and 24 for each opening bracket, which bounds what the
    host spends decoding it."""
    return (len(data) + 48 * (data.count(b",") + data.count(b":") + 1)
            + 24 * (data.count(b"[") + data.count(b"{")))


class MessageTooBig(ValueError):
    """A message would pass the size the host accepts."""


def _make_channel(inp, out, limits):
    """Returns send(msg) and recv(), the only functions that touch the
    protocol channel. limits["max_message"] is the host's per-message cap."""
    dumps = _dumps
    getpid, exit_now = os.getpid, os._exit
    owner = getpid()

    def send(msg):
        if getpid() != owner:
            # A process the code forked (os.fork, multiprocessing) reached
            # the end of the step or a tool call: only the runner speaks
            # the protocol, so the copy ends here, silently.
            exit_now(0)
        data = dumps(msg).encode("ascii") + b"\n"
        cost = _message_cost(data)
        if cost > limits["max_message"]:
            raise MessageTooBig("the message is too big for the host (%d units, at most %d)" % (cost, limits["max_message"]))
        view = memoryview(data)
        while view:
            n = out.write(view)
            view = view[n or 0:]

    def recv():
        if getpid() != owner:
            exit_now(0)
        line = inp.readline()
        return line or None

    return send, recv


_ModuleType = type(sys)

# Modules that C code of authorized modules imports on first use, through
# builtins.__import__ from the code's own frame (time.strptime and
# datetime.strptime import _strptime): they pass the check.
_C_LAZY_IMPORTS = frozenset(["_strptime"])


def _import_guard(ns, policy, imported):
    """Installs the import check for the code and returns check(module)
    and patch_importlib(importlib), which extends it to importlib.

    policy is {"authorized": list or None (everything), "forbidden": list}.
    An import is the code's when its caller runs in the code's namespace or
    in any globals that are not a loaded module's own (so __import__(name,
    {}) and exec("import x", {}) are checked too); the standard library's
    imports are free. Modules handed to the code under a restrictive policy
    are GuardedModule views that refuse to hand out modules the policy does
    not authorize (random._os is os).
    """
    real_import = builtins.__import__
    getframe = sys._getframe
    modules = sys.modules

    def check(module):
        """Mirrors executors.ImportPolicy.Check; returns an error message or None."""
        authorized, forbidden = policy["authorized"], policy["forbidden"]
        top = module.split(".", 1)[0]
        listing = "[" + ", ".join(authorized or []) + "]"
        if top in forbidden or module in forbidden or (forbidden and top.lstrip("_") in forbidden):
            return ("import of %s is not allowed: it gives access to the host; authorized imports are: %s"
                    % (module, listing))
        if authorized is None or "*" in authorized:
            return None
        for a in authorized:
            if a == module or a == top or module.startswith(a + "."):
                return None
        return ("import of %s is not allowed; authorized imports are: %s"
                % (module, listing))

    def restrictive():
        a = policy["authorized"]
        return bool(policy["forbidden"]) or (a is not None and "*" not in a)

    def is_code(frame):
        # The runner's own globals count as the code's: they are reachable
        # as final_answer.__globals__. The runner imports nothing after start.
        g = frame.f_globals
        if g is ns:
            return True
        name = g.get("__name__")
        if type(name) is not str or name == "__main__":
            return True
        mod = modules.get(name)
        return mod is None or getattr(mod, "__dict__", None) is not g

    reals = {}     # id(view) -> module
    views = {}     # module name -> view

    class GuardedModule(_ModuleType):
        """An authorized module as the code sees it: a copy of its
        attributes (refreshed at each import), without the modules it
        holds; those are looked up, checked and handed out as views."""

        def __getattr__(self, name):
            real = reals[id(self)]
            v = getattr(real, name)
            if isinstance(v, _ModuleType):
                return guard(v, "%s.%s" % (real.__name__, name))
            return v

        def __setattr__(self, name, value):
            setattr(reals[id(self)], name, value)
            if not isinstance(value, _ModuleType):
                _ModuleType.__setattr__(self, name, value)

        def __delattr__(self, name):
            delattr(reals[id(self)], name)
            self.__dict__.pop(name, None)

    def guard(mod, via=None):
        if type(mod) is GuardedModule or not restrictive():
            return mod
        name = getattr(mod, "__name__", "?")
        if via is not None:
            msg = check(name)
            if msg is not None:
                raise ImportError("%s is the module %s; %s" % (via, name, msg), name=name)
        v = views.get(name)
        if v is None or reals.get(id(v)) is not mod:
            v = GuardedModule(name)
            reals[id(v)] = mod
            views[name] = v
        d = v.__dict__
        d.clear()
        for k, x in list(mod.__dict__.items()):
            if not isinstance(x, _ModuleType):
                d[k] = x
        return v

    def checked(name, level):
        if level:
            raise ImportError("relative imports are not supported", name=name)
        if name in _C_LAZY_IMPORTS:
            return
        msg = check(name)
        if msg is not None:
            raise ImportError(msg, name=name)
        if name not in imported:
            imported.append(name)

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if is_code(getframe(1)):
            checked(name, level)
            return guard(real_import(name, globals, locals, fromlist, level))
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded_import

    def patch_importlib(importlib):
        """Checks importlib.import_module too (run when importlib is
        first imported: the runner does not import it)."""
        real_import_module = importlib.import_module

        def import_module(name, package=None):
            if is_code(getframe(1)):
                checked(name, 1 if name.startswith(".") else 0)
                return guard(real_import_module(name, package))
            return real_import_module(name, package)

        import_module.__doc__ = real_import_module.__doc__
        importlib.import_module = import_module
        importlib.__import__ = guarded_import

    return check, patch_importlib


def _make_final_answer(box):
    # The closure holds a list and nothing else: code that walks
    # final_answer.__closure__ finds no runner and no policy.
    def final_answer(answer):
        """Ends the task with answer."""
        if not box:
            box.append(answer)
        raise FinalAnswerException()

    return final_answer


def _make_call(send, recv, state, tool_exception, tool_names):
    """Returns call(name, args, kwargs), which asks the host to run a tool,
    and call_many(calls, max_workers), which asks it to run several at
    once (parallel()). state is {"exec_id": ..., "seq": ...}, shared with
    the runner; tool_names maps id(stub) to the name of each tool stub, so
    that a tool passed as an argument (help(web_search)) crosses as its
    name."""

    def arg(v):
        name = tool_names.get(id(v))
        if name is not None and callable(v):
            return name
        return encode(v, strict=True)

    def encode_call(name, args, kwargs):
        return {"tool": name, "args": [arg(a) for a in args],
                "kwargs": {k: arg(v) for k, v in kwargs.items()}}

    def request(msg):
        state["seq"] += 1
        seq = state["seq"]
        msg.update({"op": "call", "id": state["exec_id"], "call": seq})
        send(msg)
        line = recv()
        if line is None:
            raise SystemExit(0)
        reply = decode(line)
        if reply.get("op") != "return" or reply.get("call") != seq:
            raise RuntimeError("runner protocol: expected return of call %d, got %r" % (seq, reply.get("op")))
        out = reply.get("stdout")
        if out:
            sys.stdout.write(out)
        return reply

    def call(name, args, kwargs):
        msg = request(encode_call(name, args, kwargs))
        err = msg.get("error")
        if err:
            raise tool_exception(err.get("type") or "ToolError", err.get("message") or "")
        return msg.get("value")

    def call_many(calls, max_workers):
        msg = request({"calls": [encode_call(n, a, k) for n, a, k in calls], "max_workers": max_workers})
        out = []
        for r in msg.get("results") or []:
            err = r.get("error")
            if err:
                out.append(tool_exception(err.get("type") or "ToolError", err.get("message") or ""))
            else:
                out.append(r.get("value"))
        if len(out) != len(calls):
            raise RuntimeError("runner protocol: %d results for %d calls" % (len(out), len(calls)))
        return out

    return call, call_many


def _make_parallel(call_many, tools):
    """Returns parallel(), which runs several tool calls at once (see
    executors/starlarkexec/tools.go for the same function in the Starlark
    engine). tools maps names to the tool stubs."""

    def tool_name(v):
        if type(v) is str and v in tools:
            return v
        for name, fn in tools.items():
            if fn is v:
                return name
        return None

    def one(x):
        if type(x) is tuple:
            return list(x), {}
        return [x], {}

    def parallel(calls, arguments=None, *, max_workers=8, raise_errors=False):
        """parallel(tool, arguments) calls tool once per item of arguments,
        all at once, and returns the results in order; parallel([(tool,
        args), ...]) calls different tools. An item is the argument of one
        call: a tuple for several positional arguments, a dict for keyword
        arguments. A call that fails leaves its exception in the list; with
        raise_errors=True an ExceptionGroup is raised instead."""
        if type(max_workers) is not int or not 1 <= max_workers <= 64:
            raise ValueError("parallel(): max_workers must be between 1 and 64, got %r" % (max_workers,))
        todo = []
        name = tool_name(calls)
        if name is not None:
            if arguments is None:
                raise TypeError("parallel(%s, arguments): give the list of arguments, one item per call" % name)
            if isinstance(arguments, (str, bytes, dict)):
                raise TypeError("parallel(): the arguments must be a list, not %s" % type(arguments).__name__)
            for x in arguments:
                if len(todo) >= 1000:
                    raise ValueError("parallel(): at most 1000 calls at once; split them into several parallel() calls")
                todo.append((name,) + one(x))
        else:
            if arguments is not None:
                raise TypeError("parallel(): the first argument must be a tool or a tool's name, not %s" % type(calls).__name__)
            if isinstance(calls, (str, bytes, dict)) or not hasattr(calls, "__iter__"):
                raise TypeError("parallel(): the first argument must be a tool or a list of calls, not %s" % type(calls).__name__)
            for pair in calls:
                if len(todo) >= 1000:
                    raise ValueError("parallel(): at most 1000 calls at once; split them into several parallel() calls")
                if type(pair) not in (tuple, list) or not 1 <= len(pair) <= 2:
                    raise TypeError("parallel(calls): each call must be a pair (tool, arguments), not %s" % type(pair).__name__)
                n = tool_name(pair[0])
                if n is None:
                    raise TypeError("parallel(calls): %s is not a tool" % type(pair[0]).__name__)
                todo.append((n,) + (one(pair[1]) if len(pair) == 2 else ([], {})))
        if not todo:
            return []
        results = call_many(todo, max_workers)
        failed = [r for r in results if isinstance(r, Exception)]
        if raise_errors and failed:
            raise ExceptionGroup("parallel(): %d of %d calls failed" % (len(failed), len(todo)), failed)
        return results

    return parallel


def _protected_bindings(tree, protected):
    """Returns (name, line, deleted) for the first protected name the
    module binds or deletes at module level, or that a function declares
    global and binds; None if there is none. Mirrors checkProtected in
    pyfront/protect.go."""
    ast = _lazy("ast")
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

    def scope(body):
        found = []  # (name, node, deleted)
        declared = set()

        def target(t, node, deleted=False):
            if isinstance(t, ast.Name):
                found.append((t.id, node, deleted))
            elif isinstance(t, (ast.Tuple, ast.List)):
                for e in t.elts:
                    target(e, node, deleted)
            elif isinstance(t, ast.Starred):
                target(t.value, node, deleted)

        def walrus(node):
            stack = [node]
            while stack:
                n = stack.pop()
                if isinstance(n, ast.NamedExpr):
                    target(n.target, node)
                for c in ast.iter_child_nodes(n):
                    if not isinstance(c, nested) and not isinstance(c, ast.stmt):
                        stack.append(c)

        def stmts(body):
            for s in body:
                walrus(s)
                if isinstance(s, ast.Assign):
                    for t in s.targets:
                        target(t, s)
                elif isinstance(s, (ast.AugAssign, ast.AnnAssign)):
                    target(s.target, s)
                elif isinstance(s, (ast.For, ast.AsyncFor)):
                    target(s.target, s)
                elif isinstance(s, (ast.With, ast.AsyncWith)):
                    for it in s.items:
                        if it.optional_vars is not None:
                            target(it.optional_vars, s)
                elif isinstance(s, (ast.Import, ast.ImportFrom)):
                    for a in s.names:
                        if a.name != "*":
                            found.append((a.asname or a.name.split(".")[0], s, False))
                elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found.append((s.name, s, False))
                elif isinstance(s, ast.Delete):
                    for t in s.targets:
                        target(t, s, True)
                elif isinstance(s, ast.Global):
                    declared.update(s.names)
                if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
                    for h in s.handlers:
                        if h.name:
                            found.append((h.name, h, False))
                        stmts(h.body)
                if isinstance(s, getattr(ast, "Match", ())):
                    for c in s.cases:
                        for n in ast.walk(c.pattern):
                            for attr in ("name", "rest"):
                                v = getattr(n, attr, None)
                                if type(v) is str:
                                    found.append((v, s, False))
                        stmts(c.body)
                for field in ("body", "orelse", "finalbody"):
                    if not isinstance(s, nested) and isinstance(getattr(s, field, None), list):
                        stmts(getattr(s, field))
        stmts(body)
        return found, declared

    def first(found, keep=lambda n: True):
        for name, node, deleted in found:
            if name in protected and keep(name):
                return name, getattr(node, "lineno", 0), deleted
        return None

    found, _ = scope(tree.body)
    hit = first(found)
    if hit:
        return hit
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found, declared = scope(node.body)
            hit = first(found, lambda n: n in declared)
            if hit:
                return hit
    return None


_exc_types = {}


def _tool_exception(type_name, message):
    cls = getattr(builtins, type_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        if type_name == "ToolError":
            cls = ToolError
        else:
            cls = _exc_types.get(type_name)
            if cls is None:
                cls = type(type_name, (ToolError,), {"__module__": "builtins"})
                _exc_types[type_name] = cls
    return cls(message)


def _short_repr(v, limit):
    """A repr that does not expand a huge value: containers show their
    first items and '...'."""
    r = _lazy("reprlib").Repr()
    r.maxlevel, r.maxtuple, r.maxlist, r.maxarray, r.maxdict = 6, 100, 100, 100, 100
    r.maxset = r.maxfrozenset = r.maxdeque = 100
    r.maxstring = r.maxlong = r.maxother = max(limit // 4, 40)
    try:
        text = r.repr(v)
    except BaseException as e:
        text = "<%s object (repr failed: %s)>" % (type(v).__name__, type(e).__name__)
    return text[:limit]


def _cut(text, limit, keep_end=False):
    if type(text) is not str:
        text = str(text)
    if len(text) <= limit:
        return text
    if keep_end:
        return "[... %d characters cut]\n" % (len(text) - limit) + text[-limit:]
    return text[:limit] + "... [%d characters cut]" % (len(text) - limit)


# ---- modules set up when they are first imported ---------------------------

class _AfterImport:
    """A meta path finder that runs hooks[name](module) right after module
    name is first imported, so that the runner can adapt a module without
    importing it at start (each import costs the sandbox's start), and
    that gives the code of modules loaded from a zip archive the module's
    own path (paths = (compiled, here): the standard library of the
    WebAssembly CPython was compiled elsewhere, and tracebacks would show
    that machine's paths)."""

    def __init__(self, hooks, paths):
        self.hooks, self.paths = hooks, paths

    def find_spec(self, name, path=None, target=None):
        hook = self.hooks.get(name)
        if hook is None and self.paths is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        fix = self.paths is not None and type(loader).__name__ == "zipimporter" and hasattr(loader, "get_code")
        if hook is not None or fix:
            spec.loader = _HookedLoader(loader, hook, fix)
        return spec


class _HookedLoader:
    def __init__(self, loader, hook, fix):
        self.loader, self.hook, self.fix = loader, hook, fix

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        code = None
        if self.fix:
            code = self.loader.get_code(module.__name__)
        if code is None:
            self.loader.exec_module(module)
        else:
            path = getattr(module, "__file__", None)
            if type(path) is str:
                _lazy("_imp")._fix_co_filename(code, path[:-1] if path.endswith(".pyc") else path)
            exec(code, module.__dict__)
        if self.hook is not None:
            self.hook(module)

    def __getattr__(self, name):
        return getattr(self.loader, name)


def _stdlib_paths():
    """Returns (compiled, here) when the standard library was compiled
    under another directory (compiled) than the one it is loaded from
    (here), else None."""
    mod = sys.modules.get("encodings")  # loaded from the archive at start
    try:
        compiled = mod.search_function.__code__.co_filename
        here = mod.__file__
    except AttributeError:
        return None
    if type(here) is not str or type(compiled) is not str:
        return None
    if here.endswith(".pyc"):
        here = here[:-1]
    tail = "encodings/__init__.py"
    if compiled == here or not (compiled.endswith(tail) and here.endswith(tail)):
        return None
    return compiled[:-len(tail)], here[:-len(tail)]


def _fix_loaded(paths):
    """Gives the functions of the modules already loaded from the zip
    archive their module's path (what _AfterImport does for later ones)."""
    fix = _lazy("_imp")._fix_co_filename
    prefix = paths[1][:paths[1].rfind("/") + 1]  # the archive's directory

    def code_of(v):
        if isinstance(v, (staticmethod, classmethod)):
            v = v.__func__
        return getattr(v, "__code__", None)

    for name, mod in list(sys.modules.items()):
        path = getattr(mod, "__file__", None)
        if type(path) is not str or not path.startswith(prefix) or not path.endswith(".pyc"):
            continue
        path = path[:-1]
        for v in list(vars(mod).values()):
            if isinstance(v, type):
                if v.__module__ != name:
                    continue
                members = list(vars(v).values())
                members += [getattr(m, a, None) for m in members if isinstance(m, property)
                            for a in ("fget", "fset", "fdel")]
            elif getattr(v, "__module__", None) == name:
                members = [v]
            else:
                continue
            for m in members:
                c = code_of(m)
                if type(c) is _CodeType and c.co_filename.startswith(paths[0]):
                    fix(c, path)


_CodeType = type(_fix_loaded.__code__)


def _sandbox_paths(text, paths):
    """Rewrites the compiled-at paths of a traceback to those in the sandbox."""
    if paths is None or type(text) is not str:
        return text
    return text.replace(paths[0], paths[1])


_NO_NETWORK = ("this sandbox has no network and no processes (CPython compiled to WebAssembly "
               "has no sockets): asyncio runs coroutines, tasks, timers, queues and async "
               "generators here, but cannot open connections, servers, pipes or subprocesses; "
               "use the agent's tools to reach the network")


def _wasi_asyncio(asyncio):
    """Makes asyncio's event loops work without sockets (WASI has no
    socketpair, which every selector loop needs to wake itself): the
    loops it makes are a selector loop whose selector only waits for the
    next timer, since nothing else can wake it (no sockets, no threads).
    Network and process APIs raise OSError saying why; run_in_executor
    and to_thread run the function at once, in the loop's thread."""
    errno, time = _lazy("errno"), _lazy("time")
    events, selector_events = asyncio.events, asyncio.selector_events

    def unsupported(*args, **kwargs):
        raise OSError(errno.ENOTSUP, _NO_NETWORK)

    class TimerSelector:
        """A selector with no files: select() sleeps until the next timer."""

        def select(self, timeout=None):
            if timeout is None:
                raise RuntimeError(
                    "the event loop has nothing to wait for and nothing can wake it (no sockets or "
                    "threads in this sandbox): some task awaits a future that no other task will set")
            if timeout > 0:
                time.sleep(timeout)
            return []

        def register(self, fileobj, events, data=None):
            unsupported()

        modify = register

        def unregister(self, fileobj):
            raise KeyError(fileobj)

        def get_key(self, fileobj):
            raise KeyError(fileobj)

        def get_map(self):
            return {}

        def close(self):
            pass

    class SandboxEventLoop(selector_events.BaseSelectorEventLoop):
        """The event loop of the WebAssembly sandbox: timers and tasks, no I/O."""

        def __init__(self):
            super().__init__(TimerSelector())

        def _make_self_pipe(self):
            self._ssock = self._csock = None

        def _close_self_pipe(self):
            pass

        def _write_to_self(self):
            # Only another thread would need to wake the loop, and there
            # are none.
            pass

        def run_in_executor(self, executor, func, *args):
            if executor is not None:
                return super().run_in_executor(executor, func, *args)
            self._check_closed()
            fut = self.create_future()
            try:
                fut.set_result(func(*args))
            except (SystemExit, KeyboardInterrupt):
                raise
            except Exception as e:
                fut.set_exception(e)
            return fut

        create_connection = create_server = create_datagram_endpoint = unsupported
        create_unix_connection = create_unix_server = unsupported
        sock_recv = sock_recv_into = sock_recvfrom = sock_recvfrom_into = unsupported
        sock_sendall = sock_sendto = sock_connect = sock_accept = sock_sendfile = unsupported
        getaddrinfo = getnameinfo = connect_accepted_socket = sendfile = start_tls = unsupported
        connect_read_pipe = connect_write_pipe = subprocess_exec = subprocess_shell = unsupported

    class SandboxPolicy(events.BaseDefaultEventLoopPolicy):
        _loop_factory = SandboxEventLoop

    asyncio.SandboxEventLoop = SandboxEventLoop
    asyncio.set_event_loop_policy(SandboxPolicy())


# ---- compiling a step ---------------------------------------------------------

def _lazy(name, _import=builtins.__import__, _modules=sys.modules):
    """Imports a module the runner needs only sometimes (ast, traceback),
    with the import that was there before the code's import check, which
    would otherwise count the runner's own import as the code's."""
    mod = _modules.get(name)
    if mod is None:
        _import(name)
        mod = _modules[name]
    return mod


class _Protected(Exception):
    """The code binds a tool's name: args are the message and the line."""


def _may_bind(code, protected):
    """Says, from the text alone and erring towards yes, whether code may
    bind or delete one of the protected names: only then does the step
    need the syntax tree for _protected_bindings. A name used only in calls
    (name(...)) binds nothing, unless it follows def or class; identifiers
    outside ASCII may normalize to a protected name (NFKC), so such code
    always says yes. String methods only: re costs the start of a sandbox
    more than this costs a step."""
    if not code.isascii():
        return True
    for name in protected:
        i = code.find(name)
        while i >= 0:
            j = i + len(name)
            if not (i > 0 and (code[i - 1].isalnum() or code[i - 1] in "_.")) and not (
                    j < len(code) and (code[j].isalnum() or code[j] == "_")):
                # A whole name: it binds nothing only if a call follows
                # and no def or class precedes it.
                k = j
                while k < len(code) and code[k] in _BLANKS:
                    k += 1
                if not code.startswith("(", k):
                    return True
                k = i
                while k > 0 and code[k - 1] in _BLANKS:
                    k -= 1
                if code.endswith("def", 0, k) or code.endswith("class", 0, k):
                    return True
            i = code.find(name, j)
    return False


_BLANKS = " \t\f\r\n\\"
_CLAUSES = ("else", "elif", "except", "finally")


def _last_statement(code):
    """Returns the offset where the last top-level statement of code
    starts, judged by lines: the last line that starts in column 0 with
    code, not with else, elif, except or finally (those continue a
    statement), moved up over the decorators above it; None when there is
    no such line. The caller proves the guess (see Runner._compile)."""
    end = len(code)
    start = None
    while True:
        i = code.rfind("\n", 0, end)
        s = i + 1
        c = code[s:s + 1]
        if c and c not in " \t\f\r\n#\\" and not _clause(code, s):
            start = s
            break
        if i < 0:
            return None
        end = i
    while start > 0:
        s = code.rfind("\n", 0, start - 1) + 1
        if not code.startswith("@", s):
            break
        start = s
    return start


_AUGMENTED = ("**=", "//=", ">>=", "<<=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=")


def _assignment(s):
    """Says whether statement s starts with a name or a dotted name followed
    by = (not ==), an augmented assignment or ':' (an annotation or a
    compound statement's keyword), which no expression statement does
    (lambda: aside), so that compiling it as an expression would only
    fail."""
    i, n = 0, len(s)
    first = None
    while True:
        if i >= n or not (s[i].isalpha() or s[i] == "_"):
            return False
        j = i
        while i < n and (s[i].isalnum() or s[i] == "_"):
            i += 1
        if first is None:
            first = s[j:i]
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] == ".":
            i += 1
            while i < n and s[i] in " \t":
                i += 1
            continue
        break
    if i >= n:
        return False
    if s[i] == ":":
        return first != "lambda"
    if s[i] == "=":
        return not s.startswith("=", i + 1)
    return s.startswith(_AUGMENTED, i)


def _clause(code, s):
    """Says whether the line at s starts with else, elif, except or finally."""
    for k in _CLAUSES:
        if code.startswith(k, s):
            c = code[s + len(k):s + len(k) + 1]
            return not (c.isalnum() or c == "_")
    return False


# ---- the runner --------------------------------------------------------------

class Runner:
    def __init__(self, send, recv, limits):
        self.send, self.recv = send, recv
        self.ns = {"__name__": "__main__", "__builtins__": builtins}
        self.tools = {}
        self.max_output = 50000
        self.limits = limits
        self.policy = {"authorized": None, "forbidden": []}  # None: everything
        self.capture = None
        self.state = {"exec_id": None, "seq": 0}
        self.final = []  # [value] once final_answer was called
        self.imported = []
        self.check_import, patch_importlib = _import_guard(self.ns, self.policy, self.imported)
        # The step's source for tracebacks, given to linecache once something
        # imports it (the runner does not: it imports tokenize and re).
        self.source = None
        hooks = {"linecache": self._register_source, "importlib": patch_importlib}
        if "importlib" in sys.modules:
            patch_importlib(sys.modules["importlib"])
        if sys.platform == "wasi":
            hooks["asyncio"] = _wasi_asyncio
        self.paths = _stdlib_paths()
        if self.paths is not None:
            _fix_loaded(self.paths)
        sys.meta_path.insert(0, _AfterImport(hooks, self.paths))
        self.tool_names = {}  # id(stub) -> name
        self.call, call_many = _make_call(send, recv, self.state, _tool_exception, self.tool_names)
        self.static_names = {"final_answer": _make_final_answer(self.final),
                             "parallel": _make_parallel(call_many, self.tools),
                             # What a failed tool call raises, so that code
                             # can write `except ToolError`.
                             "ToolError": ToolError}

    def _make_tool(self, spec):
        call = self.call
        name = spec["name"]

        def call_tool(*args, **kwargs):
            return call(name, args, kwargs)

        call_tool.__name__ = call_tool.__qualname__ = name
        params = ", ".join(spec.get("inputs") or [])
        call_tool.__doc__ = "%s(%s)\n\n%s" % (name, params, spec.get("description") or "")
        return call_tool

    # -- execution

    def op_exec(self, msg):
        code = msg["code"]
        filename = "<code>"
        res = {"op": "result", "id": msg["id"], "stdout": "", "truncated": False,
               "value": None, "repr": "", "final": False, "error": None, "imports": []}
        self.final.clear()
        self.imported.clear()
        self.state["exec_id"] = msg["id"]
        self.state["seq"] = 0
        cap = Capture(self.max_output)
        self.capture = cap
        value, has_value, error = None, False, None
        body, last = (), None
        self.source = (filename, code)
        self._register_source(sys.modules.get("linecache"))
        saved = sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__
        # Compiling happens here too, so that its warnings are in the output.
        sys.stdout = sys.stderr = sys.__stdout__ = sys.__stderr__ = cap
        try:
            try:
                body, last = self._compile(code, filename)
            except SyntaxError as e:
                error = self._syntax_error(e, code)
            except (MemoryError, RecursionError) as e:
                error = self._error(type(e).__name__, "the code is too big or nested too deeply to parse", 0, code)
            except ValueError as e:  # null bytes
                error = self._error("SyntaxError", str(e), 0, code)
            except _Protected as e:
                error = self._error("SyntaxError", e.args[0], e.args[1], code)
            if error is None:
                self.ns.update(self.tools)
                self.ns.update(self.static_names)
                try:
                    for c in body:
                        exec(c, self.ns)
                    if last is not None:
                        value = eval(last, self.ns)
                        has_value = True
                except FinalAnswerException:
                    pass
                except BaseException as e:
                    if not self.final:
                        error = self._runtime_error(e, code, filename)
        finally:
            sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = saved
            self.capture = None
            body = last = c = None
        if self.final:
            res["final"] = True
            value, has_value, error = self.final[0], True, None
        res["stdout"] = cap.text()
        res["truncated"] = cap.dropped > 0
        res["imports"] = list(self.imported)
        if error is not None:
            res["error"] = self._cap_error(error)
        elif has_value and (value is not None or res["final"]):
            self._set_value(res, value)
        value = None
        self.final.clear()
        try:
            self.send(res)
        except MessageTooBig as e:
            # Only with a tiny memory limit and a huge output cap: keep what
            # fits and say so.
            small = max(self.max_output // 20, 1000)
            res["stdout"] = _cut(res["stdout"], small)
            res["repr"] = _cut(res["repr"], small)
            if res["error"]:
                res["error"] = self._cap_error(res["error"], small)
            if res["value"] is not None:
                res["value"] = {"$repr": res["repr"], "type": "object"}
            res["notes"] = ["the result was cut to fit the host's message limit (%s)" % e]
            self.send(res)

    def _register_source(self, linecache):
        """Gives linecache the step's source, so that tracebacks show its lines."""
        if linecache is not None and self.source is not None:
            filename, code = self.source
            linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)

    def _compile(self, code, filename):
        """Compiles code into (body, last): the code objects of its
        statements, to run in order, and, when it ends with an expression
        statement, that of the expression, whose value the step returns
        (else None). Raises SyntaxError, or _Protected for code that rebinds a
        tool.

        Compiling is most of what a step costs in the sandbox, so the
        common case compiles the source once and builds no syntax tree:
        the code is cut where its last top-level statement starts (found
        by looking at the first character of lines), the part before is
        compiled as statements and the last statement as an expression,
        or, if it is not one, as a statement. The part before compiling
        proves the cut falls between two top-level statements (a cut in a
        string, in brackets or after a backslash leaves it unfinished),
        and a last part without ';' is one statement. Anything else (';'
        in the last statement, a syntax error, __future__ imports) takes
        the syntax tree, which also reports errors exactly as CPython does.
        """
        protected = set(self.tools)
        protected.add("final_answer")
        if _may_bind(code, protected):
            ast = _lazy("ast")
            hit = _protected_bindings(ast.parse(code, filename, "exec"), protected)
            if hit:
                name, line, deleted = hit
                raise _Protected("%s is a tool of this agent and cannot be deleted" % name if deleted else
                                 "%s is a tool of this agent and cannot be reassigned; use another name" % name, line)
        start = _last_statement(code) if "__future__" not in code else None
        if start is not None:
            head, tail = code[:start], code[start:]
            if ";" not in tail:
                try:
                    body = compile(head, filename, "exec", dont_inherit=True)
                except SyntaxError:
                    body = None
                if body is not None:
                    assigns = _assignment(tail)
                    tail = "\n" * head.count("\n") + tail
                    if not assigns:
                        try:
                            return [body], compile(tail, filename, "eval", dont_inherit=True)
                        except SyntaxError:
                            pass
                    try:
                        return [body, compile(tail, filename, "exec", dont_inherit=True)], None
                    except SyntaxError:
                        pass
        ast = _lazy("ast")
        tree = ast.parse(code, filename, "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = compile(ast.Expression(tree.body.pop().value), filename, "eval")
        return [compile(tree, filename, "exec")], last

    def _set_value(self, res, value):
        value = _as_image(value)
        what = "final answer" if res["final"] else "value of the last expression"
        limit = self.limits["max_value"]
        try:
            if _expanded_cost(value, 3, limit) > limit:
                raise TooBig("its JSON form is too big")
            enc = encode(value, budget=[limit, 3])
            if len(_dumps(enc)) > limit:
                raise TooBig("its JSON form is too big")
        except TooBig:
            r = _short_repr(value, self.max_output)
            res["value"] = {"$repr": r, "type": type(value).__name__}
            res["repr"] = r
            res["notes"] = ["the %s is too big to return in full (more than %d bytes as JSON): "
                            "it is replaced by a shortened repr; return something smaller, "
                            "such as a summary or the first items" % (what, limit)]
            return
        res["value"] = enc
        res["repr"] = _safe_repr(value, self.max_output)

    def _cap_error(self, err, limit=None):
        limit = limit or self.max_output
        err["message"] = _cut(err.get("message") or "", limit)
        err["source"] = _cut(err.get("source") or "", 1000)
        err["traceback"] = _cut(err.get("traceback") or "", limit, keep_end=True)
        err["type"] = _cut(err.get("type") or "", 200)
        return err

    def _error(self, typ, message, line, code, tb=""):
        src = ""
        lines = code.splitlines()
        if line and 0 < line <= len(lines):
            src = lines[line - 1].strip()
        return {"type": typ, "message": message, "line": line or 0, "source": src, "traceback": tb}

    def _syntax_error(self, e, code):
        tb = "".join(_lazy("traceback").format_exception_only(type(e), e))
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
            text = _sandbox_paths("".join(_lazy("traceback").format_exception(type(e), e, tb)), self.paths)
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
        for k in ("max_message", "max_value"):
            if k in msg:
                self.limits[k] = int(msg[k])
        if "authorized" in msg:
            self.policy["authorized"] = msg["authorized"]
        if "forbidden" in msg:
            self.policy["forbidden"] = msg["forbidden"] or []
        if "sys_path" in msg:
            for p in msg["sys_path"]:
                if p not in sys.path:
                    sys.path.append(p)
        self.send({"op": "result", "id": msg["id"]})

    def op_tools(self, msg):
        for name in self.tools:
            if self.ns.get(name) is self.tools[name]:
                del self.ns[name]
        self.tools.clear()
        self.tools.update({t["name"]: self._make_tool(t) for t in msg["tools"]})
        self.tool_names.clear()
        self.tool_names.update({id(fn): name for name, fn in self.tools.items()})
        self.ns.update(self.tools)
        self.send({"op": "result", "id": msg["id"]})

    def op_vars(self, msg):
        self.ns.update(msg["vars"])
        self.send({"op": "result", "id": msg["id"]})

    def op_dump(self, msg):
        """Returns the user's variables that JSON can carry, and why the others cannot."""
        out, skipped = {}, {}
        # Half the message for the values, in the host's units, so that the
        # reasons and the framing always fit.
        room = self.limits["max_message"] // 2
        for k, v in list(self.ns.items()):
            if k.startswith("__") or k in self.tools or k in self.static_names:
                continue
            if type(v).__name__ in ("module", "function", "type", "builtin_function_or_method") or isinstance(v, _ModuleType):
                skipped[k] = "a %s cannot leave the Python sandbox" % type(v).__name__
                continue
            try:
                if _expanded_cost(v, 49, room) > room:
                    raise TooBig("its JSON form is too big")
                enc = encode(v, strict=True, budget=[room, 49])
                cost = _message_cost(_dumps(enc).encode("ascii"))
                if cost > room:
                    raise TooBig("its JSON form is too big")
            except TooBig:
                skipped[k] = ("it is too big to carry to another engine (its JSON form passes the %d-byte budget left for variables)"
                              % room)
                continue
            except Unencodable as e:
                skipped[k] = str(e)
                continue
            except Exception as e:
                # The value cannot be written out (an int past CPython's
                # 4,300 digits for text, an object whose methods fail):
                # it stays here, and the session stays whole.
                if type(e) is ValueError and "integer string conversion" in str(e):
                    skipped[k] = ("it holds an int of more than 4300 digits, which CPython cannot write out as text"
                                  " to cross engines; keep it here, or carry hex() of it")
                else:
                    skipped[k] = "it cannot be written out to cross engines (%s: %s)" % (type(e).__name__, _cut(str(e), 300))
                continue
            out[k] = enc
            room -= cost
        self.send({"op": "result", "id": msg["id"], "value": out, "skipped": skipped})

    def serve(self, code=None):
        sys.stdin = sys.__stdin__ = io.StringIO("")
        ready = {"op": "ready", "protocol": PROTOCOL, "python": sys.version.split()[0]}
        if code is not None:
            ready["code"] = binascii.b2a_base64(marshal.dumps(code), newline=False).decode("ascii")
        self.send(ready)
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
    channel = None
    # With --emit-code, the ready message carries this script's code
    # object (marshal), for the host to start later runners from.
    code = sys._getframe(1).f_code if "--emit-code" in sys.argv[1:] else None
    for a in sys.argv[1:]:
        if a.startswith("--channel="):
            channel = a[len("--channel="):]
    if channel:
        inp, out = _open_channel(channel)
    else:
        inp, out = _private_channels()
        # readline on a raw file reads one byte per system call.
        inp = io.BufferedReader(inp, 1 << 16)
    # Keep sys.stdout away from the protocol even before the first exec.
    sys.stdout = sys.__stdout__ = io.StringIO()
    # One dict of limits, shared by send and the runner's config.
    limits = {"max_message": 32 << 20, "max_value": 1000000}
    send, recv = _make_channel(inp, out, limits)
    Runner(send, recv, limits).serve(code)


if __name__ == "__main__":
    main()
