-- depends_on: stg_corpus_ingested, int_audit_scope
-- Every corpus outcomes can belong to, and which one is active (ingested last). Outcomes imported into a
-- home with no corpus form the pseudo-corpus 'imported', active only when nothing was ingested.
with ingested as (
    select corpus_id, arg_max(name, time) as corpus_name, max(time) as last_ingested
    from stg_corpus_ingested
    group by corpus_id
),
imported as (  -- every imported (model, run) is a cell of int_audit_scope: no need to read each outcome again
    select distinct 'imported' as corpus_id, 'imported outcomes' as corpus_name, null::varchar as last_ingested
    from int_audit_scope
    where corpus_id = 'imported'
),
corpora as (select * from ingested union all select * from imported)
select corpus_id, corpus_name, last_ingested,
       corpus_id = coalesce((select arg_max(corpus_id, last_ingested) from ingested), 'imported') as is_active
from corpora
