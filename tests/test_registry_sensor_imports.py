"""The registry sensor and a model whose outcomes were only imported (`lhl import outcomes`, no extraction): the
import records events, never Dagster partitions, so the model is no partition of the clause audit, never a missing
one, and the sensor neither offers nor withdraws anything for it. Registered as well (a model under test), it is
offered like any other and withdrawn once audited in another suite, since every key it holds in the clause audit's
dimensions then is a missing partition."""

from __future__ import annotations

from pathlib import Path

from dagster import AssetKey, build_sensor_context, instance_for_test

from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.home import Home
from orchestration.automation import model_registry_sensor
from orchestration.cli import main
from resources import LhlHome

OUTCOMES = Path(__file__).resolve().parents[1] / "docs" / "examples" / "outcomes.csv"
IMPORTED = "vendor-x"  # the model the example file holds


def _imported(home: Home) -> set[str]:
    """The models whose outcomes the home holds as imported rows."""
    return {e.subject.split("/")[0] for e in home.events.read() if e.type == "outcome.imported"}


def test_an_imported_model_is_never_a_missing_partition_and_the_sensor_leaves_it_alone(tmp_path: Path) -> None:
    home = Home.resolve(tmp_path)
    assert main(["--home", str(home.root), "ingest", "cuad", str(DEMO_DIR)]) == 0
    assert main(["--home", str(home.root), "import", "outcomes", str(OUTCOMES)]) == 0
    assert IMPORTED in _imported(home)
    with instance_for_test() as instance:
        def tick() -> list[tuple[str, str, list[str]]]:
            result = model_registry_sensor(build_sensor_context(instance=instance,
                                                                resources={"lhl": LhlHome(path=str(home.root))}))
            return [(type(r).__name__, r.partitions_def_name, list(r.partition_keys))
                    for r in result.dynamic_partitions_requests]

        # Another model's clause audit has opened run 1; the imported model is in no dimension and nothing is asked.
        instance.add_dynamic_partitions("run", ["1"])
        assert tick() == []
        assert IMPORTED not in instance.get_dynamic_partitions("model")
        assert instance.get_materialized_partitions(AssetKey("extractions")) == set()

        # Registered as a model under test: offered a clause partition, as any unaudited model is.
        assert main(["--home", str(home.root), "models", "add", IMPORTED, "--provider", "offline",
                     "--model-id", "lexical"]) == 0
        assert tick() == [("AddDynamicPartitionsRequest", "model", [IMPORTED])]
        instance.add_dynamic_partitions("model", [IMPORTED])
        assert tick() == []
        # Audited in another suite: its clause keys are all missing partitions (its clause outcomes are imported
        # events, not materializations), so the offer is withdrawn; the imported outcomes stay where they are.
        instance.add_dynamic_partitions("insufficiency_partition.model", [IMPORTED])
        assert tick() == [("DeleteDynamicPartitionsRequest", "model", [IMPORTED])]
    assert IMPORTED in _imported(home)
