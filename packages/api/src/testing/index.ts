export * from "./appcast";
export * from "./delivery";
export * from "./downloaders";
export * from "./factories";
export * from "./harness";
export * from "./jws";
export * from "./openssl";
export * from "./secrets";
