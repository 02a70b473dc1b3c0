package starlarkexec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

// A memory bomb is measured in a child process: the test binary re-executed
// with -test.run=^TestBombChild$ and the bomb in bombEnv. The child makes a
// fresh executor, warms it up, takes its RSS as the baseline and reports the
// growth of its peak RSS (VmHWM) while the bomb ran. In the test process
// itself the figure would be blurred by the heap that earlier tests left
// mapped (pages a bomb reuses without raising the RSS) and by their garbage.

// bomb is one attempt to hold more memory than the budget allows.
type bomb struct {
	name string
	code string
	// want lists the acceptable outcomes: Python exception types, or ""
	// for success (a bomb the engine may run to completion, within the
	// budget, such as a final answer it caps).
	want []string
	// budget is the execution's memory limit; 0 means bombBudget.
	budget int64
}

// bombBudget keeps most bombs fast; a few run at the default budget, where
// the runtime's fixed costs weigh less and the figure is the one users see.
const bombBudget = 64 << 20

var bombs = []bomb{
	// itertools: each yielded tuple is a new allocation (header and slots)
	// besides the list's slot.
	{name: "product", code: "import itertools\nx = list(itertools.product(range(100), repeat=10))", want: []string{"MemoryError"}},
	{name: "product at default budget", code: "import itertools\nx = list(itertools.product(range(100), repeat=10))", want: []string{"MemoryError"}, budget: executors.DefaultMaxMemory},
	{name: "permutations", code: "import itertools\nx = list(itertools.permutations(range(100), 10))", want: []string{"MemoryError"}},
	{name: "combinations", code: "import itertools\nx = list(itertools.combinations(range(100), 10))", want: []string{"MemoryError"}},
	{name: "combinations_with_replacement", code: "import itertools\nx = list(itertools.combinations_with_replacement(range(100), 10))", want: []string{"MemoryError"}},
	{name: "repeat", code: "import itertools\nx = list(itertools.repeat('x' * 1000, 10 ** 10))", want: []string{"MemoryError"}},
	{name: "repeat at default budget", code: "import itertools\nx = list(itertools.repeat('x' * 1000, 10 ** 10))", want: []string{"MemoryError"}, budget: executors.DefaultMaxMemory},
	{name: "accumulate", code: "import itertools\nx = list(itertools.accumulate(range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "zip_longest", code: "import itertools\nx = list(itertools.zip_longest(range(10 ** 9), range(10)))", want: []string{"MemoryError"}},
	{name: "pairwise", code: "import itertools\nx = list(itertools.pairwise(range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "cycle islice", code: "import itertools\nx = list(itertools.islice(itertools.cycle([(1, 2)]), 10 ** 9))", want: []string{"MemoryError"}},
	{name: "chain extend", code: "import itertools\nx = []\nx.extend(itertools.product(range(100), repeat=8))", want: []string{"MemoryError"}},
	// Constructors and builtins that build a container element by element.
	{name: "zip", code: "x = list(zip(range(10 ** 9), range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "enumerate", code: "x = list(enumerate(range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "tuple of zip", code: "x = tuple(zip(range(10 ** 9), range(10 ** 9), range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "sorted zip", code: "x = sorted(zip(range(10 ** 9), range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "map str", code: "x = list(map(str, range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "map lambda tuple", code: "x = list(map(lambda i: (i, i), range(10 ** 9)))", want: []string{"MemoryError", "StepLimitError"}},
	{name: "filter", code: "x = list(filter(None, zip(range(10 ** 9))))", want: []string{"MemoryError"}},
	{name: "set", code: "x = set(range(10 ** 9))", want: []string{"MemoryError"}},
	{name: "frozenset", code: "x = frozenset(range(10 ** 9))", want: []string{"MemoryError"}},
	{name: "set within its slots' charge", code: "x = set(range(1_300_000))", want: []string{"MemoryError"}},
	{name: "dict.fromkeys within its slots' charge", code: "x = dict.fromkeys(range(1_300_000))", want: []string{"MemoryError"}},
	{name: "dict copies", code: "d = dict.fromkeys(range(300_000))\nx = [d.copy() for _ in range(100)]", want: []string{"MemoryError", "StepLimitError"}},
	{name: "set comprehension", code: "x = {(i,) for i in range(10 ** 9)}", want: []string{"MemoryError", "StepLimitError"}},
	{name: "dict zip", code: "x = dict(zip(range(10 ** 9), range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "dict.fromkeys", code: "x = dict.fromkeys(range(10 ** 9))", want: []string{"MemoryError"}},
	{name: "dict update", code: "x = {}\nx.update(zip(range(10 ** 9), range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "reversed", code: "x = list(reversed(range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "str.split", code: "s = 'a ' * (16 << 20)\nx = s.split()", want: []string{"MemoryError"}},
	{name: "str.split at default budget", code: "s = 'a ' * (64 << 20)\nx = s.split()", want: []string{"MemoryError"}, budget: executors.DefaultMaxMemory},
	{name: "list of str", code: "s = 'ab' * (8 << 20)\nx = list(s)", want: []string{"MemoryError"}},
	{name: "comprehension of tuples", code: "x = [(i, i) for i in range(10 ** 9)]", want: []string{"MemoryError", "StepLimitError"}},
	{name: "comprehension of lists", code: "x = [[i] for i in range(10 ** 9)]", want: []string{"MemoryError", "StepLimitError"}},
	{name: "dict comprehension", code: "x = {i: (i,) for i in range(10 ** 9)}", want: []string{"MemoryError", "StepLimitError"}},
	{name: "spread of an iterator", code: "import itertools\nx = [*itertools.product(range(100), repeat=10)]", want: []string{"MemoryError"}},
	{name: "tuple spread", code: "x = (*zip(range(10 ** 9)),)", want: []string{"MemoryError"}},
	{name: "set spread", code: "x = {*zip(range(10 ** 9))}", want: []string{"MemoryError"}},
	{name: "starred assignment", code: "import itertools\na, *b = itertools.product(range(100), repeat=10)", want: []string{"MemoryError"}},
	{name: "comprehension over product", code: "import itertools\nx = [t for t in itertools.product(range(100), repeat=10)]", want: []string{"MemoryError", "StepLimitError"}},
	{name: "list of dict items", code: "d = dict.fromkeys(range(3 * 10 ** 5))\nx = [list(d.items()) for _ in range(100)]", want: []string{"MemoryError", "StepLimitError"}},
	{name: "sorted dict items", code: "d = dict.fromkeys(range(3 * 10 ** 5))\nx = [sorted(d.items()) for _ in range(100)]", want: []string{"MemoryError", "StepLimitError"}},
	{name: "deepcopy of shared tuples", code: "import copy\nx = tuple([(i,) * 10 for i in range(10 ** 5)])\ny = copy.deepcopy([x] * 50)", want: []string{"MemoryError"}},
	{name: "json.loads of many lists", code: "import json\nx = json.loads('[' + '[],' * (5 * 10 ** 6) + '[]]')", want: []string{"MemoryError"}},
	{name: "re.findall of characters", code: "import re\nx = re.findall('.', 'a' * (16 << 20))", want: []string{"MemoryError"}},
	{name: "sorted with tuple keys", code: "x = list(range(10 ** 6))\ny = sorted(x, key=lambda v: (v, v, v, v))", want: []string{"MemoryError", ""}},
	{name: "OrderedDict of zip", code: "import collections\nx = collections.OrderedDict(zip(range(10 ** 9), range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "tee", code: "import itertools\na, b = itertools.tee(zip(range(10 ** 9)))\nx = list(a)", want: []string{"MemoryError"}},
	{name: "str.join of map", code: "x = ','.join(map(str, range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "repr of a long list", code: "x = [(i, i) for i in range(10 ** 6)]\ny = [str(x) for _ in range(100)]", want: []string{"MemoryError", "StepLimitError"}},
	// Few interpreter steps, each a builtin that builds a large value the
	// engine cannot see: only grants can trigger a measurement.
	{name: "repr of a long list at default budget", code: "x = [(i, i) for i in range(10 ** 6)]\ny = [str(x) for _ in range(100)]", want: []string{"MemoryError", "StepLimitError"}, budget: executors.DefaultMaxMemory},
	{name: "deep tuple chain", code: "t = ()\nfor i in range(3 * 10 ** 6):\n    t = (t,)\nx = list(iter([t, t]))", want: []string{"MemoryError", "StepLimitError"}},
	// collections, heapq, random, functools.
	{name: "Counter", code: "import collections\nx = collections.Counter(range(10 ** 9))", want: []string{"MemoryError"}},
	{name: "deque", code: "import collections\nx = collections.deque(zip(range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "defaultdict", code: "import collections\nx = collections.defaultdict(list)\nfor i in range(10 ** 9):\n    x[i].append(i)", want: []string{"MemoryError", "StepLimitError"}},
	{name: "heapq.merge", code: "import heapq\nx = list(heapq.merge(zip(range(10 ** 9)), zip(range(10 ** 9))))", want: []string{"MemoryError"}},
	{name: "heapq.nsmallest", code: "import heapq\nx = heapq.nsmallest(10 ** 9, zip(range(10 ** 9)))", want: []string{"MemoryError"}},
	{name: "random.sample", code: "import random\nx = random.sample(range(10 ** 10), 10 ** 9)", want: []string{"MemoryError"}},
	{name: "random.choices", code: "import random\nx = random.choices(range(10), k=10 ** 9)", want: []string{"MemoryError"}},
	{name: "lru_cache", code: "import functools\n@functools.lru_cache(maxsize=None)\ndef f(i):\n    return (i, i)\nfor i in range(10 ** 9):\n    f(i)", want: []string{"MemoryError", "StepLimitError"}},
	{name: "suspended generators", code: "def g():\n    yield 1\nx = []\nfor i in range(10 ** 9):\n    it = g()\n    next(it)\n    x.append(it)", want: []string{"MemoryError", "StepLimitError"}},
	// The growth classes of the escape suite (TestEscapes), measured here
	// against the twice-the-budget bound.
	{name: "string doubling", code: "s = 'ab'\nwhile True:\n    s = s + s", want: []string{"MemoryError"}},
	{name: "list doubling", code: "x = [1]\nfor i in range(64):\n    x = x + x", want: []string{"MemoryError"}},
	{name: "in-place list doubling", code: "x = [1]\nwhile True:\n    x += x", want: []string{"MemoryError"}},
	{name: "comprehension growth", code: "x = [str(i) * 100 for i in range(10 ** 8)]", want: []string{"MemoryError", "StepLimitError"}},
	{name: "comprehension growth at default budget", code: "x = [str(i) * 100 for i in range(10 ** 8)]", want: []string{"MemoryError", "StepLimitError"}, budget: executors.DefaultMaxMemory},
	{name: "append growth", code: "x = []\nwhile True:\n    x.append('y' * 1000)", want: []string{"MemoryError"}},
	{name: "dict growth", code: "d = {}\ni = 0\nwhile True:\n    d[i] = 'v' * 100\n    i += 1", want: []string{"MemoryError", "StepLimitError"}},
	{name: "join amplification", code: "sep = 'x' * (1 << 20)\ny = sep.join([''] * 100000)", want: []string{"MemoryError"}},
	{name: "replace amplification", code: "s = 'a' * 100000\ny = s.replace('a', 'b' * 100000)", want: []string{"MemoryError"}},
	// Values built by other parts of the engine (issue 12, items 3 and 7).
	{name: "final answer of a long list", code: "final_answer([0] * 15_000_000)", want: []string{"", "MemoryError", "ValueError"}, budget: executors.DefaultMaxMemory},
	{name: "final answer of a wide nest", code: "final_answer([[[0] * 1000] * 1000] * 60)", want: []string{"", "MemoryError", "ValueError"}, budget: executors.DefaultMaxMemory},
	{name: "bytes.fromhex", code: "x = bytes.fromhex('00' * 10 ** 8)", want: []string{"MemoryError"}, budget: executors.DefaultMaxMemory},
	{name: "format precision", code: "x = format(1e300, '.265000000f')", want: []string{"", "MemoryError", "ValueError"}, budget: executors.DefaultMaxMemory},
	{name: "percent precision", code: "x = '%.120000000f' % 1e300", want: []string{"", "MemoryError"}, budget: executors.DefaultMaxMemory},
	{name: "f-string precision", code: "x = f'{-1.5:>130000000.120000000e}'", want: []string{"", "MemoryError"}, budget: executors.DefaultMaxMemory},
	{name: "join of an endless iterator", code: "import itertools\nx = ''.join(itertools.repeat(''))", want: []string{"MemoryError"}},
}

// Work done on the code's behalf by size: builtins that build their
// output from a few huge values, many references to one 2 MiB string,
// must charge by the bytes they write, not every so many values (a JSON
// encoding of 300 references to one 20 MB string reached 2.9 GB under a
// 256 MiB budget).
const shared = "s = 'x' * (2 << 20)\nrefs = [s] * 300\n"

var sharedBombs = []bomb{
	{name: "shared json.dumps", code: shared + "import json\nx = json.dumps(refs)", want: []string{"MemoryError"}},
	{name: "shared json.dumps at default budget", code: "s = 'x' * (8 << 20)\nrefs = [s] * 300\nimport json\nx = json.dumps(refs)", want: []string{"MemoryError"}, budget: executors.DefaultMaxMemory},
	{name: "shared json.dumps indented dict", code: shared + "import json\nx = json.dumps({str(i): s for i in range(300)}, indent=2)", want: []string{"MemoryError"}},
	{name: "shared repr", code: shared + "x = repr(refs)", want: []string{"MemoryError"}},
	{name: "shared str of a dict", code: shared + "x = str({i: s for i in range(300)})", want: []string{"MemoryError"}},
	// print keeps only what the output keeps of a line: it succeeds.
	{name: "shared print", code: shared + "print(refs)", want: []string{""}},
	{name: "shared print at default budget", code: "s = 'x' * (8 << 20)\nrefs = [s] * 100\nprint(refs, {1: refs}, sep=s)", want: []string{""}, budget: executors.DefaultMaxMemory},
	{name: "shared f-string", code: shared + "x = f'{refs}'", want: []string{"MemoryError"}},
	{name: "shared percent", code: shared + "x = '%s' * 300 % tuple(refs)", want: []string{"MemoryError"}},
	{name: "shared percent repr", code: shared + "x = '%r' % (refs,)", want: []string{"MemoryError"}},
	{name: "shared format", code: shared + "x = '{0}' * 300\ny = x.format(s)", want: []string{"MemoryError"}},
	{name: "shared format_map", code: shared + "x = ('{a}' * 300).format_map({'a': s})", want: []string{"MemoryError"}},
	{name: "shared join", code: shared + "x = ','.join(refs)", want: []string{"MemoryError"}},
	{name: "shared bytes join", code: "b = b'x' * (2 << 20)\nx = b','.join([b] * 300)", want: []string{"MemoryError"}},
	{name: "shared itertools join", code: shared + "import itertools\nx = ''.join(itertools.repeat(s, 300))", want: []string{"MemoryError"}},
	{name: "shared accumulate", code: shared + "import itertools\nx = list(itertools.accumulate(refs))", want: []string{"MemoryError"}},
	{name: "shared reduce", code: shared + "import functools, operator\nx = functools.reduce(operator.add, refs)", want: []string{"MemoryError"}},
	{name: "shared map str", code: shared + "x = list(map(str, [refs[:10]] * 100))", want: []string{"MemoryError"}},
	{name: "shared string multiplication in a list", code: shared + "x = [s * 2 for _ in range(300)]", want: []string{"MemoryError"}},
	{name: "shared list repeat of strings", code: "x = [['ab' * (1 << 20)] * 300]\ny = str(x)", want: []string{"MemoryError"}},
	{name: "shared translate", code: shared + "x = ('a' * 300).translate({97: s})", want: []string{"MemoryError"}},
	{name: "shared re.sub", code: shared + "import re\nx = re.sub('a', s, 'a' * 300)", want: []string{"MemoryError"}},
	{name: "shared expandtabs", code: "x = ('\\t' * 10000).expandtabs(100000)", want: []string{"MemoryError"}},
	{name: "shared textwrap.indent", code: shared + "import textwrap\nx = textwrap.indent('a\\n' * 300, s)", want: []string{"MemoryError"}},
	{name: "shared Template", code: shared + "import string\nx = string.Template('$a' * 300).substitute(a=s)", want: []string{"MemoryError"}},
	{name: "shared bytes.hex", code: "b = b'x' * (40 << 20)\nx = [b.hex() for _ in range(5)]", want: []string{"MemoryError"}},
	{name: "shared Counter repr", code: shared + "import collections\nx = repr(collections.Counter({str(i): 1 for i in range(300)}) + collections.Counter({s: 1}))\ny = repr(collections.deque(refs))", want: []string{"MemoryError"}},
	{name: "shared namedtuple repr", code: shared + "import collections\nP = collections.namedtuple('P', 'a b')\nx = repr([P(s, s)] * 150)", want: []string{"MemoryError"}},
	{name: "shared exception message", code: shared + "try:\n    raise ValueError(*refs)\nexcept ValueError as e:\n    x = str(e)", want: []string{"MemoryError"}},
	{name: "shared sorted keys", code: shared + "x = sorted(refs, key=lambda v: v + v)", want: []string{"MemoryError", ""}},
	{name: "shared str.center", code: "x = 'a'.center(10 ** 9)", want: []string{"MemoryError"}},
}

// Tool results the host holds for the code: parallel() gathers every
// result of a batch before the code sees one (1,000 results of 1 MiB
// took 5.1 GB), and a loop of single calls keeps what it is given.
var hostBombs = []bomb{
	{name: "host parallel results", code: "x = parallel(blob, [1 << 20] * 1000)", want: []string{"MemoryError"}},
	{name: "host parallel results at default budget", code: "x = parallel(blob, [1 << 20] * 1000)", want: []string{"MemoryError"}, budget: executors.DefaultMaxMemory},
	{name: "host parallel batches", code: "x = [parallel(blob, [1 << 20] * 20) for _ in range(100)]", want: []string{"MemoryError"}},
	{name: "host tool results kept", code: "x = [blob(1 << 20) for _ in range(1000)]", want: []string{"MemoryError"}},
}

func init() { bombs = append(append(bombs, sharedBombs...), hostBombs...) }

// bombEnv carries a bomb to the child process, as JSON.
const bombEnv = "STAR_AGENT_BOMB"

// bombSpec is what the child runs.
type bombSpec struct {
	Code      string
	MaxMemory int64
	Timeout   time.Duration
	MaxSteps  uint64
	// Collect sets the Go runtime's soft memory limit of the child at
	// 1.75 times the budget above what it holds at rest (see
	// TestMemoryBombsInChild).
	Collect bool
}

// bombResult is what the child reports, on one line after bombPrefix.
type bombResult struct {
	ErrType  string // "" when the code succeeded
	Message  string
	Baseline int64 // RSS after warm-up, bytes
	Growth   int64 // peak RSS growth while the bomb ran, bytes
	Elapsed  time.Duration
}

const bombPrefix = "BOMB-RESULT "

// TestBombChild is the child's side of the harness; it does nothing in a
// normal run.
func TestBombChild(t *testing.T) {
	raw := os.Getenv(bombEnv)
	if raw == "" {
		return // not the child of a memory-bomb test
	}
	var spec bombSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		t.Fatal(err)
	}
	e, err := New(Options{
		Limits:            executors.Limits{MaxMemory: spec.MaxMemory, Timeout: spec.Timeout, MaxOperations: spec.MaxSteps},
		AuthorizedImports: []string{"heapq", "bisect"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	// blob(n) is a tool that returns a fresh string of n bytes: what the
	// host holds for the code.
	type blobArgs struct {
		N int `json:"n"`
	}
	blob := tool.MustNew("blob", "Returns n bytes.", func(_ context.Context, a blobArgs) (string, error) {
		return strings.Repeat("b", a.N), nil
	})
	if err := e.SetTools(ctx, []tool.Tool{blob}); err != nil {
		t.Fatal(err)
	}
	// Warm up: the first execution builds the front end's tables and
	// imports; what they take is not the bomb's.
	for _, code := range []string{"import itertools, collections, heapq, random, functools\nx = [str(i) for i in range(1000)]", "x = None\n1 + 1"} {
		if res, err := e.Execute(ctx, code); err != nil || res.Err != nil {
			t.Fatalf("warm-up: %v %+v", err, res.Err)
		}
	}
	runtime.GC()
	debug.FreeOSMemory()
	if spec.Collect {
		debug.SetMemoryLimit(goMemory() + spec.MaxMemory*7/4)
	}
	resetPeakRSS()
	base := procStatus("VmRSS")
	start := time.Now()
	res, err := e.Execute(ctx, spec.Code)
	if err != nil {
		t.Fatal(err)
	}
	out := bombResult{Baseline: base, Growth: procStatus("VmHWM") - base, Elapsed: time.Since(start)}
	if res.Err != nil {
		out.ErrType, out.Message = res.Err.Type, res.Err.Message
	}
	line, _ := json.Marshal(out)
	fmt.Printf("\n%s%s\n", bombPrefix, line)
}

// goMemory returns the memory the Go runtime holds from the OS, as its
// soft memory limit counts it.
func goMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// procStatus returns a size field of /proc/self/status (VmRSS, VmHWM) in
// bytes, or 0.
func procStatus(field string) int64 { return statusField("/proc/self/status", field) }

func statusField(path, field string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// runBomb runs code in a child process under a memory budget and returns
// what the child reported. A child whose RSS passes killAt is killed (a
// bomb the engine does not hold must not take the test machine down): the
// result then says so in ErrType "killed", with the growth seen.
func runBomb(t testing.TB, code string, budget int64, timeout time.Duration, collect bool) bombResult {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from /proc")
	}
	spec, _ := json.Marshal(bombSpec{Code: code, MaxMemory: budget, Timeout: timeout, MaxSteps: 200_000_000, Collect: collect})
	cmd := exec.Command(os.Args[0], "-test.run=^TestBombChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), bombEnv+"="+string(spec))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	// Four times the budget past a generous start-up size: far beyond
	// what the assertion allows, so killing never hides a pass.
	killAt := 4*budget + 256<<20
	var seen int64
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout + 30*time.Second)
	for {
		select {
		case err := <-done:
			for _, line := range strings.Split(stdout.String(), "\n") {
				if rest, ok := strings.CutPrefix(line, bombPrefix); ok {
					var res bombResult
					if err := json.Unmarshal([]byte(rest), &res); err != nil {
						t.Fatalf("child printed %q: %v", line, err)
					}
					return res
				}
			}
			t.Fatalf("child reported nothing (%v):\n%s\n%s", err, stdout.String(), stderr.String())
		case <-tick.C:
			if rss := statusField(status, "VmRSS"); rss > seen {
				seen = rss
			}
			if seen > killAt {
				cmd.Process.Kill()
				<-done
				return bombResult{ErrType: "killed", Message: fmt.Sprintf("RSS reached %d MiB", seen>>20), Growth: seen}
			}
		case <-deadline:
			cmd.Process.Kill()
			<-done
			t.Fatalf("child still running %v after its deadline", 30*time.Second)
		}
	}
}

// bombTimeout is each bomb's deadline, a safety only: a bomb that is held
// ends with MemoryError within moments, one that is not reaches four times
// its budget and is killed (killAt) or times out, and either fails. It is
// long, so that a loaded machine does not turn a held bomb into a timeout.
const bombTimeout = 60 * time.Second

// TestMemoryBombsInChild runs every bomb in a child process and checks
// that it fails as it should and that the child's peak RSS grew by no more
// than twice the budget.
//
// The bound is on what the engine lets code hold, so the child runs under
// a soft memory limit (as the child of package isolation does), at 1.75
// times the budget above what it holds at rest. Without it the peak also
// counts garbage: with GOGC at 100 the heap may grow to twice what was
// live at the last collection, and more while a collection's marking
// lags the allocations (its workers waiting for a CPU on a loaded
// machine). Several bombs held at their budget peaked at 1.8 times it,
// the collector's timing deciding the rest of the way to the bound; under
// the limit they peak lower. The limit only makes the collector run
// sooner: memory the engine fails to hold still grows the peak past the
// bound.
func TestMemoryBombsInChild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process per bomb")
	}
	for _, b := range bombs {
		t.Run(strings.ReplaceAll(b.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			budget := b.budget
			if budget == 0 {
				budget = bombBudget
			}
			timeout := bombTimeout
			if budget > bombBudget {
				// Walks of the larger values take longer on a loaded
				// machine.
				timeout *= 2
			}
			res := runBomb(t, b.code, budget, timeout, true)
			t.Logf("%s: %s after %v; peak RSS grew by %d MiB with a %d MiB budget", b.name, res.ErrType, res.Elapsed.Round(time.Millisecond), res.Growth>>20, budget>>20)
			ok := false
			for _, w := range b.want {
				ok = ok || res.ErrType == w
			}
			if !ok {
				t.Errorf("got %q: %s; want one of %q", res.ErrType, res.Message, b.want)
			}
			if res.Growth > 2*budget {
				t.Errorf("peak RSS grew by %d MiB, more than twice the %d MiB budget", res.Growth>>20, budget>>20)
			}
		})
	}
}

// BenchmarkBombPeakRSS reports the peak RSS growth of a child process
// running each bomb under the default budget (256 MiB), for the README's
// figures. It runs each bomb once per iteration, in a fresh process, and
// fails when a bomb does not end as TestMemoryBombsInChild wants, except
// that a bomb sized for a smaller budget (bombBudget) may also succeed
// under the default one; -benchtime 1x is enough.
func BenchmarkBombPeakRSS(b *testing.B) {
	for _, bm := range bombs {
		b.Run(strings.ReplaceAll(bm.name, " ", "_"), func(b *testing.B) {
			want := bm.want
			if bm.budget != executors.DefaultMaxMemory {
				want = append(slices.Clone(want), "")
			}
			benchBomb(b, bm.code, want)
		})
	}
}
