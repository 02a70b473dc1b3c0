package modal

import "testing"

// TestV2 runs the end-to-end tests again on Modal's V2 sandbox backend,
// the SDK's default: create with SandboxCreateV2, stdio through the task
// command router (stdin by byte offset, stdout as raw bytes from an
// offset), wait and terminate with the V2 calls.
func TestV2(t *testing.T) {
	t.Setenv("MODAL_SANDBOX_V2", "1")
	for _, c := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"Conformance", TestConformance},
		{"FirstRun", TestFirstRun},
		{"CreateUnauthenticated", TestCreateUnauthenticated},
		{"CreateExhaustedThenCreated", TestCreateExhaustedThenCreated},
		{"CreateUnavailable", TestCreateUnavailable},
		{"LogStreamDropsAndResumes", TestLogStreamDropsAndResumes},
		{"SandboxExpiresMidRun", TestSandboxExpiresMidRun},
		{"SandboxExpiredBetweenActions", TestSandboxExpiredBetweenActions},
		{"CloseDuringExecution", TestCloseDuringExecution},
		{"CancelTerminates", TestCancelTerminates},
		{"TimeoutRestarts", TestTimeoutRestarts},
		{"InputSplitInOrder", TestInputSplitInOrder},
		{"RunnerKilledInSandbox", TestRunnerKilledInSandbox},
		{"ForgedProtocolFromSandbox", TestForgedProtocolFromSandbox},
		{"EnvVarsOnlyWhenAsked", TestEnvVarsOnlyWhenAsked},
		{"ImageWithoutPython", TestImageWithoutPython},
		{"StdinUnanswered", TestStdinUnanswered},
		{"StderrFlood", TestStderrFlood},
		{"NothingLeftAfterClose", TestNothingLeftAfterClose},
		{"CloseWhenTerminateFails", TestCloseWhenTerminateFails},
	} {
		t.Run(c.name, c.f)
	}
}
