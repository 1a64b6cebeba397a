#!/usr/bin/env bash
# Publishes the one kpng test-clients image under the two image references clusterloader2's
# NetworkPolicyEnforcement measurement compiles into its manifests (there is no image parameter):
#   <registry>/pod-creation-reachability-latency:v0.0.1
#   <registry>/policy-creation-enforcement-latency:v0.0.1
# with <registry> = upstream's gcr.io/k8s-staging-perf-tests/network-policy-enforcement-latency by
# default. clusterloader2 sets imagePullPolicy: Always, so a copy preloaded on the nodes is not
# enough: the nodes must PULL these references from a registry that serves kpng's image, i.e. a
# mirror of gcr.io configured in the nodes' container runtime (containerd hosts.toml), and this
# script pushes to that mirror's path: --registry <mirror>/k8s-staging-perf-tests/network-policy-enforcement-latency.
# Afterwards run check-clusterloader2-run.sh against the cluster: it proves which image the
# measurement pods run and that samples arrived.
set -euo pipefail

UPSTREAM_REGISTRY=gcr.io/k8s-staging-perf-tests/network-policy-enforcement-latency
TAG=v0.0.1
NAMES=(pod-creation-reachability-latency policy-creation-enforcement-latency)

usage() {
  cat <<USAGE
usage: $0 [--dry-run] [--tool docker|podman] [--registry PREFIX] [--build] SOURCE_IMAGE
  SOURCE_IMAGE   the kpng image to publish (e.g. kpng/test-clients:0.1.0)
  --build        build SOURCE_IMAGE first (deploy/images/test-clients/Dockerfile, context: the repository root)
  --registry     where to push (default $UPSTREAM_REGISTRY): the path the nodes pull it from
  --tool         container tool (default: docker)
  --dry-run      print the commands instead of running them
USAGE
}

dry_run=false tool=docker registry=$UPSTREAM_REGISTRY build=false source=
while (($#)); do
  case $1 in
    --dry-run) dry_run=true ;;
    --build) build=true ;;
    --tool) tool=${2:?--tool needs a value}; shift ;;
    --registry) registry=${2:?--registry needs a value}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "$0: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) [[ -z $source ]] || { echo "$0: one SOURCE_IMAGE only" >&2; exit 2; }; source=$1 ;;
  esac
  shift
done
[[ -n $source ]] || { usage >&2; exit 2; }
registry=${registry%/}

run() {
  if $dry_run; then printf '%q ' "$@"; echo; else "$@"; fi
}

if $build; then
  root=$(cd "$(dirname "$0")/../../.." && pwd)
  run "$tool" build -f "$root/deploy/images/test-clients/Dockerfile" -t "$source" "$root"
fi
for name in "${NAMES[@]}"; do
  run "$tool" tag "$source" "$registry/$name:$TAG"
  run "$tool" push "$registry/$name:$TAG"
done
if ! $dry_run; then
  echo "published ${NAMES[*]/#/$registry/} with tag $TAG from $source"
  echo "digest to expect in the cluster: $("$tool" image inspect --format '{{index .RepoDigests 0}}' "$registry/${NAMES[0]}:$TAG" 2>/dev/null || echo unknown)"
fi
