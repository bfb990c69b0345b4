-- depends_on: insufficiency_judged, insufficiency_element_hits, int_insufficiency_gold, insufficiency_scope
-- One row per judged (model, run, item) in scope, scored exactly as the seed (lhl_platform.insufficiency.scoring):
-- gold = the required missing elements at the gold version in scope (the seed's M_v; a non-required element is never a hit nor a miss).
-- TP = gold elements identified; FP = additional claims plus the non-required elements identified (a claimed gap
-- outside M_v, which the seed's judge, shown only M_v, records as an additional claim); FN = gold - TP; other
-- identified names outside the gold are dropped and counted. Variants: P = TP/(TP+FP) (null when TP+FP = 0),
-- R = TP/gold, F2 = 5PR/(4P+R) (0 when TP = 0), hedge = claimed_anything_missing, ExplAcc = explained/TP (null when
-- TP = 0), Safety = 1 - fabricated/gold. Base items: only over_flag (FP > 0). Each figure is null where it is not
-- defined, so a mean skips it.
with hits as (
    select model, run, item, count(*) filter (where identified) as tp,
           count(*) filter (where identified and explanation_matches) as explained,
           count(*) filter (where fabricated) as fabricated
    from insufficiency_element_hits
    group by model, run, item
),
named as (
    select j.model, j.run, j.item as unit, i.kind, i.base_id, i.domain, i.gold, coalesce(h.tp, 0) as tp, j.claims,
           len(list_filter(j.identified, lambda x: list_contains(i.non_required_tags, x))) as non_required_named,
           len(list_filter(j.identified, lambda x: not list_contains(i.gold_tags, x)
                                                   and not list_contains(i.non_required_tags, x))) as dropped,
           j.claimed_anything_missing as hedged, coalesce(h.explained, 0) as explained,
           coalesce(h.fabricated, 0) as fabricated, j.source
    from insufficiency_judged j
    join int_insufficiency_gold i on i.item_set = j.item_set and i.item = j.item
        and i.gold_version = (select gold_version from insufficiency_scope)
    left join hits h on h.model = j.model and h.run = j.run and h.item = j.item
),
counted as (
    select *, claims + non_required_named as fp, gold - tp as fn from named
),
rated as (
    select *, case when kind = 'variant' then precision_rate(tp, fp) end as precision,
           case when kind = 'variant' then recall_rate(tp, fn) end as recall
    from counted
)
select model, run, unit, kind, base_id, domain, gold, tp, fp, fn, non_required_named, dropped, hedged, explained,
       fabricated, precision, recall,
       case when kind = 'variant' then
           case when tp = 0 then 0.0 else f2_score(precision, recall) end end as f2,
       case when kind = 'variant' then hedged::double end as hedge,
       case when kind = 'variant' then ratio(explained, tp) end as expl_acc,
       case when kind = 'variant' then 1 - ratio(fabricated, gold) end as safety,
       case when kind = 'base' then (fp > 0)::double end as over_flag,
       source
from rated
order by model, run, unit
