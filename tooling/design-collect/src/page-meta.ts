/** What the DOM of a page says of it, read inside the page. */
export type PageFacts = {
  title: string;
  /** A page type guessed from the DOM, for pages no route declares. */
  guessedType: string;
  patterns: string[];
  elements: string[];
  components: string[];
  /** Same-origin links (absolute, without their fragment). */
  links: string[];
  /** A build version the page states (`<meta name="build-version">` or `generator`), if any. */
  buildVersion: string | null;
};

/**
 * Reads a page's title, the UI elements and patterns on it, the product's named components (its own class names, as
 * `card`, `site-header`, `text-field`) and its same-origin links. Runs in the page (playwright serializes it), so it
 * uses nothing from outside its body.
 */
export function readPageFacts(): PageFacts {
  const all = (selector: string) => Array.from(document.querySelectorAll(selector));
  const has = (selector: string) => document.querySelector(selector) !== null;
  const visible = (element: Element) => {
    const box = (element as HTMLElement).getBoundingClientRect?.();
    return !box || box.width > 0 || box.height > 0;
  };
  const some = (selector: string) => all(selector).some(visible);

  const elements: string[] = [];
  const element = (name: string, present: boolean) => {
    if (present) elements.push(name);
  };
  element("button", some("button, [role=button], input[type=submit], input[type=button]"));
  element("link", some("a[href]"));
  element(
    "text-field",
    some(
      "input:not([type]), input[type=text], input[type=email], input[type=search], input[type=url], input[type=tel]",
    ),
  );
  element("password-field", some("input[type=password]"));
  element("number-field", some("input[type=number]"));
  element("date-field", some("input[type=date], input[type=datetime-local], input[type=time]"));
  element("textarea", some("textarea"));
  element("checkbox", some("input[type=checkbox], [role=checkbox]"));
  element("radio", some("input[type=radio], [role=radio]"));
  element("switch", some("[role=switch]"));
  element("select", some("select, [role=combobox], [role=listbox]"));
  element("form", some("form"));
  element("table", some("table, [role=grid], [role=table]"));
  element("list", some("main ul, main ol, [role=list]"));
  element("dialog", some("dialog[open], [role=dialog], [role=alertdialog]"));
  element("tab", some("[role=tab]"));
  element("menu", some("[role=menu], [role=menubar]"));
  element("navigation", some("nav, [role=navigation]"));
  element("heading", some("h1, h2, h3, h4, h5, h6, [role=heading]"));
  element("image", some("img, picture, [role=img]"));
  element("icon", some("svg"));
  element("alert", some("[role=alert]"));
  element("status", some("[role=status], output"));
  element("code", some("code, pre"));
  element("details", some("details"));
  element("progress", some("progress, [role=progressbar]"));
  element("description-list", some("dl"));
  element("header", some("header, [role=banner]"));
  element("footer", some("footer, [role=contentinfo]"));

  const patterns: string[] = [];
  const pattern = (name: string, present: boolean) => {
    if (present) patterns.push(name);
  };
  const inputs = "input:not([type=hidden]), select, textarea";
  pattern(
    "form",
    all("form").some((form) => visible(form) && form.querySelector(inputs) !== null),
  );
  pattern(
    "sign-in-form",
    some("form input[type=password]") && !some("form input[type=password] ~ input[type=password]"),
  );
  pattern("data-table", some("table th, [role=columnheader]"));
  pattern("empty-state", some("[class*=empty i], [data-empty], [class*=placeholder i]:not(input)"));
  pattern("tabs", some("[role=tablist]"));
  pattern("modal-dialog", some("dialog[open], [role=dialog][aria-modal=true], [role=alertdialog]"));
  pattern("pagination", some("[aria-label*=pagination i], [class*=pagination i], a[rel=next], a[rel=prev]"));
  pattern("search", some("[role=search], input[type=search]"));
  pattern("navigation-bar", some("header nav, [role=banner] nav, nav[aria-label]"));
  pattern("breadcrumbs", some("[aria-label*=breadcrumb i], [class*=breadcrumb i]"));
  pattern("card", some("[class~=card], [class*=card-]"));
  pattern("hero", some("[class~=hero], [class*=hero-]"));
  pattern("notice", some("[role=status], [class~=notice]"));
  pattern("error-message", some("[role=alert], [class~=error]"));
  pattern("language-switch", some("[name=locale], [hreflang], [class*=language i], [class*=locale i]"));
  pattern("skip-link", some("a[href='#main'], [class*=skip-link]"));
  pattern("code-block", some("pre"));
  pattern("copy-field", some("input[readonly]"));
  pattern(
    "list",
    all("main ul, main ol").some((list) => visible(list) && list.children.length >= 3),
  );
  pattern("call-to-action", some("a[class~=button], a[role=button]"));

  // The product's own component names: kebab-case class names used on the page, most frequent first.
  const counts = new Map<string, number>();
  for (const node of all("body [class]")) {
    for (const name of Array.from(node.classList)) {
      if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name) || name.length > 64) continue;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  const components = Array.from(counts.entries())
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 100)
    .map(([name]) => name);

  const links = new Set<string>();
  for (const anchor of all("a[href]") as HTMLAnchorElement[]) {
    try {
      const url = new URL(anchor.href, location.href);
      if (url.origin !== location.origin) continue;
      url.hash = "";
      links.add(url.href);
    } catch {
      // An address the browser cannot read is no page to visit.
    }
  }

  const guessedType = has("input[type=password]")
    ? "sign-in"
    : has("table, [role=grid]")
      ? "list"
      : all(inputs).length >= 2
        ? "form"
        : "detail";
  const stated =
    document.querySelector<HTMLMetaElement>("meta[name=build-version], meta[name=version], meta[name=generator]")
      ?.content ?? null;

  return {
    title: document.title.trim().slice(0, 200),
    guessedType,
    patterns,
    elements,
    components,
    links: Array.from(links).sort(),
    buildVersion: stated && stated.trim() !== "" ? stated.trim().slice(0, 64) : null,
  };
}
