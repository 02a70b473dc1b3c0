package wasm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/pyvalue"
)

// The attacks below are code that knows the runner protocol and tries to
// make the host believe, or choke on, messages it writes itself. Request
// ids are predictable: a new sandbox's config request is 1, and every
// Execute takes the next one.

// forged returns Python code that builds a result message for id.
func forged(id int, value string) string {
	return fmt.Sprintf(`('{"op":"result","id":%d,"stdout":"FORGED","truncated":false,"value":"%s","repr":"%s","final":true,"error":null,"imports":[]}\n')`, id, value, value)
}

// findChannel is Python code that defines chan(): the runner's protocol
// descriptor, found the way hostile code would.
const findChannel = `
import os, stat
def chan():
    for f in range(3, 64):
        try:
            if not stat.S_ISDIR(os.fstat(f).st_mode):
                return f
        except OSError:
            pass
    raise RuntimeError("no channel")
`

// TestStdoutIsNotProtocol: results written to fd 1, sys.stdout and
// sys.__stdout__ are output, never the step's result (os.write(1, ...) of a
// result used to be accepted as the result).
func TestStdoutIsNotProtocol(t *testing.T) {
	for _, s := range strategies {
		t.Run(s.name, func(t *testing.T) {
			e := newExec(t, Options{Cancel: s.cancel})
			exec1(t, e, "x = 1") // request 2
			var code strings.Builder
			code.WriteString("import os, sys\n")
			for id := 1; id <= 6; id++ {
				fmt.Fprintf(&code, "os.write(1, %s.encode())\n", forged(id, "forged"))
				fmt.Fprintf(&code, "os.write(2, %s.encode())\n", forged(id, "forged"))
				fmt.Fprintf(&code, "print(%s, end='')\n", forged(id, "forged"))
				fmt.Fprintf(&code, "sys.__stdout__.write(%s)\n", forged(id, "forged"))
			}
			code.WriteString("'genuine'")
			res := exec1(t, e, code.String()) // request 3
			if res.Err != nil || res.Value != "genuine" || res.IsFinal {
				t.Fatalf("value %#v final %v err %v", res.Value, res.IsFinal, res.Err)
			}
			if !strings.Contains(res.Stdout, `"value":"forged"`) {
				t.Errorf("printed text lost: %q", res.Stdout)
			}
			for i := 0; i < 3; i++ {
				if res := exec1(t, e, "x"); res.Err != nil || res.Value != int64(1) || len(res.Notes) > 0 {
					t.Fatalf("after: %+v", res)
				}
			}
		})
	}
}

// TestForgedMessagesOnChannel: code that finds the runner's descriptor and
// writes to it. Nothing it writes may answer another request, and every
// message the protocol does not allow replaces the sandbox with a clear
// error.
func TestForgedMessagesOnChannel(t *testing.T) {
	e := newExec(t, Options{})
	exec1(t, e, findChannel) // request 2
	exec1(t, e, "x = 1")     // request 3

	// A result for the next request, written during request 4: it must
	// not pre-answer request 5.
	res := exec1(t, e, "os.write(chan(), "+forged(5, "preanswered")+".encode())\n'genuine'")
	if res.Err == nil || !strings.Contains(res.Err.Message, "breaks the runner protocol") || !strings.Contains(res.Err.Message, "restarted") {
		t.Fatalf("result for the next id: %+v", res)
	}
	t.Logf("next id: %s", res.Err.Message)
	if res := exec1(t, e, "1 + 1"); res.Value != int64(2) || res.Stdout == "FORGED" {
		t.Fatalf("the next step was pre-answered: %+v", res)
	}

	// The sandbox restarted: config is 1, the step above 2.
	exec1(t, e, findChannel) // 3
	// A result for the current request: the code could have produced it
	// with final_answer, so the host takes it; the runner's own result
	// then arrives second, and the next step reports the violation.
	res = exec1(t, e, "os.write(chan(), "+forged(4, "own")+".encode())\n'genuine'")
	if res.Err != nil || res.Value != "own" {
		t.Logf("own result: %+v", res) // taken or not, the next step must notice
	}
	res = exec1(t, e, "'next'")
	if res.Err == nil || !strings.Contains(res.Err.Message, "breaks the runner protocol") {
		t.Fatalf("a second result went unnoticed: %+v", res)
	}
	t.Logf("second result: %s", res.Err.Message)

	for _, c := range []struct{ name, msg string }{
		{"call out of sequence", `{"op":"call","id":%d,"call":7,"tool":"x","args":[],"kwargs":{}}`},
		{"unknown op", `{"op":"exec","id":%d,"code":"1"}`},
		{"unknown field", `{"op":"result","id":%d,"stdout":"","truncated":false,"value":null,"repr":"","final":false,"error":null,"imports":[],"admin":true}`},
		{"two values on a line", `{"op":"result","id":%d} {"op":"result","id":0}`},
		{"not JSON", `hello %d`},
	} {
		exec1(t, e, findChannel) // after a restart: 2
		msg := fmt.Sprintf(c.msg, 3)
		res := exec1(t, e, "os.write(chan(), "+strconv.Quote(msg+"\n")+".encode())\nimport time\ntime.sleep(0.2)\n'genuine'")
		if res.Err == nil || !strings.Contains(res.Err.Message, "breaks the runner protocol") {
			t.Errorf("%s: %+v", c.name, res)
			continue
		}
		t.Logf("%s: %s", c.name, res.Err.Message)
		if res := exec1(t, e, "1 + 1"); res.Value != int64(2) {
			t.Fatalf("%s: after restart: %+v", c.name, res)
		}
	}
}

// TestForgedGiantResult: a 60 MB result (it took the host to 2.5 GB) and
// the same on fd 1. The host reads at most one message limit and never
// decodes it; its peak RSS stays far below.
func TestForgedGiantResult(t *testing.T) {
	e := newExec(t, Options{})
	exec1(t, e, findChannel) // 2
	for _, target := range []string{"1", "chan()"} {
		before := runnertest.ProcStatus(t, "VmRSS:")
		runnertest.ResetPeak(t)
		code := fmt.Sprintf(`data = b'{"op":"result","id":3,"stdout":"","truncated":false,"value":[' + b'0,' * 30_000_000 + b'0],"repr":"","final":true,"error":null,"imports":[]}\n'
os.write(%s, data)
del data
'genuine'`, target)
		res := exec1(t, e, code) // 3
		growth := runnertest.ProcStatus(t, "VmHWM:") - before
		t.Logf("os.write(%s): host peak RSS growth %d MiB, result %.60v %.300v", target, growth>>20, res.Value, res.Err)
		if growth > 300<<20 {
			t.Errorf("os.write(%s): host peak RSS grew by %d MiB", target, growth>>20)
		}
		if target == "1" {
			if res.Err != nil || res.Value != "genuine" {
				t.Errorf("fd 1: value %.60v err %.300v", res.Value, res.Err)
			}
			continue
		}
		if res.Err == nil || !strings.Contains(res.Err.Message, "longer than") {
			t.Errorf("channel: %+v", res.Err)
		}
	}
}

// resetPeak resets this process's VmHWM (Linux: clear_refs 5).

// TestImportRoutes: the cheap ways around the import policy that used to
// work. The policy is advisory inside the interpreter (see the package
// documentation); these routes must still be closed.
func TestImportRoutes(t *testing.T) {
	e := newExec(t, Options{Imports: executors.NewImportPolicy(nil, nil)})
	refused := []struct{ name, code string }{
		{"final_answer closure", "try:\n    final_answer.__closure__[0].cell_contents.authorized = None\nexcept Exception:\n    pass\n__import__('subprocess')"},
		{"closure walk", `def walk(o, depth=0):
    if depth > 4:
        return
    for c in getattr(o, '__closure__', None) or ():
        try:
            v = c.cell_contents
        except ValueError:
            continue
        for k in ('authorized', 'policy'):
            if hasattr(v, k):
                setattr(v, k, None)
        if isinstance(v, dict) and 'authorized' in v:
            v['authorized'] = None
        walk(v, depth + 1)
for f in list(globals().values()):
    walk(f)
__import__('subprocess')`},
		{"__import__ with empty globals", "__import__('subprocess', {})"},
		{"__import__ with made-up globals", "__import__('subprocess', {'__name__': 'json'})"},
		{"exec with empty globals", "exec('import subprocess', {})"},
		{"exec in the runner's globals", "exec('import subprocess', final_answer.__globals__)"},
		{"random._os", "import random\nrandom._os.getcwd()"},
		{"from random import _os", "from random import _os"},
		{"vars(random)", "import random\nvars(random)['_os']"},
		{"getattr", "import random\ngetattr(random, '_os')"},
		{"exec in a module's dict", "import random\nexec('import subprocess', random.__dict__)"},
	}
	for _, c := range refused {
		res := exec1(t, e, c.code)
		if res.Err == nil || (res.Err.Type != "ImportError" && res.Err.Type != "KeyError") {
			t.Errorf("%s: not refused: %+v %v", c.name, res.Value, res.Err)
			continue
		}
		t.Logf("%s: %s: %s", c.name, res.Err.Type, res.Err.Message)
	}
	// What the policy allows still works, modules included.
	res := exec1(t, e, "import random, collections.abc, json\nfrom collections import abc\nrandom.seed(1)\n"+
		"(random.randint(1, 1), json.dumps([1]), isinstance({}, collections.abc.Mapping), abc.Mapping is collections.abc.Mapping, json.decoder.JSONDecodeError.__name__)")
	if res.Err != nil || res.Repr != "(1, '[1]', True, True, 'JSONDecodeError')" {
		t.Errorf("authorized modules: %+v %v", res.Repr, res.Err)
	}
}

// TestValueCaps: final answers, last expressions, error messages and
// tracebacks are capped with a clear marker or note.
func TestValueCaps(t *testing.T) {
	e := newExec(t, Options{Limits: executors.Limits{MaxOutput: 1000}})
	res := exec1(t, e, "a = [0] * 1000\nfinal_answer([a] * 10000)")
	if !res.IsFinal || len(res.Repr) > 1000 || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "too big to return in full") {
		t.Fatalf("final answer: final %v repr %d notes %q", res.IsFinal, len(res.Repr), res.Notes)
	}
	if o, ok := res.Value.(pyvalue.Opaque); !ok || o.Type != "list" {
		t.Errorf("value %T", res.Value)
	}
	res = exec1(t, e, "b = {str(i): 'x' * 100 for i in range(100000)}\nb")
	if res.IsFinal || len(res.Notes) != 1 || len(res.Repr) > 1000 {
		t.Errorf("last expression: repr %d notes %q", len(res.Repr), res.Notes)
	}
	res = exec1(t, e, "raise ValueError('x' * 1000000)")
	if res.Err == nil || len(res.Err.Message) > 1100 || !strings.Contains(res.Err.Message, "characters cut") || len(res.Err.Traceback) > 1100 {
		t.Errorf("error: message %d traceback %d", len(res.Err.Message), len(res.Err.Traceback))
	}
	// A value within the cap is whole.
	if res := exec1(t, e, "list(range(1000))"); len(res.Notes) != 0 || len(res.Value.([]any)) != 1000 {
		t.Errorf("small value: %+v", res.Notes)
	}
}

// TestVariablesBudget: reading variables back (for the router) charges
// each against the message budget while encoding; an aliased list that is
// 10 million items written out stays in the sandbox with a reason.
func TestVariablesBudget(t *testing.T) {
	e := newExec(t, Options{})
	exec1(t, e, "a = [0] * 1000\nbig = [a] * 10000\nsmall = [1, 2]")
	vars, skipped, err := e.Variables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := vars["big"]; ok || !strings.Contains(skipped["big"], "too big to carry") {
		t.Errorf("big: skipped %q", skipped["big"])
	}
	if len(vars["small"].([]any)) != 2 || len(vars["a"].([]any)) != 1000 {
		t.Errorf("vars %v", vars["small"])
	}
}

// TestGuardedModulesWork: under the default policy, modules reach the code
// as guarded views; everyday use of each authorized module must not notice.
func TestGuardedModulesWork(t *testing.T) {
	e := newExec(t, Options{Imports: executors.NewImportPolicy(nil, nil)})
	for _, code := range []string{
		"import re\nassert re.compile('a+').match('aa').group() == 'aa' and re.sub(r'\\d', '#', 'a1') == 'a#'",
		"import datetime\nassert datetime.datetime(2024, 5, 1).strftime('%Y') == '2024'\nassert datetime.datetime.strptime('2024-05-01', '%Y-%m-%d').day == 1",
		"import time\nassert time.strptime('2020', '%Y').tm_year == 2020",
		"import collections\nassert collections.Counter('aab').most_common(1) == [('a', 2)]\nfrom collections import OrderedDict, abc\nassert isinstance({}, abc.Mapping)",
		"import typing\nfrom typing import List, Optional\ndef f(x: List[int]) -> Optional[int]:\n    return None\nassert typing.get_type_hints(f)['x'] == List[int]",
		"import statistics\nassert statistics.mean([1, 2, 3]) == 2 and statistics.median([3, 1, 2]) == 2",
		"import json\nassert json.loads(json.dumps({'a': [1, 2.5]})) == {'a': [1, 2.5]}",
		"import enum\nclass Color(enum.Enum):\n    RED = 1\nassert Color.RED.value == 1",
		"import copy\nx = {'a': [1]}\nassert copy.deepcopy(x) == x",
		"import random\nrandom.seed(3)\nassert random.choice([5]) == 5 and 0 <= random.random() < 1",
		"import textwrap, string, unicodedata, math, functools, itertools, queue, stat\nassert textwrap.dedent('  a') == 'a' and unicodedata.name('a') == 'LATIN SMALL LETTER A'\nassert math.sqrt(4) == 2 and functools.reduce(lambda a, b: a + b, [1, 2]) == 3\nassert list(itertools.islice(itertools.count(), 2)) == [0, 1] and string.digits == '0123456789'\nq = queue.Queue()\nq.put(1)\nassert q.get() == 1 and stat.S_ISDIR(0o040000)",
		"import math\nmath.tau2 = 1\nassert math.tau2 == 1\ndel math.tau2",
	} {
		if res := exec1(t, e, code); res.Err != nil {
			t.Errorf("%q: %v", code, res.Err)
		}
	}
}

// TestCapabilitiesAreTheBoundary backs the package documentation: the
// import allowlist is advisory (code that tampers with the import hook's
// closure gets any module), and what holds is the sandbox's capabilities:
// even with os, subprocess and socket in hand the code reaches no host
// file, process or network.
func TestCapabilitiesAreTheBoundary(t *testing.T) {
	e := newExec(t, Options{Imports: executors.NewImportPolicy(nil, nil)})
	// The real __import__ is in the hook's closure; so is the policy.
	res := exec1(t, e, `real = None
for c in __import__.__closure__:
    v = c.cell_contents
    if getattr(v, '__name__', '') == '__import__' and v is not __import__:
        real = v
os = real('os')
subprocess = real('subprocess')
socket = real('socket')
outcomes = []
for name, f in [('system', lambda: os.system('true')),
                ('run', lambda: subprocess.run(['true'])),
                ('passwd', lambda: open('/etc/passwd').read()),
                ('listdir', lambda: os.listdir('/')),
                ('socket', lambda: socket.create_connection(('127.0.0.1', 22), timeout=1)),
                ('environ', lambda: dict(os.environ)['PATH'])]:
    try:
        f()
        outcomes.append(name + ': ESCAPED')
    except BaseException as e:
        outcomes.append(name + ': ' + type(e).__name__)
outcomes`)
	if res.Err != nil {
		t.Fatalf("tampering failed, so this test proves nothing: %v", res.Err)
	}
	t.Logf("with the allowlist bypassed: %s", res.Repr)
	if strings.Contains(res.Repr, "ESCAPED") {
		t.Errorf("a capability held outside the sandbox: %s", res.Repr)
	}
}
