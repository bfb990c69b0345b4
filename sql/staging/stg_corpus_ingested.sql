-- One row per `lhl ingest` (event corpus.ingested); the latest ingest names the active corpus.
select
    json_extract_string(payload, '$.corpus_id') as corpus_id,
    json_extract_string(payload, '$.name') as corpus_name,
    json_extract_string(payload, '$.source') as source,
    cast(json_extract(payload, '$.contracts') as integer) as contracts,
    time, stream, seq
from events
where type = 'corpus.ingested'
