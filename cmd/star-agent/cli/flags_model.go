package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// modelFlags tune the model provider (sampling, limits, timeouts,
// reasoning); newModel (model.go) applies them. They become the
// provider's defaults: a value the agent passes for one call wins.
type modelFlags struct {
	temperature     optionalFloat
	maxTokens       int
	requestTimeout  time.Duration
	maxRetries      int
	reasoningEffort string
	extraBody       string
}

func (f *modelFlags) register(fl *pflag.FlagSet) {
	fl.Var(&f.temperature, "temperature", "sampling temperature, e.g. 0 for the most likely answer (default: the server's)")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, "most tokens the model may write per step, reasoning included (0: the server's default)")
	fl.DurationVar(&f.requestTimeout, "request-timeout", 0, "longest wait for one attempt of a model call, the whole answer included (0: 10m)")
	fl.IntVar(&f.maxRetries, "max-retries", 3, "retries of a model call after a rate limit, a server error or a timeout (0: none)")
	fl.StringVar(&f.reasoningEffort, "reasoning-effort", "", "how hard a reasoning model thinks, a `LEVEL`: none, minimal, low, medium, high or xhigh (default: the model's)")
	fl.StringVar(&f.extraBody, "extra-body", "", "a JSON `OBJECT` of fields merged into every model request, for a server's own parameters")
}

// check validates the flags; its errors are usage errors.
func (f *modelFlags) check() (map[string]any, error) {
	if t := f.temperature.p; t != nil && (*t < 0 || *t > 2) {
		return nil, usageError("--temperature must be between 0 and 2, not %g", *t)
	}
	if f.maxTokens < 0 {
		return nil, usageError("--max-tokens must not be negative")
	}
	if f.requestTimeout < 0 {
		return nil, usageError("--request-timeout must not be negative")
	}
	if f.maxRetries < 0 {
		return nil, usageError("--max-retries must not be negative")
	}
	switch f.reasoningEffort {
	case "", "none", "minimal", "low", "medium", "high", "xhigh":
	default:
		return nil, usageError("--reasoning-effort must be none, minimal, low, medium, high or xhigh, not %q", f.reasoningEffort)
	}
	if f.extraBody == "" {
		return nil, nil
	}
	var extra map[string]any
	if err := json.Unmarshal([]byte(f.extraBody), &extra); err != nil || extra == nil {
		return nil, usageError("--extra-body must be a JSON object, e.g. '{\"top_k\": 20}': %v", err)
	}
	return extra, nil
}

// retries converts --max-retries to the providers' MaxRetries, where 0
// means the default and a negative number none.
func (f *modelFlags) retries() int {
	if f.maxRetries == 0 {
		return -1
	}
	return f.maxRetries
}

// optionalFloat is a float flag that knows whether it was given.
type optionalFloat struct{ p *float64 }

func (o *optionalFloat) String() string {
	if o.p == nil {
		return ""
	}
	return strconv.FormatFloat(*o.p, 'g', -1, 64)
}

func (o *optionalFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: %q", s)
	}
	o.p = &v
	return nil
}

func (o *optionalFloat) Type() string { return "float" }
