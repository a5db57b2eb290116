#!/usr/bin/env bash
# Runs the official A2A conformance kit (a2aproject/a2a-tck, v1.0 line) against this server serving examples/tck-agent.ts.
#   TCK_MIRROR=<the kit's git dir> test/conformance/tck.sh [run-tck1.sh args, e.g. `jsonrpc mandatory`]   (root: it uses unshare -n)
# Builds (npm run build; TCK_NO_BUILD=1 skips), serves dist/src/cli/main.js on 127.0.0.1:${TCK_PORT:-9999} (memory store)
# inside a loopback-only network namespace via $TCK_TOOLS/serve-and-run.sh (default ../shared/tools/tck1 beside the checkout), prints the
# counts per category and the last line "tck: P passed, F failed, S skipped"; full output in $TCK_OUT_DIR/tck-output.txt.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
TOOLS="${TCK_TOOLS:-$PWD/../shared/tools/tck1}"
PORT="${TCK_PORT:-9999}"
[ -n "${TCK_MIRROR:-}" ] || { echo "tck.sh: set TCK_MIRROR to the git directory of a2aproject/a2a-tck" >&2; exit 2; }
[ -x "$TOOLS/serve-and-run.sh" ] || { echo "tck.sh: no serve-and-run.sh in $TOOLS (set TCK_TOOLS)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "tck.sh: run as root (serve-and-run.sh needs unshare -n)" >&2; exit 2; }
if [ -z "${TCK_NO_BUILD:-}" ]; then
  npm run build >/dev/null || { echo "tck.sh: npm run build failed" >&2; exit 2; }
fi
export TCK_MIRROR
export TCK_OUT_DIR="${TCK_OUT_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/tck1-results.XXXXXX")}"
mkdir -p "$TCK_OUT_DIR"
export SERVICE_SHUTDOWN_GRACE="${SERVICE_SHUTDOWN_GRACE:-0}"
# The kit's push test waits for a delivery to its webhook at http://127.0.0.1:8888 (allowed only in here:
# the namespace has no other interface, so its https://example.com webhooks go nowhere).
export SERVICE_PUSH_ALLOW_HTTP="${SERVICE_PUSH_ALLOW_HTTP:-true}" SERVICE_PUSH_ALLOWED_HOSTS="${SERVICE_PUSH_ALLOWED_HOSTS:-127.0.0.1}"
"$TOOLS/serve-and-run.sh" "http://127.0.0.1:$PORT/" "$@" -- \
  node dist/src/cli/main.js serve examples/tck-agent.ts --port "$PORT" --store memory >"$TCK_OUT_DIR/tck-output.txt" 2>&1
rc=$?
grep -E '^(run-tck1|serve-and-run)|^  [a-z-]+/' "$TCK_OUT_DIR/tck-output.txt"
echo "tck.sh: full output $TCK_OUT_DIR/tck-output.txt, server log $TCK_OUT_DIR/server.log"
grep -E '^tck: ' "$TCK_OUT_DIR/tck-output.txt" || echo "tck: no summary (exit $rc)"
exit $rc
