-- The nine ContractScrub categories in the report's order, and whether the term-only ablation covers each
-- (lhl_platform/scrub/categories.py; a test holds the two equal).
create or replace macro scrub_categories() as table
    select * from (values
        (1, 'defined_terms', true),
        (2, 'undefined_capitalized_terms', true),
        (3, 'uncapitalized_defined_terms', true),
        (4, 'unused_defined_terms', true),
        (5, 'incorrect_section_references', true),
        (6, 'incorrect_party_references', true),
        (7, 'incorrectly_capitalized_terms', true),
        (8, 'terms_defined_multiple_times', true),
        (9, 'inconsistent_language', false)
    ) t(position, category, has_terms);
