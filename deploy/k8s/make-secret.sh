#!/usr/bin/env bash
# Writes the secret of the Kubernetes manifests to deploy/k8s/arbiter-secret.env (or the file
# given), mode 0600: a random Redis password and the broker URL that carries it, the fleet's
# ARBITER_SECRET, the server's API token (ARBITER_SERVER_TOKEN), and the store's URL, taken from
# $ARBITER_STORE (PostgreSQL, with its password: docs/deploy.md, "The store on PostgreSQL"); without
# it, a SQLite file on the server's volume claim. kustomization.yaml turns the file into the Secret
# "arbiter"; never commit it.
set -euo pipefail
target="${1:-$(dirname "$0")/arbiter-secret.env}"
if [ -e "$target" ]; then
    echo "make-secret: $target exists; remove it first to make a new secret" >&2
    exit 1
fi
store="${ARBITER_STORE:-sqlite:////data/arbiter.db}"
case "$store" in
    postgresql://* | postgres://* | postgresql+*://* | sqlite:////data/*) ;;
    *)
        echo "make-secret: ARBITER_STORE: expected a postgresql:// URL (or sqlite:////data/FILE), got ${store%%:*}://..." >&2
        exit 2
        ;;
esac
random() {
    openssl rand -hex 32 2>/dev/null || python3 -c 'import secrets; print(secrets.token_hex(32))'
}
password="$(random)"
umask 077
cat >"$target" <<SECRET
redis-password=$password
broker-url=redis://:$password@redis:6379/0
arbiter-secret=$(random)
server-token=$(random)
store-url=$store
SECRET
echo "make-secret: wrote $target (store ${store%%:*})"
