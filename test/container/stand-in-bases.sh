#!/bin/sh
# Builds local stand-ins for the two base images compose.yaml and the Dockerfile name, for machines
# whose container engine cannot pull from Docker Hub (this project's test machines): a Debian
# bookworm root made by debootstrap from Debian's mirror, with this machine's Node.js 20 and npm in
# /usr/local and the user `node` (1000:1000), tagged docker.io/library/node:20-bookworm-slim; and
# the same root with Debian's PostgreSQL 15 and postgres-stand-in-entrypoint.sh, which sets up
# POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB as the official image does, tagged
# docker.io/library/postgres:16-bookworm. Where the real images can be pulled, skip this script.
# Needs root, debootstrap and podman. Usage: sh test/container/stand-in-bases.sh [work folder]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${1:-/tmp/hearth-stand-in-bases}
ROOT=$WORK/bookworm
if [ ! -x "$ROOT/bin/sh" ]; then
  debootstrap --variant=minbase bookworm "$ROOT" http://deb.debian.org/debian
  chroot "$ROOT" /bin/sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
fi

NODE=$WORK/node
rm -rf "$NODE" && cp -a "$ROOT" "$NODE"
mkdir -p "$NODE/usr/local/bin" "$NODE/usr/local/lib/node_modules" "$NODE/etc/ssl/certs"
cp "$(readlink -f "$(command -v node)")" "$NODE/usr/local/bin/node"
cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$NODE/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$NODE/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$NODE/usr/local/bin/npx"
# This machine reaches the npm registry through a TLS proxy whose authority only its own bundle holds.
cp /etc/ssl/certs/ca-certificates.crt "$NODE/etc/ssl/certs/ca-certificates.crt"
tar -C "$NODE" -c . | podman import \
  --change 'CMD ["node"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  - docker.io/library/node:20-bookworm-slim

PG=$WORK/postgres
rm -rf "$PG" && cp -a "$ROOT" "$PG"
cp /etc/resolv.conf "$PG/etc/resolv.conf"
chroot "$PG" /bin/sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/*'
for bin in "$PG"/usr/lib/postgresql/15/bin/*; do ln -sf "/usr/lib/postgresql/15/bin/$(basename "$bin")" "$PG/usr/local/bin/"; done
cp "$HERE/postgres-stand-in-entrypoint.sh" "$PG/usr/local/bin/docker-entrypoint.sh"
tar -C "$PG" -c . | podman import \
  --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV PGDATA=/var/lib/postgresql/data' \
  --change 'STOPSIGNAL SIGINT' \
  --change 'EXPOSE 5432' \
  - docker.io/library/postgres:16-bookworm
