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
    assert sorted(d["kind"] for d in docs) == sorted(["ServiceAccount", "Role", "RoleBinding", "PersistentVolumeClaim",
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


def _run_pod(tags: dict[str, str]):
    """The metrics run pod's container and pod spec as dagster-k8s builds them for a run with these tags: the run
    launcher's settings (dagster.yaml) merged with the run's `dagster-k8s/config` tag, parsed strictly."""
    import kubernetes.client
    from dagster_k8s.container_context import K8sContainerContext
    from dagster_k8s.job import UserDefinedDagsterK8sConfig, get_user_defined_k8s_config
    from dagster_k8s.models import k8s_model_from_dict

    launcher = yaml.safe_load((PRODUCTION / "dagster.yaml").read_text())["run_launcher"]["config"]
    context = K8sContainerContext(
        env_vars=launcher["env_vars"], volume_mounts=launcher["volume_mounts"], volumes=launcher["volumes"],
        run_k8s_config=UserDefinedDagsterK8sConfig.from_dict(launcher["run_k8s_config"]),
    ).merge(K8sContainerContext(run_k8s_config=get_user_defined_k8s_config(tags)))
    config = context.run_k8s_config
    container = {"name": "dagster", "image": "registry.example/lhl:1", **config.container_config}
    pod = k8s_model_from_dict(kubernetes.client.V1PodSpec,
                              {"containers": [container], "restart_policy": "Never", **config.pod_spec_config})
    return pod.containers[0], pod


def test_the_metrics_job_mounts_the_metrics_claim_over_its_homes_cache_only_when_the_deployment_names_it(
        monkeypatch):
    pytest.importorskip("dagster_k8s", reason="the production extra (dagster-k8s) is not installed")
    from orchestration.definitions import build_definitions
    from orchestration.metrics_volume import METRICS_CLAIM_ENV, metrics_job_tags

    claims = {d["metadata"]["name"]: d for d in _documents() if d["kind"] == "PersistentVolumeClaim"}
    claim = claims["lhl-metrics-home"]
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]  # one metrics run at a time (the lhl_warehouse pool)
    launcher = yaml.safe_load((PRODUCTION / "dagster.yaml").read_text())["run_launcher"]["config"]
    home = dict(v.split("=", 1) for v in launcher["env_vars"])["LHL_HOME"]

    # Not named: no tag, and the pod is the launcher's (the scratch home only).
    monkeypatch.delenv(METRICS_CLAIM_ENV, raising=False)
    assert metrics_job_tags() == {}
    container, pod = _run_pod({})
    assert [(m.name, m.mount_path) for m in container.volume_mounts] == [("lhl-home", home)]

    # Named (the config map lhl-settings, which the daemon's code location reads): the claim's mounts join the
    # scratch home, over the mirror and the warehouse, each volume and mount path once.
    env = {METRICS_CLAIM_ENV: "lhl-metrics-home", "LHL_HOME": home}
    tags = metrics_job_tags(env)
    container, pod = _run_pod(tags)
    mounts = {m.mount_path: m for m in container.volume_mounts}
    assert mounts[home].name == "lhl-home"
    assert {(path, m.sub_path) for path, m in mounts.items() if path != home} == {
        (f"{home}/events", "events"), (f"{home}/warehouse", "warehouse")}
    volumes = {v.name: v for v in pod.volumes}
    assert len(volumes) == len(pod.volumes) and len(mounts) == len(container.volume_mounts)
    assert volumes["lhl-home"].empty_dir is not None
    (kept,) = {mounts[f"{home}/events"].name, mounts[f"{home}/warehouse"].name}
    assert volumes[kept].persistent_volume_claim.claim_name in claims
    assert container.resources.limits == {"memory": "4Gi"}  # the launcher's own settings stay
    # Why DEEP: SHALLOW would replace the launcher's volume lists, unmounting the scratch home.
    shallow = {k: v.replace('"DEEP"', '"SHALLOW"') for k, v in tags.items()}
    assert home not in {m.mount_path for m in _run_pod(shallow)[0].volume_mounts}

    # The metrics job of the code location carries the tag exactly when the setting is given.
    for value, expected in (("lhl-metrics-home", tags), ("", {})):
        monkeypatch.setenv(METRICS_CLAIM_ENV, value)
        monkeypatch.setenv("LHL_HOME", home)
        job_tags = build_definitions().resolve_job_def("metrics").tags
        assert {k: v for k, v in job_tags.items() if k.startswith("dagster-k8s/")} == expected
