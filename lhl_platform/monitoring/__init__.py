"""Post-deployment monitoring, written once for every suite: each audit round (run) of each model as a point per
headline metric and category (`series`), each new round tested against the model's recent rounds with the
multiplicity of the round's tests controlled (`detect`), rendered as a table, JSON, CSV, Markdown or a trend page
(`render`, `trend`). A suite declares what to monitor (`Monitor`, `declaration`) and one SQL mart with the
sufficient statistics of each point; the estimates and the test are here (`estimate`), so the SQL holds counts and
every formula is defined once."""
