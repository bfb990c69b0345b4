"""The UI checked as a user would: the real webserver for a materialized demo home, on 127.0.0.1, behind the
loopback guard the README tells users to start it with (`python -m orchestration.webserver`), asked through
GraphQL for every asset, the lineage edges, the model x run partitions and the check results; the lineage page
rendered by headless Chromium (skipped when Chromium is absent); and the requests a web page could forge
(a mutation over GET, another Origin, another Host) refused."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
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
        server = subprocess.Popen([sys.executable, "-m", "orchestration.webserver", "-h", "127.0.0.1", "-p", str(port),
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


def test_graphql_shows_every_asset_the_lineage_the_partitions_and_the_checks(webserver, demo_home):
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
    assert "metric_cube" in deps("leaderboard") and "clause_monitor" in deps("model_drift")
    assert "extractions" in deps("debate_outcomes") and "debate_outcomes" in deps("debate_verdicts")

    def dims(name):
        return {d["name"]: set(d["partitionKeys"]) for d in nodes[name]["partitionKeysByDimension"]}

    # Each suite job's own dimensions: the models audited through it, never a judge or another suite's model.
    from lhl_platform.suites import get_suite

    assert dims("model_profiles") == {"model": {"lexical", "sim-inventor", "sim-omitter", "sim-balanced"},
                                      "run": {"1", "2"}}
    for stage, suite in (("insufficiency_responses", "insufficiency"), ("scrub_findings", "contractscrub")):
        demo = get_suite(suite).demo
        assert demo is not None and dims(stage) == {"model": {s.name for s, _ in demo.models}, "run": {"1"}}
    assert nodes["model_profiles"]["isPartitioned"] and not nodes["leaderboard"]["isPartitioned"]

    def checks(name):
        return {c["name"]: c["executionForLatestMaterialization"]
                for c in nodes[name]["assetChecksOrError"].get("checks", [])}

    outcome_checks = checks("instance_outcomes")
    assert {"rows_complete", "labels_in_domain", "every_tp_judged", "no_duplicate_instances",
            "great_expectations_suite", "comparable_scope"} <= set(outcome_checks)
    for name in ("rows_complete", "every_tp_judged", "no_duplicate_instances", "labels_in_domain"):
        assert outcome_checks[name]["status"] == "SUCCEEDED" and outcome_checks[name]["evaluation"]["success"]
    assert checks("model_drift")["same_served_model"]["status"] in ("SUCCEEDED", "FAILED")


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


def _send(url: str, path: str = "/graphql", data: bytes | None = None, **headers: str) -> tuple[int, bytes]:
    """One request with exactly these headers (Host included, when given); the status and the body."""
    request = urllib.request.Request(f"{url}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _json(query: str) -> bytes:
    return json.dumps({"query": query}).encode()


SCHEDULE_STATE = """{ schedulesOrError(repositorySelector: {repositoryLocationName: "orchestration.definitions",
  repositoryName: "__repository__"}) { ... on Schedules { results { name scheduleState { status } } } } }"""
START = ('mutation { startSchedule(scheduleSelector: {repositoryLocationName: "orchestration.definitions", '
         'repositoryName: "__repository__", scheduleName: "nightly_metrics_schedule"}) { __typename } }')


def _nightly(url: str) -> str:
    results = _graphql(url, SCHEDULE_STATE)["schedulesOrError"]["results"]
    return next(r["scheduleState"]["status"] for r in results if r["name"] == "nightly_metrics_schedule")


def test_a_mutation_sent_as_a_get_or_a_form_is_refused_and_changes_nothing(webserver):
    assert _nightly(webserver) == "STOPPED"
    query = urllib.parse.urlencode({"query": START})
    assert _send(webserver, f"/graphql?{query}")[0] == 403  # what an <img src=...> on any page would send
    form = _send(webserver, f"/graphql?{query}", data=b"", **{"Content-Type": "application/x-www-form-urlencoded"})
    assert form[0] == 403  # a form POST needs no CORS preflight
    text = _send(webserver, data=_json(START), **{"Content-Type": "text/plain"})
    assert text[0] == 415  # nor does a text/plain body, which the server would otherwise read as JSON
    assert _nightly(webserver) == "STOPPED"
    # A query in a URL still works: only operations that change something must be POSTed.
    status, body = _send(webserver, f"/graphql?{urllib.parse.urlencode({'query': '{ version }'})}")
    assert status == 200 and json.loads(body)["data"]["version"]


def test_another_origin_or_host_is_refused_and_the_ui_s_own_requests_pass(webserver):
    port = urllib.parse.urlsplit(webserver).port
    query, js = _json("{ version }"), {"Content-Type": "application/json"}
    assert _send(webserver, data=query, **js, Origin="http://attacker.example")[0] == 403
    assert _send(webserver, data=query, **js, Origin="null")[0] == 403
    # DNS rebinding: the browser thinks it talks to attacker.example, and says so in the Host header.
    assert _send(webserver, data=query, **js, Host=f"attacker.example:{port}")[0] == 400
    assert _send(webserver, "/server_info", Host=f"attacker.example:{port}")[0] == 400
    assert _send(webserver, data=query, **js, Host=f"127.0.0.1:{port + 1}")[0] == 400
    for origin in (webserver, f"http://localhost:{port}"):  # the UI's own POSTs, from either loopback name
        assert _send(webserver, data=query, **js, Origin=origin, Host=urllib.parse.urlsplit(origin).netloc)[0] == 200
    assert _send(webserver, data=query, **js)[0] == 200  # a script on this machine sends no Origin


def _websocket_status(url: str, origin: str) -> int:
    """The status line's code of a GraphQL WebSocket handshake from `origin`."""
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as conn:
        conn.sendall((f"GET /graphql HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-ws\r\nOrigin: {origin}\r\n\r\n")
                     .encode())
        return int(conn.recv(4096).split(b" ", 2)[1])


def test_a_websocket_from_another_origin_is_refused(webserver):
    assert _websocket_status(webserver, "http://attacker.example") == 403
    assert _websocket_status(webserver, webserver) == 101


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found (/usr/bin/chromium); the rendered UI needs it")
def test_the_ui_behind_the_guard_loads_its_data_in_a_browser(webserver):
    # The group names come from the UI's own GraphQL requests (same-origin POSTs, which carry an Origin
    # header): they are on the page only if the guard let the UI's requests through.
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=20000", "--dump-dom",
               f"{webserver}/asset-groups"]
    dom = subprocess.run(command, check=True, capture_output=True, timeout=120, text=True).stdout
    assert {"intermediate", "monitoring", "profiles", "debate"} <= set(re.findall(r"[a-z]+", dom))
