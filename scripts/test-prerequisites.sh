#!/usr/bin/env bash
# Run by `npm test` before anything else: the machine's part of what the test
# suites need (node_modules is npm ci's part). The end-to-end suites drive real
# clients against tabletop and against Google's emulator:
#   - cbt, Google's Bigtable CLI, on PATH (package google-cloud-cli-cbt);
#   - cbtemulator, Google's Bigtable emulator (google-cloud-cli-bigtable-emulator),
#     at the Cloud SDK path below or wherever CBTEMULATOR points;
#   - gRPC C-core's Python binding (Debian's python3-grpcio) for /usr/bin/python3
#     or PYTHON_GRPC, for test/python-client;
#   - Chromium (Debian's chromium) at /usr/bin/chromium or CHROMIUM, driven
#     headless by playwright-core for test/ui (the web UI's browser test);
#   - openssl (Debian's openssl), which the TLS tests make their CA and
#     certificates with, as an operator would;
#   - strace (Debian's strace), whose --inject makes a running server's own
#     system calls fail or stall (test/durability/system-faults.test.ts);
#   - h2load (Debian's nghttp2-client), nghttp2's HTTP/2 load generator
#     (test/abuse/h2load.test.ts).
# Missing Debian packages are installed here when this runs as root, with
# apt-get. Google's two packages come from Google's own apt repository, which
# is not Debian's: a missing one stops the run at once, as does anything this
# cannot install, with the commands that install it.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "test prerequisites: $*" >&2; }

emulator=${CBTEMULATOR:-/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator}
python=${PYTHON_GRPC:-/usr/bin/python3}
chromium=${CHROMIUM:-/usr/bin/chromium}

# Node outside package.json's engines: a note, not a stop (the suite may well pass; it is not supported).
node -e '
  const range = require("./package.json").engines.node;
  if (!require("semver").satisfies(process.version, range))
    console.error(`test prerequisites: note: Node.js ${process.version} is outside the supported range ${range} (README: Node versions)`);
'

google=()
command -v cbt >/dev/null || google+=(google-cloud-cli-cbt)
[ -x "$emulator" ] || google+=(google-cloud-cli-bigtable-emulator)
has_grpc() { "$python" -c 'import grpc' 2>/dev/null; }
debian=()
has_grpc || debian+=(python3-grpcio)
[ -x "$chromium" ] || debian+=(chromium)
command -v openssl >/dev/null || debian+=(openssl)
command -v strace >/dev/null || debian+=(strace)
command -v h2load >/dev/null || debian+=(nghttp2-client)
[ ${#google[@]} -eq 0 ] && [ ${#debian[@]} -eq 0 ] && exit 0

root=false
[ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null && root=true
if [ ${#google[@]} -gt 0 ] || { [ ${#debian[@]} -gt 0 ] && [ "$root" = false ]; }; then
  missing=("${google[@]}" "${debian[@]}")
  say "missing: ${missing[*]}"
  {
    echo "Install them, then run npm test again:"
    if [ ${#google[@]} -gt 0 ]; then
      echo "  # Google's apt repository (https://cloud.google.com/sdk/docs/install#deb), once:"
      echo "  sudo apt-get install -y apt-transport-https ca-certificates gnupg curl"
      echo "  curl https://packages.cloud.google.com/apt/doc/apt-key.gpg | sudo gpg --dearmor -o /usr/share/keyrings/cloud.google.gpg"
      echo "  echo 'deb [signed-by=/usr/share/keyrings/cloud.google.gpg] https://packages.cloud.google.com/apt cloud-sdk main' | sudo tee /etc/apt/sources.list.d/google-cloud-sdk.list"
      echo "  sudo apt-get update"
    fi
    echo "  sudo apt-get install -y ${missing[*]}"
    [ -x "$emulator" ] || echo "  (or set CBTEMULATOR to a cbtemulator elsewhere)"
    has_grpc || echo "  (python3-grpcio is for $python; or set PYTHON_GRPC to a python3 that has the grpc module)"
    [ -x "$chromium" ] || echo "  (or set CHROMIUM to a Chromium executable elsewhere)"
  } >&2
  exit 1
fi

started=$SECONDS
say "installing ${debian[*]} (apt-get, as root)..."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y -q --no-install-recommends "${debian[@]}" >>"$log" 2>&1; }
# A fresh machine may have no package lists yet, or stale ones: update once, then try again.
if ! install; then
  say "apt-get update..."
  { apt-get update -q >>"$log" 2>&1 && install; } || { cat "$log" >&2; say "could not install ${debian[*]} (apt-get's output above)"; exit 1; }
fi
has_grpc || { say "$python still has no grpc module after installing python3-grpcio: set PYTHON_GRPC to a python3 that has it"; exit 1; }
if [ -x "$chromium" ]; then
  "$chromium" --headless --no-sandbox --version >>"$log" 2>&1 || { cat "$log" >&2; say "$chromium does not start (its output above)"; exit 1; }
else
  say "$chromium is still missing after installing chromium: set CHROMIUM to a Chromium executable"
  exit 1
fi
say "installed ${debian[*]} in $((SECONDS - started)) s"
