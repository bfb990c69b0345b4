-- depends_on: int_debate_outcomes, clause_taxonomy
-- The debated outputs as instances of the debate system (`<backbone>+debate`, or `<backbone>+debate-generic` for
-- the ablation), shaped like int_instance_rows so that instance_rows takes them in beside every model.
select
    o.corpus_id, o.system as model, o.run, o.contract_id, o.clause_type, t.category, o.gt_present,
    o.final_present as predicted_present, o.outcome_debate as outcome,
    null::varchar as imported_verdict, null::varchar as imported_mismatch_type, 'debate' as source, o.time
from int_debate_outcomes o
join clause_taxonomy t on t.clause_type = o.clause_type
