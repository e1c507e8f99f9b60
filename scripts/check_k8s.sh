#!/usr/bin/env bash
# Checks the Kubernetes manifests in contrib/kubernetes/ with two readers:
#  - kubectl's own YAML reader, offline (`kubectl kustomize` on a folder holding the file);
#  - the Kubernetes OpenAPI schema, strictly (contrib/check/k8s.mjs: types, required fields and
#    no unknown field), from the npm packages scripts/setup.sh --tests installs.
# Each check must then refuse a broken copy, so that a check that cannot fail is caught.
# Exit 77 (ctest: skipped) when neither reader is available, 1 on any error.
set -euo pipefail
cd "$(dirname "$0")/.."
check=contrib/check
have_kubectl=0; have_schema=0
command -v kubectl >/dev/null && have_kubectl=1
[ -d "$check/node_modules/kubernetes-models" ] && command -v node >/dev/null && have_schema=1
[ $have_kubectl = 1 ] || echo "check_k8s: kubectl not found; kubectl's YAML reader is skipped"
[ $have_schema = 1 ] || echo "check_k8s: $check/node_modules missing (scripts/setup.sh --tests runs npm ci there); the schema check is skipped"
if [ $have_kubectl = 0 ] && [ $have_schema = 0 ]; then exit 77; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

kubectl_reads() {  # FILE: kubectl's YAML reader accepts it
  local d
  d=$(mktemp -d "$work/k.XXXX")
  cp "$1" "$d/manifest.yaml"
  printf 'resources:\n- manifest.yaml\n' > "$d/kustomization.yaml"
  timeout 60 kubectl kustomize "$d" > /dev/null
}
schema_accepts() {  # FILE: the OpenAPI schema accepts it
  timeout 120 node "$check/k8s.mjs" "$1"
}
expect_refused() {  # WHAT CHECK FILE
  if "$2" "$3" > "$work/out" 2>&1; then
    echo "check_k8s: $2 accepted $1; the check cannot fail" >&2; cat "$work/out" >&2; exit 1
  fi
  echo "check_k8s: $2 refuses $1, as it must: $(grep -m1 -v '^$' "$work/out" | cut -c1-160)"
}

files=(contrib/kubernetes/*.yaml)
for f in "${files[@]}"; do
  if [ $have_kubectl = 1 ]; then kubectl_reads "$f"; echo "check_k8s: kubectl reads $f"; fi
  if [ $have_schema = 1 ]; then schema_accepts "$f"; fi
done

# Broken copies of the guard pod.
pod=contrib/kubernetes/dcukit-guard-pod.yaml
grep -q '"/healthz?live"' "$pod" || { echo "check_k8s: $pod no longer has the quoted /healthz?live" >&2; exit 1; }
sed 's|"/healthz?live"|/healthz?live|' "$pod" > "$work/unquoted.yaml"
sed 's|^\(      image: \)|      imagePullPolicyy: Always\n\1|' "$pod" > "$work/unknown-field.yaml"
sed 's|^      terminationGracePeriodSeconds: 120|      terminationGracePeriodSeconds: "two minutes"|; s|^  terminationGracePeriodSeconds: 120|  terminationGracePeriodSeconds: "two minutes"|' "$pod" > "$work/wrong-type.yaml"
cmp -s "$pod" "$work/unknown-field.yaml" && { echo "check_k8s: the unknown-field copy is unchanged" >&2; exit 1; }
cmp -s "$pod" "$work/wrong-type.yaml" && { echo "check_k8s: the wrong-type copy is unchanged" >&2; exit 1; }
if [ $have_kubectl = 1 ]; then expect_refused "an unquoted ? in a flow mapping" kubectl_reads "$work/unquoted.yaml"; fi
if [ $have_schema = 1 ]; then
  expect_refused "an unknown field" schema_accepts "$work/unknown-field.yaml"
  expect_refused "a string where an integer goes" schema_accepts "$work/wrong-type.yaml"
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers: [{name: a, image: b, ports: [{containerPort: 1}]}]\n  bogus: 1\n' > "$work/nested.yaml"
  expect_refused "an unknown field in a spec" schema_accepts "$work/nested.yaml"
fi
echo "check_k8s: ${#files[@]} manifests checked"
