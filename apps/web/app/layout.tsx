import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Shelf", template: "%s · Shelf" },
  description: "Sell and deliver software: licensing, distribution, MCP and Sparkle.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="site-header">
          <a href="/" className="brand">
            Shelf
          </a>
          <nav>
            <a href="/docs/api">API reference</a>
            <a href="/api/openapi.json">OpenAPI</a>
          </nav>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
