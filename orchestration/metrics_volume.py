"""The metrics job's warm home on Kubernetes: a `dagster-k8s/config` tag that mounts a persistent volume claim over
the home's event-log mirror (`events/`: the manifests and the segment cache) and its warehouse (`warehouse/`), so a
metrics run pod refreshes only what was committed since the last metrics run instead of the whole shared store.

Set only when the deployment names the claim (`LHL_METRICS_HOME_CLAIM`, deployments/production/): anywhere else the
job has no such tag, and run launchers other than dagster-k8s's ignore it anyway.

`merge_behavior` is DEEP (dagster-k8s's default, stated so a later edit cannot flip it unseen): lists are appended
to the run launcher's, so the claim's mounts join the scratch home the instance mounts at the home's path. SHALLOW
would replace the launcher's `volumes` and `volume_mounts` lists with these, unmounting the scratch home itself.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import PurePosixPath

METRICS_CLAIM_ENV = "LHL_METRICS_HOME_CLAIM"
K8S_CONFIG_TAG = "dagster-k8s/config"
VOLUME = "lhl-metrics-home"
# What a refresh reads and writes: the mirror (manifests, segment cache) and the warehouse. The rest of the home
# (corpora fetched on use, the per-run Dagster folder) stays on the pod's scratch.
KEPT = ("events", "warehouse")


def metrics_job_tags(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The metrics job's tags: the claim's volume when `LHL_METRICS_HOME_CLAIM` names one, else none."""
    env = os.environ if env is None else env
    claim = env.get(METRICS_CLAIM_ENV, "").strip()
    if not claim:
        return {}
    home = PurePosixPath(env.get("LHL_HOME") or "/lhl/home")
    config = {
        "container_config": {"volume_mounts": [{"name": VOLUME, "mount_path": str(home / part), "sub_path": part}
                                               for part in KEPT]},
        "pod_spec_config": {"volumes": [{"name": VOLUME, "persistent_volume_claim": {"claim_name": claim}}]},
        "merge_behavior": "DEEP",
    }
    return {K8S_CONFIG_TAG: json.dumps(config)}
