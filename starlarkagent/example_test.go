package starlarkagent_test

import (
	"context"
	"fmt"
	"log"

	"github.com/star-agent/star-agent/providers/scripted"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/tool"
)

type greetArgs struct {
	Name string `json:"name" jsonschema:"Who to greet."`
}

func Example() {
	greet := tool.MustNew("greet", "Greets someone.", func(_ context.Context, a greetArgs) (string, error) {
		return "Hello, " + a.Name + "!", nil
	})
	// A real program uses providers/openai or providers/gemini here.
	model := scripted.New(
		"Thought: I will greet Ada.\n<code>\nmsg = greet(name=\"Ada\")\nprint(msg)\n</code>",
		"Thought: Done.\n<code>\nfinal_answer(msg)\n</code>",
	)
	agent, err := starlarkagent.New(starlarkagent.Options{Model: model, Tools: []tool.Tool{greet}})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()
	res, err := agent.Run(context.Background(), "Greet Ada.", starlarkagent.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.State, res.Output)
	fmt.Println(agent.Memory().ActionSteps()[0].Observation)
	// Output:
	// success Hello, Ada!
	// Execution logs:
	// Hello, Ada!
	// Last output from code snippet:
	// None
}
