"""deployments/production/kubernetes.yaml against the Kubernetes API's own models (through dagster-k8s's strict
parser, which refuses a key the model does not have), and the shared store's environment where it is needed:
the daemon and the webserver get the same store settings as the run pods, and no pod mounts a shared volume."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

PRODUCTION = Path(__file__).resolve().parents[1] / "deployments" / "production"
KINDS = {"ServiceAccount": "V1ServiceAccount", "Role": "V1Role", "RoleBinding": "V1RoleBinding",
         "PersistentVolumeClaim": "V1PersistentVolumeClaim", "Deployment": "V1Deployment", "Service": "V1Service"}


def _documents() -> list[dict]:
    text = (PRODUCTION / "kubernetes.yaml").read_text().replace("${LHL_IMAGE}", "registry.example/lhl:1")
    return [d for d in yaml.safe_load_all(text) if d]


def _parse(doc: dict):
    import kubernetes.client
    from dagster_k8s.models import k8s_model_from_dict, k8s_snake_case_dict

    model = getattr(kubernetes.client, KINDS[doc["kind"]])
    return k8s_model_from_dict(model, k8s_snake_case_dict(model, doc))


def test_every_manifest_is_a_valid_kubernetes_object_and_a_typo_is_caught():
    pytest.importorskip("dagster_k8s", reason="the production extra (dagster-k8s) is not installed")
    docs = _documents()
    assert sorted(d["kind"] for d in docs) == sorted(["ServiceAccount", "Role", "RoleBinding",
                                                      "PersistentVolumeClaim", "Deployment", "Deployment", "Service"])
    for doc in docs:
        _parse(doc)
    daemon = next(d for d in docs if d["metadata"]["name"] == "lhl-dagster-daemon")
    container = daemon["spec"]["template"]["spec"]["containers"][0]
    with pytest.raises(Exception, match="envFrm"):  # the parser really checks the keys
        _parse({**daemon, "spec": {**daemon["spec"], "template": {"spec": {"containers": [
            {**container, "envFrm": container["envFrom"]}]}}}})


def test_the_daemon_and_webserver_get_the_run_pods_store_settings_and_no_pod_shares_a_volume():
    pytest.importorskip("dagster_k8s", reason="the production extra (dagster-k8s) is not installed")
    docs = _documents()
    instance = yaml.safe_load((PRODUCTION / "dagster.yaml").read_text())["run_launcher"]["config"]
    launcher = _parse(next(d for d in docs if d["kind"] == "ServiceAccount"))
    assert launcher.metadata.name == instance["service_account_name"]
    store_secrets = set(instance["env_secrets"]) - {"lhl-provider-keys"}  # provider keys: run pods only
    assert {"lhl-store", "lhl-dagster-pg"} <= store_secrets
    claims = {d["metadata"]["name"]: d for d in docs if d["kind"] == "PersistentVolumeClaim"}
    for name in ("lhl-dagster-daemon", "lhl-dagster-webserver"):
        spec = _parse(next(d for d in docs if d["metadata"]["name"] == name)).spec.template.spec
        (container,) = spec.containers
        env = {e.name: e.value for e in container.env}
        assert env["LHL_HOME"] and env["DAGSTER_HOME"] and env["LHL_IMAGE"] == "registry.example/lhl:1"
        secrets = {s.secret_ref.name for s in container.env_from if s.secret_ref}
        config_maps = {s.config_map_ref.name for s in container.env_from if s.config_map_ref}
        assert secrets == store_secrets and config_maps == set(instance["env_config_maps"]), name
        assert "lhl-provider-keys" not in secrets  # no paid call is made from here
        mounts = {m.mount_path: m for m in container.volume_mounts}
        assert {m.sub_path for m in mounts.values() if m.name == "instance"} == {"dagster.yaml", "workspace.yaml"}
        assert mounts[env["LHL_HOME"]].name == "home"
        assert (container.command[-1].rsplit("/", 1)[-1], env["DAGSTER_HOME"]) == (
            "workspace.yaml", container.command[-1].rsplit("/", 1)[0])
        home = next(v for v in spec.volumes if v.name == "home")
        if name == "lhl-dagster-daemon":  # a home of its own that outlives the pod, on one node at a time
            assert claims[home.persistent_volume_claim.claim_name]["spec"]["accessModes"] == ["ReadWriteOnce"]
        else:
            assert home.empty_dir is not None and home.persistent_volume_claim is None
    # The run pods: local scratch only.
    assert [v for v in instance["volumes"] if "persistentVolumeClaim" in v or "nfs" in v] == []
