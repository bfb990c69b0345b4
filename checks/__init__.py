"""Asset checks on the whole audit (the partition-level checks run inside the partitioned assets)."""
