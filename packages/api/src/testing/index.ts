export * from "./factories";
export * from "./harness";
