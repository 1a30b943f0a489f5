#!/usr/bin/env bash
# Builds Trawl's image from the Dockerfile and tries it, on a machine that cannot pull images or
# run containers: podman builds with --isolation chroot; the Dockerfile's base (node:24 on
# Debian bookworm) is made here with debootstrap and the project's own Node 24, and tagged with
# the name the Dockerfile uses; the built image's filesystem is then entered with chroot to run
# `trawl serve` and scrape a page served on 127.0.0.1. Also validates compose.yaml.
# Takes 10-30 minutes (Debian packages, npm ci, Chromium and LibreOffice); not part of npm test.
#   bash test/container/build-and-try.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
work=$(mktemp -d /var/tmp/trawl-image.XXXXXX)
base=docker.io/library/node:24-bookworm-slim
image=localhost/trawl:try
say() { printf '\n=== %s\n' "$*"; }

need=()
command -v podman >/dev/null || need+=(podman)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v podman-compose >/dev/null || need+=(podman-compose)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! podman image exists "$base"; then
  say "making the base $base with debootstrap"
  # The mirror this machine's apt uses (deb822 'URIs:' or one-line 'deb'), comments left out.
  mirror=$(grep -rhE '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
    /etc/apt/sources.list.d/*.list 2>/dev/null | grep -oE 'https?://[^ ]+' |
    grep -v security | grep -m1 debian || true)
  # (Under pipefail, grep -m1 closing the pipe early fails the pipeline: no fallback appended.)
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log"
  node_bin=$(readlink -f node_modules/node/bin/node)
  install -m 0755 "$node_bin" "$work/rootfs/usr/local/bin/node"
  (cd "$work" && npm pack npm@11 --silent >/dev/null)
  mkdir -p "$work/rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work"/npm-*.tgz -C "$work/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
  # This machine reaches the npm registry through a TLS proxy whose CA only the host trusts:
  # the base carries the host's bundle for npm, in a place Debian's ca-certificates leaves alone.
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$work/rootfs/usr/local/etc/host-ca.crt"
  printf 'cafile=/usr/local/etc/host-ca.crt\n' >"$work/rootfs/usr/local/etc/npmrc"
  tar -C "$work/rootfs" -c . | podman import - "$base" >/dev/null
  rm -rf "$work/rootfs"
fi

say "podman build"
podman build --isolation chroot --network host -t "$image" -f Dockerfile . 2>&1 | tail -n 5

say "compose.yaml"
# podman-compose 1.0 (Debian 12) has no 'config'; newer ones and docker compose do.
if TRAWL_API_KEYS=ops:fc-check podman-compose -f compose.yaml config >"$work/compose.out" 2>/dev/null; then
  grep -q 'serve' "$work/compose.out"
else
  python3 -c 'import sys, yaml
d = yaml.safe_load(open("compose.yaml"))
services = d["services"]
assert {"api", "worker", "redis", "postgres", "searxng"} <= set(services), services.keys()
assert services["api"]["command"][0] == "serve" and services["worker"]["command"] == ["worker"]
assert services["api"]["environment"]["TRAWL_QUEUE"] == "bullmq"'
fi
echo "compose.yaml validates"

say "trawl serve inside the image's filesystem"
# A container's filesystem, not the image's: `podman image mount` is read-only, so the store in
# /data could not be opened. The container is only created, never started (no runtime here).
container=$(podman create "$image")
mnt=$(podman mount "$container")
cleanup() {
  [ -n "${server:-}" ] && kill "$server" 2>/dev/null || true
  [ -n "${site:-}" ] && kill "$site" 2>/dev/null || true
  umount "$mnt/proc" "$mnt/dev" 2>/dev/null || true
  podman umount "$container" >/dev/null 2>&1 || true
  podman rm -f "$container" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
mount --bind /proc "$mnt/proc"
mount --bind /dev "$mnt/dev"
mkdir -p "$work/site" && cat >"$work/site/index.html" <<'HTML'
<!doctype html><html><head><title>Container check</title></head>
<body><main><h1>Served to the image</h1><p>Trawl inside its image read this page.</p></main></body></html>
HTML
python3 -m http.server 8799 --bind 127.0.0.1 --directory "$work/site" >/dev/null 2>&1 &
site=$!
chroot --userspec=trawl:trawl "$mnt" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/trawl \
  TRAWL_DATA_DIR=/data TRAWL_HOST=127.0.0.1 PORT=3799 TRAWL_ALLOW_PRIVATE_ADDRESSES=true \
  /usr/bin/tini -s -- trawl serve >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 60); do
  curl -fs http://127.0.0.1:3799/health >/dev/null && break
  sleep 1
done
answer=$(curl -fs -X POST http://127.0.0.1:3799/v2/scrape -H 'content-type: application/json' \
  -d '{"url":"http://127.0.0.1:8799/index.html"}')
echo "$answer" | grep -q 'Trawl inside its image read this page' || {
  echo "the scrape did not answer the page:"; echo "$answer"; cat "$work/serve.log"; exit 1
}
chroot "$mnt" /usr/bin/chromium --version
chroot "$mnt" /usr/bin/soffice --version | head -n 1
echo "the image's trawl serve scraped the page: OK"
