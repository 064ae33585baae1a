import { describe, expect, it } from "vitest";
import {
  abilityTable,
  accountAbilities,
  allAbilities,
  defaultAbilities,
  describeAbility,
  isAbility,
  operatorAbilities,
} from "./abilities";
import { CONTRACT_DEVICE_ABILITIES } from "./testing/contract";

describe("the abilities table", () => {
  it("has one row for every ability and none besides, an account's or the operator's as its list says", () => {
    expect(Object.keys(abilityTable).sort()).toEqual([...allAbilities].sort());
    for (const ability of accountAbilities) expect(abilityTable[ability].app).toBe("account");
    for (const ability of operatorAbilities) expect(abilityTable[ability].app).toBe("operator");
  });

  it("words every ability in English and in Korean, each distinct among the account's", () => {
    for (const ability of allAbilities) {
      expect(abilityTable[ability].en).toMatch(/^[a-z][^\n]{3,80}$/);
      expect(abilityTable[ability].ko).toMatch(/[가-힣]/);
    }
    const english = accountAbilities.map((ability) => abilityTable[ability].en);
    const korean = accountAbilities.map((ability) => abilityTable[ability].ko);
    expect(new Set(english).size).toBe(accountAbilities.length);
    expect(new Set(korean).size).toBe(accountAbilities.length);
  });

  it("describes an ability in the page's language, English for any language but Korean", () => {
    expect(describeAbility("products.read", "ko")).toBe("라이브러리와 제품 조회, 업데이트 확인");
    expect(describeAbility("products.read", "en")).toBe("read your library and products, check for updates");
    expect(describeAbility("products.read", "fr")).toBe(describeAbility("products.read", "en"));
  });

  it("tells an ability from any other scope string, prototype names included", () => {
    expect(isAbility("mcp.read")).toBe(true);
    expect(isAbility("claudeai")).toBe(false);
    expect(isAbility("toString")).toBe(false);
    expect(isAbility("__proto__")).toBe(false);
  });

  it("gives each kind of key defaults that are account abilities", () => {
    for (const list of Object.values(defaultAbilities)) {
      for (const ability of list) expect(abilityTable[ability].app).toBe("account");
    }
  });

  it("gives a device's key the contract's abilities, in its order", () => {
    expect([...defaultAbilities.device]).toEqual(CONTRACT_DEVICE_ABILITIES);
  });
});
