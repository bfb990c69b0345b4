-- depends_on: stg_debate_outcomes, int_debate_configs, oracle
-- One row per instance of each current debate, with the oracle label and the detection outcome before the
-- debate (the baseline's decision) and after it (the final decision).
with outcomes as (
    select o.*, c.system, c.config_kind, c.corpus_id
    from stg_debate_outcomes o
    join int_debate_configs c
        on c.backbone = o.backbone and c.run = o.run and c.config_hash = o.config_hash and c.is_current
    qualify row_number() over (partition by o.backbone, o.run, o.config_hash, o.contract_id, o.clause_type
                               order by o.time, o.seq) = 1
)
select
    o.corpus_id, o.backbone, o.system, o.config_kind, o.config_hash, o.config_name, o.run, o.contract_id,
    o.clause_type, o.category, g.present as gt_present, o.baseline_present, o.final_present,
    array_to_string(o.final_quotes, ' ... ') as final_text,
    case when g.present and o.baseline_present then 'TP' when o.baseline_present then 'FP'
         when g.present then 'FN' else 'TN' end as outcome_base,
    case when g.present and o.final_present then 'TP' when o.final_present then 'FP'
         when g.present then 'FN' else 'TN' end as outcome_debate,
    o.flipped, o.text_changed, o.rounds, o.consensus, o.re_extracted, o.arbitrated, o.calls, o.reused_calls,
    o.input_tokens, o.output_tokens, o.cached_tokens, o.time
from outcomes o
join oracle g on g.corpus_id = o.corpus_id and g.contract_id = o.contract_id and g.clause_type = o.clause_type
