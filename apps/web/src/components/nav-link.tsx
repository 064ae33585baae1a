"use client";

import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

/**
 * A link that says it is the current page (aria-current) when the path is its own or below it, or one of `also`
 * (a menu entry that stands for several pages).
 */
export function NavLink({
  href,
  children,
  exact = false,
  also = [],
}: {
  href: string;
  children: ReactNode;
  exact?: boolean;
  also?: readonly string[];
}) {
  const pathname = usePathname();
  const under = (path: string) => pathname === path || (!exact && pathname.startsWith(`${path}/`));
  return (
    <a href={href} aria-current={[href, ...also].some(under) ? "page" : undefined}>
      {children}
    </a>
  );
}
