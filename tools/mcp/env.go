package mcp

import (
	"os"
	"strings"
)

// InheritedEnv names the variables a stdio server gets from this process
// by default, as the official Python SDK does: enough to find programs,
// a home, a locale, temporary space, proxies and certificates, and not
// the API keys and tokens an agent's environment holds. Give a server
// more with Options.Env.
var InheritedEnv = []string{
	"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER",
	"LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	// Windows.
	"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATHEXT", "PROCESSOR_ARCHITECTURE",
	"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "COMSPEC", "PROGRAMFILES",
}

// DefaultEnv returns the variables of InheritedEnv that this process has,
// as KEY=VALUE.
func DefaultEnv() []string {
	var env []string
	for _, k := range InheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// serverEnv is the environment of a stdio server: extra's KEY=VALUE
// entries override the defaults.
func serverEnv(extra []string) []string {
	if extra == nil {
		return DefaultEnv()
	}
	env := DefaultEnv()
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		for i := 0; i < len(env); i++ {
			if ek, _, _ := strings.Cut(env[i], "="); ek == k {
				env = append(env[:i], env[i+1:]...)
				i--
			}
		}
		env = append(env, kv)
	}
	return env
}
