-- depends_on: stg_debate_scope, int_debate_configs
-- The contracts each current debate covered, per stored subset it was run over, with its prompt version.
select distinct s.backbone, s.run, s.config_hash, c.system, c.config_kind, s.subset, s.prompt_version,
       unnest(s.contract_ids) as contract_id
from stg_debate_scope s
join int_debate_configs c
    on c.backbone = s.backbone and c.run = s.run and c.config_hash = s.config_hash and c.is_current
