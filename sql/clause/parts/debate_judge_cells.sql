-- depends_on: debate_instances
-- Per debated (backbone, run, subset, configuration, contract): whether the scope's judge labelled the cell before
-- the debate (the baseline's TPs) and after it (the debate's), by the rule of `judge_cells` (`labelled_cell`), so
-- the debate's content figures rest on the cells the judge labelled, like every other content figure.
with cells as (
    select backbone, run, subset, config, contract_id,
           count(*) filter (where outcome_base = 'TP') as tp_base,
           count(*) filter (where outcome_base = 'TP' and verdict_base is not null) as judged_base,
           count(*) filter (where outcome_debate = 'TP') as tp_debate,
           count(*) filter (where outcome_debate = 'TP' and verdict_debate is not null) as judged_debate
    from debate_instances
    group by backbone, run, subset, config, contract_id
)
select backbone, run, subset, config, contract_id,
       labelled_cell(tp_base, judged_base, sum(tp_base) over side, sum(judged_base) over side) as labelled_base,
       labelled_cell(tp_debate, judged_debate, sum(tp_debate) over side, sum(judged_debate) over side)
           as labelled_debate
from cells
window side as (partition by backbone, run, subset, config)
