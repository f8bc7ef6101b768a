#!/bin/sh
# The entrypoint of the stand-in for the official postgres image (test/container/README.md): on an
# empty PGDATA it runs initdb, creates POSTGRES_USER with POSTGRES_PASSWORD and POSTGRES_DB, and
# accepts password logins from any address, as the official image does; then it runs postgres.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
BIN=/usr/lib/postgresql/15/bin
mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
  chown postgres /tmp/pwfile
  su postgres -s /bin/sh -c "$BIN/initdb -D '$PGDATA' -U '$POSTGRES_USER' --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256"
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  if [ "$POSTGRES_DB" != "postgres" ]; then
    su postgres -s /bin/sh -c "$BIN/postgres --single -D '$PGDATA' postgres" <<SQL
CREATE DATABASE "$POSTGRES_DB" OWNER "$POSTGRES_USER";
SQL
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$BIN/postgres" -D "$PGDATA"
