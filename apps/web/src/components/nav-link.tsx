"use client";

import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

/** A link that says it is the current page (aria-current) when the path is its own or below it. */
export function NavLink({ href, children, exact = false }: { href: string; children: ReactNode; exact?: boolean }) {
  const pathname = usePathname();
  const current = exact ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
  return (
    <a href={href} aria-current={current ? "page" : undefined}>
      {children}
    </a>
  );
}
