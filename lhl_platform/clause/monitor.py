"""What the clause suite monitors across audit rounds: detection (FAR, FRR) over every returned instance and
content (HalTP, HalGen, JEq, RDI) over the TPs the scope's judge labelled, overall and per category, pooled as the
leaderboard pools them."""

from lhl_platform.monitoring.declaration import Monitor, MonitorMetric

MONITOR = Monitor(
    headline="leaderboard",
    mart="clause_monitor",
    metrics=(MonitorMetric("far", "FAR", better="lower"), MonitorMetric("frr", "FRR", better="lower"),
             MonitorMetric("hal_tp", "HalTP", better="lower"), MonitorMetric("hal_gen", "HalGen", better="lower"),
             MonitorMetric("jeq", "JEq"),
             MonitorMetric("rdi", "RDI", better="none", low=-1.0, high=1.0, signed=True)),
    unit="instances or judged TPs")
