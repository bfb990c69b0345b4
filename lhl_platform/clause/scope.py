"""The clause suite's scope, as the catalog declares it and the suite states it (`lhl_platform.warehouse.scope`).

Its items are the contracts of a corpus (the active one by default) or of a stored subset; its cells are the
(corpus, model, run, contract) cells each system was asked to cover; the judge that labels its true positives is
the primary one unless one is named, and any registered judge may be named (one with no verdicts gives null
content figures). Its tables are the shared `scope*` ones: the suites without a scope of their own (LexFlip's
judge validations) are computed in it too.
"""

from lhl_platform.warehouse.scope import SuiteScope

SCOPE = SuiteScope(suite="clause", items="corpus", cells="int_audit_scope", judged=True, judgments="int_verdicts",
                   registered=True, shared=True)
