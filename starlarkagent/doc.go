// Package starlarkagent is star-agent's code agent: an Agent asks a language
// model for its next action, written as Python in a code block, runs it in
// an executor (by default the local Starlark engine, where the agent's tools
// are builtins), feeds the observation or the error back to the model, and
// repeats until the code calls final_answer or the step budget runs out.
//
// The loop follows smolagents' CodeAgent, whose users know its prompts,
// observation format and error messages: a run is a Memory of typed steps
// (system prompt, task, planning, action, final answer) that can be replayed,
// saved as JSON and resumed. Agents can manage other agents, which they call
// like tools. With Options.ActionType "tool_calling" the same loop runs the
// model's native tool calls instead of code (smolagents' ToolCallingAgent).
// An agent can be saved to a directory and loaded again (Save, Load), and
// stepped by hand (StartTask, Step). See docs/agent.md. Every run is logged with log/slog and traced with
// OpenTelemetry spans that follow the GenAI semantic conventions.
//
// This package does not talk to model servers (see providers) or run code
// itself (see executors).
package starlarkagent
