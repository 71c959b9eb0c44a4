#!/usr/bin/env bash
# Writes the secret of the Kubernetes manifests: a random Redis password, the broker URL that
# carries it, and the fleet's ARBITER_SECRET, to deploy/k8s/arbiter-secret.env (or the file given),
# mode 0600. kustomization.yaml turns it into the Secret "arbiter"; never commit it.
set -euo pipefail
target="${1:-$(dirname "$0")/arbiter-secret.env}"
if [ -e "$target" ]; then
    echo "make-secret: $target exists; remove it first to make a new secret" >&2
    exit 1
fi
random() {
    openssl rand -hex 32 2>/dev/null || python3 -c 'import secrets; print(secrets.token_hex(32))'
}
password="$(random)"
umask 077
cat >"$target" <<SECRET
redis-password=$password
broker-url=redis://:$password@redis:6379/0
arbiter-secret=$(random)
SECRET
echo "make-secret: wrote $target"
