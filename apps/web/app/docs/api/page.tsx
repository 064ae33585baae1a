import type { Metadata } from "next";
import { getRuntime } from "../../../src/runtime";

export const metadata: Metadata = { title: "API reference" };
export const dynamic = "force-dynamic";

type Schema = {
  $ref?: string;
  type?: string | string[];
  items?: Schema;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  format?: string;
  description?: string;
};
type Parameter = { in: string; name: string; required?: boolean; schema?: Schema; description?: string };
type Response = { description?: string; content?: Record<string, { schema?: Schema }> };
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, Response>;
  "x-ability"?: string | null;
  "x-product-access"?: string | null;
};

const refName = (ref: string) => ref.split("/").pop() ?? ref;

function typeLabel(schema: Schema | undefined): string {
  if (!schema) return "any";
  if (schema.$ref) return refName(schema.$ref);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map(typeLabel).join(" | ");
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (schema.properties && !schema.type?.includes("array")) {
    const fields = Object.entries(schema.properties).map(([name, field]) => `${name}: ${typeLabel(field)}`);
    return `{${fields.join(", ")}}`;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? "object"];
  return types
    .map((type) =>
      type === "array" ? `array<${typeLabel(schema.items)}>` : schema.format ? `${type} (${schema.format})` : type,
    )
    .join(" | ");
}

/** Descriptions use Markdown's `code` spans; render just those. */
function Prose({ text }: { text: string }) {
  return (
    <>
      {text.split("`").map((part, index) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
        index % 2 === 1 ? <code key={index}>{part}</code> : <span key={index}>{part}</span>,
      )}
    </>
  );
}

function accessLine(operation: Operation): string {
  const ability = operation["x-ability"];
  const parts = [
    ability === "public" ? "No key needed" : ability === "any-key" ? "Any valid key" : `Ability: ${ability}`,
  ];
  if (operation["x-product-access"] === "entitled") parts.push("the account must be entitled to the product");
  return parts.join("; ");
}

export default function ApiReference() {
  const document = getRuntime().accountApi.document;
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, operation]) => ({ path, method, operation })),
  );
  const tags = [...new Set(operations.flatMap(({ operation }) => operation.tags ?? ["other"]))];
  const referenced = Object.keys(schemas).filter((name) => !name.endsWith("ErrorBody"));

  return (
    <article className="reference">
      <h1>API reference</h1>
      <p>
        <Prose text={document.info.description ?? ""} /> Base URL: <code>{document.servers?.[0]?.url}</code>. The
        machine-readable document is at <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI {document.openapi}).
      </p>
      <section>
        <h2>Errors</h2>
        <p>
          Errors answer JSON <code>{"{message, error}"}</code>, where <code>error</code> is a code such as{" "}
          <code>missing_api_key</code>, <code>invalid_api_key</code>, <code>missing_api_key_ability</code> or{" "}
          <code>product_entitlement_required</code>. Validation failures answer 422{" "}
          <code>{"{message, errors: {field: [messages]}}"}</code>. Every response carries <code>X-RateLimit-Limit</code>{" "}
          and <code>X-RateLimit-Remaining</code>; over the limit, 429 with <code>Retry-After</code>.
        </p>
      </section>
      {tags.map((tag) => (
        <section key={tag}>
          <h2 className="tag">{tag}</h2>
          {operations
            .filter(({ operation }) => (operation.tags ?? ["other"]).includes(tag))
            .map(({ path, method, operation }) => (
              <div className="operation" key={`${method} ${path}`} id={operation.operationId}>
                <h3>
                  <span className={`method method-${method}`}>{method.toUpperCase()}</span> <code>{path}</code>
                </h3>
                <p className="summary">{operation.summary}</p>
                {operation.description && (
                  <p>
                    <Prose text={operation.description} />
                  </p>
                )}
                <p className="access">{accessLine(operation)}</p>
                {operation.parameters && operation.parameters.length > 0 && (
                  <table>
                    <thead>
                      <tr>
                        <th>Parameter</th>
                        <th>In</th>
                        <th>Type</th>
                        <th>Required</th>
                      </tr>
                    </thead>
                    <tbody>
                      {operation.parameters.map((parameter) => (
                        <tr key={`${parameter.in}-${parameter.name}`}>
                          <td>
                            <code>{parameter.name}</code>
                          </td>
                          <td>{parameter.in}</td>
                          <td>{typeLabel(parameter.schema)}</td>
                          <td>{parameter.required ? "yes" : "no"}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
                <ul className="responses">
                  {Object.entries(operation.responses ?? {}).map(([status, response]) => {
                    const content = Object.entries(response.content ?? {})[0];
                    return (
                      <li key={status}>
                        <strong>{status}</strong> <Prose text={response.description ?? ""} />
                        {content && (
                          <>
                            {" "}
                            — <code>{content[0]}</code> {typeLabel(content[1].schema)}
                          </>
                        )}
                      </li>
                    );
                  })}
                </ul>
              </div>
            ))}
        </section>
      ))}
      <section>
        <h2>Schemas</h2>
        {referenced.map((name) => {
          const schema = schemas[name] as Schema;
          return (
            <div className="schema" key={name} id={`schema-${name}`}>
              <h3>{name}</h3>
              <table>
                <tbody>
                  {Object.entries(schema.properties ?? {}).map(([field, fieldSchema]) => (
                    <tr key={field}>
                      <td>
                        <code>{field}</code>
                      </td>
                      <td>{typeLabel(fieldSchema)}</td>
                      <td>{schema.required?.includes(field) ? "" : "optional"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        })}
      </section>
    </article>
  );
}
