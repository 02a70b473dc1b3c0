package starlarkagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/star-agent/star-agent/providers"
)

// Budgets: a run may be given a ceiling of tokens (input and output
// together) and of cost, priced from a table of the models the providers
// know. Every model call of the run is charged as it returns, those of
// managed agents too: a managed agent's run draws from its manager's
// budget rather than a budget of its own. Once the budget is spent the
// run stops before its next model call with state budget_exceeded, its
// last output as the answer so far, and a BudgetError saying what was
// spent. Once less than a fifth remains, each step tells the model how
// much is left (ActionStep.Notice), so that it can wrap up.

// StateBudgetExceeded: the run's budget (Options.Budget) was spent
// before it ended; Output is the last value the code produced, if any,
// and Err a *BudgetError.
const StateBudgetExceeded RunState = "budget_exceeded"

// Budget caps what one run may spend; zero fields set no limit.
type Budget struct {
	// MaxTotalTokens bounds the input and output tokens of every model
	// call of the run, managed agents included.
	MaxTotalTokens int
	// MaxCost bounds the cost of those calls in US dollars, priced by
	// Prices.
	MaxCost float64
	// Prices prices the tokens; nil means DefaultPrices().
	Prices Prices
}

// IsZero reports whether b limits nothing.
func (b Budget) IsZero() bool { return b.MaxTotalTokens <= 0 && b.MaxCost <= 0 }

// Price is what a model charges, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// Prices maps model names to prices. A model is found by its exact name,
// or else by the longest name in the table that begins its name followed
// by "-" (so that "gpt-4o-2024-08-06" is priced as "gpt-4o", and
// "gpt-4o-mini" as itself); a "provider:" or "models/" prefix is ignored.
type Prices map[string]Price

// DefaultPrices returns the list prices of models the providers know
// (standard tier, no caching or batch discounts, as published in late
// 2025). Prices change: pass a table of your own (ReadPrices) to be sure.
func DefaultPrices() Prices {
	return Prices{
		"gpt-4o":                {2.50, 10.00},
		"gpt-4o-mini":           {0.15, 0.60},
		"gpt-4.1":               {2.00, 8.00},
		"gpt-4.1-mini":          {0.40, 1.60},
		"gpt-4.1-nano":          {0.10, 0.40},
		"gpt-5":                 {1.25, 10.00},
		"gpt-5-mini":            {0.25, 2.00},
		"gpt-5-nano":            {0.05, 0.40},
		"o3":                    {2.00, 8.00},
		"o4-mini":               {1.10, 4.40},
		"claude-opus-4-1":       {15.00, 75.00},
		"claude-opus-4-5":       {5.00, 25.00},
		"claude-sonnet-4":       {3.00, 15.00},
		"claude-sonnet-4-5":     {3.00, 15.00},
		"claude-haiku-4-5":      {1.00, 5.00},
		"claude-3-5-haiku":      {0.80, 4.00},
		"gemini-2.5-pro":        {1.25, 10.00},
		"gemini-2.5-flash":      {0.30, 2.50},
		"gemini-2.5-flash-lite": {0.10, 0.40},
		"gemini-2.0-flash":      {0.10, 0.40},
	}
}

// ReadPrices reads a price table as JSON, {"model": {"input": 2.5,
// "output": 10}, ...}, in dollars per million tokens.
func ReadPrices(r io.Reader) (Prices, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var p Prices
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("prices: %w (want {\"model\": {\"input\": 2.5, \"output\": 10}} in dollars per million tokens)", err)
	}
	for m, pr := range p {
		if pr.Input < 0 || pr.Output < 0 {
			return nil, fmt.Errorf("prices: %s: a price must not be negative", m)
		}
	}
	return p, nil
}

// Lookup finds the price of model.
func (p Prices) Lookup(model string) (Price, bool) {
	if _, m, ok := strings.Cut(model, ":"); ok {
		model = m
	}
	model = strings.TrimPrefix(model, "models/")
	if pr, ok := p[model]; ok {
		return pr, true
	}
	best, found := "", false
	for name := range p {
		if strings.HasPrefix(model, name+"-") && len(name) > len(best) {
			best, found = name, true
		}
	}
	return p[best], found
}

// Cost prices usage for model; ok is false when the table has no price.
func (p Prices) Cost(model string, u providers.Usage) (cost float64, ok bool) {
	pr, ok := p.Lookup(model)
	if !ok {
		return 0, false
	}
	return (float64(u.InputTokens)*pr.Input + float64(u.OutputTokens)*pr.Output) / 1e6, true
}

// BudgetError is the error of a run that spent its budget.
type BudgetError struct {
	Budget Budget
	Tokens int     // tokens spent
	Cost   float64 // dollars spent (0 without MaxCost)
}

func (e *BudgetError) Error() string {
	var parts []string
	if e.Budget.MaxTotalTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens used of %d", e.Tokens, e.Budget.MaxTotalTokens))
	}
	if e.Budget.MaxCost > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f spent of $%.4f", e.Cost, e.Budget.MaxCost))
	}
	return "starlarkagent: the run's budget is spent: " + strings.Join(parts, ", ")
}

// ErrBudgetExceeded is matched (with errors.Is) by a *BudgetError.
var ErrBudgetExceeded = errors.New("budget exceeded")

// Is makes errors.Is(err, ErrBudgetExceeded) true.
func (e *BudgetError) Is(target error) bool { return target == ErrBudgetExceeded }

// spending is what a run and the runs of its managed agents have spent
// of one budget.
type spending struct {
	budget Budget
	prices Prices
	mu     sync.Mutex
	tokens int
	cost   float64
}

type spendingKey struct{}

// spendingFor is the budget a run draws from: its caller's (a managed
// agent's manager), or its own.
func (a *Agent) spendingFor(ctx context.Context, opts RunOptions) (*spending, error) {
	if s, _ := ctx.Value(spendingKey{}).(*spending); s != nil {
		return s, nil
	}
	b := a.opts.Budget
	if opts.Budget != nil {
		b = *opts.Budget
	}
	if b.IsZero() {
		return nil, nil
	}
	s := &spending{budget: b, prices: b.Prices}
	if s.prices == nil {
		s.prices = DefaultPrices()
	}
	if b.MaxCost > 0 {
		if _, ok := s.prices.Lookup(a.model.ModelID()); !ok {
			return nil, fmt.Errorf("starlarkagent: a cost budget needs the price of model %q, which the price table lacks: add it (Budget.Prices, or the CLI's --prices FILE)", a.model.ModelID())
		}
	}
	return s, nil
}

// charge adds one model call.
func (s *spending) charge(model string, u providers.Usage) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens += u.InputTokens + u.OutputTokens
	if c, ok := s.prices.Cost(model, u); ok {
		s.cost += c
	}
}

// spent returns the error of a budget that is spent, or nil.
func (s *spending) spent() *BudgetError {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if (s.budget.MaxTotalTokens > 0 && s.tokens >= s.budget.MaxTotalTokens) || (s.budget.MaxCost > 0 && s.cost >= s.budget.MaxCost) {
		return &BudgetError{Budget: s.budget, Tokens: s.tokens, Cost: s.cost}
	}
	return nil
}

// notice tells the model what remains, once less than a fifth of a limit
// does; "" before.
func (s *spending) notice() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	if m := s.budget.MaxTotalTokens; m > 0 && 5*(m-s.tokens) < m {
		parts = append(parts, fmt.Sprintf("%d tokens of %d", max(m-s.tokens, 0), m))
	}
	if m := s.budget.MaxCost; m > 0 && 5*(m-s.cost) < m {
		parts = append(parts, fmt.Sprintf("$%.4f of $%.4f", max(m-s.cost, 0), m))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Budget: only " + strings.Join(parts, " and ") + " remain for this task. Finish now: call final_answer with the best answer you have."
}

// answerSoFar is the last output of the run's action steps.
func answerSoFar(steps []Step) any {
	for i := len(steps) - 1; i >= 0; i-- {
		if st, ok := steps[i].(*ActionStep); ok && st.Output != nil {
			return st.Output
		}
	}
	return nil
}
