-- depends_on: int_debate_outcomes, int_debate_scope, int_verdicts, int_debate_verdicts, scope, scope_models, scope_runs, scope_contracts
-- Base versus debate on the same instances: every debated instance in scope (its corpus, runs and contracts;
-- its backbone or its debate system among the models) with the baseline's outcome and the report judge's
-- verdict on it, the debate's outcome and the same judge's verdict on that, per stored subset debated.
select
    o.backbone, o.system, o.run, d.subset, o.config_kind as config, o.config_hash, o.contract_id, o.clause_type,
    o.category, o.outcome_base, o.outcome_debate,
    case when o.outcome_base = 'TP' then b.verdict end as verdict_base,
    case when o.outcome_base = 'TP' then b.mismatch_type end as mismatch_base,
    case when o.outcome_debate = 'TP' then v.verdict end as verdict_debate,
    case when o.outcome_debate = 'TP' then v.mismatch_type end as mismatch_debate,
    o.flipped, o.text_changed, o.rounds, o.consensus, o.re_extracted, o.arbitrated, o.calls, o.reused_calls,
    o.input_tokens, o.output_tokens
from int_debate_outcomes o
join int_debate_scope d
    on d.backbone = o.backbone and d.run = o.run and d.config_hash = o.config_hash and d.contract_id = o.contract_id
left join int_verdicts b
    on b.judge = (select judge from scope) and b.model = o.backbone and b.run = o.run
   and b.contract_id = o.contract_id and b.clause_type = o.clause_type
left join int_debate_verdicts v
    on v.judge = (select judge from scope) and v.model = o.system and v.run = o.run
   and v.contract_id = o.contract_id and v.clause_type = o.clause_type
where o.corpus_id = (select corpus_id from scope)
  and o.run in (select run from scope_runs)
  and o.contract_id in (select contract_id from scope_contracts)
  and (o.backbone in (select model from scope_models) or o.system in (select model from scope_models))
