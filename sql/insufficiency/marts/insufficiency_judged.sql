-- depends_on: int_insufficiency_judgments, int_insufficiency_gold, insufficiency_cells, insufficiency_scope, insufficiency_scope_models, insufficiency_scope_runs
-- The judgments in scope: the scope's item set and judge, its models and runs, cells some partition was asked for,
-- items kept in the gold version in scope (a variant a review rejected is no longer scored).
select j.*
from int_insufficiency_judgments j
semi join insufficiency_cells c on c.model = j.model and c.run = j.run and c.item = j.item and c.item_set = j.item_set
semi join int_insufficiency_gold g on g.item_set = j.item_set and g.item = j.item
    and g.gold_version = (select gold_version from insufficiency_scope)
where j.item_set = (select item_set from insufficiency_scope) and j.judge = (select judge from insufficiency_scope)
  and j.model in (select model from insufficiency_scope_models) and j.run in (select run from insufficiency_scope_runs)
