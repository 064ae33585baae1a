-- The same key as 0003's, as PL/pgSQL: a SQL function with a FROM clause is never inlined, and PostgreSQL (before 18)
-- parses and plans its body again at each call, about 1 ms of CPU (measured: 3,000 calls 2.4 s; this form 16 µs a
-- call once the session has compiled it). Each license check, update check and appcast computes one key, and every
-- release written computes its generated version_sort. The output is byte for byte the old one's (channels.test.ts
-- compares both on generated and malformed versions), so stored version_sort values stay valid.
CREATE OR REPLACE FUNCTION shelf_semver_sort_key(version text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  m text[];
BEGIN
  m := regexp_match(version,
    '^v?(0|[1-9][0-9]{0,9})\.(0|[1-9][0-9]{0,9})\.(0|[1-9][0-9]{0,9})(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$');
  IF m IS NULL THEN
    RETURN NULL;
  END IF;
  IF m[4] IS NULL THEN
    RETURN lpad(m[1], 10, '0') || '.' || lpad(m[2], 10, '0') || '.' || lpad(m[3], 10, '0') || '~';
  END IF;
  RETURN lpad(m[1], 10, '0') || '.' || lpad(m[2], 10, '0') || '.' || lpad(m[3], 10, '0') || '-' || (
    SELECT string_agg(CASE WHEN id ~ '^(0|[1-9][0-9]{0,19})$' THEN '0' || lpad(id, 20, '0') ELSE '1' || id END, '!'
      ORDER BY n)
    FROM unnest(string_to_array(m[4], '.')) WITH ORDINALITY AS p(id, n));
END
$$;
