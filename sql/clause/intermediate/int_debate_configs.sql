-- depends_on: stg_debate_scope
-- Every configuration debated per (backbone, run), with its kind, the system its outputs are reported under and
-- the corpus it ran on. Per (backbone, run, kind) the configuration debated most recently is the current one:
-- only its outcomes count (a re-calibrated debate replaces the earlier one instead of being mixed with it).
-- A configuration with no measured profile is the generic ablation; scopes recorded before the system name was
-- stored name it by the same rule.
with scopes as (
    select *, case when config.calibrated_from is null then 'generic' else 'calibrated' end as config_kind
    from stg_debate_scope
),
configs as (
    select backbone, run, config_hash,
           arg_max(config_kind, time) as config_kind,
           arg_max(config_name, time) as config_name,
           arg_max(coalesce(nullif(system, ''),
                            backbone || '+debate' || case when config_kind = 'generic' then '-generic' else '' end),
                   time) as system,
           arg_max(corpus_id, time) as corpus_id,
           max(time) as last_debated
    from scopes
    group by backbone, run, config_hash
)
select *,
       row_number() over (partition by backbone, run, config_kind order by last_debated desc, config_hash) = 1
           as is_current
from configs
