-- depends_on: int_calls, stg_verdicts, int_debate_scope, stg_debate_verdicts, int_debate_configs, instance_outcomes, audit_scope, scope
-- Where the figures in scope come from, per (model, run): the extracting model's id and prompt version of its
-- recorded calls (role `extractor`), the report judge's model id and prompt version of its verdicts (role
-- `judge`), for a debate system the backbone it debated and the debate prompt version (role `debate`), and
-- outcomes brought in by `lhl import outcomes` (role `imported`, no prompt). `items` counts calls, verdicts,
-- debated contracts or imported instances.
with cells as (select distinct model, run, contract_id from audit_scope),
calls as (
    select model, run, item as contract_id, model_id, prompt_version
    from int_calls
    where completed and stage = 'extraction'
),
extraction as (
    select c.model, c.run, 'extractor' as role, c.model as name, c.model_id, c.prompt_version, count(*) as items
    from calls c
    semi join cells s on s.model = c.model and s.run = c.run and s.contract_id = c.contract_id
    group by all
),
judging as (
    select v.model, v.run, 'judge' as role, v.judge as name, v.judge_model_id as model_id, v.prompt_version,
           count(*) as items
    from stg_verdicts v
    semi join cells s on s.model = v.model and s.run = v.run and s.contract_id = v.contract_id
    where v.judge = (select judge from scope)
    group by all
),
current_debates as (select backbone, run, config_hash, system from int_debate_configs where is_current),
debating as (
    select d.system as model, d.run, 'debate' as role, d.backbone as name, null::varchar as model_id,
           d.prompt_version, count(distinct d.contract_id) as items
    from int_debate_scope d
    semi join cells s on s.model = d.system and s.run = d.run and s.contract_id = d.contract_id
    group by all
),
debate_judging as (
    select c.system as model, v.run, 'judge' as role, v.judge as name, v.judge_model_id as model_id,
           v.prompt_version, count(*) as items
    from stg_debate_verdicts v
    join current_debates c on c.backbone = v.backbone and c.run = v.run and c.config_hash = v.config_hash
    semi join cells s on s.model = c.system and s.run = v.run and s.contract_id = v.contract_id
    where v.judge = (select judge from scope)
    group by all
),
imported as (
    select model, run, 'imported' as role, model as name, null::varchar as model_id, null::varchar as prompt_version,
           count(*) as items
    from instance_outcomes
    where source = 'import'
    group by all
)
select model, run, role, name, model_id, prompt_version, items
from (select * from extraction union all select * from judging union all select * from debating
      union all select * from debate_judging union all select * from imported)
order by model, run, role, name, prompt_version
