"""The clause suite's report: its rows and marts, the build from the warehouse, its statistics, verdict, comparison,
renderings and publication; the shared layout, labels, HTML shell and publishing are `lhl_platform/report/`'s."""
