-- depends_on: stg_debate_turns, stg_debate_verdicts, stg_debate_verdict_failures, int_debate_configs
-- Tokens of every call the current debates made, shaped like int_usage and attributed to the debate system's
-- (run, contract): each role answer (one turn per call; a call answered from the log on a re-run adds no turn)
-- is billed to the backbone, each judge call on the debated outputs to the judge (a verdict taken over from
-- the baseline's identical request made no call). A role call that failed is not counted here: its tokens
-- are on its model.call_failed record.
select c.system as model, t.run, t.contract_id, 'extraction' as stage, t.backbone as billed_model,
       null::varchar as judge, t.input_tokens, t.output_tokens, t.cached_tokens, t.cache_write_tokens, false as batch
from stg_debate_turns t
join int_debate_configs c on c.backbone = t.backbone and c.run = t.run and c.config_hash = t.config_hash and c.is_current
union all
select c.system, v.run, v.contract_id, 'judge', v.judge, v.judge, v.input_tokens, v.output_tokens, v.cached_tokens,
       v.cache_write_tokens, false
from stg_debate_verdicts v
join int_debate_configs c on c.backbone = v.backbone and c.run = v.run and c.config_hash = v.config_hash and c.is_current
where not v.reused
union all
select c.system, f.run, f.contract_id, 'judge', f.judge, f.judge, f.input_tokens, f.output_tokens, f.cached_tokens,
       f.cache_write_tokens, false
from stg_debate_verdict_failures f
join int_debate_configs c on c.backbone = f.backbone and c.run = f.run and c.config_hash = f.config_hash and c.is_current
