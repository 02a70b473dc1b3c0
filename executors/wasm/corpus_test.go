package wasm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/internal/cpythontest"
)

// TestCorpusLikeCPython runs each testdata/corpus/*.py program (asyncio,
// which needs the runner's event loop without sockets) in a fresh sandbox
// and compares what it prints with what CPython prints, stored beside it
// in the .out file (see internal/cpythontest: -update regenerates).
func TestCorpusLikeCPython(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.py")
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	e := newExec(t, Options{})
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := cpythontest.Golden(t, strings.TrimSuffix(file, ".py")+".out", func(py string) ([]byte, error) {
				return cpythontest.Run(py, string(src))
			})
			// A fresh namespace for each program, in the same sandbox.
			exec1(t, e, "for _k in [k for k in globals() if not k.startswith('__')]:\n    del globals()[_k]")
			res := exec1(t, e, string(src))
			if res.Err != nil {
				t.Fatalf("%s: %s\n%s\noutput so far:\n%s", res.Err.Type, res.Err.Message, res.Err.Traceback, res.Stdout)
			}
			if res.Stdout != string(want) {
				t.Errorf("output differs (%s)\n--- got\n%s\n--- want (CPython)\n%s", cpythontest.FirstLineDiff(want, []byte(res.Stdout)), res.Stdout, want)
			}
		})
	}
}

// TestAsyncioSaysWhatIsMissing: network and process APIs fail with an
// OSError that says why; a loop that can never wake fails instead of
// waiting for the time limit; tracebacks name the sandbox's paths, not
// those of the machine that compiled the standard library.
func TestAsyncioSaysWhatIsMissing(t *testing.T) {
	e := newExec(t, Options{})
	for _, c := range []struct{ code, typ, msg string }{
		{"import asyncio\nasyncio.run(asyncio.open_connection('127.0.0.1', 80))", "OSError", "this sandbox has no network"},
		{"import asyncio\nasync def m():\n    await asyncio.start_server(lambda r, w: None, '127.0.0.1', 0)\nasyncio.run(m())", "OSError", "cannot open connections, servers"},
		{"import asyncio\nasyncio.run(asyncio.create_subprocess_exec('ls'))", "OSError", "subprocesses"},
		{"import asyncio\nasync def m():\n    await asyncio.get_running_loop().create_future()\nasyncio.run(m())", "RuntimeError", "nothing can wake it"},
	} {
		res := exec1(t, e, c.code)
		if res.Err == nil || res.Err.Type != c.typ || !strings.Contains(res.Err.Message, c.msg) {
			t.Errorf("%q: got %+v, want %s containing %q", c.code, res.Err, c.typ, c.msg)
		}
	}
	res := exec1(t, e, "import asyncio, json, traceback\nasync def m():\n    json.loads('{')\ntry:\n    asyncio.run(m())\nexcept ValueError:\n    print(traceback.format_exc())\nasyncio.run(m())")
	if res.Err == nil {
		t.Fatal("no error")
	}
	for name, tb := range map[string]string{"printed by the code": res.Stdout, "of the result": res.Err.Traceback} {
		for _, want := range []string{`File "<code>", line 3, in m`, `File "/usr/local/lib/python3.11/asyncio/runners.py"`, `File "/usr/local/lib/python3.11/json/decoder.py"`} {
			if !strings.Contains(tb, want) {
				t.Errorf("traceback %s lacks %s:\n%s", name, want, tb)
			}
		}
		if strings.Contains(tb, "cpython-build") || strings.Contains(tb, "/Lib/") {
			t.Errorf("traceback %s shows the build machine's paths:\n%s", name, tb)
		}
	}
}
