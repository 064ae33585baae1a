-- A path's segments percent-encoded as JavaScript's encodeURIComponent does, its slashes kept. Install assets keep
-- their path encoded this way in a generated column (next migration), so download URLs cost nothing to build.
CREATE FUNCTION shelf_encode_uri_path(path text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
  SELECT coalesce(string_agg(
    CASE WHEN c ~ '^[A-Za-z0-9_.!~*''()/-]$' THEN c
    ELSE upper(regexp_replace(encode(convert_to(c, 'UTF8'), 'hex'), '(..)', '%\1', 'g')) END, '' ORDER BY i), '')
  FROM unnest(string_to_array(path, NULL)) WITH ORDINALITY AS t(c, i)
$$;
