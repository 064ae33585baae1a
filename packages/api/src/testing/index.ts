export * from "./delivery";
export * from "./factories";
export * from "./harness";
export * from "./secrets";
