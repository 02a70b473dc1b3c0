// Package cli is the star-agent command line, whole: run, exec, serve, mcp
// and sandbox, their flags (one set of limit flags shared by run, exec,
// serve and mcp), model selection, recording, the printing of steps, logging and
// trace export, and one exit-error type. It is a package rather than part
// of package main so that programs and tests can build the same commands
// around their own tools (see cmd/star-agent/agenttest), as tailscale's
// cmd/tailscale/cli is.
package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/replay"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/tool"
)

// runFlags are the flags of star-agent run: those of AgentFlags, which
// holds them, and run's own.
type runFlags struct {
	model, modelType, modelID string
	apiBase, apiKey           string
	replayFile, recordFile    string
	imports                   []string
	maxSteps, planEvery       int
	discoverAbove             int
	modelOpts                 modelFlags
	runTimeout                time.Duration
	stream, json, verbose     bool
	logFormat, otel           string
	instructions              string
	markdown                  bool
	managed                   []string
	answerRegexp              string
	exec                      ExecutorFlags
	tools                     ToolFlags
	actionType                string
	structured                bool
	requireApproval           []string
	maxTotalTokens            int
	maxCost                   float64
	pricesFile                string
	maxContext                int
	auditLog                  string
	limits                    LimitFlags
	// run only
	images   []string
	imageDir string
	agentDir string
}

// Config adapts the run command to a program.
type Config struct {
	// Tools are given to the agent in addition to final_answer.
	Tools []tool.Tool
	// Configure, when set, may change the agent's options after the flags
	// have set them (add managed agents, checks, instructions...).
	Configure func(*starlarkagent.Options) error
	// Model, when set, replaces the model the flags choose; for tests.
	Model providers.Model
}

// ExitError carries the exit status a command failure should produce:
// 1 for a failed run, 2 for a usage error, 130 for an interrupted run.
type ExitError struct {
	Code int
	Err  error // nil when the failure was already reported
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

func usageError(format string, args ...any) error {
	return &ExitError{Code: 2, Err: fmt.Errorf(format, args...)}
}

// Main runs "star-agent run ARGS..." built with cfg, and returns the exit
// status. Errors are printed to stderr.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, cfg Config) int {
	cmd := NewRunCommand(cfg)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetArgs(args)
	cmd.SetIn(stdin)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError("%w\nRun '%s --help' for usage.", err, c.CommandPath())
	})
	err := cmd.Execute()
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(stderr, "star-agent:", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintln(stderr, "star-agent:", err)
	return 2
}

// NewRunCommand returns the run command.
func NewRunCommand(cfg Config) *cobra.Command {
	a := new(AgentFlags)
	f := &a.f
	cmd := &cobra.Command{
		Use:   "run [flags] [TASK]",
		Short: "Run an agent on a task",
		Long: `Run a code agent on TASK: the model writes each step as Python, which runs in
the local Starlark engine; the steps, their output and errors, and the final
answer are printed. Without TASK, tasks are read from standard input, one per
line, in one conversation.

The model is chosen with --model PROVIDER:NAME:
  openai:gpt-4o-mini          OpenAI, or any OpenAI-compatible server with --api-base
                              (key from --api-key or OPENAI_API_KEY)
  anthropic:claude-sonnet-4-5 Anthropic (key from ANTHROPIC_API_KEY)
  gemini:gemini-2.5-flash     Google Gemini (key from GEMINI_API_KEY or GOOGLE_API_KEY)
  ollama:qwen2.5-coder        a local Ollama server (OLLAMA_HOST, default localhost:11434)
  replay:FILE                 a session recorded with --record (same as --replay FILE)

Limits: each step's code is one execution, bounded by --exec-timeout (30s
of wall-clock time, preemptive), --max-operations, --max-memory (256MiB),
--max-output (printed characters kept and shown to the model, 50,000) and
--max-value (1MiB), the same flags with the same defaults as on exec and
serve. --run-timeout limits the whole run (no limit by default).

Exit status: 0 when the run ends with an answer (state success or max_steps),
1 when it fails, 2 for a usage error, 130 when interrupted.`,
		Example: `  star-agent run --model openai:gpt-4o-mini "What is the 20th Fibonacci number?"
  star-agent run --replay testdata/sessions/demo.jsonl "Which of the first 30 Fibonacci numbers are prime? Give them and their sum."
  star-agent run --model ollama:qwen2.5-coder --record session.jsonl --json "..."`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAgent(cmd, a, args, cfg)
		},
	}
	fl := cmd.Flags()
	a.Register(fl)
	fl.StringVar(&f.recordFile, "record", "", "record every model exchange to `FILE` as JSON lines")
	fl.DurationVar(&f.runTimeout, "run-timeout", 0, "stop the whole run after this long (0: no limit); --exec-timeout limits each code execution")
	fl.DurationVar(&f.runTimeout, "timeout", 0, "the old name of --run-timeout")
	fl.MarkHidden("timeout")
	fl.BoolVar(&f.stream, "stream", false, "print the model's output as it streams in")
	fl.BoolVar(&f.json, "json", false, "print the run's result as one JSON object instead of the steps")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every step and model call (and keep model inputs in --json)")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format on standard error: text or json")
	fl.StringVar(&f.otel, "otel", "", "export OpenTelemetry traces: stdout (written to standard error) or otlp (default from OTEL_TRACES_EXPORTER)")
	fl.StringArrayVar(&f.images, "image", nil, "send the image `FILE` (PNG, JPEG, GIF or WebP) with the task (repeatable; in interactive mode, with the first task)")
	fl.StringVar(&f.imageDir, "image-dir", filepath.Join(os.TempDir(), "star-agent-images"), "save the images of observations (from tools or code) in `DIR`, named by content hash")
	fl.StringVar(&f.agentDir, "agent", "", "run the agent saved in `DIR` (by Agent.Save): its options and prompts replace the agent flags; the model, tool and executor flags still apply")
	return cmd
}

// ParseBytes reads a size such as 64MiB, 1GB or 1048576 (the --max-memory
// and --max-value flags of run, exec and serve).
func ParseBytes(s string) (int64, error) { return parseBytes(s) }

func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("invalid size %q: want a positive number with an optional unit (KiB, MiB, GiB, KB, MB, GB)", s)
	}
	return n * mult, nil
}

// readImages reads the files of --image.
func readImages(names []string) ([]providers.Image, error) {
	var out []providers.Image
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, usageError("--image: %v", err)
		}
		if len(b) > starlarkagent.MaxImageBytes {
			return nil, usageError("--image %s: %d bytes, more than the %d a model accepts: scale it down", name, len(b), starlarkagent.MaxImageBytes)
		}
		mime := http.DetectContentType(b)
		switch mime {
		case "image/png", "image/jpeg", "image/gif", "image/webp":
		default:
			return nil, usageError("--image %s: the file holds %s, not a PNG, JPEG, GIF or WebP image", name, mime)
		}
		out = append(out, providers.Image{MIMEType: mime, Data: b})
	}
	return out, nil
}

func runAgent(cmd *cobra.Command, a *AgentFlags, args []string, cfg Config) error {
	f := a.f
	model := cfg.Model
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := a.Check(); err != nil {
		return err
	}
	logger, err := newLogger(stderr, f.logFormat, f.verbose)
	if err != nil {
		return err
	}
	// SIGTERM too: the deferred Close must run, so that no sandbox
	// process outlives the command.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if model == nil {
		if model, err = a.NewModel(); err != nil {
			return err
		}
	}
	if f.recordFile != "" {
		file, err := os.Create(f.recordFile)
		if err != nil {
			return usageError("--record: %v", err)
		}
		defer file.Close()
		model = replay.NewRecorder(model, file)
	}
	tracer, shutdown, err := newTracer(ctx, f.otel, stderr)
	if err != nil {
		return err
	}
	defer shutdown()

	limits, err := a.Limits(cmd.Flags(), stderr)
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("timeout") {
		fmt.Fprintln(stderr, "star-agent: warning: --timeout is deprecated: use --run-timeout, the limit of the whole run (--exec-timeout limits each code execution)")
	}
	images, err := readImages(f.images)
	if err != nil {
		return err
	}
	var stdin io.Reader
	if len(args) == 1 {
		// Tasks given as an argument leave standard input to user_input;
		// an interactive session reads its tasks from it.
		stdin = cmd.InOrStdin()
	}
	flagTools, closeTools, err := f.tools.Open(ctx, ToolEnv{Logger: logger, Stdin: stdin, Stdout: stderr})
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	defer closeTools()
	audit, closeAudit, err := a.OpenAuditLog()
	if err != nil {
		return err
	}
	defer closeAudit()
	acfg := AgentConfig{
		AuditLogger: audit,
		Model:       model,
		Tools:       append(slices.Clip(cfg.Tools), flagTools...),
		Limits:      limits,
		Logger:      logger,
		Tracer:      tracer,
		Configure:   cfg.Configure,
	}
	if len(f.requireApproval) > 0 {
		acfg.Approver = newTerminalApprover(stderr).Approve
	}
	var agent *starlarkagent.Agent
	if f.agentDir != "" {
		agent, err = a.LoadAgent(f.agentDir, acfg)
	} else {
		agent, err = a.NewAgent(ctx, acfg)
	}
	if err != nil {
		if _, ok := errors.AsType[*ExitError](err); !ok {
			err = &ExitError{Code: 2, Err: err} // from cfg.Configure
		}
		return err
	}
	defer agent.Close()

	if len(args) == 1 {
		res := runTask(ctx, agent, args[0], f, starlarkagent.RunOptions{Images: images}, stdout)
		return exitFor(ctx, res, f.json)
	}
	// Interactive: one task per line, in one conversation.
	in := bufio.NewScanner(cmd.InOrStdin())
	in.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var last *starlarkagent.RunResult
	for {
		fmt.Fprint(stderr, "task> ")
		if !in.Scan() {
			fmt.Fprintln(stderr)
			break
		}
		task := strings.TrimSpace(in.Text())
		if task == "" {
			continue
		}
		// A task resumes the conversation once an earlier one has run
		// (empty lines before it do not count).
		opts := starlarkagent.RunOptions{Resume: last != nil}
		if last == nil {
			opts.Images = images
		}
		last = runTask(ctx, agent, task, f, opts, stdout)
		if ctx.Err() != nil {
			break
		}
	}
	if last == nil {
		return usageError("no task given: pass TASK as an argument or write tasks on standard input")
	}
	return exitFor(ctx, last, f.json)
}

// runTask runs one task and prints its steps (or its JSON result).
func runTask(ctx context.Context, agent *starlarkagent.Agent, task string, f runFlags, opts starlarkagent.RunOptions, w io.Writer) *starlarkagent.RunResult {
	if f.runTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, f.runTimeout, fmt.Errorf("--run-timeout %s reached", f.runTimeout))
		defer cancel()
	}
	var res *starlarkagent.RunResult
	if f.json {
		res, _ = agent.Run(ctx, task, opts)
		if !f.verbose {
			dropModelInputs(res.Steps)
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(res)
		return res
	}
	p := &stepPrinter{w: w, stream: f.stream, imageDir: f.imageDir}
	starlarkagent.PrintStep(w, &starlarkagent.TaskStep{Task: task})
	for ev := range agent.Stream(ctx, task, opts) {
		if end, ok := ev.(*starlarkagent.RunEnd); ok {
			res = end.Result
		}
		p.event(ev)
	}
	return res
}

// answerText is an answer as str() shows it.
func answerText(v any) string { return pyvalue.Str(v) }

// FormatCount writes n with a comma every three digits, as the help
// texts write limits: 10,000,000,000.
func FormatCount(n uint64) string { return formatCount(n) }

func formatCount(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// exitFor turns a run's result into the command's exit status.
func exitFor(ctx context.Context, res *starlarkagent.RunResult, quiet bool) error {
	switch {
	case res.Err == nil:
		return nil
	case errors.Is(res.Err, starlarkagent.ErrInterrupted) && errors.Is(ctx.Err(), context.Canceled):
		return &ExitError{Code: 130, Err: errors.New("interrupted")}
	case quiet:
		return &ExitError{Code: 1}
	}
	return &ExitError{Code: 1, Err: res.Err}
}

// dropModelInputs keeps --json output readable: model inputs repeat the
// whole conversation at every step.
func dropModelInputs(steps []starlarkagent.Step) {
	for _, s := range steps {
		switch s := s.(type) {
		case *starlarkagent.ActionStep:
			s.ModelInput = nil
		case *starlarkagent.PlanningStep:
			s.ModelInput = nil
		case *starlarkagent.SummaryStep:
			s.ModelInput = nil
		}
	}
}

func newLogger(w io.Writer, format string, verbose bool) (*slog.Logger, error) {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageError("--log-format must be text or json, not %q", format)
}
