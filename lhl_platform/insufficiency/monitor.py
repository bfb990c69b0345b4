"""What InsufficiencyBench monitors across audit rounds: F2, recall, hedge rate and over-flag overall (means of
per-item values, as the leaderboard forms them) and recall per element category (pooled)."""

from lhl_platform.monitoring.declaration import Monitor, MonitorMetric

MONITOR = Monitor(
    headline="insufficiency_leaderboard",
    mart="insufficiency_monitor",
    metrics=(MonitorMetric("f2", "F2"), MonitorMetric("recall", "Recall"),
             MonitorMetric("hedge_rate", "Hedge rate", better="none"),
             MonitorMetric("over_flag", "Over-flag (base queries)", better="lower")),
    unit="responses or gold elements")
