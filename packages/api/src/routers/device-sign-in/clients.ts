/**
 * The clients that may sign a device in (contract 5.7: the command-line client and the desktop apps client). A
 * client's id names it on the approval page and is the unit of least-recently-used key replacement (contract 5.10).
 */
export const deviceSignInClients = {
  "shelf-cli": { name: "Shelf command-line client" },
  "shelf-desktop": { name: "Shelf desktop apps" },
} as const;

export type DeviceSignInClientId = keyof typeof deviceSignInClients;
export const deviceSignInClientIds = Object.keys(deviceSignInClients) as [
  DeviceSignInClientId,
  ...DeviceSignInClientId[],
];
