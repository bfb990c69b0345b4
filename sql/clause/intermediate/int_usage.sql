-- depends_on: int_call_costs, int_debate_configs, stg_debate_verdicts, stg_debate_verdict_failures
-- partition_by: run
-- stored_as: parquet
-- The clause suite's calls, one source (`int_call_costs`: every call, priced), attributed to the audited (model, run, contract): extraction
-- calls to the extracting model, judge calls to the judged model or debate system (billed to the judge), debate
-- role calls to the debate system (billed to the backbone, counted as its extraction). Of a debate, only the
-- current configuration's calls count; a judge's verdict on a debated output taken over from the baseline made
-- no call.
with current_debates as (
    select 'debate.model=' || backbone || '.run=' || run || '.config=' || config_hash as stream, backbone, run,
           config_hash, system
    from int_debate_configs
    where is_current
),
debate_judge_calls as (  -- the configuration each judge call on a debated output belongs to
    select distinct request_key, backbone, run, config_hash from stg_debate_verdicts where not reused
    union
    select distinct request_key, backbone, run, config_hash from stg_debate_verdict_failures
),
attributed as (
    select c.*
    from int_call_costs c
    where c.stage in ('extraction', 'judge') and not starts_with(c.stream, 'debate-judge.')
    union all by name
    select c.* replace (d.system as system)
    from int_call_costs c
    join current_debates d on d.stream = c.stream
    where c.stage = 'debate'
    union all by name
    select c.* replace (d.system as system)
    from int_call_costs c
    join (select distinct j.request_key, d.system
          from debate_judge_calls j
          join current_debates d on d.backbone = j.backbone and d.run = j.run and d.config_hash = j.config_hash) d
        on d.request_key = c.request_key
    where c.stage = 'judge' and starts_with(c.stream, 'debate-judge.')
)
select system as model, run, item as contract_id, case stage when 'judge' then 'judge' else 'extraction' end as stage,
       model as billed_model, case when stage = 'judge' then model end as judge,
       input_tokens, output_tokens, cached_tokens, cache_write_tokens, batch_id is not null as batch, cost_usd,
       price_source,  -- which rates priced the call: a batch saving is measured only against registered ones
       -- a debate call's role (its subject ends `#<round>:<role>`) and when it was made, for the cost marts
       case when attributed.stage = 'debate' then coalesce(nullif(regexp_extract(subject, ':([a-z]+)$', 1), ''),
                                                           'debate') end as role, time
from attributed
