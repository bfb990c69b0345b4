-- Each choice of the primary judge (event judge.primary_set); the latest one is the default for reports.
select json_extract_string(payload, '$.name') as judge, time, seq
from events
where type = 'judge.primary_set'
