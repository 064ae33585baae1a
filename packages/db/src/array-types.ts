import type postgres from "postgres";

/**
 * PostgreSQL's built-in types and the oids of their array types (`pg_type.oid` → `pg_type.typarray`). These oids are
 * fixed in PostgreSQL's catalog (`pg_type.dat`) and the same on every server; a test reads them off the live one.
 */
export const BUILT_IN_ARRAY_TYPES: ReadonlyMap<number, number> = new Map([
  [16, 1000], // bool
  [17, 1001], // bytea
  [18, 1002], // char
  [19, 1003], // name
  [20, 1016], // int8
  [21, 1005], // int2
  [23, 1007], // int4
  [25, 1009], // text
  [26, 1028], // oid
  [114, 199], // json
  [650, 651], // cidr
  [700, 1021], // float4
  [701, 1022], // float8
  [790, 791], // money
  [829, 1040], // macaddr
  [869, 1041], // inet
  [1042, 1014], // bpchar
  [1043, 1015], // varchar
  [1082, 1182], // date
  [1083, 1183], // time
  [1114, 1115], // timestamp
  [1184, 1185], // timestamptz
  [1186, 1187], // interval
  [1266, 1270], // timetz
  [1700, 1231], // numeric
  [2950, 2951], // uuid
  [3802, 3807], // jsonb
]);

/**
 * Reads an array as PostgreSQL writes it (`array_out`): `{a,"b c",NULL,{1,2}}`, elements quoted when they need it,
 * `\` escaping inside quotes, an unquoted NULL for null, and a `[1:2]=` prefix when the lower bound is not 1.
 * `parseElement` reads each element's text (a number, a date); elements are strings without it.
 */
export function parseArrayLiteral(text: string, parseElement?: (value: string) => unknown): unknown[] {
  let at = text.startsWith("[") ? text.indexOf("=") + 1 : 0;
  const fail = (): never => {
    throw new Error(`Not a PostgreSQL array literal: ${text.slice(0, 80)}`);
  };
  const element = (value: string) => (parseElement ? parseElement(value) : value);
  const readArray = (): unknown[] => {
    if (text[at] !== "{") fail();
    at++;
    const items: unknown[] = [];
    if (text[at] === "}") {
      at++;
      return items;
    }
    for (;;) {
      const char = text[at];
      if (char === "{") {
        items.push(readArray());
      } else if (char === '"') {
        let value = "";
        let from = ++at;
        for (;;) {
          const next = text[at];
          if (next === undefined) fail();
          if (next === '"') break;
          if (next === "\\") {
            value += text.slice(from, at);
            from = ++at;
          }
          at++;
        }
        value += text.slice(from, at++);
        items.push(element(value));
      } else {
        const from = at;
        while (at < text.length && text[at] !== "," && text[at] !== "}") at++;
        const value = text.slice(from, at);
        items.push(value === "NULL" ? null : element(value));
      }
      if (text[at] === ",") at++;
      else if (text[at] === "}") {
        at++;
        return items;
      } else fail();
    }
  };
  const items = readArray();
  if (at !== text.length) fail();
  return items;
}

/** Writes an array as PostgreSQL reads it: every element quoted and escaped, null as NULL, nested arrays nested. */
export function serializeArrayLiteral(
  values: readonly unknown[],
  serializeElement?: (value: unknown) => unknown,
): string {
  const parts = values.map((value): string => {
    if (value === null) return "NULL";
    if (value === undefined) throw new Error("An array sent to PostgreSQL holds undefined; send null instead");
    if (Array.isArray(value)) return serializeArrayLiteral(value, serializeElement);
    const text = String(serializeElement ? serializeElement(value) : value);
    return `"${text.replace(/[\\"]/g, "\\$&")}"`;
  });
  return `{${parts.join(",")}}`;
}

type ClientOptions = {
  parsers: Record<number, (value: string) => unknown>;
  serializers: Record<number, (value: unknown) => unknown>;
  shared?: { typeArrayMap?: Record<number, number> };
};

/**
 * Gives a postgres.js client opened with `fetch_types: false` what its own type fetch would have given it for the
 * built-in types: arrays read into JavaScript arrays of parsed elements, and written from them.
 *
 * Why not let postgres.js fetch the types: it runs that query as the first statement of every new connection and
 * drops its promise (porsager/postgres#1192, #1205, #1223, open). A connection cut or cancelled at that moment (a
 * database restart, a failover, a pool closed during an outage) then rejects with no handler, and Node ends the
 * process on an unhandled rejection. Without the fetch, the first statement is the caller's, and it fails to the
 * caller. Like postgres.js, an array type that already has both a parser and a serializer (drizzle's date arrays) is
 * left as it is. Arrays of the schema's own types (the release channel enum) are written, not read: no statement
 * reads one.
 */
export function installBuiltInArrayTypes(client: postgres.Sql): void {
  const options = client.options as unknown as ClientOptions;
  const typeArrayMap = options.shared?.typeArrayMap;
  for (const [oid, arrayOid] of BUILT_IN_ARRAY_TYPES) {
    if (typeArrayMap) typeArrayMap[oid] = arrayOid;
    if (options.parsers[arrayOid] && options.serializers[arrayOid]) continue;
    const parseElement = options.parsers[oid];
    const serializeElement = options.serializers[oid];
    // Not marked `array` as postgres.js marks its own: it then passes the text without its opening brace.
    options.parsers[arrayOid] = (text) => parseArrayLiteral(text, parseElement);
    options.serializers[arrayOid] = (values) =>
      Array.isArray(values) ? serializeArrayLiteral(values, serializeElement) : values;
  }
  // A parameter of a type the client has no serializer for (an enum's array: `$1::release_channel[]`) is sent as
  // `'' + value`, which makes `a,b` of an array: such arrays go as array literals instead, and nothing else changes.
  // Installed last, so that the loop above sees which serializers really exist; one fallback serves every oid.
  const fallback = (value: unknown) => (Array.isArray(value) ? serializeArrayLiteral(value) : `${value}`);
  options.serializers = new Proxy(options.serializers, {
    has: () => true,
    get: (target, oid) => Reflect.get(target, oid) ?? fallback,
  });
}
