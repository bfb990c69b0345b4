-- depends_on: stg_debate_verdicts, int_debate_configs
-- Each judge's verdict per instance of the current debates, under the debate system's name (the latest when a
-- judge labelled an instance more than once), shaped like int_verdicts.
select v.judge, c.system as model, v.run, v.contract_id, v.clause_type, v.verdict, v.mismatch_type
from stg_debate_verdicts v
join int_debate_configs c
    on c.backbone = v.backbone and c.run = v.run and c.config_hash = v.config_hash and c.is_current
qualify row_number() over (partition by v.judge, c.system, v.run, v.contract_id, v.clause_type
                           order by v.time desc, v.seq desc) = 1
