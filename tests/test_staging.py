"""Staging models are generated from the payload classes: one typed table per registered event type, and the
only SQL that reads raw events."""

from __future__ import annotations

from lhl_platform.domain.models import Usage
from lhl_platform.events.kinds import registered_kinds
from lhl_platform.events.log import EventLog
from lhl_platform.events.payloads import EventType, ModelCall
from lhl_platform.home import Home
from lhl_platform.warehouse.build import apply_models, connect, sql_models
from lhl_platform.warehouse.staging import META_COLUMNS, model_structure


def test_every_registered_event_type_has_exactly_one_staging_model_and_nothing_else_reads_events():
    models = sql_models()
    staging = {m.name: m for m in models if m.layer == "staging"}
    kinds = registered_kinds()
    assert sorted(staging) == sorted(k.staging for k in kinds)
    for kind in kinds:
        assert f"type = '{kind.name}'" in staging[kind.staging].sql
    readers = [m.name for m in models if m.layer != "staging" and "from events" in m.sql.lower()]
    assert readers == []
    assert {"extraction.recorded", "verdict.recorded", "debate.outcome", "judge.validated", "model.call"} <= {
        k.name for k in kinds}


def _call(**changes: object) -> ModelCall:
    values: dict[str, object] = dict(
        request_key="k", subject="c1", model="m", provider="offline", model_id="lexical", prompt_version="p", run=1,
        params={"algorithm": "v1"}, finish_reason="stop", error=None, latency_s=0.5,
        usage=Usage(input_tokens=7, output_tokens=3), content={"clauses": []})
    values.update(changes)
    return ModelCall(**values)  # type: ignore[arg-type]


def test_a_staging_table_holds_every_payload_field_typed_and_null_where_an_older_payload_lacks_one(tmp_path):
    home = Home.resolve(tmp_path / "home")
    log = EventLog(home.events.root)
    with log.writer("calls") as w:
        w.append(EventType.MODEL_CALL, "c1", "a", _call(stage="extraction", item="c1", audit_run=None))
        w.append(EventType.MODEL_CALL, "c2", "b", _call(subject="c2", batch_id="job-1"))
    con = connect()
    con.execute("create table events as select * from read_parquet(?)", [[str(p) for p in log.segments()]])
    apply_models(con, ("staging",))
    columns = [name for name, *_ in con.execute("describe stg_model_calls").fetchall()]
    assert columns == [*model_structure(ModelCall), *META_COLUMNS]
    rows = con.execute("select subject, usage.input_tokens, usage.output_tokens, stage, batch_id, params "
                       "from stg_model_calls order by subject").fetchall()
    assert rows[0][:5] == ("c1", 7, 3, "extraction", None)
    assert rows[1][:5] == ("c2", 7, 3, "", "job-1")
    assert '"algorithm":"v1"' in rows[0][5].replace(" ", "")
