#!/usr/bin/env bash
# Real Elasticsearch, OpenSearch and PostgreSQL + pgvector servers on 127.0.0.1 for ragrank's engine adapters'
# tests and benchmark. Idempotent: every command can be repeated.
#
#   scripts/engines.sh install [es|os|pg ...]   download (Maven / apt) and unpack what is missing
#   scripts/engines.sh start   [es|os|pg ...]   install if needed, start, wait until the server answers
#   scripts/engines.sh stop    [es|os|pg ...]   stop the servers this script started
#   scripts/engines.sh restart [es|os|pg ...]
#   scripts/engines.sh status  [es|os|pg ...]   exit 1 when one is down
#   scripts/engines.sh env                      the RAGRANK_*_URL variables the tests and the bench read
#
# No engine given means all three. Elasticsearch and OpenSearch refuse to run as root: as root (CI) the servers
# run as the user `engines` (created once). Ports: RAGRANK_ES_PORT (19200), RAGRANK_OS_PORT (19201),
# RAGRANK_PG_PORT (15432); folder: RAGRANK_ENGINES_DIR (/var/tmp/ragrank-engines-<uid>). Another Elasticsearch:
# RAGRANK_ES_VERSION=9.2.0 RAGRANK_ES_PORT=19202 scripts/engines.sh start es (9.x runs on Java 21+).
set -euo pipefail

ES_VERSION=${RAGRANK_ES_VERSION:-8.19.21}
OS_VERSION=2.19.6
ES_PORT=${RAGRANK_ES_PORT:-19200}
OS_PORT=${RAGRANK_OS_PORT:-19201}
PG_PORT=${RAGRANK_PG_PORT:-15432}
DIR=${RAGRANK_ENGINES_DIR:-/var/tmp/ragrank-engines-$(id -u)}
M2=${MAVEN_REPO:-$HOME/.m2/repository}
JAVA17=${RAGRANK_JAVA_HOME:-$( (ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null || true) | head -n1)}
# Elasticsearch 9 needs Java 21+ (8.x runs on 17).
if [ "${ES_VERSION%%.*}" -ge 9 ]; then
  ES_JAVA=${RAGRANK_ES_JAVA_HOME:-$( (ls -d /usr/lib/jvm/temurin-2[1-9]-* /usr/lib/jvm/java-2[1-9]-* 2>/dev/null || true) | head -n1)}
else
  ES_JAVA=${RAGRANK_ES_JAVA_HOME:-$JAVA17}
fi
HEAP=${RAGRANK_ENGINES_HEAP:-512m}
PG_BIN=/usr/lib/postgresql/$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n1)/bin

say() { echo "engines: $*" >&2; }
die() { say "$*"; exit 1; }

# As root the JVM servers run as `engines`; otherwise as the caller.
if [ "$(id -u)" = 0 ]; then
  RUN_USER=engines
  as_user() { runuser -u "$RUN_USER" -- "$@"; }
else
  RUN_USER=$(id -un)
  as_user() { "$@"; }
fi

ensure_user() {
  [ "$(id -u)" = 0 ] || return 0
  id "$RUN_USER" >/dev/null 2>&1 || useradd -m -s /bin/bash "$RUN_USER"
}

ensure_dir() {
  mkdir -p "$DIR"
  chmod 755 "$DIR"
}

# The local Maven repository path of group:artifact:version[:type], downloaded when missing.
maven() {
  local g=$1 a=$2 v=$3 type=${4:-jar}
  local f="$M2/${g//.//}/$a/$v/$a-$v.$type"
  if [ ! -f "$f" ]; then
    command -v mvn >/dev/null || die "mvn is needed to download $g:$a:$v"
    mvn -B -q -Dstyle.color=never dependency:get "-Dartifact=$g:$a:$v:$type" -Dtransitive=false >&2
  fi
  [ -f "$f" ] || die "Maven did not produce $f"
  echo "$f"
}

wait_http() { # name url seconds logdir pidfile
  local name=$1 url=$2 n=$3
  for ((i = 0; i < n; i++)); do
    if curl -fsS -m 2 "$url" 2>/dev/null | grep -Eq '"status" *: *"(green|yellow)"'; then
      say "$name is up ($url)"
      return 0
    fi
    # A server that died while starting will not answer: say so now, not after the timeout.
    if [ "$i" -gt 3 ] && [ -n "${5:-}" ] && ! pid_alive "$5"; then die "$name exited while starting (log: $4)"; fi
    sleep 1
  done
  die "$name did not answer at $url within ${n}s (log: $4)"
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pid() { # name pidfile
  if pid_alive "$2"; then
    local pid
    pid=$(cat "$2")
    kill "$pid"
    for ((i = 0; i < 60; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    say "$1 stopped"
  fi
  rm -f "$2"
}

# ---------------------------------------------------------------- Elasticsearch
ES_HOME=$DIR/elasticsearch-$ES_VERSION

install_es() {
  [ -x "$ES_HOME/bin/elasticsearch" ] && return 0
  ensure_user; ensure_dir
  local zip
  zip=$(maven org.elasticsearch.distribution.integ-test-zip elasticsearch "$ES_VERSION" zip)
  rm -rf "$ES_HOME.tmp" && mkdir -p "$ES_HOME.tmp"
  unzip -q "$zip" -d "$ES_HOME.tmp"
  mv "$ES_HOME.tmp/elasticsearch-$ES_VERSION" "$ES_HOME" && rmdir "$ES_HOME.tmp"
  chown -R "$RUN_USER" "$ES_HOME"
  say "Elasticsearch $ES_VERSION installed in $ES_HOME"
}

start_es() {
  install_es
  if ! pid_alive "$ES_HOME/es.pid"; then
    # -d returns once HTTP is bound (its output goes to logs/: an open stdout would hold a pipe); security off (a local test server), no disk watermarks (shared disks).
    as_user env ES_JAVA_HOME="$ES_JAVA" ES_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP" "$ES_HOME/bin/elasticsearch" -d \
      -p "$ES_HOME/es.pid" -E discovery.type=single-node -E network.host=127.0.0.1 -E http.port="$ES_PORT" \
      -E transport.port=$((ES_PORT + 100)) -E xpack.security.enabled=false -E xpack.ml.enabled=false \
      -E cluster.routing.allocation.disk.threshold_enabled=false </dev/null >/dev/null 2>&1
  fi
  wait_http Elasticsearch "http://127.0.0.1:$ES_PORT/_cluster/health" 120 "$ES_HOME/logs" "$ES_HOME/es.pid"
}

stop_es() { stop_pid Elasticsearch "$ES_HOME/es.pid"; }
status_es() { curl -fsS -m 2 "http://127.0.0.1:$ES_PORT/_cluster/health" >/dev/null 2>&1; }

# ---------------------------------------------------------------- OpenSearch + k-NN (Lucene engine)
OS_HOME=$DIR/opensearch-$OS_VERSION

# The k-NN plugin extends lang-painless, which the integ-test distribution lacks and the registry has only as
# jars: assemble the module folder from them.
install_painless() {
  local mod=$OS_HOME/modules/lang-painless
  [ -f "$mod/plugin-descriptor.properties" ] && return 0
  mkdir -p "$mod"
  cp "$(maven org.opensearch.plugin lang-painless "$OS_VERSION")" "$mod/"
  cp "$(maven org.opensearch.plugin opensearch-scripting-painless-spi "$OS_VERSION")" "$mod/"
  cp "$(maven org.antlr antlr4-runtime 4.13.1)" "$mod/"
  for a in asm asm-util asm-tree asm-commons asm-analysis; do cp "$(maven org.ow2.asm "$a" 9.7)" "$mod/"; done
  cat >"$mod/plugin-descriptor.properties" <<EOF
description=An easy, safe and fast scripting language for OpenSearch
version=$OS_VERSION
name=lang-painless
classname=org.opensearch.painless.PainlessPlugin
java.version=11
opensearch.version=$OS_VERSION
extended.plugins=
has.native.controller=false
EOF
  cat >"$mod/plugin-security.policy" <<'EOF'
grant {
  permission java.lang.RuntimePermission "createClassLoader";
  permission java.lang.RuntimePermission "getClassLoader";
};
EOF
}

install_os() {
  [ -f "$OS_HOME/.ragrank-ready" ] && return 0
  ensure_user; ensure_dir
  if [ ! -x "$OS_HOME/bin/opensearch" ]; then
    local zip
    zip=$(maven org.opensearch.distribution.integ-test-zip opensearch "$OS_VERSION" zip)
    rm -rf "$OS_HOME.tmp" && mkdir -p "$OS_HOME.tmp"
    unzip -q "$zip" -d "$OS_HOME.tmp"
    mv "$OS_HOME.tmp/opensearch-$OS_VERSION" "$OS_HOME" && rmdir "$OS_HOME.tmp"
  fi
  install_painless
  if [ ! -d "$OS_HOME/plugins/opensearch-knn" ]; then
    # The server user cannot read root's Maven cache: install from a copy in DIR.
    cp "$(maven org.opensearch.plugin opensearch-knn "$OS_VERSION.0" zip)" "$DIR/opensearch-knn.zip"
    chmod 644 "$DIR/opensearch-knn.zip"
    chown -R "$RUN_USER" "$OS_HOME"
    as_user env OPENSEARCH_JAVA_HOME="$JAVA17" "$OS_HOME/bin/opensearch-plugin" install --batch \
      "file://$DIR/opensearch-knn.zip" >&2
  fi
  chown -R "$RUN_USER" "$OS_HOME"
  touch "$OS_HOME/.ragrank-ready"
  say "OpenSearch $OS_VERSION with k-NN installed in $OS_HOME"
}

start_os() {
  install_os
  if ! pid_alive "$OS_HOME/os.pid"; then
    as_user env OPENSEARCH_JAVA_HOME="$JAVA17" OPENSEARCH_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP" "$OS_HOME/bin/opensearch" \
      -d -p "$OS_HOME/os.pid" -E discovery.type=single-node -E network.host=127.0.0.1 -E http.port="$OS_PORT" \
      -E transport.port=$((OS_PORT + 100)) -E cluster.routing.allocation.disk.threshold_enabled=false \
      </dev/null >/dev/null 2>&1
  fi
  # -d returns before HTTP is up.
  wait_http OpenSearch "http://127.0.0.1:$OS_PORT/_cluster/health" 120 "$OS_HOME/logs" "$OS_HOME/os.pid"
}

stop_os() { stop_pid OpenSearch "$OS_HOME/os.pid"; }
status_os() { curl -fsS -m 2 "http://127.0.0.1:$OS_PORT/_cluster/health" >/dev/null 2>&1; }

# ---------------------------------------------------------------- PostgreSQL + pgvector
PG_HOME=$DIR/postgres

# Debian 12 has no pgvector package: build it from the next release's source package against the installed server.
install_pgvector() {
  local lib
  lib=$(dirname "$PG_BIN")/lib
  [ -f "$lib/vector.so" ] && return 0
  [ "$(id -u)" = 0 ] || die "pgvector is not installed and building it needs root (apt): run 'sudo $0 install pg'"
  local src=/etc/apt/sources.list.d/ragrank-trixie-src.sources
  if [ ! -f "$src" ]; then
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' >"$src"
  fi
  apt-get update -qq >&2
  local major
  major=$(basename "$(dirname "$PG_BIN")")
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-server-dev-$major" make gcc dpkg-dev >&2
  local build
  build=$(mktemp -d)
  (cd "$build" && apt-get source -qq pgvector >&2 && cd pgvector-*/ && make -s PG_CONFIG="$PG_BIN/pg_config" >&2 \
    && make -s install PG_CONFIG="$PG_BIN/pg_config" >&2)
  rm -rf "$build"
  [ -f "$lib/vector.so" ] || die "pgvector did not install into $lib"
  say "pgvector built and installed into $lib"
}

install_pg() {
  [ -x "$PG_BIN/postgres" ] || die "PostgreSQL server binaries not found under /usr/lib/postgresql"
  install_pgvector
  ensure_user; ensure_dir
  if [ ! -f "$PG_HOME/data/PG_VERSION" ]; then
    mkdir -p "$PG_HOME" && chown "$RUN_USER" "$PG_HOME"
    as_user "$PG_BIN/initdb" -D "$PG_HOME/data" -U ragrank --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
}

pg_run() { as_user "$PG_BIN/$1" "${@:2}"; }

start_pg() {
  install_pg
  if ! pg_run pg_isready -q -h 127.0.0.1 -p "$PG_PORT"; then
    pg_run pg_ctl -D "$PG_HOME/data" -l "$PG_HOME/log" -w -t 60 -s \
      -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_HOME" start </dev/null >/dev/null 2>&1
  fi
  pg_run psql -q -h 127.0.0.1 -p "$PG_PORT" -U ragrank -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = 'ragrank'" | grep -q 1 \
    || pg_run createdb -h 127.0.0.1 -p "$PG_PORT" -U ragrank ragrank
  pg_run psql -q -h 127.0.0.1 -p "$PG_PORT" -U ragrank -d ragrank -c 'CREATE EXTENSION IF NOT EXISTS vector' >/dev/null
  say "PostgreSQL + pgvector is up (127.0.0.1:$PG_PORT)"
}

stop_pg() {
  if [ -f "$PG_HOME/data/postmaster.pid" ]; then
    pg_run pg_ctl -D "$PG_HOME/data" -m fast -w -s stop || true
    say "PostgreSQL stopped"
  fi
}
status_pg() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; }

# ---------------------------------------------------------------- commands
cmd=${1:-}
[ $# -gt 0 ] && shift
engines=("$@")
[ ${#engines[@]} -eq 0 ] && engines=(es os pg)
for e in "${engines[@]}"; do
  case $e in es | os | pg) ;; *) die "unknown engine '$e' (es, os or pg)" ;; esac
done

case $cmd in
  install | start | stop)
    for e in "${engines[@]}"; do "${cmd}_$e"; done
    ;;
  restart)
    for e in "${engines[@]}"; do "stop_$e"; "start_$e"; done
    ;;
  status)
    down=0
    for e in "${engines[@]}"; do
      if "status_$e"; then say "$e up"; else say "$e down"; down=1; fi
    done
    exit $down
    ;;
  env)
    echo "export RAGRANK_ES_URL=http://127.0.0.1:$ES_PORT"
    echo "export RAGRANK_OS_URL=http://127.0.0.1:$OS_PORT"
    echo "export RAGRANK_PG_URL=postgres://ragrank@127.0.0.1:$PG_PORT/ragrank"
    ;;
  *)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
