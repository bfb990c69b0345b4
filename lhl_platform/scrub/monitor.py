"""What ContractScrub monitors across audit rounds: recall (primary), precision and F1 per category, overall as the
mean over the categories (as the leaderboard forms it)."""

from lhl_platform.monitoring.declaration import Monitor, MonitorMetric
from lhl_platform.scrub.categories import CATEGORIES

MONITOR = Monitor(
    headline="scrub_leaderboard",
    mart="scrub_monitor",
    metrics=(MonitorMetric("recall", "Recall"), MonitorMetric("precision", "Precision"),
             MonitorMetric("f1", "F1", kind="f1")),
    overall="macro", unit="gold tuples, predictions or matching atoms",
    category_labels=tuple((c.key, c.title) for c in CATEGORIES))
