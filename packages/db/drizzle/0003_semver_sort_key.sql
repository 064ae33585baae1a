-- A text that sorts (under COLLATE "C") in semantic-version precedence: major, minor and patch zero-padded; a release
-- after its pre-releases ('~' > '-'); pre-release identifiers compared one by one, numeric ones (padded, prefix '0')
-- before alphanumeric ones (prefix '1'), separated by '!' so that a shorter list sorts first. Build metadata is
-- ignored. NULL for a version that is not semver (publishing refuses those).
CREATE FUNCTION shelf_semver_sort_key(version text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
  SELECT CASE WHEN m IS NULL THEN NULL ELSE
    lpad(m[1], 10, '0') || '.' || lpad(m[2], 10, '0') || '.' || lpad(m[3], 10, '0') ||
    CASE WHEN m[4] IS NULL THEN '~' ELSE '-' || (
      SELECT string_agg(CASE WHEN id ~ '^(0|[1-9][0-9]{0,19})$' THEN '0' || lpad(id, 20, '0') ELSE '1' || id END, '!' ORDER BY n)
      FROM unnest(string_to_array(m[4], '.')) WITH ORDINALITY AS p(id, n)
    ) END
  END
  FROM (SELECT regexp_match(version,
    '^v?(0|[1-9][0-9]{0,9})\.(0|[1-9][0-9]{0,9})\.(0|[1-9][0-9]{0,9})(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$') AS m) AS parsed
$$;
