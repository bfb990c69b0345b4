-- depends_on: int_insufficiency_judgments, insufficiency_cells, insufficiency_scope, insufficiency_scope_models, insufficiency_scope_runs
-- The judgments in scope: the scope's item set and judge, its models and runs, cells some partition was asked for.
select j.*
from int_insufficiency_judgments j
semi join insufficiency_cells c on c.model = j.model and c.run = j.run and c.item = j.item and c.item_set = j.item_set
where j.item_set = (select item_set from insufficiency_scope) and j.judge = (select judge from insufficiency_scope)
  and j.model in (select model from insufficiency_scope_models) and j.run in (select run from insufficiency_scope_runs)
