#!/usr/bin/env bash
# gvisor.sh: install gVisor's runsc from Debian if it is missing and
# register it with the running Docker engine as the runtime "runsc", so
# that --docker-runtime runsc works. Idempotent: a second run changes
# nothing. The engine is reloaded (SIGHUP to dockerd: runtimes are among
# the settings it reloads), never restarted, so running containers are
# untouched. Run as root.
#
# The runtime gets runtimeArgs ["--network=none"]: on hosts like CI's,
# gVisor's own network stack cannot start ("cannot run with network
# enabled in root network namespace"), and a sandbox has no network
# anyway (--docker-network none, the default; star-agent refuses any
# other network under runsc).
set -euo pipefail

CONFIG=${DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}
RUNSC=${RUNSC:-/usr/bin/runsc}

say() { echo "gvisor: $*"; }

if ! command -v runsc >/dev/null 2>&1; then
	say "installing runsc from Debian"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends runsc >/dev/null 2>&1 ||
		{ apt-get update >/dev/null && apt-get install -y --no-install-recommends runsc >/dev/null; }
fi
RUNSC=$(command -v runsc || echo "$RUNSC")
[ -x "$RUNSC" ] || { say "runsc is not at $RUNSC after installing it" >&2; exit 1; }

# registered reports whether the engine lists runsc with our arguments.
registered() {
	docker info --format '{{json .Runtimes}}' 2>/dev/null |
		grep -q '"runsc":{[^}]*"path":"'"$RUNSC"'"[^}]*--network=none'
}

if registered; then
	say "runsc ($("$RUNSC" --version 2>/dev/null | head -1)) is registered with the Docker engine"
	exit 0
fi

# Merge the runtime into daemon.json, keeping every other setting.
mkdir -p "$(dirname "$CONFIG")"
[ -s "$CONFIG" ] || echo '{}' >"$CONFIG"
tmp=$(mktemp "$CONFIG.XXXXXX")
trap 'rm -f "$tmp"' EXIT
if command -v python3 >/dev/null 2>&1; then
	python3 - "$CONFIG" "$RUNSC" >"$tmp" <<'EOF'
import json, sys
path, runsc = sys.argv[1], sys.argv[2]
with open(path) as f:
    cfg = json.load(f)
cfg.setdefault("runtimes", {})["runsc"] = {"path": runsc, "runtimeArgs": ["--network=none"]}
json.dump(cfg, sys.stdout, indent=2)
print()
EOF
elif command -v jq >/dev/null 2>&1; then
	jq --arg p "$RUNSC" '.runtimes.runsc = {path: $p, runtimeArgs: ["--network=none"]}' "$CONFIG" >"$tmp"
else
	say "need python3 or jq to edit $CONFIG" >&2
	exit 1
fi
chmod 0644 "$tmp"
cp -p "$CONFIG" "$CONFIG.bak-star-agent" 2>/dev/null || true
mv "$tmp" "$CONFIG"
trap - EXIT

pid=$(pidof dockerd || true)
if [ -z "$pid" ]; then
	say "wrote $CONFIG; no dockerd runs: runsc is registered when it starts"
	exit 0
fi
say "registering runsc with the running Docker engine (SIGHUP to dockerd $pid)"
kill -HUP $pid
for _ in $(seq 100); do
	if registered; then
		say "runsc ($("$RUNSC" --version 2>/dev/null | head -1)) is registered with the Docker engine"
		exit 0
	fi
	sleep 0.1
done
say "dockerd did not list runsc 10 s after the reload; see its log (journalctl -u docker) and $CONFIG" >&2
exit 1
