package starlarkexec

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner/runnertest"
	"github.com/star-agent/star-agent/tool"
)

// BenchmarkDeadline reports, per attack that tries to outlive its
// deadline, how long after the deadline Execute returned (overshoot-ms:
// median, worst) and how long the next Execute of 1 + 1 took from then
// (usable-ms, worst): the time until the executor serves again.
func BenchmarkDeadline(b *testing.B) {
	const timeout = 100 * time.Millisecond
	chain := "x = " + strings.Repeat("1+", 70_000) + "1"
	cases := []struct{ name, code string }{
		{"tool-ignores-ctx", "stuck()"},
		{"sleeping-repr-final", "import time\nclass C:\n    def __repr__(self):\n        time.sleep(60)\n        return 'C'\nfinal_answer(C())"},
		{"looping-repr-last", "class C:\n    def __repr__(self):\n        while True:\n            pass\nC()"},
		{"keyerror-repr", "import time\nclass C:\n    def __repr__(self):\n        time.sleep(60)\n        return 'C'\n{}[C()]"},
		{"plus-chain-70k", chain},
		{"ternary-chain-100k", "x = " + strings.Repeat("1 if 1 else ", 100_000) + "1"},
		{"pow-huge-modulus", "pow(3, 2**60000+1, 2**60000+3)"},
		{"deep-final-300k", "def f():\n    x = []\n    for i in range(300000):\n        x = [x]\n    return x\nfinal_answer(f())"},
		// In a function: a 2,000,000-element global makes the memory walk
		// at the start of every later execution take about the timeout.
		{"sort-huge", "def f():\n    x = list(range(2000000))\n    for i in range(100):\n        x = sorted(x, reverse=(i % 2 == 0))\nf()"},
		{"loop", "while True:\n    x = 1"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			release := make(chan struct{})
			defer close(release)
			stuck := runnertest.Func{S: tool.Spec{Name: "stuck"}, F: func(context.Context, map[string]any) (any, error) {
				<-release
				return nil, nil
			}}
			e := newTestExecutor(b, Options{Limits: executors.Limits{Timeout: timeout, MaxOperations: 1 << 62}})
			if err := e.SetTools(context.Background(), []tool.Tool{stuck}); err != nil {
				b.Fatal(err)
			}
			var over, usable []time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, _ := e.Execute(context.Background(), c.code)
				returned := time.Now()
				if res.Err == nil {
					b.Fatalf("the attack ended without an error: %.80q", res.Repr)
				}
				over = append(over, max(0, returned.Sub(start)-timeout))
				next, _ := e.Execute(context.Background(), "1 + 1")
				if next.Repr != "2" {
					b.Fatalf("1 + 1 after the attack: %+v", next.Err)
				}
				usable = append(usable, time.Since(returned))
			}
			b.ReportMetric(ms(medianDuration(over)), "overshoot-ms")
			b.ReportMetric(ms(slices.Max(over)), "worst-overshoot-ms")
			b.ReportMetric(ms(slices.Max(usable)), "worst-usable-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func medianDuration(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
