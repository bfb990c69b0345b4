"""The UI checked as a user would: the real webserver for a materialized demo home, on 127.0.0.1, asked
through GraphQL for every asset, the lineage edges, the model x run partitions and the check results; and the
lineage page rendered by headless Chromium (skipped when Chromium is absent)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from orchestration.definitions import defs

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser"))
                 if p and Path(p).exists()), None)
ASSETS = """{ assetNodes { assetKey { path } dependencyKeys { path } isPartitioned
  partitionKeysByDimension { name partitionKeys }
  assetChecksOrError { ... on AssetChecks { checks { name
    executionForLatestMaterialization { status evaluation { success } } } } } } }"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _graphql(url: str, query: str) -> dict:
    request = urllib.request.Request(f"{url}/graphql", data=json.dumps({"query": query}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        body = json.loads(response.read())
    assert "errors" not in body, body.get("errors")
    return body["data"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def webserver(demo_home, tmp_path_factory):
    port = _free_port()
    log_path = tmp_path_factory.mktemp("webserver") / "webserver.log"
    env = {**os.environ, "DAGSTER_HOME": str(Path(demo_home) / "dagster"), "LHL_HOME": str(demo_home)}
    with log_path.open("w") as log:
        server = subprocess.Popen([sys.executable, "-m", "dagster_webserver", "-h", "127.0.0.1", "-p", str(port),
                                   "-m", "orchestration.definitions"], env=env, stdout=log, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/server_info", timeout=5) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                assert server.poll() is None, log_path.read_text()[-2000:]
                assert time.monotonic() < deadline, "webserver did not start: " + log_path.read_text()[-2000:]
                time.sleep(0.5)
            yield url
        finally:
            os.killpg(server.pid, 15)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, 9)


def test_graphql_shows_every_asset_the_lineage_the_partitions_and_the_checks(webserver):
    nodes = {"/".join(n["assetKey"]["path"]): n for n in _graphql(webserver, ASSETS)["assetNodes"]}
    expected = {k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()}
    assert set(nodes) == expected
    assert {"contracts", "oracle", "extractions", "judge_verdicts", "model_profiles", "leaderboard", "rdi",
            "composite_ranks", "model_drift", "debate_outcomes", "debate_verdicts"} <= set(nodes)

    def deps(name):
        return {"/".join(d["path"]) for d in nodes[name]["dependencyKeys"]}

    assert {"contracts", "oracle"} <= deps("extractions")
    assert "extractions" in deps("judge_verdicts")
    assert {"extractions", "judge_verdicts"} <= deps("model_profiles")
    assert "model_profiles" in deps("stg_extractions")
    assert "metric_cube" in deps("leaderboard") and "drift_cells" in deps("model_drift")
    assert "extractions" in deps("debate_outcomes") and "debate_outcomes" in deps("debate_verdicts")

    dims = {d["name"]: set(d["partitionKeys"]) for d in nodes["model_profiles"]["partitionKeysByDimension"]}
    assert dims == {"model": {"lexical", "sim-inventor", "sim-omitter", "sim-balanced"}, "run": {"1", "2"}}
    assert nodes["model_profiles"]["isPartitioned"] and not nodes["leaderboard"]["isPartitioned"]

    def checks(name):
        return {c["name"]: c["executionForLatestMaterialization"]
                for c in nodes[name]["assetChecksOrError"].get("checks", [])}

    outcome_checks = checks("instance_outcomes")
    assert {"rows_complete", "labels_in_domain", "every_tp_judged", "no_duplicate_instances",
            "great_expectations_suite", "comparable_scope"} <= set(outcome_checks)
    for name in ("rows_complete", "every_tp_judged", "no_duplicate_instances", "labels_in_domain"):
        assert outcome_checks[name]["status"] == "SUCCEEDED" and outcome_checks[name]["evaluation"]["success"]
    assert checks("model_drift")["no_drift"]["status"] in ("SUCCEEDED", "FAILED")


def test_partition_materializations_of_the_profiles_are_visible(webserver):
    query = """{ assetNodeOrError(assetKey: {path: ["model_profiles"]}) { ... on AssetNode {
        assetPartitionStatuses { ... on MultiPartitionStatuses { primaryDimensionName
            ranges { primaryDimStartKey primaryDimEndKey secondaryDim {
                ... on DefaultPartitionStatuses { materializedPartitions } } } } } } } }"""
    statuses = _graphql(webserver, query)["assetNodeOrError"]["assetPartitionStatuses"]
    materialized = {(r["primaryDimStartKey"], key) for r in statuses["ranges"]
                    for key in r["secondaryDim"]["materializedPartitions"]}
    assert len(materialized) >= 2 and statuses["primaryDimensionName"] in ("model", "run")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found (/usr/bin/chromium); the lineage screenshot needs it")
def test_the_lineage_page_renders_headless(webserver, tmp_path):
    shot = Path(os.environ.get("LHL_UI_SCREENSHOT", tmp_path / "lineage.png"))
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--window-size=1600,1000", "--virtual-time-budget=20000", f"--screenshot={shot}",
               f"{webserver}/asset-groups"]
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 20_000  # a rendered page, not a blank one
