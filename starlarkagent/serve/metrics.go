package serve

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/starlarkagent"
)

// metrics are a server's Prometheus metrics, in a registry of its own so
// that several servers (in tests) do not collide (API.md lists them).
type metrics struct {
	reg *prometheus.Registry

	runs          *prometheus.CounterVec
	inFlight      *prometheus.GaugeVec
	rejected      *prometheus.CounterVec
	runDuration   *prometheus.HistogramVec
	steps         *prometheus.CounterVec
	stepDuration  *prometheus.HistogramVec
	modelDuration *prometheus.HistogramVec
	tokens        *prometheus.CounterVec
	execErrors    *prometheus.CounterVec
	imports       *prometheus.CounterVec
	toolCalls     *prometheus.CounterVec
	sandboxStarts *prometheus.CounterVec
	sandboxRe     *prometheus.CounterVec
	resumed       prometheus.Counter
	swept         prometheus.Counter
	requests      *prometheus.CounterVec
	approvals     *prometheus.CounterVec

	tenantRuns     *prometheus.CounterVec
	tenantTokens   *prometheus.CounterVec
	tenantRejected *prometheus.CounterVec
}

func newMetrics(extra ...prometheus.Collector) *metrics {
	const ns = "star_agent"
	latency := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}
	m := &metrics{
		reg: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "runs_total",
			Help: "Runs that ended, by final state."}, []string{"state"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "runs_in_flight",
			Help: "Runs queued or running now."}, []string{"state"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "runs_rejected_total",
			Help: "Runs refused: the queue was full (429) or the server was shutting down (503)."}, []string{"reason"}),
		runDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "run_duration_seconds",
			Help: "Time from the start of a run to its end, by final state.", Buckets: latency}, []string{"state"}),
		steps: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "steps_total",
			Help: "Steps that ended, by type (action, planning, final_answer)."}, []string{"type"}),
		stepDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "step_duration_seconds",
			Help: "Duration of a step (model call and execution), by type.", Buckets: latency}, []string{"type"}),
		modelDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "model_call_duration_seconds",
			Help: "Duration of a model call, by model.", Buckets: latency}, []string{"model"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "tokens_total",
			Help: "Tokens of model calls, by model and direction (input, output)."}, []string{"model", "direction"}),
		execErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "execution_errors_total",
			Help: "Failed steps, by kind (parse, execution, ...) and Python exception type."}, []string{"kind", "type"}),
		imports: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "imports_total",
			Help: "Modules imported by the code of steps."}, []string{"module"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "tool_calls_total",
			Help: "Tool calls made by the code, by tool and outcome (ok, error)."}, []string{"tool", "outcome"}),
		sandboxStarts: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "sandbox_starts_total",
			Help: "Sandboxes started by the runs' full-Python executors."}, []string{"executor"}),
		sandboxRe: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "sandbox_restarts_total",
			Help: "Sandboxes started again within a run after a crash or a lost state."}, []string{"executor"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "http_requests_total",
			Help: "HTTP requests, by route and status code."}, []string{"route", "code"}),
		tenantRuns: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "tenant_runs_total",
			Help: "Runs that ended, by tenant and final state."}, []string{"tenant", "state"}),
		tenantTokens: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "tenant_tokens_total",
			Help: "Tokens of the runs that ended, by tenant and direction (input, output)."}, []string{"tenant", "direction"}),
		tenantRejected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "tenant_rejected_total",
			Help: "Runs refused by a tenant's quota (429), by tenant and quota (runs_in_flight, tokens_per_day)."}, []string{"tenant", "reason"}),
		resumed: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "runs_resumed_total",
			Help: "Runs this server took over from another (or from its previous process) and resumed by replay."}),
		swept: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "sandboxes_swept_total",
			Help: "Sandboxes this server removed because the server that owned them is gone."}),
		approvals: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "approvals_total",
			Help: "Tool calls that needed approval, by outcome (requested, approved, denied, timed_out, abandoned)."}, []string{"outcome"}),
	}
	m.reg.MustRegister(m.runs, m.inFlight, m.rejected, m.runDuration, m.steps, m.stepDuration, m.modelDuration,
		m.tokens, m.execErrors, m.imports, m.toolCalls, m.sandboxStarts, m.sandboxRe, m.requests, m.approvals, m.tenantRuns, m.tenantTokens, m.tenantRejected, m.resumed, m.swept,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(extra...)
	for _, s := range []State{StateQueued, StateRunning} {
		m.inFlight.WithLabelValues(string(s))
	}
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// step counts a step that ended.
func (m *metrics) step(model string, s starlarkagent.Step) {
	m.steps.WithLabelValues(string(s.Kind())).Inc()
	switch s := s.(type) {
	case *starlarkagent.ActionStep:
		m.stepDuration.WithLabelValues(string(s.Kind())).Observe(s.Timing.Duration().Seconds())
		if s.Error != nil {
			m.execErrors.WithLabelValues(string(s.Error.Kind), s.Error.Type).Inc()
		}
		for _, imp := range s.Imports {
			m.imports.WithLabelValues(imp).Inc()
		}
		for _, c := range s.ToolCalls {
			outcome := "ok"
			if c.Error != "" {
				outcome = "error"
			}
			m.toolCalls.WithLabelValues(c.Name, outcome).Inc()
		}
	case *starlarkagent.PlanningStep:
		m.stepDuration.WithLabelValues(string(s.Kind())).Observe(s.Timing.Duration().Seconds())
	case *starlarkagent.SummaryStep:
		m.stepDuration.WithLabelValues(string(s.Kind())).Observe(s.Timing.Duration().Seconds())
	}
	m.addTokens(model, stepUsage(s))
}

// stepUsage is the tokens a step spent (zero for steps without a model
// call).
func stepUsage(s starlarkagent.Step) providers.Usage {
	switch s := s.(type) {
	case *starlarkagent.ActionStep:
		return s.Usage
	case *starlarkagent.PlanningStep:
		return s.Usage
	case *starlarkagent.SummaryStep:
		return s.Usage
	case *starlarkagent.FinalAnswerStep:
		return s.Usage
	}
	return providers.Usage{}
}

func (m *metrics) addTokens(model string, u providers.Usage) {
	if u.InputTokens > 0 {
		m.tokens.WithLabelValues(model, "input").Add(float64(u.InputTokens))
	}
	if u.OutputTokens > 0 {
		m.tokens.WithLabelValues(model, "output").Add(float64(u.OutputTokens))
	}
}

// timedModel measures the model calls of a run.
type timedModel struct {
	providers.Model
	hist prometheus.Observer
}

func (m *timedModel) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	start := time.Now()
	msg, err := m.Model.Generate(ctx, msgs, opts)
	m.hist.Observe(time.Since(start).Seconds())
	return msg, err
}

// timedStreamingModel is timedModel for a model that streams, which it
// must stay (the agent streams deltas only from a StreamingModel).
type timedStreamingModel struct {
	timedModel
	stream providers.StreamingModel
}

func (m *timedStreamingModel) GenerateStream(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) iter.Seq2[providers.Delta, error] {
	return func(yield func(providers.Delta, error) bool) {
		start := time.Now()
		defer func() { m.hist.Observe(time.Since(start).Seconds()) }()
		for d, err := range m.stream.GenerateStream(ctx, msgs, opts) {
			if !yield(d, err) {
				return
			}
		}
	}
}

// timed wraps model so that its calls are measured.
func (m *metrics) timed(model providers.Model) providers.Model {
	t := timedModel{Model: model, hist: m.modelDuration.WithLabelValues(model.ModelID())}
	if s, ok := model.(providers.StreamingModel); ok {
		return &timedStreamingModel{timedModel: t, stream: s}
	}
	return &t
}
