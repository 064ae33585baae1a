import type { DemoProduct } from "./catalog";
import { fatVolume, udifImage } from "./disk-image";
import { zipArchive } from "./zip";

/**
 * Demo release files of the kinds the command-line tools' and agent skills' archives (seed.ts) do not cover: each a
 * real archive of its kind, so whatever unpacks or mounts it (`shelf install`, VS Code, the Finder) works. `bytes`
 * (the release's own, from seed.ts) rides inside each, so the downloads stay as large as before.
 */
export function demoReleaseFile(product: DemoProduct, version: string, format: string, bytes: Buffer): Buffer {
  if (format === "dmg") return macDiskImage(product, version, bytes);
  if (format === "vsix") return vsCodeExtension(product, version, bytes);
  if (format === "zip") return folderArchive(product, version, bytes);
  throw new Error(`No demo file of the ${format} kind (${product.slug}): add one to demo/release-files.ts.`);
}

const text = (lines: string[]) => Buffer.from(`${lines.join("\n")}\n`, "utf8");

/** A `.dmg` of the app: `<Name>.app` with its Info.plist, a launcher script and the release's bytes as a resource. */
function macDiskImage(product: DemoProduct, version: string, bytes: Buffer): Buffer {
  const payload = product.delivery?.payload;
  const app = payload?.app_path ?? `${product.name}.app`;
  const bundleId = payload?.bundle_id ?? `test.shelf.${product.slug}`;
  const executable = app.replace(/\.app$/, "");
  const infoPlist = text([
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    `\t<key>CFBundleIdentifier</key><string>${bundleId}</string>`,
    `\t<key>CFBundleName</key><string>${executable}</string>`,
    `\t<key>CFBundleExecutable</key><string>${executable}</string>`,
    `\t<key>CFBundleShortVersionString</key><string>${version}</string>`,
    "\t<key>CFBundlePackageType</key><string>APPL</string>",
    "</dict>",
    "</plist>",
  ]);
  const volume = fatVolume(product.name, [
    { path: `${app}/Contents/Info.plist`, content: infoPlist },
    {
      path: `${app}/Contents/MacOS/${executable}`,
      content: text(["#!/bin/sh", `echo "${product.name} ${version} (a Shelf demo app)"`]),
    },
    { path: `${app}/Contents/Resources/${product.slug}.bin`, content: bytes },
    {
      path: "Read me.txt",
      content: text([`${product.name} ${version}`, "", `A Shelf demo app: drag ${app} to Applications.`]),
    },
  ]);
  return udifImage(volume, "whole disk (MS-DOS : 0)");
}

/** A `.vsix` (an Open Packaging zip): the manifest VS Code reads, `extension/package.json` and the code. */
function vsCodeExtension(product: DemoProduct, version: string, bytes: Buffer): Buffer {
  const id = product.delivery?.payload.extension_id ?? `shelf-demo.${product.slug}`;
  const [publisher, name] = id.split(".", 2) as [string, string];
  const packageJson = {
    name,
    displayName: product.name,
    description: product.description,
    version,
    publisher,
    engines: { vscode: "^1.90.0" },
    main: "./extension.js",
    activationEvents: ["onStartupFinished"],
  };
  const contentTypes = text([
    '<?xml version="1.0" encoding="utf-8"?>',
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">',
    '<Default Extension=".json" ContentType="application/json"/>',
    '<Default Extension=".js" ContentType="application/javascript"/>',
    '<Default Extension=".md" ContentType="text/markdown"/>',
    '<Default Extension=".bin" ContentType="application/octet-stream"/>',
    '<Default Extension=".vsixmanifest" ContentType="text/xml"/>',
    "</Types>",
  ]);
  const manifest = text([
    '<?xml version="1.0" encoding="utf-8"?>',
    '<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011">',
    "  <Metadata>",
    `    <Identity Language="en-US" Id="${name}" Version="${version}" Publisher="${publisher}"/>`,
    `    <DisplayName>${product.name}</DisplayName>`,
    `    <Description xml:space="preserve">${product.description}</Description>`,
    "  </Metadata>",
    '  <Installation><InstallationTarget Id="Microsoft.VisualStudio.Code"/></Installation>',
    "  <Dependencies/>",
    "  <Assets>",
    '    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/>',
    "  </Assets>",
    "</PackageManifest>",
  ]);
  return zipArchive([
    { path: "[Content_Types].xml", content: contentTypes },
    { path: "extension.vsixmanifest", content: manifest },
    { path: "extension/package.json", content: Buffer.from(`${JSON.stringify(packageJson, null, 2)}\n`) },
    {
      path: "extension/extension.js",
      content: text(["exports.activate = () => {};", "exports.deactivate = () => {};"]),
    },
    { path: "extension/README.md", content: text([`# ${product.name} ${version}`, "", product.description]) },
    { path: `extension/assets/${product.slug}.bin`, content: bytes },
  ]);
}

/**
 * A `.zip` of a folder: the delivery's `root` (a managed directory, unpacked into place by `shelf install`) or the
 * product's name (a manual download), with a README and the release's bytes.
 */
function folderArchive(product: DemoProduct, version: string, bytes: Buffer): Buffer {
  const root = product.delivery?.payload.root ?? product.slug;
  const steps = product.manual?.install_steps ?? [];
  return zipArchive([
    {
      path: `${root}/README.md`,
      content: text([
        `# ${product.name} ${version}`,
        "",
        product.description,
        ...(steps.length ? ["", ...steps.map((step, index) => `${index + 1}. ${step}`)] : []),
      ]),
    },
    { path: `${root}/${product.slug}.bin`, content: bytes },
  ]);
}
