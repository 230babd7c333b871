#!/bin/bash
# SPDX-License-Identifier: ISC
# contrib/container's pod.yaml and job.yaml against Kubernetes' schemas (kubernetes-models for node, offline), unknown fields and the API server's rules for the fields they use (k8s-validate.mjs); and that each layer refuses a manifest broken on purpose. No cluster. Skips without node and kubernetes-models (K8S_MODELS: a node_modules holding it and js-yaml).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
ctr=$here/../../contrib/container
vg_on && { echo "1..0 # SKIP under valgrind (no proctord here)"; exit 0; }
command -v node >/dev/null || { echo "1..0 # SKIP no node"; exit 0; }
# K8S_MODELS, or npm's global modules.
mods=${K8S_MODELS:-}
for d in /usr/local/lib/node_modules /usr/lib/node_modules; do
	[ -n "$mods" ] || [ ! -d "$d/kubernetes-models" ] || mods=$d
done
if [ ! -f "$mods/kubernetes-models/package.json" ] || [ ! -d "$mods/js-yaml" ]; then
	echo "1..0 # SKIP no kubernetes-models and js-yaml for node (npm install kubernetes-models js-yaml in a directory, then K8S_MODELS=DIR/node_modules)"
	exit 0
fi
diag "kubernetes-models $(node -p "require('$mods/kubernetes-models/package.json').version"), node $(node --version)"

out=$(node "$here/k8s-validate.mjs" "$mods" "$ctr/pod.yaml" "$ctr/job.yaml" 2>&1)
check_eq "pod.yaml and job.yaml: every document valid (schema, no unknown field, the API server's rules)" \
	0 "$?" || diag "$out"
check_eq "...three documents: the Pod, the ConfigMap, the Job" 3 "$(grep -c ': valid$' <<<"$out")"

# broken WHAT SED: pod.yaml changed by SED must be refused, saying WHAT.
broken() {
	sed -e "$2" "$ctr/pod.yaml" >"$T/broken.yaml"
	out=$(node "$here/k8s-validate.mjs" "$mods" "$T/broken.yaml" 2>&1)
	check_re "refused: $1" "$1" "$out"
}
broken "procMount must be equal to one of the allowed values" 's/procMount: Unmasked/procMount: Unmaskd/'
broken "spec.hostUser: unknown field" 's/hostUsers: false/hostUser: false/'
broken "procMount: Unmasked needs spec.hostUsers: false" 's/hostUsers: false/hostUsers: true/'
broken "localhostProfile must be set for type Localhost" '/localhostProfile:/d'
broken "memory requests 1280Mi and limits 1Gi differ" 's/limits: {cpu: "2", memory: 1280Mi}/limits: {cpu: "2", memory: 1Gi}/'

done_testing
